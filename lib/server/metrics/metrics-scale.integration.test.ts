/**
 * /metrics at scale: a scrape's queries, and the rows they read from batch and run history, must
 * not grow with that history (Prometheus scrapes every 15 s, forever). Counted, never timed: each
 * query a scrape sends is captured from Prisma's query log and replayed under EXPLAIN ANALYZE,
 * which reports the rows each plan node read from BatchProgress, Run and Alert. And the counters the
 * database keeps as rows are recorded (JobCounters) must equal the sums over the rows recorded,
 * whatever the sequence of inserts, upserts and deletes (a property test against the aggregation
 * each scrape used to run).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { parseOpenMetrics } from '../testing/openmetrics-parser';
import { WeirError, type StreamingQueryProgress } from '@/lib/engine';
import { RunRecorder } from '../run-recorder';
import { deleteJob, resetCheckpoint, startJob, stopJob, type JobServiceContext } from '../services/job-service';
import { BATCH_DURATION_BUCKETS_S, collectMetrics } from './prometheus-metrics';

let database: TestDatabase;
let db: PrismaClient;
let sqlClient: pg.Client;
const logged: { query: string; params: string }[] = [];

beforeAll(async () => {
  database = await createTestDatabase('weir_metrics_scale');
  const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }), log: [{ emit: 'event', level: 'query' }] });
  client.$on('query', (e) => logged.push({ query: e.query, params: e.params }));
  db = client as unknown as PrismaClient;
  sqlClient = new pg.Client({ connectionString: database.url });
  await sqlClient.connect();
}, 60_000);

afterAll(async () => {
  await sqlClient?.end();
  await db?.$disconnect();
  await database?.drop();
});

const q = (text: string, values: unknown[] = []) => sqlClient.query(text, values);

async function addJobs(ids: string[]): Promise<void> {
  await q(
    `INSERT INTO "Job" (id, name, spec, sql, "sourceType", "sinkType", "outputMode", trigger, "checkpointLocation", status, "desiredState", "updatedAt")
     SELECT id, 'job ' || id, '{}', 'SELECT 1', 'files', 'files', 'append', '{}', '/tmp/cp/' || id, 'RUNNING', 'RUNNING', now() FROM unnest($1::text[]) id`,
    [ids],
  );
}

/** Batches `from`..`to` (inclusive) of each job, in SQL; durations spread over every bucket. */
async function addBatches(jobIds: string[], from: number, to: number): Promise<void> {
  await q(
    `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
     SELECT gen_random_uuid()::text, j, b, now(), b % 17, 1, 1, (b * 7919) % 400000, '{}', '{}' FROM unnest($1::text[]) j, generate_series($2::int, $3::int) b`,
    [jobIds, from, to],
  );
}

/** Ended runs (every third failed, every other one a restart) on one worker, plus one open run per job. */
async function addRuns(jobIds: string[], perJob: number, workerId: string): Promise<void> {
  await q(
    `INSERT INTO "Run" (id, "jobId", "runId", "workerId", status, attempt, "endedAt")
     SELECT gen_random_uuid()::text, j, gen_random_uuid()::text, $3, CASE WHEN r % 3 = 0 THEN 'FAILED' ELSE 'STOPPED' END::"RunStatus", r % 2, now()
     FROM unnest($1::text[]) j, generate_series(1, $2::int) r`,
    [jobIds, perJob, workerId],
  );
}

async function addAlerts(jobIds: string[], state: 'FIRING' | 'RESOLVED', perJob: number): Promise<void> {
  await q(
    `INSERT INTO "Alert" (id, "jobId", kind, state, "dedupKey", message, "updatedAt")
     SELECT gen_random_uuid()::text, j, 'commit-lag', $2::"AlertState", j || '-' || n, 'lag', now() FROM unnest($1::text[]) j, generate_series(1, $3::int) n`,
    [jobIds, state, perJob],
  );
}

