/**
 * The jobs list's figures kept in JobCounters by BatchProgress's triggers (the newest batches'
 * ids, state rows and lags, the input rows per second of the newest minute, when the history
 * began) must equal a recount of BatchProgress whatever wrote it: inserts, replays (Prisma's
 * upsert, as the run recorder writes a batch), a backfill's createMany, deletes of the newest
 * batches (a savepoint restore), purges of old ones, resets, TRUNCATE, and concurrent writers.
 * The one figure a recount cannot give is when the history began once a purge has removed its
 * first batches: the test's model keeps it (the earliest trigger time written since the job's
 * history was last empty).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { jobsQuerySchema } from '../http/api-schemas';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { INPUT_RATE_WINDOW_MS, SPARKLINE_BATCHES } from './job-overview-presenter';
import { listJobPage } from './job-page-presenter';

let database: TestDatabase;
let db: PrismaClient;
let sqlClient: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('weir_job_figures');
  db = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  sqlClient = new pg.Client({ connectionString: database.url });
  await sqlClient.connect();
}, 60_000);

afterAll(async () => {
  await sqlClient?.end();
  await db?.$disconnect();
  await database?.drop();
});

const q = (text: string, values: unknown[] = []) => sqlClient.query(text, values);
const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

async function addJobs(ids: string[]): Promise<void> {
  await q(
    `INSERT INTO "Job" (id, name, spec, sql, "sourceType", "sinkType", "outputMode", trigger, "checkpointLocation", status, "desiredState", "updatedAt")
     SELECT id, id, '{}', 'SELECT 1', 'files', 'files', 'append', '{}', '/tmp/cp/' || id, 'RUNNING', 'RUNNING', now() FROM unnest($1::text[]) id`,
    [ids],
  );
}

interface Figures {
  batchIds: number[];
  triggerMs: number[];
  inputRows: number[];
  stateRows: number[];
  lags: (number | null)[];
  seconds: number[];
  rowsBySecond: number[];
  firstMs: number | null;
}

/** What the counters hold, per job that has a counters row. */
async function counted(jobs: string[]): Promise<Map<string, Figures>> {
  const { rows } = await q(
    `SELECT "jobId", "recentBatchIds", "recentStateRowsTotal", "recentCommitLag", "recentTriggerMs", "recentInputRows"::float8[] AS rows,
            "inputSeconds"::float8[] AS s, "inputRowsBySecond"::float8[] AS n,
            (extract(epoch FROM "firstBatchAt") * 1000)::float8 AS first
     FROM "JobCounters" WHERE "jobId" = ANY($1)`,
    [jobs],
  );
  return new Map(
    rows.map((r) => [
      r.jobId,
      { batchIds: r.recentBatchIds, triggerMs: r.recentTriggerMs, inputRows: r.rows, stateRows: r.recentStateRowsTotal, lags: r.recentCommitLag, seconds: r.s, rowsBySecond: r.n, firstMs: r.first },
    ]),
  );
}

/** The same figures recounted from BatchProgress, with when each history began from the model. */
async function recounted(jobs: string[], began: Map<string, number | null>): Promise<Map<string, Figures>> {
  const { rows } = await q(
    `SELECT "jobId", "batchId", (extract(epoch FROM "timestamp") * 1000)::float8 AS ms, "numInputRows", "stateRowsTotal"::float8 AS state, "commitLag"::float8 AS lag
     FROM "BatchProgress" WHERE "jobId" = ANY($1) ORDER BY "batchId"`,
    [jobs],
  );
  const out = new Map<string, Figures>();
  for (const job of jobs) {
    const mine = rows.filter((r) => r.jobId === job);
    // The newest 64 by batch id exactly, the older ones of the newest minute per second.
    const recent = mine.slice(-64);
    const newest = Math.max(...mine.map((r) => Math.floor(r.ms / 1000)));
    const bySecond = new Map<number, number>();
    for (const r of mine.slice(0, -64)) {
      const s = Math.floor(r.ms / 1000);
      if (s >= newest - 60) bySecond.set(s, (bySecond.get(s) ?? 0) + r.numInputRows);
    }
    const seconds = [...bySecond.keys()].sort((a, b) => a - b);
    out.set(job, {
      batchIds: recent.map((r) => r.batchId),
      triggerMs: recent.map((r) => r.ms),
      inputRows: recent.map((r) => r.numInputRows),
      stateRows: recent.map((r) => r.state),
      lags: recent.map((r) => r.lag),
      seconds,
      rowsBySecond: seconds.map((s) => bySecond.get(s)!),
      firstMs: began.get(job) ?? null,
    });
  }
  return out;
}

