/**
 * The SQL downsampler against the in-memory reference (`downsampleBatches`) over random batch
 * histories stored in a real PostgreSQL database of this test's own.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { BATCH_PHASES, batchCharts, downsampleBatches, heapStateWarning, rawBatchSeries, type BatchRow, type ChartPoint } from './batch-chart-presenter';

let database: TestDatabase;
let db: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase('weir_ui_charts');
  db = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

const T0 = Date.UTC(2026, 10, 29, 8, 0, 0);

async function newJob(name: string): Promise<string> {
  const job = await db.job.create({
    data: { name, spec: {}, sql: 'SELECT 1', sourceType: 'files', sinkType: 'files', outputMode: 'append', trigger: {}, checkpointLocation: `/tmp/${name}` },
  });
  return job.id;
}

async function insertBatches(jobId: string, rows: BatchRow[]): Promise<void> {
  await db.batchProgress.createMany({
    data: rows.map((r) => ({
      jobId,
      batchId: r.batchId,
      timestamp: new Date(r.timestamp),
      numInputRows: r.numInputRows,
      inputRowsPerSecond: r.inputRowsPerSecond,
      processedRowsPerSecond: r.processedRowsPerSecond,
      batchDurationMs: r.batchDurationMs,
      durationMs: r.durationMs as Record<string, number>,
      stateRowsTotal: BigInt(r.stateRowsTotal),
      stateRowsUpdated: BigInt(r.stateRowsUpdated),
      stateRowsDroppedByWatermark: BigInt(r.stateRowsDroppedByWatermark),
      stateRowsRemoved: BigInt(r.stateRowsRemoved),
      stateMemoryBytes: BigInt(r.stateMemoryBytes),
      stateDiskBytes: BigInt(r.stateDiskBytes),
      commitLag: r.commitLag === null ? null : BigInt(r.commitLag),
      watermarkMs: r.watermarkMs === null ? null : BigInt(r.watermarkMs),
      progress: { batchId: r.batchId },
    })),
  });
}

const small = fc.integer({ min: 0, max: 5000 });
/** A history of `n` batches starting at `first`, one second apart, with random figures. */
const historyArb = fc
  .record({ first: fc.integer({ min: 0, max: 50 }), n: fc.integer({ min: 1, max: 60 }) })
  .chain(({ first, n }) =>
    fc.array(
      fc.record({
        // Rates with three decimals, as progress reports them (a double's 17th digit does not
        // survive PostgreSQL's float8 text round trip, and no chart shows it).
        rate: fc.integer({ min: 0, max: 1e8 }).map((x) => x / 1000),
        proc: fc.integer({ min: 0, max: 1e8 }).map((x) => x / 1000),
        dur: small,
        phases: fc.array(small, { minLength: BATCH_PHASES.length, maxLength: BATCH_PHASES.length }),
        rows: small,
        stateTotal: small,
        updated: small,
        dropped: small,
        removed: small,
        mem: small,
        disk: small,
        lag: fc.option(small, { nil: null }),
        // -1: the watermark is 0 (none yet), as in the first batches of a run.
        wmBehind: fc.option(fc.integer({ min: -1, max: 60_000 }), { nil: null }),
      }),
      { minLength: n, maxLength: n },
    ).map((xs) =>
      xs.map((x, i): BatchRow => {
        const timestamp = T0 + (first + i) * 1000;
        return {
          batchId: first + i,
          timestamp,
          inputRowsPerSecond: x.rate,
          processedRowsPerSecond: x.proc,
          batchDurationMs: x.dur,
          durationMs: Object.fromEntries(BATCH_PHASES.map((p, k) => [p, x.phases[k]])),
          numInputRows: x.rows,
          stateRowsTotal: x.stateTotal,
          stateRowsUpdated: x.updated,
          stateRowsDroppedByWatermark: x.dropped,
          stateRowsRemoved: x.removed,
          stateMemoryBytes: x.mem,
          stateDiskBytes: x.disk,
          commitLag: x.lag,
          watermarkMs: x.wmBehind === null ? null : x.wmBehind === -1 ? 0 : timestamp - x.wmBehind,
        };
      }),
    ),
  );

