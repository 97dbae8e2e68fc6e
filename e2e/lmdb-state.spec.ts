/**
 * An lmdb state store job as an operator sees it: its Charts tab plots the LMDB figures (local
 * bytes, changelog bytes, stores rebuilt), and once stopped its Checkpoint tab lists the worker's
 * local copy of the state, with the version it holds and that the next start there reuses it.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { signIn } from './sign-in';

const auth = { authorization: 'Bearer e2e-admin-token-0123456789abcdef' };
type JobState = { status: string; lastBatchId: number | null };
const jobState = async (request: APIRequestContext, id: string) => (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()) as JobState;

let jobId: string | undefined;
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => {
  if (!jobId) return;
  await request.post(`/api/jobs/${jobId}/stop`, { headers: auth });
  await expect.poll(async () => ['STOPPED', 'FAILED'].includes((await jobState(request, jobId!)).status), { timeout: 60_000 }).toBe(true);
  expect((await request.delete(`/api/jobs/${jobId}`, { headers: auth })).status()).toBe(204);
});

test('an lmdb job: its LMDB chart, and its local state cache in the checkpoint inspector', async ({ page, request }) => {
  test.setTimeout(240_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-lmdb-'));
  mkdirSync(path.join(dir, 'in'));
  let n = 0;
  const addFile = () => {
    const name = `part-${n}.json`;
    writeFileSync(path.join(dir, 'in', `.${name}`), ['a', 'b', `u${n}`].map((user) => JSON.stringify({ user, v: n })).join('\n') + '\n');
    renameSync(path.join(dir, 'in', `.${name}`), path.join(dir, 'in', name));
    n++;
  };
  addFile();
  addFile();
  const spec = {
    name: `e2e-lmdb-${Date.now()}`,
    source: { name: 'events', type: 'files', options: { path: path.join(dir, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'user', type: 'string' }, { name: 'v', type: 'long' }] },
    sql: 'SELECT user, count(*) AS n FROM events GROUP BY user',
    sink: { type: 'console', options: {} },
    outputMode: 'update',
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
    stateStore: { provider: 'lmdb' },
  };
  const res = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(res.status(), await res.text()).toBe(201);
  jobId = ((await res.json()) as { job: { id: string } }).job.id;
  expect((await request.post(`/api/jobs/${jobId}/start`, { headers: auth })).status()).toBe(200);
  await expect.poll(async () => (await jobState(request, jobId!)).lastBatchId, { timeout: 90_000 }).toBe(1);

  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await page.getByRole('tab', { name: 'Charts' }).click();
  const chart = page.getByRole('region', { name: 'LMDB state store' });
  await expect(chart.getByRole('img', { name: 'LMDB state store' })).toBeVisible();
  await expect(chart.getByText('local LMDB bytes')).toBeVisible();
  await expect(chart.getByText('stores rebuilt', { exact: true })).toBeVisible();
  // A heap-store job's charts have no such panel (the state bytes panel is there for both).
  await expect(page.getByRole('region', { name: 'State bytes' })).toBeVisible();

  await request.post(`/api/jobs/${jobId}/stop`, { headers: auth });
  await expect.poll(async () => (await jobState(request, jobId!)).status, { timeout: 60_000 }).toBe('STOPPED');
  await page.getByRole('tab', { name: 'Checkpoint', exact: true }).click();
  const caches = page.getByRole('region', { name: 'Local state caches' });
  // The worker reports its caches at its next heartbeat; the inspector reads on Refresh.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(caches.getByRole('table', { name: 'Local state caches' })).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  const row = caches.getByRole('row', { name: /state\/0\/0/ });
  await expect(row).toBeVisible();
  await expect(row.getByRole('cell').nth(2)).toHaveText('2');
  await expect(row).toContainText('reuses v2');
  await expect(row).toContainText('state-cache');
});
