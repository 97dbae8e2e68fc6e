/**
 * The duplicate-after-restart incident for real, through the route handlers and a real worker
 * process, on bare-append postgres sinks (the warehouse append of the incident) in this test's
 * own database:
 * - a drill crashes a run after the sink write and before the commit: the recovery re-runs the
 *   batch and the diagnosis says replay-window, confined to the drilled batch;
 * - rows inserted by hand beside the job's (a second writer): unexplained;
 * - a checkpoint reset with data already in the sink: refused without acknowledgeReprocessing
 *   (saying how many rows and from where), then, acknowledged, the next start reprocesses every
 *   file and the diagnosis says checkpoint-loss across all batches, matching the reset;
 * - the same guard on a checkpoint-location edit and on delete-with-checkpoint, its exception
 *   for idempotent sinks, and its warning for the transactional sink's new query id;
 * - the fleet audit (GET /api/contracts) over these jobs, with its replay figures checked
 *   against the batch history, its filters, sorting and CSV.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupApiTestKit, type ApiTestKit } from '@/lib/server/testing/api-test-kit';
import { waitFor } from '@/lib/testing/wait-for';
import { killWorkers, spawnWorkerProcess, workersHeartbeating, type SpawnedWorker } from '@/worker/testing/harness';

const ROWS_PER_FILE = 4;
/** Generous: a worker process and its engine start slowly on a loaded 2-core machine. */
const SLOW = 120_000;

let kit: ApiTestKit;
let jobsRoute: typeof import('@/app/api/jobs/route');
let jobRoute: typeof import('@/app/api/jobs/[id]/route');
let startRoute: typeof import('@/app/api/jobs/[id]/start/route');
let stopRoute: typeof import('@/app/api/jobs/[id]/stop/route');
let resetRoute: typeof import('@/app/api/jobs/[id]/reset-checkpoint/route');
let drillsRoute: typeof import('@/app/api/jobs/[id]/drills/route');
let diagnosisRoute: typeof import('@/app/api/jobs/[id]/duplicate-diagnosis/route');
let contractsRoute: typeof import('@/app/api/contracts/route');
let summaryRoute: typeof import('@/app/api/contracts/summary/route');
let worker: SpawnedWorker | undefined;
const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-dupdiag-'));

beforeAll(async () => {
  kit = await setupApiTestKit({ checkpointRoot: dir });
  jobsRoute = await import('@/app/api/jobs/route');
  jobRoute = await import('@/app/api/jobs/[id]/route');
  startRoute = await import('@/app/api/jobs/[id]/start/route');
  stopRoute = await import('@/app/api/jobs/[id]/stop/route');
  resetRoute = await import('@/app/api/jobs/[id]/reset-checkpoint/route');
  drillsRoute = await import('@/app/api/jobs/[id]/drills/route');
  diagnosisRoute = await import('@/app/api/jobs/[id]/duplicate-diagnosis/route');
  contractsRoute = await import('@/app/api/contracts/route');
  summaryRoute = await import('@/app/api/contracts/summary/route');
  worker = spawnWorkerProcess({ DATABASE_URL: kit.database.url, REDIS_URL: '', WEIR_LEASE_TTL_MS: '5000', WEIR_LEASE_RENEW_MS: '250', WEIR_WORKER_HEARTBEAT_MS: '500', LOG_LEVEL: 'warn' });
  await workersHeartbeating(kit.db, 1);
}, 180_000);