function expectSamePoints(actual: ChartPoint[], expected: ChartPoint[]): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i];
    expect({ from: a.fromBatchId, to: a.toBatchId, t: a.t, batches: a.batches }).toEqual({ from: e.fromBatchId, to: e.toBatchId, t: e.t, batches: e.batches });
    for (const k of ['numInputRows', 'stateRowsTotal', 'stateRowsUpdated', 'stateRowsDroppedByWatermark', 'stateRowsRemoved', 'stateMemoryBytes', 'stateDiskBytes', 'commitLag', 'watermarkGapMs'] as const) {
      expect(a[k], k).toBe(e[k]);
    }
    // Averages come back from float8 arithmetic in another order: equal to a relative 1e-9.
    for (const k of ['inputRowsPerSecond', 'processedRowsPerSecond', 'batchDurationMs'] as const) {
      expect(Math.abs(a[k] - e[k]), k).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(e[k])));
    }
    for (const p of BATCH_PHASES) expect(Math.abs(a.phases[p] - e.phases[p]), p).toBeLessThanOrEqual(1e-9 * Math.max(1, e.phases[p]));
  });
}

describe('batchCharts', () => {
  it('an empty history is no points, not an error', async () => {
    const jobId = await newJob('empty-history');
    const c = await batchCharts(db, jobId);
    expect(c).toEqual({ jobId, totalBatches: 0, downsampled: false, maxPoints: 300, points: [], stateMemoryWarning: null, lmdbPoints: null, sourcePoints: null, sourceNames: [], multipleWatermarkPolicy: null });
  });

  it('matches the in-memory reference for random histories and bucket counts (differential)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(historyArb, fc.integer({ min: 1, max: 80 }), async (rows, maxPoints) => {
        const jobId = await newJob(`prop-${run++}`);
        await insertBatches(jobId, rows);
        const c = await batchCharts(db, jobId, { maxPoints });
        expectSamePoints(c.points, downsampleBatches(rows, maxPoints));
        expect(c.totalBatches).toBe(rows.length);
        expect(c.points.length).toBeLessThanOrEqual(maxPoints);
        expect(c.downsampled).toBe(rows.length > c.points.length);
        // The raw series reads back what was stored, so the reference saw what SQL saw.
        expect(await rawBatchSeries(db, jobId)).toEqual(rows);
      }),
      { numRuns: 15, seed: 7 },
    );
  }, 120_000);

  it('keeps a one-batch commit-lag spike visible after downsampling, and honours the time range', async () => {
    const jobId = await newJob('spike');
    const rows: BatchRow[] = Array.from({ length: 1000 }, (_, i) => ({
      batchId: i,
      timestamp: T0 + i * 1000,
      inputRowsPerSecond: 10,
      processedRowsPerSecond: 20,
      batchDurationMs: 5,
      durationMs: { addBatch: 3, walCommit: 2 },
      numInputRows: 1,
      stateRowsTotal: i,
      stateRowsUpdated: 1,
      stateRowsDroppedByWatermark: 0,
      stateRowsRemoved: 0,
      stateMemoryBytes: 100,
      stateDiskBytes: 200,
      commitLag: i === 617 ? 9999 : 0,
      watermarkMs: null,
    }));
    await insertBatches(jobId, rows);
    const c = await batchCharts(db, jobId, { maxPoints: 50 });
    expect(c.points).toHaveLength(50);
    expect(c.downsampled).toBe(true);
    expect(c.points.reduce((s, p) => s + p.numInputRows, 0)).toBe(1000);
    expect(Math.max(...c.points.map((p) => p.commitLag ?? 0))).toBe(9999);
    expect(c.points.at(-1)!.stateRowsTotal).toBe(999);
    expect(c.points[0].watermarkGapMs).toBeNull();
    // Watermark 0 ("none yet") is no gap, not the time since 1970.
    const early = await newJob('early-watermark');
    await insertBatches(early, [{ ...rows[0], watermarkMs: 0 }, { ...rows[1], watermarkMs: rows[1].timestamp - 2500 }]);
    expect((await batchCharts(db, early)).points.map((p) => p.watermarkGapMs)).toEqual([null, 2500]);

    const ranged = await batchCharts(db, jobId, { fromMs: T0 + 100_000, toMs: T0 + 199_000 });
    expect(ranged.totalBatches).toBe(100);
    expect(ranged.points[0].fromBatchId).toBe(100);
    expect(ranged.points.at(-1)!.toBatchId).toBe(199);
    expect(ranged.downsampled).toBe(false);
  }, 60_000);
});

