/**
 * Spark's WindowExec, in a batch plan (a static side's): the rows grouped by their partition,
 * each partition sorted once by the ORDER BY (NULLs where it puts them, Spark's ASC NULLS FIRST
 * by default), and each window function computed over it as Spark's WindowFunctionFrames do:
 * - row_number, rank, dense_rank, percent_rank, cume_dist, ntile: from the row's position and its
 *   peers (rows equal on the ORDER BY);
 * - lag, lead: the row `offset` rows away in the partition (skipping NULLs with IGNORE NULLS),
 *   or the default;
 * - counter_diff: the counter less the last non-NULL one before it, NULL at a reset;
 * - nth_value and the aggregates: over the row's frame, ROWS (by position) or RANGE (by the ORDER
 *   BY's value, CURRENT ROW meaning the row's peers). A frame that starts at the partition's first
 *   row only grows, and is folded once in a pass (Spark's UnboundedPrecedingWindowFunctionFrame);
 *   one that ends at its last row is folded once backwards where the aggregate's order does not
 *   matter (count, exact sums, min, max); any other is folded again for each row (Spark's
 *   sliding and unbounded-following frames re-add too where they cannot retract).
 */
import { foldsInAnyOrder, update } from '../query/aggregate-functions';
import type { Evaluator } from '../query/expression-compiler';
import { compareSortKey, compareValues, sqlEquals } from '../query/ordering';
import { RecordExpressionError } from '../errors';
import { encodeKey } from '../state/state-value-codec';
import type { Row, Schema } from '../types';
import type { CompiledWindowFunction } from '../query/window-functions';
import type { WindowFrameBound } from '../query/logical-plan';
import type { OperatorContext, PhysicalOperator } from './physical-operator';

const isNull = (v: unknown) => v === null || v === undefined;

/** A RANGE offset's key as a number (a BIGINT or DECIMAL's unscaled bigint read as Spark compares it: by value). */
type RangeKey = (v: unknown) => number;

export interface WindowExecSpec {
  partition: Evaluator[];
  order: { eval: Evaluator; ascending: boolean; nullsFirst: boolean }[];
  /** The one ORDER BY key a RANGE frame with offsets reads, as a number. */
  rangeKey?: RangeKey;
  /** A DATE or TIMESTAMP key plus calendar months (a RANGE offset of an INTERVAL YEAR TO MONTH). */
  addMonths?: (key: number, months: number) => number;
  /** A FLOAT key: Spark adds a RANGE offset cast to FLOAT, the key's bound a FLOAT too. */
  float32?: true;
  functions: CompiledWindowFunction[];
}