/**
 * The list's input rate at `now` from the batches themselves: those that triggered within the
 * window, except that the batches older than the newest 64 (by batch id) count by whole second
 * (their second starts within the window).
 */
function expectedRate(f: Figures, now: number): number | null {
  if (f.batchIds.length === 0) return null;
  let rows = 0;
  f.triggerMs.forEach((ms, i) => {
    if (ms >= now - INPUT_RATE_WINDOW_MS && ms <= now) rows += f.inputRows[i];
  });
  f.seconds.forEach((s, i) => {
    if (s * 1000 >= now - INPUT_RATE_WINDOW_MS && s * 1000 <= now) rows += f.rowsBySecond[i];
  });
  return rows === 0 || f.firstMs === null ? 0 : rows / (Math.min(INPUT_RATE_WINDOW_MS, Math.max(1000, now - f.firstMs)) / 1000);
}

/** The model of when each job's history began: kept across deletes until the history is empty. */
async function updateBegan(jobs: string[], began: Map<string, number | null>): Promise<void> {
  const { rows } = await q(
    `SELECT j, (SELECT (extract(epoch FROM min("timestamp")) * 1000)::float8 FROM "BatchProgress" WHERE "jobId" = j) AS first FROM unnest($1::text[]) j`,
    [jobs],
  );
  for (const r of rows) {
    const prior = began.get(r.j) ?? null;
    began.set(r.j, r.first === null ? null : prior === null ? r.first : Math.min(prior, r.first));
  }
}

async function expectCountersEqualRecount(jobs: string[], began: Map<string, number | null>): Promise<void> {
  const have = await counted(jobs);
  const want = await recounted(jobs, began);
  for (const j of jobs) {
    if (!have.has(j)) expect(want.get(j)!.batchIds).toEqual([]);
    else expect({ job: j, ...have.get(j)! }).toEqual({ job: j, ...want.get(j)! });
  }
  // And the list shows them so, read at times after the newest batch.
  const newest = Math.max(T0, ...[...want.values()].flatMap((f) => f.triggerMs));
  for (const now of [newest, newest + 1, newest + 30_500, newest + 59_000, newest + 61_000]) {
    const items = (await listJobPage(db, jobsQuerySchema.parse({ limit: '500' }), now)).items.filter((i) => jobs.includes(i.id));
    for (const item of items) {
      const f = want.get(item.id)!;
      const rate = expectedRate(f, now);
      expect({ job: item.id, now, sparkline: item.stateRowsSparkline, lag: item.commitLag }).toEqual({
        job: item.id,
        now,
        sparkline: f.stateRows.slice(-SPARKLINE_BATCHES),
        lag: f.lags.length ? f.lags[f.lags.length - 1] : null,
      });
      if (rate === null) expect(item.inputRowsPerSecond).toBeNull();
      else expect(item.inputRowsPerSecond).toBeCloseTo(rate, 9);
    }
  }
}

type Op =
  | { kind: 'insert'; job: number; from: number; n: number; stepMs: number }
  | { kind: 'replay'; job: number; batchId: number; atMs: number; rows: number; state: number; lag: number | null }
  | { kind: 'backfill'; job: number; from: number; n: number }
  | { kind: 'delete-newest'; job: number; above: number }
  | { kind: 'purge'; beforeMs: number }
  | { kind: 'purge-batches'; job: number; below: number }
  | { kind: 'reset'; job: number };

const JOBS = ['f1', 'f2', 'f3'];

/** A batch's row as the engine would record it, its figures derived from its id. */
const batchValues = `$1, b, to_timestamp(($2::float8 + b * $3::float8) / 1000) AT TIME ZONE 'UTC', (b * 37) % 101, 1, 1, 10, '{}', (b * b)::bigint, CASE WHEN b % 3 = 0 THEN NULL ELSE b * 5 END, '{}'`;