/** What each scrape used to aggregate over the whole history: the reference for the counters. */
async function referenceTotals(): Promise<Map<string, { batches: number; inputRows: number; durationSumMs: number; buckets: number[]; restarts: number; failedRuns: number }>> {
  const bucketsMs = BATCH_DURATION_BUCKETS_S.map((s) => s * 1000);
  const { rows } = await q(
    `SELECT j.id,
            (SELECT count(*) FROM "BatchProgress" b WHERE b."jobId" = j.id)::float8 AS batches,
            (SELECT COALESCE(sum("numInputRows"), 0) FROM "BatchProgress" b WHERE b."jobId" = j.id)::float8 AS "inputRows",
            (SELECT COALESCE(sum("batchDurationMs"), 0) FROM "BatchProgress" b WHERE b."jobId" = j.id)::float8 AS "durationSumMs",
            ARRAY(SELECT (SELECT count(*) FROM "BatchProgress" b WHERE b."jobId" = j.id AND b."batchDurationMs" <= le)::float8 FROM unnest($1::float8[]) le) AS buckets,
            (SELECT count(*) FROM "Run" r WHERE r."jobId" = j.id AND (r.attempt > 0 OR r."recoveredFromRunId" IS NOT NULL))::float8 AS restarts,
            (SELECT count(*) FROM "Run" r WHERE r."jobId" = j.id AND r.status = 'FAILED')::float8 AS "failedRuns"
     FROM "Job" j`,
    [bucketsMs],
  );
  return new Map(rows.map((r) => [r.id, { batches: r.batches, inputRows: r.inputRows, durationSumMs: r.durationSumMs, buckets: r.buckets, restarts: r.restarts, failedRuns: r.failedRuns }]));
}