export class WindowExec implements PhysicalOperator {
  readonly name = 'Window';
  readonly stateful = false;
  constructor(private readonly spec: WindowExecSpec, readonly outputSchema: Schema) {}

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const { partition, order } = this.spec;
    const partitions = new Map<string, { row: Row; keys: unknown[] }[]>();
    for (const row of rows) {
      const key = partition.length ? encodeKey(partition.map((p) => p(row, ctx) ?? null)) : '';
      let list = partitions.get(key);
      if (!list) partitions.set(key, (list = []));
      list.push({ row, keys: order.map((o) => o.eval(row, ctx) ?? null) });
    }
    const out: Row[] = [];
    for (const list of partitions.values()) {
      // Array.prototype.sort is stable: peers keep their input order.
      list.sort((x, y) => {
        for (let i = 0; i < order.length; i++) {
          const c = compareSortKey(x.keys[i], y.keys[i], order[i].ascending, order[i].nullsFirst);
          if (c !== 0) return c;
        }
        return 0;
      });
      const rowsOut = list.map(({ row }) => ({ ...row }));
      const peers = peerGroups(list.map((x) => x.keys));
      for (const f of this.spec.functions) {
        const values = this.evaluate(f, list.map((x) => x.row), list.map((x) => x.keys), peers, ctx);
        for (let i = 0; i < rowsOut.length; i++) rowsOut[i][f.name] = values[i];
      }
      out.push(...rowsOut);
    }
    return out;
  }

  private evaluate(f: CompiledWindowFunction, rows: Row[], keys: unknown[][], peers: { start: number[]; end: number[] }, ctx: OperatorContext): unknown[] {
    const n = rows.length;
    const out = new Array<unknown>(n);
    switch (f.fn) {
      case 'row_number':
        for (let i = 0; i < n; i++) out[i] = i + 1;
        return out;
      case 'rank':
        for (let i = 0; i < n; i++) out[i] = peers.start[i] + 1;
        return out;
      case 'dense_rank': {
        let rank = 0;
        for (let i = 0; i < n; i++) out[i] = peers.start[i] === i ? ++rank : rank;
        return out;
      }
      case 'percent_rank':
        for (let i = 0; i < n; i++) out[i] = n > 1 ? peers.start[i] / (n - 1) : 0;
        return out;
      case 'cume_dist':
        for (let i = 0; i < n; i++) out[i] = peers.end[i] / n;
        return out;
      case 'ntile': {
        // Spark's NTile: the first n % buckets buckets one row larger.
        const buckets = f.offset!;
        const size = Math.floor(n / buckets), extra = n % buckets;
        const big = extra * (size + 1);
        for (let i = 0; i < n; i++) out[i] = i < big ? Math.floor(i / (size + 1)) + 1 : extra + Math.floor((i - big) / size) + 1;
        return out;
      }
      case 'lag': case 'lead': {
        const input = f.input!, step = f.offset!;
        const values = rows.map((r) => input(r, ctx) ?? null);
        for (let i = 0; i < n; i++) {
          let j: number;
          if (!f.ignoreNulls || step === 0) j = i + step;
          else {
            // The |step|-th non-NULL value away.
            const dir = Math.sign(step);
            let left = Math.abs(step);
            j = i;
            while (left > 0) {
              j += dir;
              if (j < 0 || j >= n) break;
              if (values[j] !== null) left--;
            }
          }
          out[i] = j >= 0 && j < n ? values[j] : f.default ? (f.default(rows[i], ctx) ?? null) : null;
        }
        return out;
      }
      case 'counter_diff':
        return counterDiff(f, rows, ctx);
      default:
        return this.framed(f, rows, keys, peers, ctx);
    }
  }

  /** nth_value and the aggregates: each row's value over its frame [lo, hi). */
  private framed(f: CompiledWindowFunction, rows: Row[], keys: unknown[][], peers: { start: number[]; end: number[] }, ctx: OperatorContext): unknown[] {
    const n = rows.length;
    const out = new Array<unknown>(n);
    const bounds = frameBounds(f.frame, keys, peers, this.spec, this.spec.order[0]?.ascending ?? true);
    const agg = f.aggregate;
    const values = rows.map((r) => (agg ? (agg.arg ? agg.arg(r, ctx) : undefined) : f.input!(r, ctx)) ?? null);
    if (!agg) {
      // nth_value: the n-th row of the frame (of its non-NULL values with IGNORE NULLS).
      const nth = f.offset!;
      for (let i = 0; i < n; i++) {
        const [lo, hi] = bounds(i);
        let v: unknown = null;
        if (f.ignoreNulls) {
          let seen = 0;
          for (let j = lo; j < hi; j++) if (values[j] !== null && ++seen === nth) { v = values[j]; break; }
        } else if (lo + nth - 1 < hi) v = values[lo + nth - 1];
        out[i] = v;
      }
      return out;
    }
    const { fn } = agg;
    const growing = f.frame.lower === 'UnboundedPreceding';
    if (!growing && f.frame.upper === 'UnboundedFollowing' && foldsInAnyOrder(fn)) {
      // The frame only shrinks from its start: folded from the partition's last row backwards,
      // each row's frame the one after it plus the rows it starts earlier.
      let buffer = fn.init();
      let from = n;
      for (let i = n - 1; i >= 0; i--) {
        const [lo] = bounds(i);
        while (from > lo) buffer = update(fn.op, buffer, values[--from]);
        out[i] = fn.result(buffer);
      }
      return out;
    }
    let buffer = fn.init();
    let folded = 0;
    for (let i = 0; i < n; i++) {
      const [lo, hi] = bounds(i);
      if (growing) {
        // The frame only grows: fold in the rows it gained.
        for (; folded < hi; folded++) buffer = update(fn.op, buffer, values[folded]);
        out[i] = fn.result(buffer);
      } else {
        let b = fn.init();
        for (let j = lo; j < hi; j++) b = update(fn.op, b, values[j]);
        out[i] = fn.result(b);
      }
    }
    return out;
  }
}

/** Each row's first peer and one past its last (rows equal on every ORDER BY key; all rows without one). */
function peerGroups(keys: unknown[][]): { start: number[]; end: number[] } {
  const n = keys.length;
  const start = new Array<number>(n), end = new Array<number>(n);
  const same = (a: unknown[], b: unknown[]) => a.every((v, k) => (isNull(v) ? isNull(b[k]) : !isNull(b[k]) && sqlEquals(v, b[k])));
  let s = 0;
  for (let i = 1; i <= n; i++) {
    if (i === n || !same(keys[i], keys[s])) {
      for (let j = s; j < i; j++) {
        start[j] = s;
        end[j] = i;
      }
      s = i;
    }
  }
  return { start, end };
}

