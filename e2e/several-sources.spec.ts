/**
 * A job over two streams as an operator sees it: its page lists the sources in checkpoint order,
 * and its Charts tab has a panel per source (input rows per batch, commit lag where a source
 * reports one), drawn from each batch's progress.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { auth, jobState, removeJobs } from './jobs-api';
import { signIn } from './sign-in';


const created: string[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => removeJobs(request, created));

test('a job over two streams: its sources listed, and a chart panel per source', async ({ page, request }) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-sources-'));
  const write = (folder: string, name: string, rows: object[]) => {
    mkdirSync(path.join(dir, folder), { recursive: true });
    writeFileSync(path.join(dir, folder, `.${name}`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    renameSync(path.join(dir, folder, `.${name}`), path.join(dir, folder, name));
  };
  write('a', 'part-0.json', [{ v: 1 }, { v: 2 }, { v: 3 }]);
  write('b', 'part-0.json', [{ v: 10 }]);
  const source = (name: string, folder: string) => ({ name, type: 'files', options: { path: path.join(dir, folder), format: 'json' }, schema: [{ name: 'v', type: 'long' }] });
  const spec = {
    name: `e2e-sources-${Date.now()}`,
    sources: [source('impressions', 'a'), source('clicks', 'b')],
    sql: 'SELECT v FROM impressions UNION ALL SELECT v FROM clicks',
    sink: { type: 'console', options: {} },
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
  };
  const res = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(res.status(), await res.text()).toBe(201);
  const jobId = ((await res.json()) as { job: { id: string } }).job.id;
  created.push(jobId);
  expect((await request.post(`/api/jobs/${jobId}/start`, { headers: auth })).status()).toBe(200);
  await expect.poll(async () => (await jobState(request, jobId)).lastBatchId, { timeout: 90_000 }).toBe(0);
  // A second batch with rows of one source only.
  write('b', 'part-1.json', [{ v: 11 }, { v: 12 }]);
  await expect.poll(async () => (await jobState(request, jobId)).lastBatchId, { timeout: 90_000 }).toBe(1);

  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await expect(page.getByLabel('Sources', { exact: true })).toContainText('impressions (files), clicks (files)');
  await page.getByRole('tab', { name: 'Charts' }).click();
  const title = 'Per source: input rows per batch and commit lag';
  const panel = page.getByRole('region', { name: title });
  await expect(panel.getByRole('img', { name: title })).toBeVisible();
  await expect(panel.getByText('impressions: input rows')).toBeVisible();
  await expect(panel.getByText('clicks: input rows')).toBeVisible();
  // The API behind it: each batch's rows per source, as the batches read them.
  const charts = (await (await request.get(`/api/jobs/${jobId}/charts`, { headers: auth })).json()) as { sourceNames: string[]; sourcePoints: { sources: { numInputRows: number }[] }[] };
  expect(charts.sourceNames).toEqual(['impressions', 'clicks']);
  expect(charts.sourcePoints.map((p) => p.sources.map((s) => s.numInputRows))).toEqual([[3, 1], [0, 2]]);
  if (process.env.E2E_SCREENSHOT) await panel.screenshot({ path: process.env.E2E_SCREENSHOT });
});
