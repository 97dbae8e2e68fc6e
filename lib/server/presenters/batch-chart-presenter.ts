/**
 * Chart series over a job's batch history, downsampled in PostgreSQL so that a job with 10,000
 * (or a million) committed batches answers with at most `maxPoints` points: the browser never
 * receives, parses or draws the raw history (a job page must be usable within a second).
 *
 * Bucketing: the batches in the selected time range are split by batch id into `maxPoints`
 * equal-width buckets, bucket = floor((batchId - lo) * maxPoints / (hi - lo + 1)). Batch ids are
 * dense within a checkpoint, so buckets hold equal numbers of batches. Per bucket:
 * - rates and phase durations are averaged (they are per-batch figures);
 * - input rows, state rows updated and removed, and late rows dropped by the watermark are
 *   summed (counts);
 * - state rows and state bytes are the value at the bucket's last batch (gauges: the latest
 *   level, not a sum);
 * - commit lag and watermark gap take the bucket's maximum (the worst moment must stay visible
 *   after downsampling, or a spike would be averaged away). A watermark of 0 is Spark's "none
 *   yet" (the first batches, before any event time was seen): no gap, rather than 56 years.
 * With fewer batches than `maxPoints` every bucket is one batch, so the series is exact. An
 * lmdb job's provider figures (lmdbPoints) are bucketed the same way.
 * `downsampleBatches` is the same rule over in-memory rows: the tests hold the SQL to it.
 */
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { stateStoreProviderOf, type JobSpec, type StateStoreProviderName } from '@/lib/engine';

/** Spark's durationMs phases of a micro-batch, in execution order (triggerExecution is their whole). */
export const BATCH_PHASES = ['latestOffset', 'walCommit', 'getBatch', 'queryPlanning', 'addBatch', 'commitOffsets'] as const;
export type BatchPhase = (typeof BATCH_PHASES)[number];

const DEFAULT_MAX_POINTS = 300;
const MAX_POINTS_LIMIT = 2000;

/** One point of every chart on the job page: plain numbers, ready for recharts. */
export interface ChartPoint {
  /** First and last batch id in the bucket. */
  fromBatchId: number;
  toBatchId: number;
  /** Trigger time of the bucket's last batch, epoch ms. */
  t: number;
  batches: number;
  inputRowsPerSecond: number;
  processedRowsPerSecond: number;
  batchDurationMs: number;
  phases: Record<BatchPhase, number>;
  numInputRows: number;
  stateRowsTotal: number;
  stateRowsUpdated: number;
  /** Late input rows dropped by the watermark (Spark's numRowsDroppedByWatermark). */
  stateRowsDroppedByWatermark: number;
  /** State rows removed, evictions by the watermark included (Spark's numRowsRemoved). */
  stateRowsRemoved: number;
  stateMemoryBytes: number;
  stateDiskBytes: number;
  commitLag: number | null;
  /** Trigger time minus the watermark, ms: how far event time trails. Null without a watermark. */
  watermarkGapMs: number | null;
}

export interface BatchCharts {
  jobId: string;
  /** Batches in the selected range (before downsampling). */
  totalBatches: number;
  downsampled: boolean;
  maxPoints: number;
  points: ChartPoint[];
  /** Said when the job keeps its state in the run's heap and the state nears the run's memory limit. */
  stateMemoryWarning: string | null;
  /** The LMDB state store's own figures, bucketed as `points`; null unless the job uses it. */
  lmdbPoints: LmdbChartPoint[] | null;
  /** Each source's figures, bucketed as `points`; null unless the job reads several sources. */
  sourcePoints: SourceChartPoint[] | null;
  /** The sources' names, in the order of each point's `sources`. */
  sourceNames: string[];
  /** How the global watermark is picked from the sources' own, as the newest batch in range ran it; null with fewer than two watermarks. */
  multipleWatermarkPolicy: 'min' | 'max' | null;
}

/** One bucket of a several-source job's figures per source (its progress's `sources[]`, in spec order). */
export interface SourceChartPoint {
  fromBatchId: number;
  toBatchId: number;
  t: number;
  /**
   * Per source: the input rows of the bucket's batches (a sum), the worst commit lag among them
   * and the widest gap between a batch's trigger time and the source's own watermark (null: none
   * reported; a source has its own watermark in a job of several).
   */
  sources: { numInputRows: number; commitLag: number | null; watermarkGapMs: number | null }[];
}