async function apply(o: Op): Promise<void> {
  const cols = `(id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", "stateRowsTotal", "commitLag", progress)`;
  switch (o.kind) {
    case 'insert':
      await q(
        `INSERT INTO "BatchProgress" ${cols} SELECT gen_random_uuid()::text, ${batchValues} FROM generate_series($4::int, $5::int) b ON CONFLICT ("jobId", "batchId") DO NOTHING`,
        [JOBS[o.job], T0, o.stepMs, o.from, o.from + o.n - 1],
      );
      break;
    case 'replay': {
      // As the run recorder writes a batch: Prisma's upsert (the update path when recorded).
      const jobId = JOBS[o.job];
      const row = {
        jobId,
        batchId: o.batchId,
        timestamp: new Date(T0 + o.atMs),
        numInputRows: o.rows,
        inputRowsPerSecond: 1,
        processedRowsPerSecond: 1,
        batchDurationMs: 10,
        durationMs: {},
        stateRowsTotal: BigInt(o.state),
        commitLag: o.lag === null ? null : BigInt(o.lag),
        progress: {},
      };
      await db.batchProgress.upsert({ where: { jobId_batchId: { jobId, batchId: o.batchId } }, create: row, update: row });
      break;
    }
    case 'backfill':
      // As the run recorder fills in batches the checkpoint kept: createMany, skipping those recorded.
      await db.batchProgress.createMany({
        data: Array.from({ length: o.n }, (_, k) => ({
          jobId: JOBS[o.job],
          batchId: o.from + k,
          timestamp: new Date(T0 + (o.from + k) * 700),
          numInputRows: k,
          inputRowsPerSecond: 1,
          processedRowsPerSecond: 1,
          batchDurationMs: 10,
          durationMs: {},
          stateRowsTotal: BigInt(k),
          progress: {},
        })),
        skipDuplicates: true,
      });
      break;
    case 'delete-newest':
      await db.batchProgress.deleteMany({ where: { jobId: JOBS[o.job], batchId: { gt: o.above } } });
      break;
    case 'purge':
      // A retention purge across jobs: the batches that triggered before a time.
      await q(`DELETE FROM "BatchProgress" WHERE timestamp < to_timestamp($1::float8 / 1000) AT TIME ZONE 'UTC'`, [T0 + o.beforeMs]);
      break;
    case 'purge-batches':
      await db.batchProgress.deleteMany({ where: { jobId: JOBS[o.job], batchId: { lt: o.below } } });
      break;
    case 'reset':
      await db.batchProgress.deleteMany({ where: { jobId: JOBS[o.job] } });
      break;
  }
}

