/**
 * The Checkpoint tab's savepoints, as an admin drives them: a running files-source job; take a
 * savepoint while it runs and see it listed with its batch id; let batches run past it; make a new
 * job from it (the dialog says what is re-emitted, and the API's reprocessing question is the
 * second confirmation); stop; reset the job to it through the dialog (the job's name typed back,
 * then the second confirmation) and see the next batch id it runs; start it and see that batch.
 * The sink is the console, which is at-least-once, so re-emitting after a savepoint is asked.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { auth, jobState, removeJobs, stopped } from './jobs-api';
import { signIn } from './sign-in';


const created: string[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => removeJobs(request, created));

test('take a savepoint while running, new job from it, reset to it through both confirmations', async ({ page, request }) => {
  test.setTimeout(300_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-savepoints-'));
  mkdirSync(path.join(dir, 'in'));
  let n = 0;
  /** One file of three records: one batch each (maxFilesPerTrigger 1), written atomically. */
  const addFile = () => {
    const name = `part-${n}.json`;
    writeFileSync(path.join(dir, 'in', `.${name}`), [0, 1, 2].map((k) => JSON.stringify({ id: n * 3 + k, v: k })).join('\n') + '\n');
    renameSync(path.join(dir, 'in', `.${name}`), path.join(dir, 'in', name));
    n++;
  };
  addFile();
  const name = `e2e-savepoints-${Date.now()}`;
  const spec = {
    name,
    source: { name: 'events', type: 'files', options: { path: path.join(dir, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'id', type: 'long' }, { name: 'v', type: 'double' }] },
    sql: 'SELECT id, v FROM events',
    sink: { type: 'console', options: {} },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
    checkpointLocation: path.resolve('.data/e2e/checkpoints', path.basename(dir)),
  };
  const res = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(res.status(), await res.text()).toBe(201);
  const { job } = (await res.json()) as { job: { id: string } };
  created.push(job.id);
  expect((await request.post(`/api/jobs/${job.id}/start`, { headers: auth })).status()).toBe(200);
  // Generous: the worker picks the run up on a loaded machine.
  await expect.poll(async () => (await jobState(request, job.id)).lastBatchId, { timeout: 90_000 }).toBe(0);

  await signIn(page);
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole('tab', { name: 'Checkpoint', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Savepoints' });
  await expect(panel.getByText('No savepoint yet.')).toBeVisible();

  // Taken while the job runs; batch 0 is its last commit (no new file, so no batch 1 yet).
  expect((await jobState(request, job.id)).status).toBe('RUNNING');
  await panel.getByLabel('Name').fill('before-upgrade');
  await panel.getByRole('button', { name: 'Take savepoint' }).click();
  const table = panel.getByRole('table', { name: 'Savepoints' });
  const row = table.getByRole('row', { name: /before-upgrade/ });
  await expect(row).toBeVisible();
  await expect(row.getByRole('cell').nth(1)).toHaveText('0');
  await expect(row.getByRole('cell').nth(4)).toHaveText('admin');
  await expect(panel.getByLabel('Name')).toHaveValue('');
  // A running job cannot be reset.
  await expect(row.getByRole('button', { name: 'Reset to this savepoint' })).toBeDisabled();

  // Two batches after the savepoint: what a restore re-emits.
  addFile();
  addFile();
  await expect.poll(async () => (await jobState(request, job.id)).lastBatchId, { timeout: 90_000 }).toBe(2);

  // New job from the savepoint: the dialog says what is re-emitted; the API asks again.
  await row.getByRole('button', { name: 'New job from this savepoint' }).click();
  const newDialog = panel.getByRole('dialog', { name: 'New job from savepoint' });
  await expect(newDialog).toContainText('resumes after batch 0 with a new query id, so the sink takes every batch after 0 as new');
  await expect(newDialog.getByLabel('New job name')).toHaveValue(`${name}-from-before-upgrade`);
  await newDialog.getByRole('button', { name: 'Create job' }).click();
  await expect(newDialog.getByRole('alert')).toContainText('Second confirmation:');
  await expect(newDialog.getByRole('alert')).toContainText('batches 1–2 wrote 6 rows');
  await newDialog.getByRole('button', { name: 'Create and re-emit' }).click();
  await expect(newDialog).toBeHidden();
  const madeStatus = panel.getByRole('status');
  await expect(madeStatus).toContainText(`Created job ${name}-from-before-upgrade from savepoint before-upgrade: The next start runs batch 1 under a new query id`);
  const href = (await madeStatus.getByRole('link', { name: 'Open it' }).getAttribute('href'))!;
  const newJobId = href.split('/').pop()!;
  created.push(newJobId);
  const newJob = await jobState(request, newJobId);
  expect(newJob).toMatchObject({ name: `${name}-from-before-upgrade`, status: 'STOPPED' });

  // Stop, then reset to the savepoint: the job's name typed back, then the second confirmation.
  await stopped(request, job.id);
  await expect(row.getByRole('button', { name: 'Reset to this savepoint' })).toBeEnabled({ timeout: 30_000 });
  await row.getByRole('button', { name: 'Reset to this savepoint' }).click();
  const dialog = panel.getByRole('dialog', { name: 'Reset to savepoint' });
  await expect(dialog).toContainText('Resetting replaces the checkpoint with savepoint before-upgrade (batch 0)');
  await expect(dialog).toContainText('every batch after 0 as new: what those batches wrote is written again');
  const confirm = dialog.getByRole('button', { name: 'Reset to this savepoint' });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel('Type the job name to confirm the reset to the savepoint').fill(name);
  await confirm.click();
  const second = dialog.getByRole('alertdialog', { name: 'Reprocessing into a sink that holds rows' });
  await expect(second).toContainText('batches 1–2 wrote 6 rows');
  // Nothing happens before the second confirmation.
  expect((await jobState(request, job.id)).lastBatchId).toBe(2);
  await second.getByRole('button', { name: 'Reset and re-emit' }).click();
  await expect(dialog).toBeHidden();
  await expect(panel.getByRole('status')).toContainText('Reset from savepoint before-upgrade: The next start runs batch 1 under a new query id, so the console sink writes the output of the 2 batches after the savepoint (6 rows recorded) again');
  // The checkpoint before the reset is kept as a savepoint of its own, at batch 2.
  await expect(table.getByRole('row', { name: /before-restore/ }).getByRole('cell').nth(1)).toHaveText('2');
  await expect.poll(async () => (await jobState(request, job.id)).lastBatchId).toBe(0);

  // The next start runs batch 1 again, from the savepoint's offsets.
  expect((await request.post(`/api/jobs/${job.id}/start`, { headers: auth })).status()).toBe(200);
  await expect.poll(async () => (await jobState(request, job.id)).lastBatchId, { timeout: 90_000 }).toBeGreaterThanOrEqual(1);
  await page.getByRole('tab', { name: 'Batches', exact: true }).click();
  await expect(page.getByRole('table', { name: 'Batches' }).getByRole('row', { name: /^1\b/ }).first()).toBeVisible();
  await page.screenshot({ path: 'e2e/artifacts/job-savepoints.png', fullPage: true });
});
