/**
 * WatermarkTracker (Spark's EventTimeWatermarkExec + WatermarkTracker for one source): during
 * batch N it records the largest event time among the source's rows; at the end of the batch
 * the next watermark is max(current, maxEventTime − delay). It only moves forward, starts at 0,
 * and is used by batch N+1 (`nextBatchWatermarkMs` in commits/N, `batchWatermarkMs` in
 * offsets/N+1), so a re-run of batch N sees exactly the watermark it saw the first time.
 * Rows without an event time do not move it.
 */
export class WatermarkTracker {
  private maxEventTime = -Infinity;

  constructor(
    readonly eventTime: string,
    readonly delayMs: number,
  ) {}

  /** Folds a batch's source rows (before any WHERE, as Spark's withWatermark on the source). */
  observe(rows: readonly Record<string, unknown>[]): void {
    const col = this.eventTime;
    let max = this.maxEventTime;
    for (const r of rows) {
      const t = r[col];
      if (typeof t === 'number' && t > max) max = t;
    }
    this.maxEventTime = max;
  }

  /** The largest event time seen in this batch, or null if none (progress `eventTime.max`). */
  get batchMaxEventTime(): number | null {
    return Number.isFinite(this.maxEventTime) ? this.maxEventTime : null;
  }

  /** The watermark for the next batch, given this batch's. Resets the batch maximum. */
  nextWatermark(current: number): number {
    const candidate = Number.isFinite(this.maxEventTime) ? this.maxEventTime - this.delayMs : -Infinity;
    this.maxEventTime = -Infinity;
    return Math.max(current, candidate);
  }
}