afterAll(async () => {
  if (worker) await killWorkers([worker]);
  await kit?.teardown();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

type Mode = 'bare-append' | 'transactional' | 'files';

/** A job over its own directory of order files; `addFile` makes one more file appear atomically. */
async function createJob(name: string, mode: Mode) {
  const base = path.join(dir, name);
  mkdirSync(path.join(base, 'in'), { recursive: true });
  let fileNo = 0;
  const addFile = () => {
    const lines = Array.from({ length: ROWS_PER_FILE }, (_, i) => JSON.stringify({ order_id: fileNo * ROWS_PER_FILE + i, amount: 10 }));
    const file = `part-${String(fileNo++).padStart(3, '0')}.json`;
    writeFileSync(path.join(base, 'in', `.${file}`), `${lines.join('\n')}\n`);
    renameSync(path.join(base, 'in', `.${file}`), path.join(base, 'in', file));
  };
  const table = name.replace(/-/g, '_');
  const spec = {
    name,
    source: { name: 'orders', type: 'files', options: { path: path.join(base, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'order_id', type: 'long' }, { name: 'amount', type: 'double' }] },
    sql: 'SELECT order_id, amount FROM orders',
    sink:
      mode === 'files'
        ? { type: 'files', options: { path: path.join(base, 'out'), format: 'json' } }
        : { type: 'postgres', options: { connectionString: kit.database.url, table, mode, batchIdColumn: 'weir_batch_id' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '200 milliseconds' },
    checkpointLocation: path.join(base, 'cp'),
  };
  const created = await kit.call(jobsRoute.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: spec });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.job.id as string, name, base, table, spec, addFile, files: () => fileNo };
}

type TestJob = Awaited<ReturnType<typeof createJob>>;

const start = async (j: TestJob) => expect((await kit.call(startRoute.POST, '/', { method: 'POST', token: kit.tokens.operator, params: { id: j.id } })).status).toBe(200);
async function stop(j: TestJob) {
  expect((await kit.call(stopRoute.POST, '/', { method: 'POST', token: kit.tokens.operator, params: { id: j.id } })).status).toBe(200);
  await waitFor(`${j.name}: STOPPED`, async () => (await kit.db.job.findUnique({ where: { id: j.id } }))?.status === 'STOPPED', SLOW);
}
const committedThrough = (j: TestJob, batchId: number) =>
  waitFor(`${j.name}: batch ${batchId} committed`, async () => ((await kit.db.job.findUnique({ where: { id: j.id } }))?.lastBatchId ?? -1) >= batchId, SLOW);
const diagnose = async (j: TestJob) => {
  const r = await kit.call(diagnosisRoute.GET, '/', { token: kit.tokens.viewer, params: { id: j.id } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};
async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: kit.database.url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** Runs a job until `files` files are committed (one file per batch), then stops it. */
async function runFiles(j: TestJob, files: number) {
  for (let i = j.files(); i < files; i++) j.addFile();
  await start(j);
  await committedThrough(j, files - 1);
  await stop(j);
}

describe('duplicate diagnosis of real incidents', () => {
  let replayJob: TestJob;
  let lossJob: TestJob;

  it('a crash after the sink write, replayed into a bare append, is a replay window on the drilled batch', async () => {
    replayJob = await createJob('dd-replay', 'bare-append');
    replayJob.addFile();
    await start(replayJob);
    await committedThrough(replayJob, 0);
    await waitFor('dd-replay RUNNING', async () => (await kit.db.job.findUnique({ where: { id: replayJob.id } }))?.status === 'RUNNING', SLOW);
    const drill = await kit.call(drillsRoute.POST, '/', { method: 'POST', token: kit.tokens.operator, params: { id: replayJob.id }, body: { point: 'after-sink' } });
    expect(drill.status, JSON.stringify(drill.body)).toBe(201);
    await waitFor('drill ARMED', async () => (await kit.db.drill.findUnique({ where: { id: drill.body.id } }))?.status === 'ARMED', SLOW);
    replayJob.addFile();
    const recovered = await waitFor('drill RECOVERED', async () => {
      const d = await kit.db.drill.findUnique({ where: { id: drill.body.id } });
      return d?.status === 'RECOVERED' ? d : null;
    }, SLOW);
    replayJob.addFile();
    await committedThrough(replayJob, 2);
    await stop(replayJob);

    const d = await diagnose(replayJob);
    expect(d.verdict, d.summary).toBe('replay-window');
    expect(d.duplicateRows).toBe(ROWS_PER_FILE);
    expect(d.findings).toHaveLength(1);
    expect(d.findings[0]).toMatchObject({ kind: 'replay-window', batches: [recovered.batchId], rows: ROWS_PER_FILE, event: { source: 'drill', batchId: recovered.batchId } });
    expect(d.findings[0].span.from).toBeTruthy();
    expect(d.findings[0].fix).toMatch(/mode: transactional/);
  }, 300_000);

  it('rows no recovery or loss explains (a second writer) are unexplained', async () => {
    await sql(`INSERT INTO ${replayJob.table} (order_id, amount, weir_batch_id) VALUES (999, 1, 0), (998, 1, 0)`);
    const d = await diagnose(replayJob);
    expect(d.verdict, d.summary).toBe('unexplained');
    expect(d.findings.map((f: { kind: string; batches: number[]; rows: number }) => [f.kind, f.batches, f.rows])).toEqual([
      ['replay-window', [d.findings[0].batches[0]], ROWS_PER_FILE],
      ['unexplained', [0], 2],
    ]);
    await sql(`DELETE FROM ${replayJob.table} WHERE order_id IN (998, 999)`);
    expect((await diagnose(replayJob)).verdict).toBe('replay-window');
  });

  it('a reset with data in the sink is refused unless acknowledged; afterwards the diagnosis is checkpoint-loss', async () => {
    lossJob = await createJob('dd-loss', 'bare-append');
    await runFiles(lossJob, 4);
    const rows = 4 * ROWS_PER_FILE;
    expect((await diagnose(lossJob)).verdict).toBe('none');

    const refused = await kit.call(resetRoute.POST, '/', { method: 'POST', token: kit.tokens.admin, params: { id: lossJob.id }, body: { confirm: lossJob.name } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('REPROCESSING_NOT_ACKNOWLEDGED');
    expect(refused.body.error.details).toMatchObject({ cause: 'reset-checkpoint', rowsWrittenAgain: rows, sinkRows: rows, historyRows: rows, batches: 4, firstBatchId: 0, lastBatchId: 3 });
    expect(refused.body.error.message).toContain(`${rows} rows would be written again`);
    expect(refused.body.error.message).toContain(`every file still in ${path.join(lossJob.base, 'in')}`);
    // Refused means untouched: the checkpoint and history are still there.
    expect(await kit.db.batchProgress.count({ where: { jobId: lossJob.id } })).toBe(4);

    const reset = await kit.call(resetRoute.POST, '/', { method: 'POST', token: kit.tokens.admin, params: { id: lossJob.id }, body: { confirm: lossJob.name, acknowledgeReprocessing: true } });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    const ev = await kit.db.auditEvent.findFirstOrThrow({ where: { targetId: lossJob.id, action: 'job.reset-checkpoint' } });
    expect(ev.after).toMatchObject({ acknowledgedReprocessing: true });

    // The next start is a new query: it reads every file again into the sink that holds them.
    await start(lossJob);
    await committedThrough(lossJob, 3);
    await stop(lossJob);
    const d = await diagnose(lossJob);
    expect(d.verdict, d.summary).toBe('checkpoint-loss');
    expect(d.duplicateRows).toBe(rows);
    expect(d.findings).toHaveLength(1);
    expect(d.findings[0]).toMatchObject({ kind: 'checkpoint-loss', batches: [0, 1, 2, 3], rows, event: { kind: 'reset-checkpoint', actor: 'token:admin-token' } });
    // The record keeps the actor's kind; the sentence a person reads names the token alone.
    expect(d.findings[0].event.description).toMatch(/^the checkpoint reset by admin-token at /);
    expect(d.findings[0].fix).toMatch(/deploy process/);
    // The copies reach back to the lost query's first run, before the reset.
    const firstRun = await kit.db.run.findFirstOrThrow({ where: { jobId: lossJob.id }, orderBy: { startedAt: 'asc' } });
    expect(d.findings[0].reachesBackTo).toBe(firstRun.startedAt.toISOString());
    expect(d.evidence.losses.map((l: { kind: string }) => l.kind)).toContain('reset-checkpoint');
  }, 300_000);

  it('a checkpoint directory deleted behind Weir’s back is a checkpoint loss, traced by the new query id', async () => {
    const gone = await createJob('dd-deleted-dir', 'bare-append');
    await runFiles(gone, 2);
    const oldQuery = (await kit.db.job.findUniqueOrThrow({ where: { id: gone.id } })).queryId;
    rmSync(path.join(gone.base, 'cp'), { recursive: true, force: true });
    await start(gone);
    await waitFor('dd-deleted-dir: a new query id', async () => {
      const q = (await kit.db.job.findUnique({ where: { id: gone.id } }))?.queryId;
      return q && q !== oldQuery;
    }, SLOW);
    await committedThrough(gone, 1);
    // Both files rewritten: wait until the new query's batch 1 is in the history too.
    await waitFor('dd-deleted-dir: both files reprocessed', async () => (await diagnose(gone)).duplicateRows >= 2 * ROWS_PER_FILE, SLOW);
    await stop(gone);
    const d = await diagnose(gone);
    expect(d.verdict, d.summary).toBe('checkpoint-loss');
    expect(d.findings[0]).toMatchObject({ kind: 'checkpoint-loss', batches: [0, 1], rows: 2 * ROWS_PER_FILE, event: { kind: 'query-id-change', fromQueryId: oldQuery } });
    expect(d.findings[0].event.description).toMatch(/deleted or replaced/);
    expect((await kit.call(jobRoute.DELETE, '/', { method: 'DELETE', token: kit.tokens.admin, params: { id: gone.id } })).status).toBe(204);
  }, 300_000);

  it('a checkpoint-location edit and a delete with checkpoint ask the same; an idempotent sink is not asked', async () => {
    const moved = { ...lossJob.spec, checkpointLocation: path.join(lossJob.base, 'cp-v2') };
    const refused = await kit.call(jobRoute.PUT, '/', { method: 'PUT', token: kit.tokens.admin, params: { id: lossJob.id }, body: { spec: moved } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'REPROCESSING_NOT_ACKNOWLEDGED', details: { cause: 'checkpoint-location-change', sinkRows: 8 * ROWS_PER_FILE } });
    expect(refused.body.error.message).toMatch(/^Moving the job to a new checkpoint location/);
    const ok = await kit.call(jobRoute.PUT, '/', { method: 'PUT', token: kit.tokens.admin, params: { id: lossJob.id }, body: { spec: moved, acknowledgeReprocessing: true } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const d = await diagnose(lossJob);
    expect(d.evidence.losses.map((l: { kind: string }) => l.kind)).toEqual(expect.arrayContaining(['reset-checkpoint', 'checkpoint-location-change']));
    // An edit that keeps the location is not asked.
    expect((await kit.call(jobRoute.PUT, '/', { method: 'PUT', token: kit.tokens.admin, params: { id: lossJob.id }, body: { spec: moved, description: 'same place' } })).status).toBe(200);

    const del = (q: string) => kit.call(jobRoute.DELETE, `/api/jobs/${lossJob.id}${q}`, { method: 'DELETE', token: kit.tokens.admin, params: { id: lossJob.id } });
    const delRefused = await del(`?deleteCheckpoint=true&confirm=${lossJob.name}`);
    expect(delRefused.status).toBe(409);
    expect(delRefused.body.error.details.cause).toBe('delete-with-checkpoint');

    // A files sink recognizes a batch id it holds whatever query wrote it: not asked.
    const files = await createJob('dd-files', 'files');
    await runFiles(files, 1);
    const filesReset = await kit.call(resetRoute.POST, '/', { method: 'POST', token: kit.tokens.admin, params: { id: files.id }, body: { confirm: files.name } });
    expect(filesReset.status, JSON.stringify(filesReset.body)).toBe(200);

    // The transactional sink recognizes a replay only within one query id: asked, and it says why.
    const tx = await createJob('dd-transactional', 'transactional');
    await runFiles(tx, 1);
    const txReset = await kit.call(resetRoute.POST, '/', { method: 'POST', token: kit.tokens.admin, params: { id: tx.id }, body: { confirm: tx.name } });
    expect(txReset.status).toBe(409);
    expect(txReset.body.error.details).toMatchObject({ newQueryIdMatters: true, sinkRows: ROWS_PER_FILE });
    expect(txReset.body.error.message).toMatch(/new checkpoint is a new query id/);

    expect((await del(`?deleteCheckpoint=true&confirm=${lossJob.name}&acknowledgeReprocessing=true`)).status).toBe(200);
  }, 300_000);

  it('the fleet audit lists every job with its figures from the batch history; filters, sorts, exports CSV', async () => {
    const r = await kit.call(contractsRoute.GET, '/api/contracts', { token: kit.tokens.viewer });
    expect(r.status).toBe(200);
    const byName = new Map(r.body.items.map((i: { name: string }) => [i.name, i]));
    expect([...byName.keys()].sort()).toEqual(['dd-files', 'dd-replay', 'dd-transactional']);
    expect(r.body.counts).toMatchObject({ total: 3, 'at-least-once': 1, 'exactly-once': 2 });
    const replay = byName.get('dd-replay') as Record<string, unknown>;
    expect(replay).toMatchObject({ guarantee: 'at-least-once', sinkType: 'postgres', sinkMode: 'bare-append', medianRows: ROWS_PER_FILE, maxRows: ROWS_PER_FILE, replayWouldDouble: ROWS_PER_FILE, lastRestartKind: 'recovery' });
    expect(replay.missing).toEqual([expect.objectContaining({ signature: 'sink', label: 'at-least-once' }), expect.objectContaining({ signature: 'checkpoint' })]);
    expect(replay.fix).toMatch(/Switch `postgres` to `mode: transactional`.*postgres-upsert` on keys order_id/);
    expect(byName.get('dd-transactional')).toMatchObject({ guarantee: 'exactly-once', sinkMode: 'transactional', replayWouldDouble: 0 });
    // At-least-once first by default.
    expect(r.body.items[0].name).toBe('dd-replay');

    const filtered = await kit.call(contractsRoute.GET, '/api/contracts?guarantee=exactly-once&sort=name&dir=desc', { token: kit.tokens.viewer });
    expect(filtered.body.items.map((i: { name: string }) => i.name)).toEqual(['dd-transactional', 'dd-files']);
    expect((await kit.call(contractsRoute.GET, '/api/contracts?q=TRANS', { token: kit.tokens.viewer })).body.items).toHaveLength(1);
    expect((await kit.call(contractsRoute.GET, '/api/contracts?sort=nope', { token: kit.tokens.viewer })).status).toBe(400);

    const csv = await kit.call(contractsRoute.GET, '/api/contracts?format=csv', { token: kit.tokens.viewer });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toMatch(/^job,job_id,status,guarantee,/);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^"dd-replay",.*"at-least-once"/);

    expect((await kit.call(summaryRoute.GET, '/api/contracts/summary', { token: kit.tokens.viewer })).body).toEqual({ atLeastOnce: 1 });
    expect((await kit.call(contractsRoute.GET, '/api/contracts')).status).toBe(401);
  });
});