/** One bucket of the LMDB state store's figures (summed over the stateful operators' stores). */
export interface LmdbChartPoint {
  fromBatchId: number;
  toBatchId: number;
  t: number;
  /** Bytes of the pages the local LMDB environments use, at the bucket's last batch. */
  localBytes: number;
  /** Bytes of the changelogs the bucket's batches wrote to the checkpoint. */
  changelogBytes: number;
  /** Stores the run rebuilt from the checkpoint when it loaded them (0: the local copies were reused). */
  storesRebuilt: number;
}

export interface BatchChartQuery {
  /** Inclusive bounds on the batch's trigger time, epoch ms. */
  fromMs?: number;
  toMs?: number;
  maxPoints?: number;
}

/** A batch row as the reference downsampler takes it (what BatchProgress holds). */
export interface BatchRow {
  batchId: number;
  timestamp: number;
  inputRowsPerSecond: number;
  processedRowsPerSecond: number;
  batchDurationMs: number;
  durationMs: Partial<Record<string, number>>;
  numInputRows: number;
  stateRowsTotal: number;
  stateRowsUpdated: number;
  /** Late input rows dropped by the watermark (Spark's numRowsDroppedByWatermark). */
  stateRowsDroppedByWatermark: number;
  /** State rows removed, evictions by the watermark included (Spark's numRowsRemoved). */
  stateRowsRemoved: number;
  stateMemoryBytes: number;
  stateDiskBytes: number;
  commitLag: number | null;
  watermarkMs: number | null;
}

function clampMaxPoints(n: number | undefined): number {
  if (n === undefined || !Number.isFinite(n)) return DEFAULT_MAX_POINTS;
  return Math.min(MAX_POINTS_LIMIT, Math.max(1, Math.floor(n)));
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The bucketing rule in plain TypeScript (the reference the SQL is tested against). */
export function downsampleBatches(rows: BatchRow[], maxPoints: number): ChartPoint[] {
  if (rows.length === 0) return [];
  const sorted = [...rows].sort((a, b) => a.batchId - b.batchId);
  const lo = sorted[0].batchId;
  const width = sorted[sorted.length - 1].batchId - lo + 1;
  const buckets = new Map<number, BatchRow[]>();
  for (const r of sorted) {
    const b = Math.floor(((r.batchId - lo) * maxPoints) / width);
    let list = buckets.get(b);
    if (!list) buckets.set(b, (list = []));
    list.push(r);
  }
  const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const maxOrNull = (xs: (number | null)[]) => {
    const present = xs.filter((x): x is number => x !== null);
    return present.length ? present.reduce((m, x) => Math.max(m, x), -Infinity) : null;
  };
  return [...buckets.keys()]
    .sort((a, b) => a - b)
    .map((k) => {
      const g = buckets.get(k)!;
      const last = g[g.length - 1];
      return {
        fromBatchId: g[0].batchId,
        toBatchId: last.batchId,
        t: last.timestamp,
        batches: g.length,
        inputRowsPerSecond: avg(g.map((r) => r.inputRowsPerSecond)),
        processedRowsPerSecond: avg(g.map((r) => r.processedRowsPerSecond)),
        batchDurationMs: avg(g.map((r) => r.batchDurationMs)),
        phases: Object.fromEntries(BATCH_PHASES.map((p) => [p, avg(g.map((r) => r.durationMs[p] ?? 0))])) as Record<BatchPhase, number>,
        numInputRows: sum(g.map((r) => r.numInputRows)),
        stateRowsTotal: last.stateRowsTotal,
        stateRowsUpdated: sum(g.map((r) => r.stateRowsUpdated)),
        stateRowsDroppedByWatermark: sum(g.map((r) => r.stateRowsDroppedByWatermark)),
        stateRowsRemoved: sum(g.map((r) => r.stateRowsRemoved)),
        stateMemoryBytes: last.stateMemoryBytes,
        stateDiskBytes: last.stateDiskBytes,
        commitLag: maxOrNull(g.map((r) => r.commitLag)),
        watermarkGapMs: maxOrNull(g.map((r) => (r.watermarkMs === null || r.watermarkMs <= 0 ? null : r.timestamp - r.watermarkMs))),
      };
    });
}

function rangeFilter(q: BatchChartQuery): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (q.fromMs !== undefined) parts.push(Prisma.sql`AND "timestamp" >= ${new Date(q.fromMs)}`);
  if (q.toMs !== undefined) parts.push(Prisma.sql`AND "timestamp" <= ${new Date(q.toMs)}`);
  return parts.length ? Prisma.join(parts, ' ') : Prisma.empty;
}

type BucketRow = Record<string, unknown>;