describe('the warning for state near the run\'s memory', () => {
  it('is said for the heap store from half the run\'s memory, never for LMDB or a run without a recorded limit', () => {
    const MB = 1024 * 1024;
    expect(heapStateWarning('hdfs', 255 * MB, 512)).toBeNull();
    expect(heapStateWarning('hdfs', 300 * MB, 512)).toMatch(/^The state holds 300 MB in the run's memory, 59% of its 512 MB \(WEIR_RUN_MEMORY_MB\).*LMDB state store/);
    expect(heapStateWarning('lmdb', 900 * MB, 512)).toBeNull();
    expect(heapStateWarning('hdfs', 900 * MB, null)).toBeNull();
  });

  it("reads the job's provider, its latest run's limit and the latest batch's state bytes", async () => {
    const MB = 1024 * 1024;
    const batch = (batchId: number, stateMemoryBytes: number): BatchRow => ({
      batchId, timestamp: T0 + batchId * 1000, inputRowsPerSecond: 0, processedRowsPerSecond: 0, batchDurationMs: 1, durationMs: {}, numInputRows: 1,
      stateRowsTotal: 1, stateRowsUpdated: 1, stateRowsDroppedByWatermark: 0, stateRowsRemoved: 0, stateMemoryBytes, stateDiskBytes: 0, commitLag: null, watermarkMs: null,
    });
    const heap = await newJob('heap-near-limit');
    await db.run.create({ data: { jobId: heap, runId: `${heap}-r1`, memoryLimitMb: 64, startedAt: new Date(T0) } });
    await insertBatches(heap, [batch(0, 10 * MB), batch(1, 40 * MB)]);
    expect((await batchCharts(db, heap)).stateMemoryWarning).toMatch(/^The state holds 40 MB in the run's memory, 63% of its 64 MB/);
    const lmdb = await newJob('lmdb-near-limit');
    await db.job.update({ where: { id: lmdb }, data: { spec: { stateStore: { provider: 'lmdb' } } } });
    await db.run.create({ data: { jobId: lmdb, runId: `${lmdb}-r1`, memoryLimitMb: 64 } });
    await insertBatches(lmdb, [batch(0, 40 * MB)]);
    expect((await batchCharts(db, lmdb)).stateMemoryWarning).toBeNull();
  });
});

describe('the LMDB state store\'s series', () => {
  it('plots local bytes (a level), changelog bytes (a sum) and stores rebuilt (the most) per bucket, for an lmdb job only', async () => {
    const lmdb = await newJob('lmdb-series');
    await db.job.update({ where: { id: lmdb }, data: { spec: { stateStore: { provider: 'lmdb' } } } });
    const op = (local: number, changelog: number, rebuilt: number) => ({ operatorName: 'aggregate', customMetrics: { lmdbLocalBytes: local, lmdbChangelogBytes: changelog, lmdbRebuiltFromCheckpoint: rebuilt } });
    const progress = [
      { stateOperators: [op(1000, 10, 1), op(500, 5, 1)] },
      { stateOperators: [op(2000, 20, 0)] },
      {}, // a progress without stateOperators counts as nothing
      { stateOperators: [op(4000, 40, 0), op(100, 1, 0)] },
    ];
    await db.batchProgress.createMany({
      data: progress.map((p, batchId) => ({
        jobId: lmdb, batchId, timestamp: new Date(T0 + batchId * 1000), numInputRows: 1, inputRowsPerSecond: 0, processedRowsPerSecond: 0, batchDurationMs: 1, durationMs: {}, progress: p,
      })),
    });
    expect((await batchCharts(db, lmdb, { maxPoints: 2 })).lmdbPoints).toEqual([
      { fromBatchId: 0, toBatchId: 1, t: T0 + 1000, localBytes: 2000, changelogBytes: 35, storesRebuilt: 2 },
      { fromBatchId: 2, toBatchId: 3, t: T0 + 3000, localBytes: 4100, changelogBytes: 41, storesRebuilt: 0 },
    ]);
    expect((await batchCharts(db, lmdb)).lmdbPoints?.map((p) => p.localBytes)).toEqual([1500, 2000, 0, 4100]);

    const heap = await newJob('heap-series');
    await db.batchProgress.create({ data: { jobId: heap, batchId: 0, timestamp: new Date(T0), numInputRows: 1, inputRowsPerSecond: 0, processedRowsPerSecond: 0, batchDurationMs: 1, durationMs: {}, progress: progress[0] } });
    expect((await batchCharts(db, heap)).lmdbPoints).toBeNull();
  });
});

describe('a several-source job\'s series per source', () => {
  it('sums each source\'s input rows and takes its worst commit lag per bucket, named as the spec\'s sources; none for a one-source job', async () => {
    const multi = await newJob('sources-series');
    await db.job.update({ where: { id: multi }, data: { spec: { sources: [{ name: 'impressions' }, { name: 'clicks' }] } } });
    const src = (numInputRows: number, commitLag: number | null) => ({ numInputRows, commitLag, watermarkGapMs: null });
    const progress = [
      { sources: [src(10, 5), src(1, null)] },
      { sources: [src(20, 2), src(3, 7)] },
      { sources: [src(0, 0), src(4, 1)] },
      {}, // a progress without sources counts as nothing
    ];
    await db.batchProgress.createMany({
      data: progress.map((p, batchId) => ({
        jobId: multi, batchId, timestamp: new Date(T0 + batchId * 1000), numInputRows: 1, inputRowsPerSecond: 0, processedRowsPerSecond: 0, batchDurationMs: 1, durationMs: {}, progress: p,
      })),
    });
    const c = await batchCharts(db, multi, { maxPoints: 2 });
    expect(c.sourceNames).toEqual(['impressions', 'clicks']);
    expect(c.sourcePoints).toEqual([
      { fromBatchId: 0, toBatchId: 1, t: T0 + 1000, sources: [src(30, 5), src(4, 7)] },
      { fromBatchId: 2, toBatchId: 2, t: T0 + 2000, sources: [src(0, 0), src(4, 1)] },
    ]);
    const one = await newJob('one-source-series');
    await db.batchProgress.create({ data: { jobId: one, batchId: 0, timestamp: new Date(T0), numInputRows: 1, inputRowsPerSecond: 0, processedRowsPerSecond: 0, batchDurationMs: 1, durationMs: {}, progress: progress[0] } });
    expect((await batchCharts(db, one)).sourcePoints).toBeNull();
  });

  it('takes each source\'s widest gap to its own watermark per bucket (none before it has one), and the policy of the newest batch', async () => {
    const multi = await newJob('sources-watermarks');
    await db.job.update({ where: { id: multi }, data: { spec: { sources: [{ name: 'impressions' }, { name: 'clicks' }], multipleWatermarkPolicy: 'max' } } });
    // Trigger times T0 + batchId s; each source's own watermark as its progress reports it.
    const wm = (ms: number) => ({ numInputRows: 1, watermark: new Date(ms).toISOString() });
    const progress = [
      { sources: [wm(0), wm(0)], multipleWatermarkPolicy: 'min' }, // none yet: no gap
      { sources: [wm(T0 - 9000), wm(0)], multipleWatermarkPolicy: 'min' }, // 10 s behind; clicks none yet
      { sources: [wm(T0 - 1000), wm(T0 - 28_000)], multipleWatermarkPolicy: 'min' }, // 3 s, 30 s
      { sources: [{ numInputRows: 1 }, { numInputRows: 1 }] }, // a batch of one watermark says nothing
    ];
    await db.batchProgress.createMany({
      data: progress.map((p, batchId) => ({
        jobId: multi, batchId, timestamp: new Date(T0 + batchId * 1000), numInputRows: 2, inputRowsPerSecond: 0, processedRowsPerSecond: 0, batchDurationMs: 1, durationMs: {}, progress: p,
      })),
    });
    const gaps = (c: Awaited<ReturnType<typeof batchCharts>>) => c.sourcePoints!.map((p) => p.sources.map((s) => s.watermarkGapMs));
    expect(gaps(await batchCharts(db, multi))).toEqual([[null, null], [10_000, null], [3000, 30_000], [null, null]]);
    expect(gaps(await batchCharts(db, multi, { maxPoints: 2 }))).toEqual([[10_000, null], [3000, 30_000]]);
    // The policy the checkpoint ran (recorded in progress), not the spec's; the newest batch in range.
    expect((await batchCharts(db, multi)).multipleWatermarkPolicy).toBeNull();
    expect((await batchCharts(db, multi, { toMs: T0 + 2000 })).multipleWatermarkPolicy).toBe('min');
  });
});
