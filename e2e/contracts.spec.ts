import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import pg from 'pg';
import { signIn } from './sign-in';

const TOKEN = 'e2e-admin-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
// The server's embedded PostgreSQL (scripts/embedded-postgres.ts), never the machine's: the sinks'
// tables live in weir_demo, the one database there jobs may use (the metadata database is refused
// to every job). Its password is the one this run's data directory made, read once the server is up.
const PG_PORT = process.env.E2E_PG_PORT ?? '54339';
const pgUrl = (database: string) => `postgres://postgres:${readFileSync('.data/e2e/pg-password', 'utf8').trim()}@127.0.0.1:${PG_PORT}/${database}`;
let PG = '';

test.beforeAll(async () => {
  const admin = new pg.Client({ connectionString: pgUrl('postgres') });
  await admin.connect();
  try {
    // 42P04: the demo (or another worker of this suite) created it meanwhile.
    if (!(await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'weir_demo'`)).rowCount) {
      await admin.query('CREATE DATABASE weir_demo').catch((e: { code?: string }) => {
        if (e.code !== '42P04') throw e;
      });
    }
  } finally {
    await admin.end();
  }
  PG = pgUrl('weir_demo');
});
const ROWS_PER_FILE = 3;

/** A files → postgres job over its own directory; `addFile` makes one more file appear atomically. */
async function createJob(request: APIRequestContext, name: string, mode: 'bare-append' | 'transactional') {
  const dir = mkdtempSync(path.join(os.tmpdir(), `weir-e2e-${name}-`));
  mkdirSync(path.join(dir, 'in'));
  let n = 0;
  const addFile = () => {
    const file = `part-${String(n).padStart(3, '0')}.json`;
    const lines = Array.from({ length: ROWS_PER_FILE }, (_, i) => JSON.stringify({ order_id: n * ROWS_PER_FILE + i, amount: 5 }));
    writeFileSync(path.join(dir, 'in', `.${file}`), `${lines.join('\n')}\n`);
    renameSync(path.join(dir, 'in', `.${file}`), path.join(dir, 'in', file));
    n++;
  };
  const spec = {
    name,
    source: { name: 'orders', type: 'files', options: { path: path.join(dir, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'order_id', type: 'long' }, { name: 'amount', type: 'double' }] },
    sql: 'SELECT order_id, amount FROM orders',
    sink: { type: 'postgres', options: { connectionString: PG, table: name.replace(/-/g, '_'), mode, batchIdColumn: 'weir_batch_id' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '300 milliseconds' },
    checkpointLocation: path.resolve('.data/e2e/checkpoints', path.basename(dir)),
  };
  const created = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(created.status(), await created.text()).toBe(201);
  const { job } = await created.json();
  return { id: job.id as string, name, addFile };
}

const jobOf = async (request: APIRequestContext, id: string) => (await request.get(`/api/jobs/${id}`, { headers: auth })).json();

async function runThrough(request: APIRequestContext, id: string, lastBatchId: number) {
  expect((await request.post(`/api/jobs/${id}/start`, { headers: auth })).status()).toBe(200);
  await expect.poll(async () => (await jobOf(request, id)).lastBatchId ?? -1, { timeout: 90_000 }).toBeGreaterThanOrEqual(lastBatchId);
}

async function stop(request: APIRequestContext, id: string) {
  await request.post(`/api/jobs/${id}/stop`, { headers: auth });
  await expect.poll(async () => (await jobOf(request, id)).status, { timeout: 90_000 }).toBe('STOPPED');
}

// The postmortem in the browser: the fleet audit names the bare append and its fix; a drill's
// replay is diagnosed as a replay window; resetting the checkpoint asks a second time, saying how
// many rows come again; once acknowledged and reprocessed, the diagnosis says checkpoint loss.
test('contract audit, duplicate diagnosis of both incidents, and the second confirmation', async ({ page, request }) => {
  test.setTimeout(300_000);
  const bare = await createJob(request, 'e2e-contracts-bare', 'bare-append');
  const tx = await createJob(request, 'e2e-contracts-tx', 'transactional');
  for (const j of [bare, tx]) j.addFile();
  await runThrough(request, bare.id, 0);
  await runThrough(request, tx.id, 0);

  await signIn(page);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: /Contracts\s*,\s*\d+ at-least-once jobs?/ })).toBeVisible({ timeout: 20_000 });
  await nav.getByRole('link', { name: /^Contracts/ }).click();
  await expect(page.getByRole('heading', { name: 'Contract audit' })).toBeVisible();
  const table = page.getByRole('table', { name: 'Contract audit' });
  const bareRow = table.getByTestId('contract-e2e-contracts-bare');
  await expect(bareRow).toContainText('at-least-once');
  await expect(bareRow).toContainText('bare-append');
  await expect(bareRow).toContainText('Switch postgres to mode: transactional');
  await expect(bareRow).toContainText(/Bare append: plain INSERTs/);
  await expect(table.getByTestId('contract-e2e-contracts-tx')).toContainText('exactly-once');

  // Filter (a URL), sort by a header link, then export what is shown.
  await page.getByLabel('Guarantee', { exact: true }).selectOption('at-least-once');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page).toHaveURL(/guarantee=at-least-once/);
  await expect(table.getByTestId('contract-e2e-contracts-tx')).toHaveCount(0);
  await expect(bareRow).toBeVisible();
  await table.getByRole('link', { name: 'Job', exact: true }).click();
  await expect(page).toHaveURL(/sort=name/);
  await expect(table.getByRole('columnheader', { name: /^Job/ })).toHaveAttribute('aria-sort', 'ascending');
  const csvHref = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
  expect(csvHref).toMatch(/format=csv/);
  expect(csvHref).toMatch(/guarantee=at-least-once/);
  const csv = await (await request.get(csvHref!, { headers: auth })).text();
  expect(csv.split('\r\n')[0]).toMatch(/^job,job_id,status,guarantee/);
  expect(csv).toContain('"e2e-contracts-bare"');
  expect(csv).not.toContain('"e2e-contracts-tx"');
  await page.screenshot({ path: 'e2e/artifacts/contracts.png', fullPage: true });

  // The replay window: a drill after the sink write on the bare append.
  await expect.poll(async () => (await jobOf(request, bare.id)).status, { timeout: 60_000 }).toBe('RUNNING');
  const drill = await request.post(`/api/jobs/${bare.id}/drills`, { headers: auth, data: { point: 'after-sink' } });
  expect(drill.status()).toBe(201);
  const drillId = (await drill.json()).id;
  const drillStatus = async () => ((await (await request.get(`/api/jobs/${bare.id}/drills`, { headers: auth })).json()).items as { id: string; status: string }[]).find((d) => d.id === drillId)?.status;
  await expect.poll(drillStatus, { timeout: 60_000 }).toMatch(/ARMED|CRASHED|RECOVERED/);
  bare.addFile();
  await expect.poll(drillStatus, { timeout: 90_000 }).toBe('RECOVERED');
  bare.addFile();
  await expect.poll(async () => (await jobOf(request, bare.id)).lastBatchId, { timeout: 90_000 }).toBeGreaterThanOrEqual(2);
  await stop(request, bare.id);
  await stop(request, tx.id);

  await page.goto(`/jobs/${bare.id}`);
  await page.getByRole('tab', { name: 'Drills' }).click();
  const diagnosis = page.getByRole('region', { name: 'Duplicate diagnosis' });
  await expect(diagnosis.getByTestId('duplicate-diagnosis')).toHaveAttribute('data-verdict', 'replay-window', { timeout: 30_000 });
  await expect(diagnosis.getByRole('article', { name: 'Replay window finding' })).toContainText(`Duplicate rows${ROWS_PER_FILE}`);
  await expect(diagnosis).toContainText('mode: transactional');

  // Reset asks a second time, with how many rows come again and from where; cancel keeps it.
  await page.getByRole('button', { name: 'Reset checkpoint…' }).click();
  await page.getByLabel('Type the job name to confirm the reset').fill(bare.name);
  await page.getByRole('button', { name: 'Delete checkpoint' }).click();
  const second = page.getByRole('alertdialog', { name: 'Reprocessing into a sink that holds rows' });
  await expect(second).toContainText(/rows would be written again/);
  await expect(second).toContainText('every file still in');
  await expect(second).toContainText('at-least-once');
  await page.screenshot({ path: 'e2e/artifacts/reset-second-confirmation.png', fullPage: true });
  await second.getByRole('button', { name: 'Keep the checkpoint' }).click();
  await expect(second).toHaveCount(0);
  expect((await jobOf(request, bare.id)).lastBatchId).toBeGreaterThanOrEqual(2);

  await page.getByLabel('Type the job name to confirm the reset').fill(bare.name);
  await page.getByRole('button', { name: 'Delete checkpoint' }).click();
  await second.getByRole('button', { name: 'Reset and reprocess anyway' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Checkpoint reset' })).toBeVisible();

  // The new query reads every file again into the same table: a checkpoint loss.
  await runThrough(request, bare.id, 2);
  await stop(request, bare.id);
  await page.reload();
  await page.getByRole('tab', { name: 'Drills' }).click();
  await expect(diagnosis.getByTestId('duplicate-diagnosis')).toHaveAttribute('data-verdict', 'checkpoint-loss', { timeout: 30_000 });
  const loss = diagnosis.getByRole('article', { name: 'Checkpoint loss finding' });
  await expect(loss).toContainText('the checkpoint reset by admin at');
  await expect(loss).toContainText('deploy process');
  await page.screenshot({ path: 'e2e/artifacts/diagnosis-checkpoint-loss.png', fullPage: true });

  // The transactional sink is asked too: a new checkpoint is a new query id.
  await page.goto(`/jobs/${tx.id}`);
  await page.getByRole('button', { name: 'Reset checkpoint…' }).click();
  await page.getByLabel('Type the job name to confirm the reset').fill(tx.name);
  await page.getByRole('button', { name: 'Delete checkpoint' }).click();
  await expect(second).toContainText('new checkpoint is a new query id');
  await second.getByRole('button', { name: 'Keep the checkpoint' }).click();
});