/** Past this share of the run's memory, state in the heap draws a warning: at the limit the run ends RESOURCE_EXHAUSTED. */
const HEAP_STATE_WARNING_SHARE = 0.5;

/**
 * The warning for a job whose state lives in the run's heap (the `hdfs` provider) and holds
 * `stateBytes`, at least HEAP_STATE_WARNING_SHARE of the run's memory: with the way out.
 */
export function heapStateWarning(provider: StateStoreProviderName, stateBytes: number, runMemoryLimitMb: number | null): string | null {
  if (provider !== 'hdfs' || !runMemoryLimitMb || runMemoryLimitMb <= 0) return null;
  const share = stateBytes / (runMemoryLimitMb * 1024 * 1024);
  if (share < HEAP_STATE_WARNING_SHARE) return null;
  return (
    `The state holds ${(stateBytes / (1024 * 1024)).toFixed(0)} MB in the run's memory, ${Math.round(share * 100)}% of its ${runMemoryLimitMb} MB (WEIR_RUN_MEMORY_MB): ` +
    'a run that needs more ends FAILED with RESOURCE_EXHAUSTED. Keep the state on disk with the LMDB state store (a savepoint restored as a new job with it, or `weir checkpoint convert-state --to lmdb`), bound it with a watermark, or raise WEIR_RUN_MEMORY_MB.'
  );
}

/** Downsampled chart series for one job (see the header for the bucketing rule). */
export async function batchCharts(db: PrismaClient, jobId: string, q: BatchChartQuery = {}): Promise<BatchCharts> {
  const maxPoints = clampMaxPoints(q.maxPoints);
  const where = Prisma.sql`"jobId" = ${jobId} ${rangeFilter(q)}`;
  const phaseCols = Prisma.join(
    BATCH_PHASES.map((p) => Prisma.sql`avg(COALESCE(("durationMs"->>${p})::float8, 0)) AS ${Prisma.raw(`"phase_${p}"`)}`),
    ', ',
  );
  // One scan of the job's batches in range (index jobId+batchId); the bucket is computed per row
  // against the range's min/max, then everything aggregates per bucket.
  const rows = await db.$queryRaw<BucketRow[]>`
    ${bucketed(where, maxPoints)}
    SELECT bucket,
      min("batchId") AS "fromBatchId", max("batchId") AS "toBatchId",
      (extract(epoch FROM max("timestamp")) * 1000)::float8 AS t,
      count(*)::int AS batches,
      avg("inputRowsPerSecond")::float8 AS "inputRowsPerSecond",
      avg("processedRowsPerSecond")::float8 AS "processedRowsPerSecond",
      avg("batchDurationMs")::float8 AS "batchDurationMs",
      ${phaseCols},
      sum("numInputRows")::float8 AS "numInputRows",
      (array_agg("stateRowsTotal" ORDER BY "batchId" DESC))[1]::float8 AS "stateRowsTotal",
      sum("stateRowsUpdated")::float8 AS "stateRowsUpdated",
      sum("stateRowsDroppedByWatermark")::float8 AS "stateRowsDroppedByWatermark",
      sum("stateRowsRemoved")::float8 AS "stateRowsRemoved",
      (array_agg("stateMemoryBytes" ORDER BY "batchId" DESC))[1]::float8 AS "stateMemoryBytes",
      (array_agg("stateDiskBytes" ORDER BY "batchId" DESC))[1]::float8 AS "stateDiskBytes",
      max("commitLag")::float8 AS "commitLag",
      max(CASE WHEN "watermarkMs" > 0 THEN (extract(epoch FROM "timestamp") * 1000)::bigint - "watermarkMs" END)::float8 AS "watermarkGapMs"
    FROM b GROUP BY bucket ORDER BY bucket`;
  const points: ChartPoint[] = rows.map((r) => ({
    fromBatchId: num(r.fromBatchId),
    toBatchId: num(r.toBatchId),
    t: num(r.t),
    batches: num(r.batches),
    inputRowsPerSecond: num(r.inputRowsPerSecond),
    processedRowsPerSecond: num(r.processedRowsPerSecond),
    batchDurationMs: num(r.batchDurationMs),
    phases: Object.fromEntries(BATCH_PHASES.map((p) => [p, num(r[`phase_${p}`])])) as Record<BatchPhase, number>,
    numInputRows: num(r.numInputRows),
    stateRowsTotal: num(r.stateRowsTotal),
    stateRowsUpdated: num(r.stateRowsUpdated),
    stateRowsDroppedByWatermark: num(r.stateRowsDroppedByWatermark),
    stateRowsRemoved: num(r.stateRowsRemoved),
    stateMemoryBytes: num(r.stateMemoryBytes),
    stateDiskBytes: num(r.stateDiskBytes),
    commitLag: numOrNull(r.commitLag),
    watermarkGapMs: numOrNull(r.watermarkGapMs),
  }));
  const totalBatches = points.reduce((s, p) => s + p.batches, 0);
  const [job, run] = await Promise.all([
    db.job.findUnique({ where: { id: jobId }, select: { spec: true } }),
    db.run.findFirst({ where: { jobId }, orderBy: { startedAt: 'desc' }, select: { memoryLimitMb: true } }),
  ]);
  const provider = stateStoreProviderOf((job?.spec ?? {}) as Pick<JobSpec, 'stateStore'>);
  const stateMemoryWarning = heapStateWarning(provider, points.at(-1)?.stateMemoryBytes ?? 0, run?.memoryLimitMb ?? null);
  const lmdbPoints = provider === 'lmdb' ? await lmdbChartPoints(db, where, maxPoints) : null;
  const specSources = (job?.spec as { sources?: { name?: unknown }[] } | null)?.sources;
  const sourceNames = Array.isArray(specSources) && specSources.length > 1 ? specSources.map((x, i) => (typeof x?.name === 'string' ? x.name : `source ${i}`)) : [];
  const sourcePoints = sourceNames.length ? await sourceChartPoints(db, where, maxPoints, sourceNames.length) : null;
  const multipleWatermarkPolicy = sourceNames.length ? await watermarkPolicy(db, where) : null;
  return { jobId, totalBatches, downsampled: points.length < totalBatches, maxPoints, points, stateMemoryWarning, lmdbPoints, sourcePoints, sourceNames, multipleWatermarkPolicy };
}