/** The same figures as one scrape exports them. */
async function scrapedTotals(): Promise<Map<string, { batches: number; inputRows: number; durationSumMs: number; buckets: number[]; restarts: number; failedRuns: number }>> {
  const text = await (await collectMetrics({ db, queueCounts: async () => ({ waiting: 0, active: 0 }) })).metrics();
  const f = parseOpenMetrics(text);
  const byJob = new Map<string, { batches: number; inputRows: number; durationSumMs: number; buckets: number[]; restarts: number; failedRuns: number }>();
  const of = (id: string) => {
    let t = byJob.get(id);
    if (!t) byJob.set(id, (t = { batches: 0, inputRows: 0, durationSumMs: 0, buckets: [], restarts: 0, failedRuns: 0 }));
    return t;
  };
  for (const s of f.get('weir_job_batch_duration_seconds')!.samples) {
    const t = of(s.labels.job_id);
    if (s.name.endsWith('_count')) t.batches = s.value;
    else if (s.name.endsWith('_sum')) t.durationSumMs = Math.round(s.value * 1000);
    else if (s.labels.le !== '+Inf') t.buckets.push(s.value);
  }
  for (const s of f.get('weir_job_input_rows')!.samples) of(s.labels.job_id).inputRows = s.value;
  for (const s of f.get('weir_job_restarts')!.samples) of(s.labels.job_id).restarts = s.value;
  for (const s of f.get('weir_job_failed_runs')!.samples) of(s.labels.job_id).failedRuns = s.value;
  return byJob;
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan read from each table: returned plus filtered out, over every loop. */
function rowsRead(node: PlanNode, into = new Map<string, number>()): Map<string, number> {
  if (node['Relation Name']) {
    const loops = node['Actual Loops'] ?? 1;
    const n = ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * loops;
    into.set(node['Relation Name'], (into.get(node['Relation Name']) ?? 0) + n);
  }
  for (const p of node.Plans ?? []) rowsRead(p, into);
  return into;
}

/**
 * Runs EXPLAIN ANALYZE of a query with sequential scans disabled: a test's few thousand rows make
 * a sequential scan the planner's cheaper choice where a real history makes the index the cheaper
 * one, and what matters is that a plan exists whose reads do not grow with history. A query with
 * no such plan still scans (and the count shows it).
 */
async function historyRowsRead(query: string, params: unknown[]): Promise<{ BatchProgress: number; Run: number; Alert: number }> {
  await q('BEGIN');
  try {
    await q('SET LOCAL enable_seqscan = off');
    const { rows } = await q(`EXPLAIN (ANALYZE, FORMAT JSON) ${query}`, params);
    const read = rowsRead((rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan);
    return { BatchProgress: read.get('BatchProgress') ?? 0, Run: read.get('Run') ?? 0, Alert: read.get('Alert') ?? 0 };
  } finally {
    await q('ROLLBACK');
  }
}

/** One scrape: the queries it sent, and the history rows each read. */
async function scrapeProfile() {
  logged.length = 0;
  await (await collectMetrics({ db, queueCounts: async () => ({ waiting: 0, active: 0 }) })).metrics();
  const queries = [...logged];
  const reads = [];
  for (const l of queries) reads.push(await historyRowsRead(l.query, JSON.parse(l.params) as unknown[]));
  return { queries: queries.map((l) => l.query).sort(), reads: reads.reduce((a, r) => ({ BatchProgress: a.BatchProgress + r.BatchProgress, Run: a.Run + r.Run, Alert: a.Alert + r.Alert }), { BatchProgress: 0, Run: 0, Alert: 0 }) };
}

describe('JobCounters', () => {
  it('buckets a duration as the histogram labels it (le bounds in ms, inclusive)', async () => {
    const bounds = BATCH_DURATION_BUCKETS_S.map((s) => Math.round(s * 1000));
    const probes = [0, ...bounds.flatMap((b) => [b, b + 1])];
    const { rows } = await q(`SELECT d, weir_batch_duration_bucket(d) AS bucket FROM unnest($1::int[]) d`, [probes]);
    const expected = (d: number) => bounds.findIndex((b) => d <= b) + 1 || bounds.length + 1;
    expect(rows.map((r) => [r.d, r.bucket])).toEqual(probes.map((d) => [d, expected(d)]));
  });

  it('equals the sums over recorded batches and runs after any inserts, upserts and deletes', async () => {
    const jobs = ['p1', 'p2'];
    await addJobs(jobs);
    type Op =
      | { kind: 'insert'; job: number; from: number; n: number }
      | { kind: 'upsert'; job: number; batchId: number; rows: number; durationMs: number }
      | { kind: 'delete'; job: number; below: number }
      | { kind: 'run'; job: number; attempt: number; recovered: boolean; failed: boolean }
      | { kind: 'fail-runs'; job: number }
      | { kind: 'delete-runs'; job: number };
    const job = fc.integer({ min: 0, max: 1 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), job, from: fc.integer({ min: 0, max: 40 }), n: fc.integer({ min: 1, max: 30 }) }),
      fc.record({ kind: fc.constant('upsert' as const), job, batchId: fc.integer({ min: 0, max: 60 }), rows: fc.integer({ min: 0, max: 1000 }), durationMs: fc.integer({ min: 0, max: 400_000 }) }),
      fc.record({ kind: fc.constant('delete' as const), job, below: fc.integer({ min: 0, max: 60 }) }),
      fc.record({ kind: fc.constant('run' as const), job, attempt: fc.integer({ min: 0, max: 2 }), recovered: fc.boolean(), failed: fc.boolean() }),
      fc.record({ kind: fc.constant('fail-runs' as const), job }),
      fc.record({ kind: fc.constant('delete-runs' as const), job }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        for (const o of ops) {
          const jobId = jobs[o.job];
          switch (o.kind) {
            case 'insert':
              await q(
                `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
                 SELECT gen_random_uuid()::text, $1, b, now(), b * 3, 1, 1, (b * 7919) % 400000, '{}', '{}' FROM generate_series($2::int, $3::int) b
                 ON CONFLICT ("jobId", "batchId") DO NOTHING`,
                [jobId, o.from, o.from + o.n - 1],
              );
              break;
            case 'upsert': {
              // As the run recorder writes a batch: Prisma's upsert.
              const row = { jobId, batchId: o.batchId, timestamp: new Date(), numInputRows: o.rows, inputRowsPerSecond: 1, processedRowsPerSecond: 1, batchDurationMs: o.durationMs, durationMs: {}, progress: {} };
              await db.batchProgress.upsert({ where: { jobId_batchId: { jobId, batchId: o.batchId } }, create: row, update: row });
              break;
            }
            case 'delete':
              await db.batchProgress.deleteMany({ where: { jobId, batchId: { lt: o.below } } });
              break;
            case 'run':
              await db.run.create({ data: { jobId, runId: crypto.randomUUID(), attempt: o.attempt, recoveredFromRunId: o.recovered ? 'earlier' : null, status: o.failed ? 'FAILED' : 'RUNNING' } });
              break;
            case 'fail-runs':
              await db.run.updateMany({ where: { jobId, status: { not: 'FAILED' } }, data: { status: 'FAILED', endedAt: new Date() } });
              break;
            case 'delete-runs':
              await db.run.deleteMany({ where: { jobId } });
              break;
          }
        }
        expect(Object.fromEntries(await scrapedTotals())).toEqual(Object.fromEntries(await referenceTotals()));
        await q(`DELETE FROM "BatchProgress" WHERE "jobId" = ANY($1)`, [jobs]);
        await q(`DELETE FROM "Run" WHERE "jobId" = ANY($1)`, [jobs]);
      }),
      { numRuns: 25, seed: 20261201 },
    );
    // TRUNCATE fires no delete trigger; its own trigger zeroes the totals.
    await addBatches(jobs, 0, 5);
    await addRuns(jobs, 3, 'nobody');
    await q(`TRUNCATE "BatchProgress", "Run"`);
    expect(Object.fromEntries(await scrapedTotals())).toEqual(Object.fromEntries(await referenceTotals()));
    // A deleted job takes its counters along (the cascade to its batches must not recreate them).
    await addBatches(jobs, 0, 5);
    await q(`DELETE FROM "Job" WHERE id = ANY($1)`, [jobs]);
    expect((await q(`SELECT count(*)::int AS n FROM "JobCounters"`)).rows[0].n).toBe(0);
  }, 120_000);
});

