import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { signIn } from './sign-in';

const TOKEN = 'e2e-admin-token-0123456789abcdef';

// A drill from the job page: crash after the sink write, watch the timeline reach RECOVERED, and
// read the duplicate audit (a files sink is idempotent: zero duplicates).
test('a drill on the job page shows the pending batch, the replay and the audit', async ({ page, request }) => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-drill-'));
  mkdirSync(path.join(dir, 'in'));
  let n = 0;
  const addFile = () => {
    const name = `part-${n}.json`;
    writeFileSync(path.join(dir, 'in', `.${name}`), `${JSON.stringify({ id: n * 2, v: 1 })}\n${JSON.stringify({ id: n * 2 + 1, v: 2 })}\n`);
    renameSync(path.join(dir, 'in', `.${name}`), path.join(dir, 'in', name));
    n++;
  };
  addFile();
  const auth = { authorization: `Bearer ${TOKEN}` };
  const spec = {
    name: 'e2e-drill-job',
    source: { name: 'events', type: 'files', options: { path: path.join(dir, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'id', type: 'long' }, { name: 'v', type: 'double' }] },
    sql: 'SELECT id, v FROM events',
    sink: { type: 'files', options: { path: path.join(dir, 'out'), format: 'json' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
    // Under the server's checkpoint root (WEIR_CHECKPOINT_ROOT).
    checkpointLocation: path.resolve('.data/e2e/checkpoints', path.basename(dir)),
  };
  const created = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(created.status()).toBe(201);
  const { job } = await created.json();
  expect((await request.post(`/api/jobs/${job.id}/start`, { headers: auth })).status()).toBe(200);
  await expect.poll(async () => (await (await request.get(`/api/jobs/${job.id}`, { headers: auth })).json()).status, { timeout: 60_000 }).toBe('RUNNING');

  await signIn(page);
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole('tab', { name: 'Drills' }).click();
  const panel = page.getByRole('region', { name: 'Drills' });
  await panel.getByLabel('Crash point').selectOption('after-sink');
  await panel.getByRole('button', { name: 'Run drill' }).click();
  const drill = panel.getByTestId('drill').first();
  await expect(drill).toContainText(/ARMED|CRASHED|RECOVERED/, { timeout: 30_000 });
  addFile(); // the next batch runs, dies after the sink write, and is re-run by the recovery
  await expect(drill).toContainText('RECOVERED', { timeout: 60_000 });
  await expect(drill.getByRole('list', { name: /timeline/ })).toContainText(/crashed at after-sink: batch \d+ pending/);
  await expect(drill.getByRole('list', { name: /timeline/ })).toContainText(/recovered: batch \d+ re-ran from the checkpoint/);
  await expect(drill.getByTestId('drill-audit')).toContainText('0 duplicate rows');
  await expect(drill.getByTestId('drill-audit')).toContainText('exactly-once');
  await page.screenshot({ path: 'e2e/artifacts/job-drills.png', fullPage: true });

  await request.post(`/api/jobs/${job.id}/stop`, { headers: auth });
});
