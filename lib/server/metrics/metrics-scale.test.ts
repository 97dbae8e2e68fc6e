/**
 * /metrics at scale: a scrape's queries, and the rows they read from batch and run history, must
 * not grow with that history (Prometheus scrapes every 15 s, forever). Counted, never timed: each
 * query a scrape sends is captured from Prisma's query log and replayed under EXPLAIN ANALYZE,
 * which reports the rows each plan node read from BatchProgress, Run and Alert. And the counters the
 * database keeps as rows are recorded (JobCounters) must equal the sums over the rows recorded,
 * whatever the sequence of inserts, upserts and deletes (a property test against the aggregation
 * each scrape used to run).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { parseOpenMetrics } from '../testing/openmetrics-parser';
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