describe('a /metrics scrape', () => {
  it('the row counter used here sees a whole-history aggregation', async () => {
    await addJobs(['c1']);
    await addBatches(['c1'], 0, 99);
    expect((await historyRowsRead(`SELECT "jobId", sum("numInputRows") FROM "BatchProgress" GROUP BY 1`, [])).BatchProgress).toBe(100);
    await q(`DELETE FROM "Job" WHERE id = 'c1'`);
  });

  it('sends the same queries, reading the same history rows, after 1 batch per job and after 2,000', async () => {
    const jobs = ['s1', 's2', 's3'];
    await addJobs(jobs);
    await q(`INSERT INTO "Worker" (id, hostname, pid, "queueBackend") VALUES ('w1', 'host', 1, 'postgres')`);
    await addBatches(jobs, 0, 0);
    await addRuns(jobs, 1, 'w1');
    await q(`INSERT INTO "Run" (id, "jobId", "runId", "workerId", status) SELECT 'open-' || j, j, 'open-' || j, 'w1', 'RUNNING' FROM unnest($1::text[]) j`, [jobs]);
    await addAlerts(jobs, 'FIRING', 1);
    await q('ANALYZE');
    const small = await scrapeProfile();

    await addBatches(jobs, 1, 1999);
    await addRuns(jobs, 300, 'w1');
    await addAlerts(jobs, 'RESOLVED', 300);
    await q('ANALYZE');
    const large = await scrapeProfile();

    expect(large.queries).toEqual(small.queries);
    expect(large.queries).toHaveLength(3);
    expect(large.reads).toEqual(small.reads);
    // One latest batch per job, the worker's open runs, the firing alerts.
    expect(large.reads).toEqual({ BatchProgress: jobs.length, Run: jobs.length, Alert: jobs.length });

    // The figures are still the totals over all of it.
    const scraped = await scrapedTotals();
    const reference = await referenceTotals();
    for (const j of jobs) expect(scraped.get(j)).toEqual(reference.get(j));
    expect(scraped.get('s1')!.batches).toBe(2000);
  }, 120_000);
});

