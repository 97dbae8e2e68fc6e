/**
 * Chart points (from GET /api/jobs/:id/charts) reshaped into the plain rows each recharts chart
 * draws. Kept apart from the components so the shaping is tested without a browser. A point may
 * stand for several batches (downsampled); per-batch figures are then means, so "input rows per
 * batch" divides the bucket's sum by its batch count.
 */
import type { BatchPhase, ChartPoint } from '@/lib/server/presenters/batch-chart-presenter';
import { CHART_POINTS } from './query-keys';

export const PHASE_ORDER: BatchPhase[] = ['latestOffset', 'walCommit', 'getBatch', 'queryPlanning', 'addBatch', 'commitOffsets'];

export interface SeriesRow {
  t: number;
  label: string;
  [k: string]: number | string | null;
}

const label = (p: ChartPoint) => (p.fromBatchId === p.toBatchId ? `batch ${p.toBatchId}` : `batches ${p.fromBatchId}–${p.toBatchId}`);

export function rateSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), input: p.inputRowsPerSecond, processed: p.processedRowsPerSecond }));
}

export function phaseSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), ...Object.fromEntries(PHASE_ORDER.map((k) => [k, p.phases[k]])), other: Math.max(0, p.batchDurationMs - PHASE_ORDER.reduce((s, k) => s + p.phases[k], 0)) }));
}

export function inputRowsSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), rows: p.batches > 0 ? p.numInputRows / p.batches : 0 }));
}

export function stateRowsSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), total: p.stateRowsTotal, updated: p.stateRowsUpdated, evicted: p.stateRowsDroppedByWatermark }));
}

export function stateBytesSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), memory: p.stateMemoryBytes, disk: p.stateDiskBytes }));
}

export function lagSeries(points: ChartPoint[]): SeriesRow[] {
  return points.map((p) => ({ t: p.t, label: label(p), commitLag: p.commitLag, watermarkGapSeconds: p.watermarkGapMs === null ? null : p.watermarkGapMs / 1000 }));
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