describe('the jobs list figures in JobCounters', () => {
  it('equal a recount of BatchProgress after any inserts, replays, backfills, deletes, purges and resets', async () => {
    await addJobs(JOBS);
    const job = fc.integer({ min: 0, max: JOBS.length - 1 });
    const batchId = fc.integer({ min: 0, max: 120 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('insert' as const), job, from: batchId, n: fc.integer({ min: 1, max: 80 }), stepMs: fc.constantFrom(250, 1000, 1500, 7000) }), weight: 3 },
      {
        arbitrary: fc.record({
          kind: fc.constant('replay' as const),
          job,
          batchId,
          atMs: fc.integer({ min: 0, max: 400_000 }),
          rows: fc.integer({ min: 0, max: 1000 }),
          state: fc.integer({ min: 0, max: 10_000 }),
          lag: fc.option(fc.integer({ min: 0, max: 500 })),
        }),
        weight: 2,
      },
      fc.record({ kind: fc.constant('backfill' as const), job, from: batchId, n: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('delete-newest' as const), job, above: batchId }),
      fc.record({ kind: fc.constant('purge' as const), beforeMs: fc.integer({ min: 0, max: 400_000 }) }),
      fc.record({ kind: fc.constant('purge-batches' as const), job, below: batchId }),
      fc.record({ kind: fc.constant('reset' as const), job }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        const began = new Map<string, number | null>();
        for (const o of ops) {
          await apply(o);
          await updateBegan(JOBS, began);
        }
        await expectCountersEqualRecount(JOBS, began);
        await q(`DELETE FROM "BatchProgress" WHERE "jobId" = ANY($1)`, [JOBS]);
      }),
      { numRuns: 30, seed: 20261201 },
    );
  }, 240_000);

  it('a purge of old batches changes none of the recent figures', async () => {
    await addJobs(['purged']);
    // One batch a second for 300 s; the purge keeps the last 70 s.
    await q(
      `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", "stateRowsTotal", progress)
       SELECT gen_random_uuid()::text, 'purged', b, to_timestamp(($1::float8 + b * 1000) / 1000) AT TIME ZONE 'UTC', 10, 1, 1, 10, '{}', b, '{}' FROM generate_series(0, 299) b`,
      [T0],
    );
    const now = T0 + 299_500;
    const page = async () => (await listJobPage(db, jobsQuerySchema.parse({ limit: '500' }), now)).items.find((i) => i.id === 'purged')!;
    const before = await page();
    expect(before.inputRowsPerSecond).toBeCloseTo((60 * 10) / 60, 9);
    await q(`DELETE FROM "BatchProgress" WHERE "jobId" = 'purged' AND timestamp < to_timestamp($1::float8 / 1000) AT TIME ZONE 'UTC'`, [T0 + 230_000]);
    expect((await q(`SELECT count(*)::int AS n FROM "BatchProgress" WHERE "jobId" = 'purged'`)).rows[0].n).toBe(70);
    // The job did not become 70 s old: its rate is still over the whole minute.
    expect(await page()).toEqual(before);
    // A reset empties the history: no figures until the next batch, which starts a new history.
    await db.batchProgress.deleteMany({ where: { jobId: 'purged' } });
    expect(await page()).toMatchObject({ inputRowsPerSecond: null, commitLag: null, stateRowsTotal: null, stateRowsSparkline: [] });
    await q(
      `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
       VALUES ('restart', 'purged', 0, to_timestamp($1::float8 / 1000) AT TIME ZONE 'UTC', 30, 1, 1, 10, '{}', '{}')`,
      [now - 9_500],
    );
    expect((await page()).inputRowsPerSecond).toBeCloseTo(30 / 9.5, 9);
    await q(`DELETE FROM "Job" WHERE id = 'purged'`);
  }, 60_000);

  it('TRUNCATE empties them, a backfilled database has them, and a deleted job takes its row along', async () => {
    await addJobs(['t1', 't2']);
    await apply({ kind: 'insert', job: 0, from: 0, n: 50, stepMs: 1000 });
    await q(`INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
             SELECT gen_random_uuid()::text, j, b, now(), 1, 1, 1, 10, '{}', '{}' FROM unnest(ARRAY['t1', 't2']) j, generate_series(0, 40) b`);
    // What the migration runs once over the history recorded before it: the same recount.
    const kept = await counted(['t1', 't2', ...JOBS]);
    await q(`UPDATE "JobCounters" SET "recentBatchIds" = '{}', "recentStateRowsTotal" = '{}', "recentCommitLag" = '{}', "recentTriggerMs" = '{}', "recentInputRows" = '{}', "inputSeconds" = '{}', "inputRowsBySecond" = '{}', "firstBatchAt" = NULL`);
    await q(`SELECT weir_recount_recent_batches(array_agg("jobId")) FROM "JobCounters"`);
    expect(await counted(['t1', 't2', ...JOBS])).toEqual(kept);
    await q(`TRUNCATE "BatchProgress"`);
    const emptied = await counted(['t1', 't2', ...JOBS]);
    for (const f of emptied.values()) expect(f).toEqual({ batchIds: [], triggerMs: [], inputRows: [], stateRows: [], lags: [], seconds: [], rowsBySecond: [], firstMs: null });
    await apply({ kind: 'insert', job: 1, from: 0, n: 5, stepMs: 1000 });
    await q(`DELETE FROM "Job" WHERE id = ANY($1)`, [['t1', 't2', ...JOBS]]);
    expect((await q(`SELECT count(*)::int AS n FROM "JobCounters" WHERE "jobId" = ANY($1)`, [['t1', 't2', ...JOBS]])).rows[0].n).toBe(0);
  }, 60_000);
});

