/**
 * Incident drills through the API, with real worker processes: for every crash point and every
 * sink kind Weir can read back, drill a running job, let it recover, and check the duplicate
 * audit's counts. Exactly-once sinks hold every row once whatever the point; at-least-once sinks
 * hold the replayed batch twice after a crash between the sink write and the commit, and only then.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupApiTestKit, type ApiTestKit } from '@/lib/server/testing/api-test-kit';
import { waitFor } from '@/lib/testing/wait-for';
import { killWorkers, spawnWorkerProcess, workersHeartbeating, type SpawnedWorker } from './testing/harness';

const REDIS = 'redis://127.0.0.1:6379/11';
// Streams of this run only: another checkout's run of this file on the same machine shares the
// Redis database, and wrote into (or flushed) same-named streams.
const STREAM_TAG = randomBytes(4).toString('hex');
const streamOf = (name: string) => `${name}-${STREAM_TAG}`;
const ROWS_PER_FILE = 5;

let kit: ApiTestKit;
let jobsRoute: typeof import('@/app/api/jobs/route');
let startRoute: typeof import('@/app/api/jobs/[id]/start/route');
let stopRoute: typeof import('@/app/api/jobs/[id]/stop/route');
let drillsRoute: typeof import('@/app/api/jobs/[id]/drills/route');
let auditRoute: typeof import('@/app/api/jobs/[id]/sink-audit/route');
const workers: SpawnedWorker[] = [];
const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-drills-'));

function spawnWorker(): SpawnedWorker {
  const w = spawnWorkerProcess({
    DATABASE_URL: kit.database.url,
    REDIS_URL: '',
    // Longer than the worker suite's: a drilled worker's jobs all fail over to the survivor at
    // once, and on a loaded CI machine a 2 s lease could lapse between renewals.
    WEIR_FAILOVER_MS: '6000',
    WEIR_LEASE_TTL_MS: '5000',
    WEIR_LEASE_RENEW_MS: '250',
    WEIR_WORKER_HEARTBEAT_MS: '500',
    WEIR_WORKER_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'warn',
  });
  workers.push(w);
  return w;
}

beforeAll(async () => {
  // The jobs' checkpoints live beside their files in this test's temp dir.
  kit = await setupApiTestKit({ checkpointRoot: dir });
  jobsRoute = await import('@/app/api/jobs/route');
  startRoute = await import('@/app/api/jobs/[id]/start/route');
  stopRoute = await import('@/app/api/jobs/[id]/stop/route');
  drillsRoute = await import('@/app/api/jobs/[id]/drills/route');
  auditRoute = await import('@/app/api/jobs/[id]/sink-audit/route');
  spawnWorker();
  spawnWorker();
  // Both workers up before any drill starts its clock: on a loaded machine, starting a worker
  // process (tsx compiling it) alone can take most of a minute.
  await workersHeartbeating(kit.db, 2);
}, 420_000);

afterAll(async () => {
  await killWorkers(workers);
  const r = new Redis(REDIS);
  const mine = await r.keys(`*-${STREAM_TAG}`);
  if (mine.length) await r.del(...mine);
  r.disconnect();
  await kit?.teardown();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

type SinkKind = 'files' | 'postgres-transactional' | 'postgres-bare-append' | 'postgres-upsert' | 'redis-stream';
const SINKS: SinkKind[] = ['files', 'postgres-transactional', 'postgres-bare-append', 'postgres-upsert', 'redis-stream'];
const POINTS = ['after-offsets', 'after-sink', 'after-commit'] as const;

function sinkSpec(kind: SinkKind, name: string, base: string) {
  const table = name.replace(/-/g, '_');
  switch (kind) {
    case 'files':
      return { type: 'files', options: { path: path.join(base, 'out'), format: 'json' } };
    case 'postgres-transactional':
      return { type: 'postgres', options: { connectionString: kit.database.url, table, mode: 'transactional', batchIdColumn: 'weir_batch_id' } };
    case 'postgres-bare-append':
      return { type: 'postgres', options: { connectionString: kit.database.url, table, mode: 'bare-append', batchIdColumn: 'weir_batch_id' } };
    case 'postgres-upsert':
      return { type: 'postgres-upsert', options: { connectionString: kit.database.url, table, keyColumns: ['id'] } };
    case 'redis-stream':
      return { type: 'redis-stream', options: { url: REDIS, stream: streamOf(name) } };
  }
}

async function drillJob(kind: SinkKind, point: (typeof POINTS)[number] | 'kill-worker') {
  const name = `drill-${point}-${kind}`;
  const base = path.join(dir, name);
  mkdirSync(path.join(base, 'in'), { recursive: true });
  let fileNo = 0;
  const addFile = () => {
    const lines = Array.from({ length: ROWS_PER_FILE }, (_, i) => JSON.stringify({ id: fileNo * ROWS_PER_FILE + i, v: 1 }));
    const file = `part-${String(fileNo++).padStart(3, '0')}.json`;
    writeFileSync(path.join(base, 'in', `.${file}`), `${lines.join('\n')}\n`);
    renameSync(path.join(base, 'in', `.${file}`), path.join(base, 'in', file));
  };
  const spec = {
    name,
    source: { name: 'orders', type: 'files', options: { path: path.join(base, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'id', type: 'long' }, { name: 'v', type: 'double' }] },
    sql: 'SELECT id, v FROM orders',
    sink: sinkSpec(kind, name, base),
    outputMode: kind === 'postgres-upsert' ? 'update' : 'append',
    trigger: { type: 'processing-time', interval: '200 milliseconds' },
    checkpointLocation: path.join(base, 'cp'),
  };
  const created = await kit.call(jobsRoute.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: spec });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id: string = created.body.job.id;
  addFile();
  expect((await kit.call(startRoute.POST, `/api/jobs/${id}/start`, { method: 'POST', token: kit.tokens.operator, params: { id } })).status).toBe(200);
  try {
    return await drillRunningJob(id, name, point, addFile, () => fileNo * ROWS_PER_FILE);
  } catch (e) {
    // A failed drill's job must not keep the two workers busy through the next tests.
    await kit.call(stopRoute.POST, `/api/jobs/${id}/stop`, { method: 'POST', token: kit.tokens.operator, params: { id } }).catch(() => undefined);
    throw e;
  }
}

async function drillRunningJob(id: string, name: string, point: (typeof POINTS)[number] | 'kill-worker', addFile: () => void, rowsWritten: () => number) {
  await waitFor(`${name}: first batch`, async () => (await kit.db.batchProgress.count({ where: { jobId: id } })) >= 1, 180_000);
  await waitFor(`${name}: RUNNING`, async () => (await kit.db.job.findUnique({ where: { id } }))?.status === 'RUNNING');

  // A viewer may not drill; an operator may.
  expect((await kit.call(drillsRoute.POST, `/api/jobs/${id}/drills`, { method: 'POST', token: kit.tokens.viewer, params: { id }, body: { point } })).status).toBe(403);
  const drill = await kit.call(drillsRoute.POST, `/api/jobs/${id}/drills`, { method: 'POST', token: kit.tokens.operator, params: { id }, body: { point } });
  expect(drill.status, JSON.stringify(drill.body)).toBe(201);
  if (point !== 'kill-worker') await waitFor(`${name}: armed`, async () => (await kit.db.drill.findUnique({ where: { id: drill.body.id } }))?.status === 'ARMED', 120_000);
  addFile();
  const recovered = await waitFor(
    `${name}: recovered`,
    async () => {
      const d = await kit.db.drill.findUnique({ where: { id: drill.body.id } });
      if (d?.status === 'RECOVERED') return d;
      // Kept as the last answer for the timeout message: where the drill stopped.
      const job = await kit.db.job.findUnique({ where: { id } });
      throw new Error(`drill ${d?.status} (batch ${d?.batchId}), job ${job?.status} at batch ${job?.lastBatchId}`);
    },
    60_000,
  );
  // After recovery, more input still flows through exactly as before.
  addFile();
  // (Batch ids, not progress rows: a crash after the commit loses that batch's progress event, as
  // in Spark, while its rows are in the sink.)
  await waitFor(
    `${name}: third file committed`,
    async () => {
      const job = await kit.db.job.findUnique({ where: { id } });
      if ((job?.lastBatchId ?? -1) >= 2) return true;
      // Kept as the last answer for the timeout message: where the job and its runs stopped.
      const runs = await kit.db.run.findMany({ where: { jobId: id }, orderBy: { startedAt: 'asc' }, select: { status: true, exitReason: true } });
      const batches = await kit.db.batchProgress.findMany({ where: { jobId: id }, select: { batchId: true }, orderBy: { batchId: 'asc' } });
      // Who waits on what in the database (a sink transaction left open would show here).
      const busy = await kit.db.$queryRawUnsafe<{ pid: number; state: string; wait: string | null; query: string }[]>(
        `SELECT pid, state, wait_event_type || ':' || wait_event AS wait, left(query, 100) AS query FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
      );
      const sessions = await kit.db.$queryRawUnsafe<{ state: string | null; n: number }[]>(
        `SELECT state, count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() GROUP BY state`,
      );
      const beats = await kit.db.worker.findMany({ where: { stoppedAt: null }, select: { id: true, lastHeartbeatAt: true } });
      const lease = await kit.db.job.findUnique({ where: { id }, select: { leaseExpiresAt: true, sourceIdleAt: true } });
      const now = Date.now();
      // An engine still triggering reports an idle poll at least every 10 s; a stuck one does not.
      const idle = lease?.sourceIdleAt ? `${now - lease.sourceIdleAt.getTime()} ms ago` : 'never';
      // The engine processes alive, and whose (worker pid as parent).
      const engines = spawnSync('ps', ['-eo', 'pid,ppid,stat,etime,time,args'], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((l) => l.includes('engine-process'))
        .map((l) => l.trim().replace(/\s+/g, ' ').slice(0, 60));
      const ages = `workers ${workers.map((w) => `${w.child.pid}${w.child.exitCode === null && w.child.signalCode === null ? '' : ' (exited)'}`).join(', ')}; engine processes ${JSON.stringify(engines)}; last idle trigger ${idle}; lease expires in ${lease?.leaseExpiresAt ? lease.leaseExpiresAt.getTime() - now : '-'} ms; heartbeats ${beats.map((b) => `${b.id} ${now - (b.lastHeartbeatAt?.getTime() ?? 0)} ms ago`).join(', ')}; sessions ${JSON.stringify(sessions)}`;
      const ls = (d: string) => (existsSync(path.join(dir, name, d)) ? readdirSync(path.join(dir, name, d)).sort().join(',') : '-');
      const cat = (d: string) =>
        existsSync(path.join(dir, name, d))
          ? readdirSync(path.join(dir, name, d)).sort().map((f) => `${f}: ${readFileSync(path.join(dir, name, d, f), 'utf8').replace(/\s+/g, ' ')}`).join(' / ')
          : '-';
      const files = `in [${ls('in')}], offsets [${cat('cp/offsets')}], commits [${cat('cp/commits')}], sources [${cat('cp/sources/0')}]`;
      const logs = workers.map((w) => w.output().split('\n').filter((l) => l.trim()).slice(-40).join(' | ')).join(' || ');
      throw new Error(
        `job ${job?.status} at batch ${job?.lastBatchId}; history batches [${batches.map((b) => b.batchId).join(', ')}]; runs ${runs.map((r) => `${r.status}${r.exitReason ? ` (${r.exitReason})` : ''}`).join(', ')}; ` +
          `${files}; ${ages}; database sessions not idle: ${JSON.stringify(busy)}; workers' last log lines: ${logs}`,
      );
    },
    60_000,
  );
  const audit = await kit.call(auditRoute.GET, `/api/jobs/${id}/sink-audit`, { token: kit.tokens.viewer, params: { id } });
  expect(audit.status).toBe(200);
  const runs = await kit.db.run.findMany({ where: { jobId: id }, orderBy: { startedAt: 'asc' } });
  // Stop the job so later drills share the two workers with as little as possible.
  expect((await kit.call(stopRoute.POST, `/api/jobs/${id}/stop`, { method: 'POST', token: kit.tokens.operator, params: { id } })).status).toBe(200);
  await waitFor(`${name}: STOPPED`, async () => (await kit.db.job.findUnique({ where: { id } }))?.status === 'STOPPED');
  return { id, drill: recovered, audit: audit.body, runs, rowsWritten: rowsWritten() };
}

const atLeastOnce = (k: SinkKind) => k === 'postgres-bare-append' || k === 'redis-stream';

describe('incident drills through the API', () => {
  for (const point of POINTS) {
    it(`crash at ${point}: every sink kind recovers; the audit counts what the contract predicts`, async () => {
      // Settle every drill before judging any: a drill left running after a failure would take
      // the workers' time from the next test and poll the database while it is dropped.
      const settled = await Promise.allSettled(SINKS.map((k) => drillJob(k, point)));
      const failures = settled.flatMap((r, i) => (r.status === 'rejected' ? [`${SINKS[i]}: ${(r.reason as Error).message}`] : []));
      expect(failures).toEqual([]);
      const results = settled.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof drillJob>>>).value);
      for (const [i, kind] of SINKS.entries()) {
        const { drill, audit, runs, rowsWritten } = results[i];
        expect(drill.batchId, kind).not.toBeNull();
        expect(drill.crashedRunId).toBeTruthy();
        const crashed = runs.find((r) => r.id === drill.crashedRunId)!;
        expect(crashed.exitReason).toBe(`drill: crashed at ${point} of batch ${drill.batchId}`);
        expect(runs.find((r) => r.id === drill.recoveryRunId)?.recoveredFromRunId).toBe(drill.crashedRunId);
        const replayDoubles = point === 'after-sink' && atLeastOnce(kind);
        const expectedDuplicates = replayDoubles ? ROWS_PER_FILE : 0;
        // Upsert cannot be counted per batch (a replay overwrites by key); it is audited by keys.
        expect(audit.perBatch, kind).toBe(kind !== 'postgres-upsert');
        expect(audit.duplicateRows, `${kind} at ${point}`).toBe(expectedDuplicates);
        expect(audit.totalActual, kind).toBe(rowsWritten + expectedDuplicates);
        if (replayDoubles) {
          expect(audit.batches.filter((b: { duplicates: number }) => b.duplicates > 0)).toEqual([
            { batchId: drill.batchId, expected: ROWS_PER_FILE, actual: 2 * ROWS_PER_FILE, duplicates: ROWS_PER_FILE },
          ]);
        }
        // The drill's own audit, taken at recovery, says the same about the batches it saw.
        expect((drill.audit as { duplicateRows: number }).duplicateRows).toBe(expectedDuplicates);
        expect(audit.guarantee).toBe(atLeastOnce(kind) ? 'at-least-once' : 'exactly-once');
        if (kind === 'postgres-upsert') expect(audit.totalExpected).toBe(rowsWritten); // distinct keys
      }
    }, 420_000);
  }

  it('kill-worker: the worker process dies, the job fails over and its sink stays exactly-once', async () => {
    const { drill, audit, runs } = await drillJob('postgres-transactional', 'kill-worker');
    expect(drill.crashedRunId).toBeTruthy();
    const dead = runs.find((r) => r.id === drill.crashedRunId)!;
    const recovery = runs.find((r) => r.id === drill.recoveryRunId)!;
    expect(recovery.workerId).not.toBe(dead.workerId);
    expect(audit.duplicateRows).toBe(0);
    expect(audit.totalActual).toBe(3 * ROWS_PER_FILE);
    // The killed worker is replaced, as npm start's supervisor would.
    spawnWorker();
  }, 420_000);
});
