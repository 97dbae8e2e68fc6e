/**
 * The job page's "Where tasks ran": the job's parallelism, and per worker the reduce tasks of its
 * newest batches. The e2e server runs its tasks in the run's process (WEIR_TASK_SCHEDULER=local),
 * so the page first says so; the tasks a cluster of workers records in a batch's progress are then
 * written into one batch row, as a run on workers would have recorded them, and the page sums them.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import pg from 'pg';
import { auth, jobState, removeJobs, stopped } from './jobs-api';
import { signIn } from './sign-in';

const PG_PORT = process.env.E2E_PG_PORT ?? '54339';
const created: string[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => removeJobs(request, created));

test('a parallelism-2 job: its parallelism, and its recent tasks per worker', async ({ page, request }) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-tasks-'));
  mkdirSync(path.join(dir, 'in'));
  for (let n = 0; n < 2; n++) {
    writeFileSync(path.join(dir, 'in', `.part-${n}.json`), ['a', 'b', `u${n}`].map((user) => JSON.stringify({ user, v: n })).join('\n') + '\n');
    renameSync(path.join(dir, 'in', `.part-${n}.json`), path.join(dir, 'in', `part-${n}.json`));
  }
  const spec = {
    name: `e2e-tasks-${Date.now()}`,
    source: { name: 'events', type: 'files', options: { path: path.join(dir, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'user', type: 'string' }, { name: 'v', type: 'long' }] },
    sql: 'SELECT user, count(*) AS n FROM events GROUP BY user',
    sink: { type: 'console', options: {} },
    outputMode: 'update',
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
    parallelism: 2,
  };
  const res = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(res.status(), await res.text()).toBe(201);
  const jobId = ((await res.json()) as { job: { id: string } }).job.id;
  created.push(jobId);
  expect((await request.post(`/api/jobs/${jobId}/start`, { headers: auth })).status()).toBe(200);
  await expect.poll(async () => (await jobState(request, jobId)).lastBatchId, { timeout: 90_000 }).toBe(1);
  await request.post(`/api/jobs/${jobId}/stop`, { headers: auth });
  await stopped(request, jobId);

  expect((await request.get(`/api/jobs/${jobId}/tasks`)).status()).toBe(401);
  expect((await request.get(`/api/jobs/${jobId}/tasks?batches=0`, { headers: auth })).status()).toBe(400);

  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await page.getByRole('tab', { name: 'Batches' }).click();
  const panel = page.getByRole('region', { name: 'Where tasks ran' });
  await expect(panel).toContainText('Parallelism 2: each stateful operator keeps its state in 2 partitions');
  await expect(panel).toContainText('Over the last 2 batches (0–1), 0 ran reduce tasks on workers.');
  await expect(panel).toContainText('WEIR_TASK_SCHEDULER=local');

  const url = `postgres://postgres:${readFileSync('.data/e2e/pg-password', 'utf8').trim()}@127.0.0.1:${PG_PORT}/weir`;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const task = (workerId: string, partitionId: number, inputRows: number, attempt = 1) => ({ stageId: 0, partitionId, workerId, inputRows, rows: inputRows, shuffleBytes: 64, durationMs: 12, attempt });
    const set = `UPDATE "BatchProgress" SET progress = jsonb_set(progress, '{tasks}', $1::jsonb) WHERE "jobId" = $2 AND "batchId" = $3`;
    await db.query(set, [JSON.stringify([task('worker-a', 0, 2), task('worker-b', 1, 1)]), jobId, 0]);
    await db.query(set, [JSON.stringify([task('worker-a', 0, 3), task('worker-a', 1, 1, 2)]), jobId, 1]);
  } finally {
    await db.end();
  }
  await page.reload();
  await page.getByRole('tab', { name: 'Batches' }).click();
  await expect(panel).toContainText('2 ran reduce tasks on workers.');
  const table = panel.getByRole('table', { name: 'Tasks per worker' });
  await expect(table.getByRole('row')).toHaveCount(3);
  // Worker, tasks, batches, input rows, output rows, task time, retries.
  await expect(table.getByRole('row', { name: /worker-a/ }).getByRole('cell')).toHaveText(['worker-a', '3', '2', '6', '6', /36\s*ms/, '1']);
  await expect(table.getByRole('row', { name: /worker-b/ }).getByRole('cell')).toHaveText(['worker-b', '1', '1', '1', '1', /12\s*ms/, '0']);
});