/** The multipleWatermarkPolicy the newest batch in range recorded (the checkpoint's: it wins over the spec's). */
async function watermarkPolicy(db: PrismaClient, where: Prisma.Sql): Promise<'min' | 'max' | null> {
  const [row] = await db.$queryRaw<{ policy: string | null }[]>`
    SELECT progress->>'multipleWatermarkPolicy' AS policy FROM "BatchProgress" WHERE ${where} ORDER BY "batchId" DESC LIMIT 1`;
  return row?.policy === 'min' || row?.policy === 'max' ? row.policy : null;
}

/**
 * A several-source job's figures per source and bucket, read from each batch's progress JSON
 * (`sources[i]`, one entry per source in spec order): input rows summed, commit lag and the gap
 * to the source's own watermark the worst, as the whole job's charts take them (a watermark at
 * the epoch is "none yet": no gap). Only for such a job, so the others never parse it.
 */
async function sourceChartPoints(db: PrismaClient, where: Prisma.Sql, maxPoints: number, count: number): Promise<SourceChartPoint[]> {
  const rows = await db.$queryRaw<BucketRow[]>`
    ${bucketed(where, maxPoints)}
    SELECT bucket,
      min("batchId") AS "fromBatchId", max("batchId") AS "toBatchId",
      (extract(epoch FROM max("timestamp")) * 1000)::float8 AS t,
      (s.ord - 1)::int AS source,
      sum(COALESCE((s.value->>'numInputRows')::float8, 0))::float8 AS "numInputRows",
      max((s.value->>'commitLag')::float8)::float8 AS "commitLag",
      max(CASE WHEN (s.value->>'watermark')::timestamptz > 'epoch'::timestamptz
        THEN extract(epoch FROM b."timestamp" - (s.value->>'watermark')::timestamptz) * 1000 END)::float8 AS "watermarkGapMs"
    FROM b, jsonb_array_elements(CASE WHEN jsonb_typeof(b.progress->'sources') = 'array' THEN b.progress->'sources' ELSE '[]'::jsonb END) WITH ORDINALITY AS s(value, ord)
    GROUP BY bucket, s.ord ORDER BY bucket, s.ord`;
  const out = new Map<number, SourceChartPoint>();
  for (const r of rows) {
    const bucket = num(r.bucket);
    let p = out.get(bucket);
    if (!p) {
      p = { fromBatchId: num(r.fromBatchId), toBatchId: num(r.toBatchId), t: num(r.t), sources: Array.from({ length: count }, () => ({ numInputRows: 0, commitLag: null, watermarkGapMs: null })) };
      out.set(bucket, p);
    }
    const i = num(r.source);
    if (i < count) p.sources[i] = { numInputRows: num(r.numInputRows), commitLag: numOrNull(r.commitLag), watermarkGapMs: numOrNull(r.watermarkGapMs) };
  }
  return [...out.values()];
}

