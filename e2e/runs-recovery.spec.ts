/**
 * The Runs tab after an after-sink drill: the recovery run says a drill crashed the run on purpose
 * and that the pending batch re-runs (no worker died, so it must not say one did), and it names
 * the crashed run by the run id the table shows; the API's recoveredFromRunId is that same id.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { signIn } from './sign-in';

const auth = { authorization: 'Bearer e2e-admin-token-0123456789abcdef' };

test('after an after-sink drill the runs table says what really happened, with one run id', async ({ page, request }) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-runs-'));
  mkdirSync(path.join(dir, 'in'));
  let n = 0;
  const addFile = () => {
    const name = `part-${n}.json`;
    writeFileSync(path.join(dir, 'in', `.${name}`), `${JSON.stringify({ id: n, v: 1 })}\n`);
    renameSync(path.join(dir, 'in', `.${name}`), path.join(dir, 'in', name));
    n++;
  };
  addFile();
  const spec = {
    name: `e2e-runs-recovery-${Date.now()}`,
    source: { name: 'events', type: 'files', options: { path: path.join(dir, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'id', type: 'long' }, { name: 'v', type: 'double' }] },
    sql: 'SELECT id, v FROM events',
    sink: { type: 'files', options: { path: path.join(dir, 'out'), format: 'json' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
    checkpointLocation: path.resolve('.data/e2e/checkpoints', path.basename(dir)),
  };
  const created = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(created.status(), await created.text()).toBe(201);
  const { job } = await created.json();
  const jobState = async () => (await (await request.get(`/api/jobs/${job.id}`, { headers: auth })).json()) as { status: string; lastBatchId: number | null };
  expect((await request.post(`/api/jobs/${job.id}/start`, { headers: auth })).status()).toBe(200);
  // Generous: the worker picks the run up on a loaded machine.
  await expect.poll(async () => (await jobState()).lastBatchId, { timeout: 90_000 }).not.toBeNull();

  await signIn(page);
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole('tab', { name: 'Drills' }).click();
  const panel = page.getByRole('region', { name: 'Drills' });
  await panel.getByLabel('Crash point').selectOption('after-sink');
  await panel.getByRole('button', { name: 'Run drill' }).click();
  const drill = panel.getByTestId('drill').first();
  await expect(drill).toContainText(/ARMED|CRASHED|RECOVERED/, { timeout: 60_000 });
  addFile(); // the next batch dies after the sink write; the recovery re-runs it
  await expect(drill).toContainText('RECOVERED', { timeout: 120_000 });

  const runs = (await (await request.get(`/api/jobs/${job.id}/runs`, { headers: auth })).json()).items as { runId: string; recoveredFromRunId: string | null; exitReason: string | null }[];
  const recovery = runs.find((r) => r.recoveredFromRunId !== null)!;
  expect(recovery, JSON.stringify(runs)).toBeTruthy();
  const crashed = runs.find((r) => r.runId === recovery.recoveredFromRunId);
  expect(crashed, `recoveredFromRunId ${recovery.recoveredFromRunId} names no run in ${JSON.stringify(runs)}`).toBeTruthy();
  expect(crashed!.exitReason).toMatch(/^drill: crashed at after-sink of batch \d+/);

  await page.getByRole('tab', { name: 'Runs' }).click();
  const table = page.getByRole('table', { name: 'Runs' });
  const row = table.getByRole('row', { name: new RegExp(recovery.runId.slice(0, 8)) });
  await expect(row).toContainText(new RegExp(`recovers run ${crashed!.runId.slice(0, 8)}, which a drill crashed on purpose at after-sink of batch \\d+: batch \\d+ re-runs from the checkpoint`));
  await expect(table).not.toContainText(/dead worker|stopped renewing the lease/);
  // The note wraps instead of widening the run id column past the window.
  const note = row.getByText(/^recovers run/);
  expect((await note.boundingBox())!.width).toBeLessThanOrEqual(500);
  await page.screenshot({ path: 'e2e/artifacts/job-runs-after-drill.png', fullPage: true });

  await request.post(`/api/jobs/${job.id}/stop`, { headers: auth });
  await expect.poll(async () => ['STOPPED', 'FAILED'].includes((await jobState()).status), { timeout: 30_000 }).toBe(true);
  expect((await request.delete(`/api/jobs/${job.id}`, { headers: auth })).status()).toBe(204);
});
