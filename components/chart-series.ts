/**
 * Chart points (from GET /api/jobs/:id/charts) reshaped into the plain rows each recharts chart
 * draws. Kept apart from the components so the shaping is tested without a browser. A point may
 * stand for several batches (downsampled); per-batch figures are then means, so "input rows per
 * batch" divides the bucket's sum by its batch count.
 */
import type { BatchPhase, ChartPoint, LmdbChartPoint, SourceChartPoint } from '@/lib/server/presenters/batch-chart-presenter';
import { CHART_POINTS } from './query-keys';

export const PHASE_ORDER: BatchPhase[] = ['latestOffset', 'walCommit', 'getBatch', 'queryPlanning', 'addBatch', 'commitOffsets'];

/**
 * Series colours, shared by the charts and the batch drill-down so a phase has one colour. CSS
 * variables (app/globals.css), so the dark theme recolours the charts too.
 */
export const CHART_COLORS = [1, 2, 3, 4, 5, 6, 7].map((i) => `var(--chart-${i})`);

/**
 * What the points have to draw: a stateless query keeps no state, a source without an offset
 * lag reports no commit lag, a source without a watermark has no gap. The page says so instead
 * of drawing an empty chart (or an axis with nothing on it).
 */
export function seriesPresence(points: ChartPoint[]): { state: boolean; commitLag: boolean; watermarkGap: boolean } {
  return {
    state: points.some((p) => p.stateRowsTotal > 0 || p.stateRowsUpdated > 0 || p.stateRowsDroppedByWatermark > 0 || p.stateRowsRemoved > 0 || p.stateMemoryBytes > 0 || p.stateDiskBytes > 0),
    commitLag: points.some((p) => p.commitLag !== null),
    watermarkGap: points.some((p) => p.watermarkGapMs !== null),
  };
}

/** The part of a trigger's duration outside the named phases (never negative). */
const otherMs = (totalMs: number, phases: Partial<Record<BatchPhase, number>>) => Math.max(0, totalMs - PHASE_ORDER.reduce((s, k) => s + (phases[k] ?? 0), 0));

export interface PhaseShare {
  phase: BatchPhase | 'other';
  ms: number;
  /** ms / the batch duration, 0 when the duration is 0. */
  share: number;
}

/**
 * One batch's time by phase, Spark's durationMs keys in PHASE_ORDER and then `other`; the ms add
 * up to the batch duration whenever the named phases fit in it.
 */
export function phaseBreakdown(durationMs: Partial<Record<string, number>>, batchDurationMs: number): PhaseShare[] {
  const phases: Partial<Record<BatchPhase, number>> = {};
  for (const k of PHASE_ORDER) phases[k] = Math.max(0, durationMs[k] ?? 0);
  const all: { phase: BatchPhase | 'other'; ms: number }[] = [...PHASE_ORDER.map((k) => ({ phase: k, ms: phases[k]! })), { phase: 'other', ms: otherMs(batchDurationMs, phases) }];
  const total = Math.max(batchDurationMs, all.reduce((s, p) => s + p.ms, 0));
  return all.map((p) => ({ ...p, share: total > 0 ? p.ms / total : 0 }));
}

export interface SeriesRow {
  t: number;
  label: string;
  [k: string]: number | string | null;
}

const label = (p: Pick<ChartPoint, 'fromBatchId' | 'toBatchId'>) => (p.fromBatchId === p.toBatchId ? `batch ${p.toBatchId}` : `batches ${p.fromBatchId}–${p.toBatchId}`);

export function rateSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), input: p.inputRowsPerSecond, processed: p.processedRowsPerSecond }));
}

export function phaseSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), ...Object.fromEntries(PHASE_ORDER.map((k) => [k, p.phases[k]])), other: otherMs(p.batchDurationMs, p.phases) }));
}

export function inputRowsSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), rows: p.batches > 0 ? p.numInputRows / p.batches : 0 }));
}

/**
 * State rows, and the two counts Spark keeps apart: `removed` is state rows the operators removed
 * (numRowsRemoved: what the watermark evicted, among others), `droppedByWatermark` is late input
 * rows that never entered state (numRowsDroppedByWatermark).
 */