describe('the cost of keeping them', () => {
  /** BatchProgress rows the statements of one batch's insert (its triggers included) read. */
  async function rowsReadByOneInsert(jobId: string, batchId: number): Promise<number> {
    const read = async () => {
      await q('SELECT pg_stat_clear_snapshot()');
      const { rows } = await q(
        `SELECT (SELECT COALESCE(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = 'BatchProgress')
              + (SELECT COALESCE(seq_tup_read, 0) FROM pg_stat_user_tables WHERE relname = 'BatchProgress') AS n`,
      );
      return Number(rows[0].n);
    };
    // Statistics reach the shared counters when the session goes idle after this request.
    await q('SELECT pg_stat_force_next_flush()');
    const before = await read();
    await q(
      `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
       VALUES (gen_random_uuid()::text, $1, $2, now() AT TIME ZONE 'UTC', 1, 1, 1, 10, '{}', '{}')`,
      [jobId, batchId],
    );
    await q('SELECT pg_stat_force_next_flush()');
    return (await read()) - before;
  }

  it('a batch recorded reads the same history rows after 70 batches and after 2,000', async () => {
    await addJobs(['short', 'long']);
    for (const [job, n] of [['short', 70], ['long', 2000]] as const) {
      await q(
        `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
         SELECT gen_random_uuid()::text, $1, b, now() AT TIME ZONE 'UTC' - interval '1 hour' + b * interval '1 second', 1, 1, 1, 10, '{}', '{}' FROM generate_series(0, $2::int - 1) b`,
        [job, n],
      );
    }
    await q('ANALYZE "BatchProgress"');
    const short = await rowsReadByOneInsert('short', 70);
    const long = await rowsReadByOneInsert('long', 2000);
    expect(long).toBe(short);
    // The newest 64 by batch id, the newest and oldest trigger times, the newest minute (one batch).
    expect(long).toBeLessThanOrEqual(64 + 4);
    await q(`DELETE FROM "Job" WHERE id = ANY($1)`, [['short', 'long']]);
  }, 60_000);
});

