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

  /**
   * Folds a row's event-time value; anything but a number (NULL) does not count. A timestamp's
   * microseconds are dropped, as Spark's EventTimeWatermarkExec folds microseconds / 1000: the
   * watermark stays whole milliseconds.
   */
  add(t: unknown): void {
    if (typeof t !== 'number') return;
    const v = Math.trunc(t) + 0;
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

/**
 * The batch's event times over every input of the watermark (progress `eventTime`): min of
 * mins, max of maxes, the average weighted by `rows` (each input's source rows). One input: its
 * own figures.
 */
export function mergeEventTimeStats(stats: readonly (EventTimeStats | undefined)[], rows: readonly number[]): EventTimeStats | undefined {
  const present = stats.map((s, i) => ({ s, n: Math.max(1, rows[i] ?? 1) })).filter((x): x is { s: EventTimeStats; n: number } => x.s !== undefined);
  if (present.length <= 1) return present[0]?.s;
  const n = present.reduce((a, x) => a + x.n, 0);
  return {
    min: Math.min(...present.map((x) => x.s.min)),
    max: Math.max(...present.map((x) => x.s.max)),
    avg: Math.round(present.reduce((a, x) => a + x.s.avg * x.n, 0) / n),
  };
}

/**
 * Spark's WatermarkTracker: each EventTimeWatermark node (each read of a source with an event
 * time: a self-join's two reads are two) is an input with its own watermark (max event time
 * seen − its delay, never moving back); an input that has seen no data in this run counts as 0,
 * as Spark populates it. The global watermark is the inputs' min (Spark's default
 * MultipleWatermarkPolicy) or max, and never moves back either. As in Spark, the inputs' own
 * watermarks live in memory only: a restart begins them anew from the checkpoint's global
 * watermark, so the checkpoint records the global one alone whatever the inputs are.
 */
export class WatermarkTracker {
  private readonly inputWatermarkMs = new Map<number, number>();

  /** `delaysMs`: per input in order, its watermark delay, or undefined for one without an event time. */
  constructor(
    readonly policy: 'min' | 'max',
    private readonly delaysMs: readonly (number | undefined)[],
  ) {}

  /** The next batch's global watermark after a batch whose inputs saw `stats`, never below `currentMs`. */
  updateWatermark(currentMs: number, stats: readonly (EventTimeStats | undefined)[]): number {
    const inputs = this.delaysMs.flatMap((d, i) => (d === undefined ? [] : [i]));
    if (inputs.length === 0) return currentMs;
    for (const i of inputs) {
      const s = stats[i];
      const prev = this.inputWatermarkMs.get(i);
      if (s) {
        const next = s.max - this.delaysMs[i]!;
        if (prev === undefined || next > prev) this.inputWatermarkMs.set(i, next);
      } else if (prev === undefined) {
        this.inputWatermarkMs.set(i, 0);
      }
    }
    return Math.max(currentMs, this.choose(inputs.map((i) => this.inputWatermarkMs.get(i)!)));
  }

  /** The policy's pick among watermarks: the slowest (min) or the fastest (max). */
  choose(values: readonly number[]): number {
    return this.policy === 'min' ? Math.min(...values) : Math.max(...values);
  }

  /** Each input's own watermark after the last update (undefined: no event time, or no update yet in this run). */
  inputWatermarksMs(): (number | undefined)[] {
    return this.delaysMs.map((_, i) => this.inputWatermarkMs.get(i));
  }
}