export function stateRowsSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), total: p.stateRowsTotal, updated: p.stateRowsUpdated, removed: p.stateRowsRemoved, droppedByWatermark: p.stateRowsDroppedByWatermark }));
}

export function stateBytesSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), memory: p.stateMemoryBytes, disk: p.stateDiskBytes }));
}

/**
 * The LMDB state store's own figures: the local environments' bytes (on the worker's disk, in
 * the OS page cache rather than the heap), the changelog bytes the batches wrote to the
 * checkpoint, and how many stores the run rebuilt from the checkpoint instead of reusing the
 * local copy.
 */
export function lmdbSeries(points: LmdbChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), localBytes: p.localBytes, changelogBytes: p.changelogBytes, storesRebuilt: p.storesRebuilt }));
}

/**
 * A several-source job's figures per source: `rows_<i>` the input rows per batch of source i (the
 * bucket's sum over its batches, as inputRowsSeries), `lag_<i>` its worst commit lag.
 */
export function sourceSeries(points: SourceChartPoint[]): SeriesRow[] {
  return points.map((p) => {
    const batches = p.toBatchId - p.fromBatchId + 1;
    const row: SeriesRow = { t: p.t, label: label(p) };
    p.sources.forEach((s, i) => {
      row[`rows_${i}`] = batches > 0 ? s.numInputRows / batches : 0;
      row[`lag_${i}`] = s.commitLag;
    });
    return row;
  });
}

/**
 * A several-watermark job's gaps, in seconds: each source's own (`gap_i`, from `sources`) and the
 * global one the stateful operators use (`global`, from the job's points), on the same buckets
 * (both are bucketed alike; a source point belongs to the job point whose batches hold its first).
 */
export function sourceWatermarkSeries(sources: SourceChartPoint[], points: ChartPoint[]): SeriesRow[] {
  const seconds = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : ms / 1000);
  return sources.map((p) => {
    const whole = points.find((q) => q.fromBatchId <= p.fromBatchId && p.fromBatchId <= q.toBatchId);
    const row: SeriesRow = { t: p.t, label: label(p), global: seconds(whole?.watermarkGapMs) };
    p.sources.forEach((s, i) => (row[`gap_${i}`] = seconds(s.watermarkGapMs)));
    return row;
  });
}

export function lagSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), commitLag: p.commitLag, watermarkGapSeconds: p.watermarkGapMs === null ? null : p.watermarkGapMs / 1000 }));
}

/** The most values a line is drawn with a dot on each: few enough that the dots stay apart. */
export const DOTTED_SERIES_MAX = 20;

/**
 * Whether the line of `key` marks its values with dots: a line needs two values to be seen, so a
 * job of one batch (or a figure reported once, in a gap of NULLs) would draw nothing without them;
 * a short series reads better as its points too. A long one is drawn as a bare line.
 */
export function dotted(rows: readonly SeriesRow[], key: string): boolean {
  let n = 0;
  for (const r of rows) if (typeof r[key] === 'number' && ++n > DOTTED_SERIES_MAX) return false;
  return n > 0;
}

/** Time ranges offered by the picker: label and width in ms (null: the whole history). */
export const TIME_RANGES: { key: string; label: string; ms: number | null }[] = [
  { key: '5m', label: 'Last 5 minutes', ms: 5 * 60_000 },
  { key: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { key: '1h', label: 'Last hour', ms: 3_600_000 },
  { key: '6h', label: 'Last 6 hours', ms: 6 * 3_600_000 },
  { key: '24h', label: 'Last 24 hours', ms: 24 * 3_600_000 },
  { key: 'all', label: 'All history', ms: null },
];

export function chartsUrl(jobId: string, rangeKey: string, now: number, points = CHART_POINTS): string {
  const r = TIME_RANGES.find((x) => x.key === rangeKey);
  const q = new URLSearchParams({ points: String(points) });
  if (r?.ms) q.set('from', String(now - r.ms));
  return `/api/jobs/${jobId}/charts?${q}`;
}