describe('the jobs list figures under concurrent writers', () => {
  it('a writer whose REPEATABLE READ snapshot predates another batch fails instead of recounting it away', async () => {
    await addJobs(['rr']);
    const insert = (batchId: number) =>
      `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
       VALUES (gen_random_uuid()::text, 'rr', ${batchId}, now() AT TIME ZONE 'UTC', 5, 1, 1, 10, '{}', '{}')`;
    await q(insert(0));
    const stale = new pg.Client({ connectionString: database.url });
    await stale.connect();
    try {
      await stale.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await stale.query('SELECT count(*) FROM "BatchProgress"');
      // Committed after the stale snapshot: a recount from it would lose batch 1.
      await q(insert(1));
      await expect(stale.query(insert(2))).rejects.toMatchObject({ code: '40001' });
      await stale.query('ROLLBACK');
    } finally {
      await stale.end();
    }
    const began = new Map<string, number | null>();
    await updateBegan(['rr'], began);
    await expectCountersEqualRecount(['rr'], began);
    expect((await counted(['rr'])).get('rr')!.batchIds).toEqual([0, 1]);
    await q(`DELETE FROM "Job" WHERE id = 'rr'`);
  }, 60_000);

  /**
   * Writers race on the same jobs as production's do: two runs' recorders appending and
   * replaying batches (each in a transaction that takes the Job row first, as the recorder
   * does), a backfill, retention purges across every job (one statement), savepoint restores
   * and resets. No writer may fail (a deadlock would), and afterwards the figures equal a
   * recount. Deleters of one job's history take its Job row exclusively first, across jobs in
   * id order: two multi-row deletes of the same rows in different orders (a purge by time, a
   * reset by batch id) deadlock on the rows themselves, whatever the triggers do.
   */
  it('no writer fails and the figures equal a recount', async () => {
    const jobs = ['r1', 'r2', 'r3'];
    await addJobs(jobs);
    const pool = new pg.Pool({ connectionString: database.url, max: 8 });
    const failures: string[] = [];
    let seed = 20261201;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const inTransaction = async (statements: [string, unknown[]][]) => {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        for (const [text, values] of statements) await c.query(text, values);
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK');
        const pe = e as pg.DatabaseError;
        failures.push(`${String(e)} ${pe.detail ?? ''} ${pe.where ?? ''} [${statements.map(([t]) => t.slice(0, 60)).join(' | ')}]`);
      } finally {
        c.release();
      }
    };
    const lockJob = (jobId: string): [string, unknown[]] => [`SELECT 1 FROM "Job" WHERE id = $1 FOR KEY SHARE`, [jobId]];
    const lockJobsToDelete = (ids: string[]): [string, unknown[]] => [`SELECT 1 FROM "Job" WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`, [ids]];
    const record = (jobId: string, batchId: number, rows: number): [string, unknown[]] => [
      `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", "stateRowsTotal", "commitLag", progress)
       VALUES (gen_random_uuid()::text, $1, $2::int, to_timestamp(($3::float8 + $2::int * 400) / 1000) AT TIME ZONE 'UTC', $4::int, 1, 1, 10, '{}', $4::int, $2::int, '{}')
       ON CONFLICT ("jobId", "batchId") DO UPDATE SET "numInputRows" = excluded."numInputRows", "stateRowsTotal" = excluded."stateRowsTotal", timestamp = excluded.timestamp`,
      [jobId, batchId, T0, rows],
    ];
    const recorder = async (jobId: string, from: number) => {
      for (let b = from; b < from + 60; b++) {
        // Every fourth write replays a batch already recorded, as a restarted run does.
        const batchId = b % 4 === 3 ? b - 2 : b;
        await inTransaction([lockJob(jobId), record(jobId, batchId, rand(100))]);
      }
    };
    const operator = async () => {
      for (let i = 0; i < 25; i++) {
        const jobId = jobs[rand(jobs.length)];
        switch (rand(4)) {
          case 0:
            await inTransaction([
              lockJobsToDelete(jobs),
              [`DELETE FROM "BatchProgress" WHERE "jobId" = ANY($1) AND timestamp < to_timestamp($2::float8 / 1000) AT TIME ZONE 'UTC'`, [jobs, T0 + rand(40) * 1000]],
            ]);
            break;
          case 1:
            await inTransaction([lockJobsToDelete([jobId]), [`DELETE FROM "BatchProgress" WHERE "jobId" = $1 AND "batchId" > $2`, [jobId, rand(120)]]]);
            break;
          case 2:
            await inTransaction([lockJobsToDelete([jobId]), [`DELETE FROM "BatchProgress" WHERE "jobId" = $1`, [jobId]]]);
            break;
          case 3:
            await inTransaction([
              lockJob(jobId),
              [
                `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
                 SELECT gen_random_uuid()::text, $1, b, to_timestamp(($2::float8 + b * 400) / 1000) AT TIME ZONE 'UTC', 3, 1, 1, 10, '{}', '{}' FROM generate_series(0, 20) b
                 ON CONFLICT ("jobId", "batchId") DO NOTHING`,
                [jobId, T0],
              ],
            ]);
            break;
        }
      }
    };
    const began = new Map<string, number | null>();
    try {
      await Promise.all([...jobs.flatMap((j) => [recorder(j, 0), recorder(j, 40)]), operator(), operator()]);
      expect(failures).toEqual([]);
      // The race ran: writes landed.
      expect((await q(`SELECT count(*)::int AS n FROM "BatchProgress" WHERE "jobId" = ANY($1)`, [jobs])).rows[0].n).toBeGreaterThan(0);
      // When each history began cannot be recounted after purges; the rest can.
      const have = await counted(jobs);
      for (const j of jobs) began.set(j, have.get(j)?.firstMs ?? null);
      await expectCountersEqualRecount(jobs, began);
      const { rows } = await q(
        `SELECT c."jobId" FROM "JobCounters" c WHERE c."jobId" = ANY($1)
           AND ((c."firstBatchAt" IS NULL) <> (NOT EXISTS (SELECT 1 FROM "BatchProgress" b WHERE b."jobId" = c."jobId"))
                OR c."firstBatchAt" > (SELECT min(timestamp) FROM "BatchProgress" b WHERE b."jobId" = c."jobId"))`,
        [jobs],
      );
      expect(rows).toEqual([]);
    } finally {
      await pool.end();
      await q(`DELETE FROM "Job" WHERE id = ANY($1)`, [jobs]);
    }
  }, 240_000);
});