describe('JobCounters under concurrent writers', () => {
  let writer: PrismaClient;
  let checkpointRoot: string;
  let ctx: JobServiceContext;
  beforeAll(async () => {
    // Interactive transactions' limits generous: on a loaded machine (load 30 on 2 cores) the
    // default 5 s expire, which is the machine, not a lock order.
    writer = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url, max: 24 }), transactionOptions: { maxWait: 60_000, timeout: 120_000 } });
    checkpointRoot = await mkdtemp(path.join(tmpdir(), 'weir-counters-race-'));
    ctx = { db: writer, principal: { actor: 'token:test', role: 'admin', via: 'bearer' }, checkpointRoot, filesRoots: [checkpointRoot], enqueue: async () => 'queued' };
  });
  afterAll(async () => {
    await writer?.$disconnect();
    if (checkpointRoot) await rm(checkpointRoot, { recursive: true, force: true });
  });

  const progress = (batchId: number, rows: number) =>
    ({
      batchId,
      timestamp: new Date().toISOString(),
      numInputRows: rows,
      inputRowsPerSecond: rows,
      processedRowsPerSecond: rows,
      batchDuration: (batchId * 7919) % 400_000,
      durationMs: { triggerExecution: 1 },
      stateOperators: [],
      commitLag: 0,
      numBadRecords: 0,
      contract: { guarantee: 'exactly-once' },
    }) as unknown as StreamingQueryProgress;
  const isDeadlock = (e: unknown) => /deadlock|40P01|P2034/i.test(`${(e as { code?: string }).code ?? ''} ${(e as Error).message}`);
  const startRun = async (jobId: string, r: number) => {
    const rec = await RunRecorder.create(writer, { jobId, runId: randomUUID(), workerId: 'w-race', status: r % 2 ? 'RECOVERING' : 'STARTING', attempt: r % 3, recoveredFromRunId: null, leaseEpoch: r });
    await rec.running();
    return rec;
  };
  const stopped = (jobs: string[]) => writer.job.updateMany({ where: { id: { in: jobs } }, data: { status: 'STOPPED', desiredState: 'STOPPED', checkpointLocation: checkpointRoot } });

  /**
   * The writers of one job race as they do in production: runs' recorders (start, batches,
   * replays of batches already recorded, end), two runs overlapping, while the API stops and
   * starts the job and resets its checkpoint. A deadlock (40P01) aborts a writer's transaction;
   * afterwards the counters must still equal a recount of the history.
   */
  it('no deadlock between batch records and job starts, stops and resets; counters equal a recount', async () => {
    const jobs = ['race1', 'race2', 'race3', 'race4'];
    await addJobs(jobs);
    await stopped(jobs);
    const failures: unknown[] = [];
    /** Refusals (409: not allowed in the job's current status) are the API working; anything else is not. */
    const attempt = async (f: () => Promise<unknown>) => {
      try {
        await f();
      } catch (e) {
        if (!(e instanceof WeirError)) failures.push(e);
      }
    };
    const recorderLoop = async (jobId: string, runs: number) => {
      for (let r = 0; r < runs; r++) {
        let rec: RunRecorder | undefined;
        await attempt(async () => (rec = await startRun(jobId, r)));
        if (!rec) continue;
        for (let b = 0; b < 8; b++) {
          // A replay records a batch id again (the upsert's update path), as a restart does.
          const batchId = b % 4 === 3 ? b - 2 : r * 8 + b;
          await attempt(() => rec!.batch(progress(batchId, b + 1)));
        }
        await attempt(() => rec!.end(r % 4 === 1 ? 'FAILED' : 'STOPPED', 'race'));
      }
    };
    const apiLoop = async (jobId: string, rounds: number) => {
      for (let i = 0; i < rounds; i++) {
        await attempt(() => startJob(ctx, jobId));
        await attempt(() => stopJob(ctx, jobId));
        await attempt(() => stopped([jobId]));
        if (i % 3 === 2) await attempt(() => resetCheckpoint(ctx, jobId, `job ${jobId}`, { acknowledgeReprocessing: true }));
      }
    };
    try {
      await Promise.all(jobs.flatMap((j) => [recorderLoop(j, 4), recorderLoop(j, 4), apiLoop(j, 15)]));
      expect(failures.filter(isDeadlock).map(String)).toEqual([]);
      expect(failures.map(String)).toEqual([]);
      const reference = await referenceTotals();
      const scraped = await scrapedTotals();
      for (const j of jobs) expect(scraped.get(j) ?? 'no counters').toEqual(reference.get(j));
      // The race ran: every job recorded runs that were restarts.
      for (const j of jobs) expect(reference.get(j)!.restarts).toBeGreaterThan(0);
    } finally {
      await q(`DELETE FROM "Job" WHERE id = ANY($1)`, [jobs]);
    }
  }, 240_000);

  /**
   * A stopped job deleted while its last run's late batches are still being recorded (the
   * recorder posts them off the batch loop, with retries): the delete takes the Job row and
   * cascades to the history; a replayed batch's upsert locks its history row and then updates
   * the Job row. A long history makes the cascade long; here a test trigger sleeps on the
   * cascade's first row, so the recorder's replays surely land inside it. Each deleted job's
   * writers may only fail because the job is gone; the survivors' counters equal a recount.
   */
  it('no deadlock between a job delete and its late batch records', async () => {
    const HISTORY = 16;
    const jobs = ['late1', 'late2', 'late3'];
    const survivors = ['keep1', 'keep2'];
    await addJobs([...jobs, ...survivors]);
    await stopped([...jobs, ...survivors]);
    await addBatches([...jobs, ...survivors], 0, HISTORY - 1);
    await q(`CREATE FUNCTION test_slow_cascade() RETURNS trigger LANGUAGE plpgsql AS $$
               BEGIN IF OLD."batchId" = 0 AND OLD."jobId" LIKE 'late%' THEN PERFORM pg_sleep(0.5); END IF; RETURN OLD; END $$`);
    await q(`CREATE TRIGGER test_slow_cascade BEFORE DELETE ON "BatchProgress" FOR EACH ROW EXECUTE FUNCTION test_slow_cascade()`);
    const failures: unknown[] = [];
    const late = async (jobId: string, gone: () => boolean, ready: () => void) => {
      const rec = await startRun(jobId, 1);
      // The run stopped; only its late batch records are still on their way.
      await stopped([jobId]);
      ready();
      for (let k = 0; !gone() && k < 300; k++) {
        try {
          // Replays of the newest batches: rows the cascade reaches last.
          await rec.batch(progress(HISTORY - 1 - (k % 4), k));
        } catch (e) {
          // The job deleted under the recorder: its batch has nowhere to go. The delete commits
          // before deleteJob returns (and `gone` turns true), so the Job row's absence says so.
          if (isDeadlock(e) || (!gone() && (await q(`SELECT 1 FROM "Job" WHERE id = $1`, [jobId])).rowCount !== 0)) failures.push(e);
        }
      }
    };
    try {
      await Promise.all([
        ...jobs.map(async (jobId, i) => {
          let deleted = false;
          let ready!: () => void;
          const recording = new Promise<void>((r) => (ready = r));
          const writes = late(jobId, () => deleted, ready);
          await recording;
          await new Promise((r) => setTimeout(r, 100 + i * 100));
          try {
            await deleteJob(ctx, jobId);
          } catch (e) {
            failures.push(e);
          } finally {
            deleted = true;
          }
          await writes;
        }),
        ...survivors.map(async (jobId) => {
          const rec = await startRun(jobId, 1);
          for (let k = 0; k < 40; k++) await rec.batch(progress(HISTORY - 1 - (k % 4), k)).catch((e: unknown) => failures.push(e));
        }),
      ]);
      expect(failures.filter(isDeadlock).map(String)).toEqual([]);
      expect(failures.map(String)).toEqual([]);
      expect((await q(`SELECT count(*)::int AS n FROM "Job" WHERE id = ANY($1)`, [jobs])).rows[0].n).toBe(0);
      expect((await q(`SELECT count(*)::int AS n FROM "JobCounters" WHERE "jobId" = ANY($1)`, [jobs])).rows[0].n).toBe(0);
      const reference = await referenceTotals();
      const scraped = await scrapedTotals();
      for (const j of survivors) expect(scraped.get(j)).toEqual(reference.get(j));
      expect(reference.get('keep1')!.batches).toBe(HISTORY);
    } finally {
      await q(`DROP TRIGGER IF EXISTS test_slow_cascade ON "BatchProgress"`);
      await q(`DROP FUNCTION IF EXISTS test_slow_cascade()`);
      await q(`DELETE FROM "Job" WHERE id = ANY($1)`, [[...jobs, ...survivors]]);
    }
  }, 240_000);
});
