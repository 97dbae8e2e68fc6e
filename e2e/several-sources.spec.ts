/**
 * A job over two streams as an operator sees it: its page lists the sources in checkpoint order,
 * and its Charts tab has a panel per source (input rows per batch, commit lag where a source
 * reports one), drawn from each batch's progress.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { auth, jobState, removeJobs, startedJob } from './jobs-api';
import { signIn } from './sign-in';

const created: string[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => removeJobs(request, created));

/** Writes a JSON-lines file into `dir/folder` whole (renamed into place, as a producer would), so the files source never reads half of it. */
function writeJsonLines(dir: string, folder: string, name: string, rows: object[]): void {
  mkdirSync(path.join(dir, folder), { recursive: true });
  writeFileSync(path.join(dir, folder, `.${name}`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  renameSync(path.join(dir, folder, `.${name}`), path.join(dir, folder, name));
}

test('a job over two streams: its sources listed, and a chart panel per source', async ({ page, request }) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-sources-'));
  const write = (folder: string, name: string, rows: object[]) => writeJsonLines(dir, folder, name, rows);
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
  const jobId = await startedJob(request, spec, created);
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

test('a join of two streams with watermarks: each source\'s own watermark, the policy, and the join\'s state by side', async ({ page, request }) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-join-'));
  const write = (folder: string, name: string, rows: object[]) => writeJsonLines(dir, folder, name, rows);
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();
  write('impressions', 'part-0.json', [0, 1, 2, 3].map((id) => ({ id, ts: at(id) })));
  write('clicks', 'part-0.json', [{ id: 1, ts: at(30) }]);
  const source = (name: string, delay: string) => ({ name, type: 'files', options: { path: path.join(dir, name), format: 'json' }, schema: [{ name: 'id', type: 'long' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: delay });
  const spec = {
    name: `e2e-join-${Date.now()}`,
    sources: [source('impressions', '10 seconds'), source('clicks', '20 seconds')],
    multipleWatermarkPolicy: 'min',
    sql: 'SELECT i.id, i.ts AS shown, c.ts AS clicked FROM impressions i JOIN clicks c ON i.id = c.id AND c.ts BETWEEN i.ts AND i.ts + INTERVAL 1 MINUTE',
    sink: { type: 'console', options: {} },
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
  };
  const jobId = await startedJob(request, spec, created);
  await expect.poll(async () => (await jobState(request, jobId)).lastBatchId ?? -1, { timeout: 90_000 }).toBeGreaterThanOrEqual(0);

  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await expect(page.getByLabel('Sources', { exact: true })).toContainText('impressions (files, watermark ts − 10 seconds), clicks (files, watermark ts − 20 seconds)');
  const title = 'Watermark gap per source (s)';
  const panel = page.getByRole('region', { name: title });
  await expect(panel.getByRole('img', { name: title })).toBeVisible();
  await expect(panel).toContainText('multipleWatermarkPolicy min');
  await expect(panel.getByText('impressions: own watermark gap')).toBeVisible();
  await expect(panel.getByText('clicks: own watermark gap')).toBeVisible();
  await expect(panel.getByText('global watermark gap (min)')).toBeVisible();
  const shot = (part: string) => process.env.E2E_SCREENSHOT?.replace(/(\.png)?$/, `-join-${part}.png`);
  if (shot('charts')) await page.screenshot({ path: shot('charts'), fullPage: true });

  await page.getByRole('tab', { name: 'Batches' }).click();
  await page.getByRole('button', { name: 'Details of batch 0' }).click();
  await expect(page.getByRole('heading', { name: 'Source 1: impressions' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Source 2: clicks' })).toBeVisible();
  // After batch 0: impressions 10:00:03 − 10 s, clicks 10:00:30 − 20 s; min picks impressions'.
  await expect(page.getByText(`impressions ${at(-7)}, clicks ${at(10)}`)).toBeVisible();
  const state = page.getByRole('table', { name: 'State operators' });
  await expect(state.getByRole('row', { name: /^left side 4 / })).toBeVisible();
  await expect(state.getByRole('row', { name: /^right side 1 / })).toBeVisible();
  if (shot('batch')) await page.screenshot({ path: shot('batch'), fullPage: true });
});
