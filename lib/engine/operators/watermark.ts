/**
 * The event-time watermark (Spark's EventTimeWatermarkExec + WatermarkTracker for one source):
 * during batch N the engine folds the event times of the source's rows (before any WHERE, as
 * Spark's withWatermark on the source); at the end of the batch the next watermark is
 * max(current, maxEventTime − delay). It only moves forward, starts at 0, and is used by batch
 * N+1 (`nextBatchWatermarkMs` in commits/N, `batchWatermarkMs` in offsets/N+1), so a re-run of
 * batch N sees exactly the watermark it saw the first time. Rows without an event time do not
 * move it.
 */
import type { Row } from '../types';

export interface EventTimeStats {
  min: number;
  max: number;
  avg: number;
}

/** min/max/avg of a batch's event times (progress `eventTime`), or undefined if no row has one. */
export function eventTimeStats(rows: readonly Row[], col: string): EventTimeStats | undefined {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let n = 0;
  for (const r of rows) {
    const v = r[col];
    if (typeof v !== 'number') continue;
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    n++;
  }
  return n === 0 ? undefined : { min, max, avg: Math.round(sum / n) };
}

/** The watermark for the next batch: max(event time seen) − delay, never below the current one. */
export function nextWatermark(currentMs: number, stats: { max: number } | undefined, delayMs: number): number {
  if (!stats) return currentMs;
  return Math.max(currentMs, stats.max - delayMs);
}