/** The frame of each row as [lo, hi) indexes of its sorted partition. */
function frameBounds(frame: CompiledWindowFunction['frame'], keys: unknown[][], peers: { start: number[]; end: number[] }, { rangeKey, addMonths, float32 }: WindowExecSpec, ascending: boolean): (i: number) => [number, number] {
  const n = keys.length;
  const clamp = (x: number) => Math.max(0, Math.min(n, x));
  if (frame.frameType === 'Rows') {
    const lo = (i: number, b: WindowFrameBound) => (b === 'UnboundedPreceding' ? 0 : b === 'UnboundedFollowing' ? n : b === 'CurrentRow' ? i : i + b.offset);
    return (i) => {
      const l = clamp(lo(i, frame.lower)), h = clamp(lo(i, frame.upper) + 1);
      return [l, Math.max(l, h)];
    };
  }
  // RANGE: CURRENT ROW is the row's peers; an offset bounds the ORDER BY value (in its direction).
  // The non-NULL keys are one sorted run, searched by bisection.
  const ks = rangeKey ? keys.map((k) => (isNull(k[0]) ? null : rangeKey(k[0]))) : [];
  let first = 0, last = n;
  while (first < n && ks[first] === null) first++;
  while (last > first && ks[last - 1] === null) last--;
  /** The first index of the run whose key `past` holds of (it holds from there on). */
  const search = (past: (k: number) => boolean): number => {
    let lo = first, hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (past(ks[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const at = (i: number, b: WindowFrameBound, isLower: boolean): number => {
    if (b === 'UnboundedPreceding') return 0;
    if (b === 'UnboundedFollowing') return n;
    // A NULL key's frame bound is its peers' (the other NULLs), as Spark's RangeBoundOrdering.
    if (b === 'CurrentRow' || ks[i] === null || ks[i] === undefined) return isLower ? peers.start[i] : peers.end[i];
    const step = ascending ? b.offset : -b.offset;
    const edge = b.months && addMonths ? addMonths(ks[i]!, step) : float32 ? Math.fround(ks[i]! + Math.fround(step)) : ks[i]! + step;
    // Lower: the first key at or past the edge; upper: the first key beyond it.
    return isLower ? search((k) => (ascending ? k >= edge : k <= edge)) : search((k) => (ascending ? k > edge : k < edge));
  };
  const lower = (i: number) => at(i, frame.lower, true);
  const upper = (i: number) => at(i, frame.upper, false);
  return (i) => {
    const l = lower(i), h = upper(i);
    return [l, Math.max(l, h)];
  };
}

/**
 * Spark's CounterDiff over a partition in order: NULL for a NULL counter (the row skipped: the
 * counter and start time before it stay the previous ones), NULL for the first counter and at a
 * reset (the counter fell, or the start time rose; Spark's order, so NaN is the greatest), else
 * the counter less the previous one. A negative counter and a start time that falls are errors.
 */
function counterDiff(f: CompiledWindowFunction, rows: Row[], ctx: OperatorContext): unknown[] {
  const fail = (errorClass: string, message: string) => new RecordExpressionError(`[${errorClass}] ${message}`, { function: 'counter_diff', errorClass });
  let prev: unknown = null;
  let prevStart: unknown = null;
  return rows.map((row) => {
    const c = f.input!(row, ctx) ?? null;
    if (c === null) return null;
    if (compareValues(c, typeof c === 'bigint' ? 0n : 0) < 0) {
      throw fail('COUNTER_DIFF_NEGATIVE_COUNTER_VALUE', `The counter of \`counter_diff\` must not be negative, got ${f.counterText!(c)}. A cumulative counter only grows, or starts again from zero`);
    }
    const start = f.startTime ? (f.startTime(row, ctx) ?? null) : null;
    const before = prev, beforeStart = prevStart;
    prev = c;
    prevStart = start;
    if (start !== null && beforeStart !== null) {
      const order = compareValues(start, beforeStart);
      if (order < 0) {
        throw fail('COUNTER_DIFF_START_TIME_DECREASED', `The start time of \`counter_diff\` went back from ${f.startTimeText!(beforeStart)} to ${f.startTimeText!(start)}. Order the window by time, and keep each counter's start times non-decreasing`);
      }
      if (order > 0) return null;
    }
    if (before === null || compareValues(c, before) < 0) return null;
    return f.subtract!(c, before);
  });
}
