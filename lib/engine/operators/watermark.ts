/**
 * The event-time watermark (Spark's EventTimeWatermarkExec + WatermarkTracker for one source):
 * during batch N the engine folds the event times of the source's rows (before any WHERE, as
 * Spark's withWatermark on the source); at the end of the batch the next watermark is
 * max(current, maxEventTime − delay). It only moves forward, starts at 0, and is used by batch
 * N+1 (`nextBatchWatermarkMs` in commits/N, `batchWatermarkMs` in offsets/N+1), so a re-run of
 * batch N sees exactly the watermark it saw the first time. Rows without an event time do not
 * move it.
 */
import type { Row, Schema } from '../types';
import type { OperatorContext, PhysicalOperator } from './physical-operator';

export interface EventTimeStats {
  min: number;
  max: number;
  avg: number;
}

/** Folds event times one at a time (a source that reads and filters in one pass folds as it reads). */
export class EventTimeStatsAccumulator {
  private min = Infinity;
  private max = -Infinity;
  private sum = 0;
  private n = 0;

  /** Folds a row's event-time value; anything but a number (NULL) does not count. */
  add(v: unknown): void {
    if (typeof v !== 'number') return;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    this.sum += v;
    this.n++;
  }

  result(): EventTimeStats | undefined {
    return this.n === 0 ? undefined : { min: this.min, max: this.max, avg: Math.round(this.sum / this.n) };
  }
}

/** min/max/avg of a batch's event times (progress `eventTime`), or undefined if no row has one. */
export function eventTimeStats(rows: readonly Row[], col: string): EventTimeStats | undefined {
  const acc = new EventTimeStatsAccumulator();
  for (const r of rows) acc.add(r[col]);
  return acc.result();
}

/** The watermark for the next batch: max(event time seen) − delay, never below the current one. */
export function nextWatermark(currentMs: number, stats: { max: number } | undefined, delayMs: number): number {
  if (!stats) return currentMs;
  return Math.max(currentMs, stats.max - delayMs);
}

/**
 * A batch's event times: from its source rows when `eventTime` is a source column, else what the
 * EventTimeWatermark operator folded into `ctx` while the batch ran (a column the SQL derives).
 */
export function batchEventTimes(sourceRows: readonly Row[], eventTime: string, sourceSchema: Schema, ctx: Pick<OperatorContext, 'eventTimes'>): EventTimeStats | undefined {
  if (sourceSchema.some((f) => f.name === eventTime)) return eventTimeStats(sourceRows, eventTime);
  return ctx.eventTimes && { min: ctx.eventTimes.min, max: ctx.eventTimes.max, avg: ctx.eventTimes.avg };
}

/**
 * Spark's EventTimeWatermarkExec for an event-time column the SQL derives (withWatermark on a
 * column of a projection, e.g. `o.ts` of `from_json(CAST(value AS STRING), ...) AS o`): placed
 * right above the Project that defines the column, it passes rows through unchanged and folds
 * their event times into `ctx.eventTimes`, which the batch uses as it uses a source column's.
 */
export class EventTimeWatermarkExec implements PhysicalOperator {
  readonly name = 'EventTimeWatermark';
  readonly stateful = false;
  constructor(
    private readonly eventTime: string,
    readonly outputSchema: Schema,
  ) {}

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const s = eventTimeStats(rows, this.eventTime);
    if (!s) return rows;
    const count = rows.reduce((n, r) => (typeof r[this.eventTime] === 'number' ? n + 1 : n), 0);
    const prev = ctx.eventTimes;
    // Merged, not replaced: a UNION ALL can run this operator once per branch in a batch.
    ctx.eventTimes = prev
      ? { min: Math.min(prev.min, s.min), max: Math.max(prev.max, s.max), avg: Math.round((prev.avg * prev.count + s.avg * count) / (prev.count + count)), count: prev.count + count }
      : { ...s, count };
    return rows;
  }
}