/**
 * The job's batches in range, each with its bucket (see the header): the first part of every
 * chart query, so all charts bucket alike.
 */
function bucketed(where: Prisma.Sql, maxPoints: number): Prisma.Sql {
  return Prisma.sql`
    WITH bounds AS (
      SELECT min("batchId") AS lo, max("batchId") AS hi FROM "BatchProgress" WHERE ${where}
    ), b AS (
      SELECT p.*, floor(((p."batchId" - bounds.lo)::numeric * ${maxPoints}) / (bounds.hi - bounds.lo + 1))::int AS bucket
      FROM "BatchProgress" p, bounds WHERE ${where}
    )`;
}

/** The sum over a batch's stateful operators of one of the LMDB provider's custom metrics, from its progress JSON. */
const operatorsSum = (metric: string) => Prisma.sql`(
  SELECT COALESCE(sum((o->'customMetrics'->>${metric})::float8), 0) FROM jsonb_array_elements(
    CASE WHEN jsonb_typeof(b.progress->'stateOperators') = 'array' THEN b.progress->'stateOperators' ELSE '[]'::jsonb END) o)`;

/**
 * The LMDB provider's figures per bucket, read from the progress JSON (only for an lmdb job, so
 * the other jobs' charts never parse it): the local environment's bytes at the bucket's last
 * batch (a level), the changelog bytes the bucket's batches wrote to the checkpoint (a sum), and
 * the most stores any of its batches' runs rebuilt from the checkpoint at their start.
 */
async function lmdbChartPoints(db: PrismaClient, where: Prisma.Sql, maxPoints: number): Promise<LmdbChartPoint[]> {
  const rows = await db.$queryRaw<BucketRow[]>`
    ${bucketed(where, maxPoints)}
    SELECT bucket,
      min("batchId") AS "fromBatchId", max("batchId") AS "toBatchId",
      (extract(epoch FROM max("timestamp")) * 1000)::float8 AS t,
      (array_agg(${operatorsSum('lmdbLocalBytes')} ORDER BY "batchId" DESC))[1]::float8 AS "localBytes",
      sum(${operatorsSum('lmdbChangelogBytes')})::float8 AS "changelogBytes",
      max(${operatorsSum('lmdbRebuiltFromCheckpoint')})::float8 AS "storesRebuilt"
    FROM b GROUP BY bucket ORDER BY bucket`;
  return rows.map((r) => ({
    fromBatchId: num(r.fromBatchId),
    toBatchId: num(r.toBatchId),
    t: num(r.t),
    localBytes: num(r.localBytes),
    changelogBytes: num(r.changelogBytes),
    storesRebuilt: num(r.storesRebuilt),
  }));
}

/** Every batch in range as a chart point, undownsampled: what the bench compares against. */
export async function rawBatchSeries(db: PrismaClient, jobId: string, q: BatchChartQuery = {}): Promise<BatchRow[]> {
  const rows = await db.batchProgress.findMany({
    where: {
      jobId,
      ...(q.fromMs !== undefined || q.toMs !== undefined
        ? { timestamp: { ...(q.fromMs !== undefined ? { gte: new Date(q.fromMs) } : {}), ...(q.toMs !== undefined ? { lte: new Date(q.toMs) } : {}) } }
        : {}),
    },
    orderBy: { batchId: 'asc' },
    omit: { progress: true },
  });
  return rows.map((r) => ({
    batchId: r.batchId,
    timestamp: r.timestamp.getTime(),
    inputRowsPerSecond: r.inputRowsPerSecond,
    processedRowsPerSecond: r.processedRowsPerSecond,
    batchDurationMs: r.batchDurationMs,
    durationMs: (r.durationMs ?? {}) as Record<string, number>,
    numInputRows: r.numInputRows,
    stateRowsTotal: Number(r.stateRowsTotal),
    stateRowsUpdated: Number(r.stateRowsUpdated),
    stateRowsDroppedByWatermark: Number(r.stateRowsDroppedByWatermark),
    stateRowsRemoved: Number(r.stateRowsRemoved),
    stateMemoryBytes: Number(r.stateMemoryBytes),
    stateDiskBytes: Number(r.stateDiskBytes),
    commitLag: r.commitLag === null ? null : Number(r.commitLag),
    watermarkMs: r.watermarkMs === null ? null : Number(r.watermarkMs),
  }));
}
