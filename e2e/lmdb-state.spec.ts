/**
 * An lmdb state store job as an operator sees it: its Charts tab plots the LMDB figures (local
 * bytes, changelog bytes, stores rebuilt), and once stopped its Checkpoint tab lists the worker's
 * local copy of the state, with the version it holds and that the next start there reuses it.
 * A savepoint of it restored as a new job with the in-memory store converts the state, and that
 * job runs on from it.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { auth, jobState, removeJobs } from './jobs-api';
import { signIn } from './sign-in';


let jobId: string | undefined;
const created: string[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => removeJobs(request, created));

test('an lmdb job: its LMDB chart, its local state cache, and a savepoint of it as a new heap-store job', async ({ page, request }) => {
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
  created.push(jobId);
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
  // The worker reports its caches at its heartbeats; the inspector reads on Refresh. A report
  // from before the last batch's commit shows version 1: refresh until the last one is shown.
  const row = caches.getByRole('row', { name: /state\/0\/0/ });
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(caches.getByRole('table', { name: 'Local state caches' })).toBeVisible({ timeout: 2000 });
    await expect(row.getByRole('cell').nth(2)).toHaveText('2', { timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  await expect(row).toContainText('reuses v2');
  await expect(row).toContainText('state-cache');

  // A savepoint restored as a new job on the other store: the state is converted, and it runs on.
  const panel = page.getByRole('region', { name: 'Savepoints' });
  await panel.getByLabel('Name').fill('to-heap');
  await panel.getByRole('button', { name: 'Take savepoint' }).click();
  const spRow = panel.getByRole('table', { name: 'Savepoints' }).getByRole('row', { name: /to-heap/ });
  await expect(spRow).toBeVisible();
  await spRow.getByRole('button', { name: 'New job from this savepoint' }).click();
  const dialog = panel.getByRole('dialog', { name: 'New job from savepoint' });
  await expect(dialog.getByLabel('State store')).toHaveValue('lmdb');
  await dialog.getByLabel('State store').selectOption('hdfs');
  await expect(dialog).toContainText('The restored state is converted from the LMDB store to the in-memory store');
  await dialog.getByRole('button', { name: 'Create job' }).click();
  const made = panel.getByRole('status');
  await expect(made).toContainText('converted from the lmdb state store to hdfs');
  const href = (await made.getByRole('link', { name: 'Open it' }).getAttribute('href'))!;
  const copyId = href.split('/').pop()!;
  created.push(copyId);
  const copy = (await (await request.get(`/api/jobs/${copyId}`, { headers: auth })).json()) as { spec: { stateStore?: { provider: string } } };
  expect(copy.spec.stateStore).toEqual({ provider: 'hdfs' });
  expect((await request.post(`/api/jobs/${copyId}/start`, { headers: auth })).status()).toBe(200);
  addFile();
  await expect.poll(async () => (await jobState(request, copyId)).lastBatchId, { timeout: 90_000 }).toBe(2);
  expect((await jobState(request, copyId)).status).toBe('RUNNING');
  await page.goto(`/jobs/${copyId}`);
  await page.getByRole('tab', { name: 'Checkpoint', exact: true }).click();
  await expect(page.getByRole('table', { name: 'State store versions' })).toContainText('hdfs store');
});
