/**
 * Aggregate functions for streaming GROUP BY: count(*), count(col), sum, avg, min, max and
 * approx_count_distinct here; the statistical ones (stddev, variance, skewness, kurtosis, corr,
 * covariance, median, mode, percentile_approx, histogram_numeric) in statistical-aggregates.ts; collect_list/set,
 * first/last, count_if, bool_and/or, bit_and/or/xor, min_by/max_by, try_sum/try_avg in collect-aggregates.ts;
 * bitmap_construct_agg, bitmap_or_agg, count_min_sketch, hll_sketch_agg and hll_union_agg in sketch-aggregates.ts.
 * Each keeps a small buffer per group that the state store holds
 * between batches (encoded with the state value codec), so it has
 * - `init()`: the buffer of a group with no rows,
 * - `update(fn.op, buffer, value)`: fold one input value in (returns the new buffer: buffers may
 *   be numbers, which are immutable),
 * - `result(buffer)`: the output value (never the buffer itself when that is changed in place
 *   later: an emitted row must not change with the next batch).
 * Semantics follow Spark SQL: NULL inputs are ignored; sum/avg/min/max of no non-NULL values is
 * NULL; count never is. sum of longs is a long (exact to 64 bits and wrapping, long.ts). sum and avg of a
 * DECIMAL(p,s) are exact, typed as Spark types them: DECIMAL(p+10,s) and DECIMAL(p+4,s+4)
 * (at most 38 digits; a sum that outgrows its type is NULL, ANSI off). Their buffers hold
 * bigints, which the state value codec round-trips (tag 9).
 *
 * Distinct aggregates (`count(DISTINCT x)`) are refused with Spark's message; streaming state
 * would have to keep every distinct value.
 */
import { bigOf, fitsLong, longAdd, longFromDouble, toLong, type Long } from './long';
import { divideHalfUp, exactMicros, exactMonths, fullRange, type IntervalKind } from './interval-utils';
import { castValue, formatDouble, isInterval } from './sql-values';
import { microsOfTimestamp, timestampFromMicros } from './timestamp-micros';
import { AnalysisException, RecordExpressionError } from '../errors';
import { someExpression } from './parser/expression-tree';
import type { Expression } from './parser/unresolved-plan';
import { hllAdd, hllCreate, hllEstimate, precisionFor } from '../operators/hyper-log-log';
import {
  bitAggregate, boolAggregate, collect, countIf, extremumBy, firstLast, isMergeableCollect, listAgg, mergeCollect, schemaOfVariantAgg, SKIP_ROW, tryAvgLong, trySumLong, updateCollect, type CollectOp,
} from './collect-aggregates';
import { elementOf, fieldOfType, holdsVariant, isOrderable, typeText, type TypeInfo } from './data-types';
import { compareValues } from './ordering';
import type { Field } from '../types';
import type { AggregateFunction, AggregateOp } from './function-types';
import { arithmetic, bounded, decimalToDouble, toPrecision, type DecimalType } from './decimal';
import {
  centralMoment, CO_MOMENT_NAMES, coMoment, histogramNumeric, mode, percentile, MOMENT_NAMES, percentileApprox, PERCENTILE_NAMES, regression, REGRESSION_NAMES, updateStatistical,
  type PercentileOptions, type StatisticalOp,
} from './statistical-aggregates';
import { bitmapAggregate, countMinSketch, hllSketchAggregate, hllUnionAggregate, isMergeableSketch, mergeSketch, updateSketch, type SketchOp } from './sketch-aggregates';
import { HLL_DEFAULT_LG_K, HLL_MAX_LG_K, HLL_MIN_LG_K } from './hll-sketch';

type AggBuffer = unknown;

// How each function folds a value in (AggregateFunction.op): small integers, so that the
// aggregate's hot loop applies every function through one switch (`update`) that the JIT
// inlines, instead of a call through a different closure per function (a megamorphic call
// site per row and aggregate).
const COUNT_STAR = 0, COUNT = 1, SUM = 2, AVG = 3, MIN = 4, MAX = 5, APPROX_COUNT_DISTINCT = 6, SUM_DECIMAL = 7, AVG_DECIMAL = 8, SUM_LONG = 9;
// Of intervals: day-time and year-month, sum and avg, failing on overflow or (try_) NULL.
const SUM_DAY_TIME = 10, SUM_YEAR_MONTH = 11, AVG_DAY_TIME = 12, AVG_YEAR_MONTH = 13;
const TRY_SUM_DAY_TIME = 14, TRY_SUM_YEAR_MONTH = 15, TRY_AVG_DAY_TIME = 16, TRY_AVG_YEAR_MONTH = 17;
type IntervalOp =
  | typeof SUM_DAY_TIME | typeof SUM_YEAR_MONTH | typeof AVG_DAY_TIME | typeof AVG_YEAR_MONTH
  | typeof TRY_SUM_DAY_TIME | typeof TRY_SUM_YEAR_MONTH | typeof TRY_AVG_DAY_TIME | typeof TRY_AVG_YEAR_MONTH;
type CoreOp =
  | typeof COUNT_STAR | typeof COUNT | typeof SUM | typeof AVG | typeof MIN | typeof MAX | typeof APPROX_COUNT_DISTINCT
  | typeof SUM_DECIMAL | typeof AVG_DECIMAL | typeof SUM_LONG | IntervalOp;
const INTERVAL_OPS = { sum: [SUM_DAY_TIME, SUM_YEAR_MONTH, TRY_SUM_DAY_TIME, TRY_SUM_YEAR_MONTH], avg: [AVG_DAY_TIME, AVG_YEAR_MONTH, TRY_AVG_DAY_TIME, TRY_AVG_YEAR_MONTH] } as const;
export type { AggregateFunction, AggregateOp } from './function-types';
const isCore = (op: AggregateOp): op is CoreOp => op < 100;


/** count(*): its buffer is a plain counter the aggregate's hot loop may bump inline. */
export const isCountStar = (fn: AggregateFunction): boolean => fn.op === COUNT_STAR;

/**
 * Folds one input value into a buffer of a function whose `op` this is; returns the new buffer (numbers are immutable,
 * so a count or sum buffer is replaced; avg and HyperLogLog buffers are changed in place).
 */
export function update(op: AggregateOp, b: AggBuffer, v: unknown): AggBuffer {
  if (!isCore(op)) return op < 200 ? updateStatistical(op as StatisticalOp, b, v) : op < 300 ? updateCollect(op as CollectOp, b, v) : updateSketch(op as SketchOp, b, v);
  switch (op) {
    case COUNT_STAR:
      return (b as number) + 1;
    case COUNT:
      return v === null || v === undefined ? b : (b as number) + 1;
    case SUM:
      return v === null || v === undefined ? b : b === null ? v : (b as number) + (v as number);
    case SUM_LONG:
      return v === null || v === undefined ? b : b === null ? v : longAdd(b as Long, v as Long);
    case AVG: {
      if (v === null || v === undefined) return b;
      const buf = b as [number, number];
      // Spark averages a BIGINT as a double.
      buf[0] += typeof v === 'bigint' ? Number(v) : (v as number);
      buf[1] += 1;
      return buf;
    }
    case MIN:
      // NaN is larger than any other double in Spark; JS comparisons with NaN are always false.
      if (v === null || v === undefined) return b;
      if (b === null) return v;
      // Spark's order: NaN above every other double; structs and arrays field by field.
      return compareValues(v, b) < 0 ? v : b;
    case MAX:
      if (v === null || v === undefined) return b;
      if (b === null) return v;
      return compareValues(v, b) > 0 ? v : b;
    case APPROX_COUNT_DISTINCT:
      hllAdd(b as Uint8Array, v);
      return b;
    case SUM_DECIMAL:
      return v === null || v === undefined ? b : b === null ? v : (b as bigint) + (v as bigint);
    case AVG_DECIMAL: {
      if (v === null || v === undefined) return b;
      const buf = b as [bigint, number];
      buf[0] += v as bigint;
      buf[1] += 1;
      return buf;
    }
    case SUM_DAY_TIME: case SUM_YEAR_MONTH: case TRY_SUM_DAY_TIME: case TRY_SUM_YEAR_MONTH:
      // false: a try_sum that overflowed (NULL from then on).
      return v === null || v === undefined || b === false ? b : b === null ? v : addIntervals(op, b as Long, v as Long);
    case AVG_DAY_TIME: case AVG_YEAR_MONTH: case TRY_AVG_DAY_TIME: case TRY_AVG_YEAR_MONTH: {
      if (v === null || v === undefined) return b;
      const buf = b as [Long | false, number];
      if (buf[0] !== false) buf[0] = addIntervals(op, buf[0], v as Long);
      buf[1] += 1;
      return buf;
    }
  }
}

/**
 * Spark's partial aggregation (HashAggregateExec's Partial and Final modes): whether a buffer of
 * `fn` built from some rows can be merged into one built from the rows before them with exactly the
 * result of folding every row into one buffer, in order. True of count, count_if, sum of a
 * BIGINT (64-bit wrapping addition is associative) or DECIMAL (an exact bigint), avg of a
 * DECIMAL, min and max (ties keep the earlier value, as update does), bool_and/or and
 * bit_and/or/xor, the bitmap and count-min sketches, and first and last (merged in the rows'
 * order). False of sum and avg of
 * doubles (avg of a BIGINT is one: floating-point addition is not associative, so a merged sum
 * may differ in its last bits), of the interval and try_ sums (whether a step overflows depends
 * on the order), of hll_sketch_agg and hll_union_agg (sketch-aggregates.ts) and of the rest
 * (collections, moments).
 */
export function isMergeable(fn: AggregateFunction): boolean {
  if (!isCore(fn.op)) return fn.op >= 300 ? isMergeableSketch(fn.op as SketchOp) : fn.op >= 200 && isMergeableCollect(fn.op as CollectOp);
  switch (fn.op) {
    case COUNT_STAR: case COUNT: case SUM_LONG: case SUM_DECIMAL: case AVG_DECIMAL: case MIN: case MAX: return true;
    case SUM: case AVG: case APPROX_COUNT_DISTINCT: case SUM_DAY_TIME: case SUM_YEAR_MONTH: case AVG_DAY_TIME: case AVG_YEAR_MONTH:
    case TRY_SUM_DAY_TIME: case TRY_SUM_YEAR_MONTH: case TRY_AVG_DAY_TIME: case TRY_AVG_YEAR_MONTH: return false;
  }
}

/**
 * Whether folding a set of values into `fn`'s buffer in any order gives the one result: count,
 * the exact sums (BIGINT, DECIMAL) and avg of a DECIMAL, min and max. A window frame that ends at
 * the partition's last row is folded from that row backwards (window-exec.ts) for these.
 */
export function foldsInAnyOrder(fn: AggregateFunction): boolean {
  if (!isCore(fn.op)) return false;
  switch (fn.op) {
    case COUNT_STAR: case COUNT: case SUM_LONG: case SUM_DECIMAL: case AVG_DECIMAL: case MIN: case MAX: return true;
    case SUM: case AVG: case APPROX_COUNT_DISTINCT: case SUM_DAY_TIME: case SUM_YEAR_MONTH: case AVG_DAY_TIME: case AVG_YEAR_MONTH:
    case TRY_SUM_DAY_TIME: case TRY_SUM_YEAR_MONTH: case TRY_AVG_DAY_TIME: case TRY_AVG_YEAR_MONTH: return false;
  }
}

/**
 * Spark's AggregateFunction.merge: buffer `p` (of rows after those of `b`) merged into `b`, for
 * a function isMergeable says so of; returns the new buffer (`b` may be changed in place).
 */
export function merge(op: AggregateOp, b: AggBuffer, p: AggBuffer): AggBuffer {
  if (!isCore(op)) return op >= 300 ? mergeSketch(op as SketchOp, b, p) : mergeCollect(op as CollectOp, b, p);
  switch (op) {
    case COUNT_STAR: case COUNT:
      return (b as number) + (p as number);
    // NULL (no value) merges as a NULL row: ignored.
    case SUM_LONG: case SUM_DECIMAL: case MIN: case MAX:
      return update(op, b, p);
    case AVG_DECIMAL: {
      const buf = b as [bigint, number], q = p as [bigint, number];
      buf[0] += q[0];
      buf[1] += q[1];
      return buf;
    }
    case SUM: case AVG: case APPROX_COUNT_DISTINCT: case SUM_DAY_TIME: case SUM_YEAR_MONTH: case AVG_DAY_TIME: case AVG_YEAR_MONTH:
    case TRY_SUM_DAY_TIME: case TRY_SUM_YEAR_MONTH: case TRY_AVG_DAY_TIME: case TRY_AVG_YEAR_MONTH:
      throw new Error(`Internal: aggregate op ${op} has no merge`);
  }
}

/**
 * Two intervals' sum, as Spark's Math.addExact: past the kind's range (a BIGINT of microseconds,
 * an INT of months) ARITHMETIC_OVERFLOW, or false for try_sum and try_avg (their NULL).
 */
function addIntervals(op: IntervalOp, a: Long, b: Long): Long | false {
  const dayTime = op === SUM_DAY_TIME || op === AVG_DAY_TIME || op === TRY_SUM_DAY_TIME || op === TRY_AVG_DAY_TIME;
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (dayTime ? Number.isSafeInteger(s) : s >= -(2 ** 31) && s < 2 ** 31) return s;
  }
  const s = bigOf(a) + bigOf(b);
  if (op >= TRY_SUM_DAY_TIME && (dayTime ? !fitsLong(s) : s < -(2n ** 31n) || s >= 2n ** 31n)) return false;
  return dayTime ? exactMicros(s) : exactMonths(s);
}

/**
 * Batch-at-a-time folds over numbers, for the aggregate's columnar path: a group's buffer of
 * one function is two float64 slots, `[at]` (count, sum, min or max) and `[at + 1]` (how many
 * non-NULL values: 0 means the buffer is NULL; avg's count), so one tight loop per function
 * folds a whole batch's column into every group's slots. The results equal `update`'s, value
 * for value (a float64 holds every JS number, -0 and NaN included).
 */
export function foldsNumbersOnly(fn: AggregateFunction): boolean {
  if (!isCore(fn.op)) return false;
  switch (fn.op) {
    case COUNT_STAR: case COUNT: case SUM: case SUM_LONG: case AVG: return true;
    case MIN: case MAX: return fn.resultType === 'long' || fn.resultType === 'double' || fn.resultType === 'timestamp';
    case APPROX_COUNT_DISTINCT: case SUM_DECIMAL: case AVG_DECIMAL: case SUM_DAY_TIME: case SUM_YEAR_MONTH: case AVG_DAY_TIME: case AVG_YEAR_MONTH:
    case TRY_SUM_DAY_TIME: case TRY_SUM_YEAR_MONTH: case TRY_AVG_DAY_TIME: case TRY_AVG_YEAR_MONTH: return false;
  }
}

/** Whether `op` reads its argument's values (count(*) and count(x) only need to know NULLs). */
export const readsNumbers = (op: AggregateOp): boolean => op !== COUNT_STAR && op !== COUNT;

/** Puts buffer `b` into `slots[at]`, `slots[at + 1]`; false when it does not hold numbers. */
export function loadSlots(op: AggregateOp, b: AggBuffer, slots: Float64Array, at: number): boolean {
  if (!isCore(op)) return false;
  switch (op) {
    case COUNT_STAR: case COUNT:
      if (typeof b !== 'number') return false;
      slots[at] = b;
      return true;
    case SUM: case SUM_LONG: case MIN: case MAX:
      if (b === null) {
        slots[at] = 0;
        slots[at + 1] = 0;
        return true;
      }
      // A BIGINT past 2^53 is a bigint, which a float64 slot cannot hold.
      if (typeof b !== 'number') return false;
      slots[at] = b;
      slots[at + 1] = 1;
      return true;
    case AVG: {
      const buf = b as [number, number];
      if (!Array.isArray(buf) || typeof buf[0] !== 'number' || typeof buf[1] !== 'number') return false;
      slots[at] = buf[0];
      slots[at + 1] = buf[1];
      return true;
    }
    case APPROX_COUNT_DISTINCT: case SUM_DECIMAL: case AVG_DECIMAL: case SUM_DAY_TIME: case SUM_YEAR_MONTH: case AVG_DAY_TIME: case AVG_YEAR_MONTH:
    case TRY_SUM_DAY_TIME: case TRY_SUM_YEAR_MONTH: case TRY_AVG_DAY_TIME: case TRY_AVG_YEAR_MONTH:
      return false;
  }
}

/** The buffer held in `slots[at]`, `slots[at + 1]` (avg's array `b` is updated in place). */
export function storeSlots(op: AggregateOp, b: AggBuffer, slots: Float64Array, at: number): AggBuffer {
  if (!isCore(op)) return b;
  switch (op) {
    case COUNT_STAR: case COUNT:
      return slots[at];
    case SUM: case SUM_LONG: case MIN: case MAX:
      return slots[at + 1] === 0 ? null : slots[at];
    case AVG: {
      const buf = b as [number, number];
      buf[0] = slots[at];
      buf[1] = slots[at + 1];
      return buf;
    }
    case APPROX_COUNT_DISTINCT: case SUM_DECIMAL: case AVG_DECIMAL: case SUM_DAY_TIME: case SUM_YEAR_MONTH: case AVG_DAY_TIME: case AVG_YEAR_MONTH:
    case TRY_SUM_DAY_TIME: case TRY_SUM_YEAR_MONTH: case TRY_AVG_DAY_TIME: case TRY_AVG_YEAR_MONTH:
      return b;
  }
}

/**
 * Folds a batch into the slots: row r belongs to the group whose slots start at `base[r]`
 * (-1: the row is dropped), its value is `vals[r]` unless `nulls[r]` is set. False when the
 * fold is not exact (a BIGINT sum left ±2^53, where doubles round): the caller folds the batch
 * row by row instead, in exact 64-bit arithmetic.
 */
export function foldSlots(op: AggregateOp, slots: Float64Array, at: number, base: Int32Array, vals: Float64Array, nulls: Uint8Array): boolean {
  const n = base.length;
  if (!isCore(op)) throw new Error('Internal: this aggregate has no numeric slots');
  switch (op) {
    case COUNT_STAR:
      for (let r = 0; r < n; r++) if (base[r] >= 0) slots[base[r] + at] += 1;
      return true;
    case COUNT:
      for (let r = 0; r < n; r++) if (base[r] >= 0 && nulls[r] === 0) slots[base[r] + at] += 1;
      return true;
    case SUM:
      for (let r = 0; r < n; r++) {
        const b = base[r] + at;
        if (b < at || nulls[r] === 1) continue;
        slots[b] = slots[b + 1] === 0 ? vals[r] : slots[b] + vals[r];
        slots[b + 1] = 1;
      }
      return true;
    case SUM_LONG: {
      let inexact = false;
      for (let r = 0; r < n; r++) {
        const b = base[r] + at;
        if (b < at || nulls[r] === 1) continue;
        const s = slots[b + 1] === 0 ? vals[r] : slots[b] + vals[r];
        slots[b] = s;
        slots[b + 1] = 1;
        if (s > Number.MAX_SAFE_INTEGER || s < -Number.MAX_SAFE_INTEGER) inexact = true;
      }
      return !inexact;
    }
    case AVG:
      for (let r = 0; r < n; r++) {
        const b = base[r] + at;
        if (b < at || nulls[r] === 1) continue;
        slots[b] += vals[r];
        slots[b + 1] += 1;
      }
      return true;
    case MIN:
      // NaN is larger than any other double (Spark): it is the min only of NaNs.
      for (let r = 0; r < n; r++) {
        const b = base[r] + at;
        if (b < at || nulls[r] === 1) continue;
        const x = vals[r], cur = slots[b];
        if (slots[b + 1] === 0 || (x === x && (cur !== cur || x < cur))) slots[b] = x;
        slots[b + 1] = 1;
      }
      return true;
    case MAX:
      for (let r = 0; r < n; r++) {
        const b = base[r] + at;
        if (b < at || nulls[r] === 1) continue;
        const x = vals[r], cur = slots[b];
        if (slots[b + 1] === 0 || x !== x || (cur === cur && x > cur)) slots[b] = x;
        slots[b + 1] = 1;
      }
      return true;
    case APPROX_COUNT_DISTINCT: case SUM_DECIMAL: case AVG_DECIMAL: case SUM_DAY_TIME: case SUM_YEAR_MONTH: case AVG_DAY_TIME: case AVG_YEAR_MONTH:
    case TRY_SUM_DAY_TIME: case TRY_SUM_YEAR_MONTH: case TRY_AVG_DAY_TIME: case TRY_AVG_YEAR_MONTH:
      throw new Error('Internal: this aggregate has no numeric slots');
  }
}

export const PERCENTILE_WITHIN_GROUP: readonly string[] = ['percentile_cont', 'percentile_disc'];

/**
 * Every aggregate function by name, with how many arguments it takes (for the editor's
 * catalog; resolveAggregate checks the arguments themselves).
 */
export const AGGREGATE_FUNCTIONS: Readonly<Record<string, { min: number; max: number }>> = {
  count: { min: 1, max: Infinity }, sum: { min: 1, max: 1 }, avg: { min: 1, max: 1 }, mean: { min: 1, max: 1 },
  min: { min: 1, max: 1 }, max: { min: 1, max: 1 }, approx_count_distinct: { min: 1, max: 2 },
  ...Object.fromEntries(MOMENT_NAMES.map((n) => [n, { min: 1, max: 1 }])),
  ...Object.fromEntries(CO_MOMENT_NAMES.map((n) => [n, { min: 2, max: 2 }])),
  ...Object.fromEntries(REGRESSION_NAMES.map((n) => [n, { min: 2, max: 2 }])),
  collect_list: { min: 1, max: 1 }, array_agg: { min: 1, max: 1 }, collect_set: { min: 1, max: 1 },
  first: { min: 1, max: 2 }, first_value: { min: 1, max: 2 }, last: { min: 1, max: 2 }, last_value: { min: 1, max: 2 }, any_value: { min: 1, max: 2 },
  count_if: { min: 1, max: 1 }, bool_and: { min: 1, max: 1 }, every: { min: 1, max: 1 },
  bool_or: { min: 1, max: 1 }, some: { min: 1, max: 1 }, any: { min: 1, max: 1 },
  bit_and: { min: 1, max: 1 }, bit_or: { min: 1, max: 1 }, bit_xor: { min: 1, max: 1 },
  min_by: { min: 2, max: 2 }, max_by: { min: 2, max: 2 }, try_sum: { min: 1, max: 1 }, try_avg: { min: 1, max: 1 },
  ...Object.fromEntries(PERCENTILE_NAMES.map((n) => [n, { min: 2, max: 3 }])),
  median: { min: 1, max: 1 }, mode: { min: 1, max: 2 }, percentile: { min: 2, max: 3 }, histogram_numeric: { min: 2, max: 2 },
  // `percentile_cont(p) WITHIN GROUP (ORDER BY x)`: the one argument written in the call.
  ...Object.fromEntries(PERCENTILE_WITHIN_GROUP.map((n) => [n, { min: 1, max: 1 }])),
  bitmap_construct_agg: { min: 1, max: 1 }, bitmap_or_agg: { min: 1, max: 1 }, count_min_sketch: { min: 4, max: 4 },
  hll_sketch_agg: { min: 1, max: 2 }, hll_union_agg: { min: 1, max: 2 },
  listagg: { min: 1, max: 2 }, string_agg: { min: 1, max: 2 },
  schema_of_variant_agg: { min: 1, max: 1 },
};

const AGGREGATE_FUNCTION_NAMES: readonly string[] = Object.keys(AGGREGATE_FUNCTIONS);

/** first, last and their aliases: the aggregates that keep a NULL value unless told to ignore NULLs. */
export const FIRST_LAST_NAMES: readonly string[] = ['first', 'first_value', 'last', 'last_value', 'any_value'];

export function isAggregateFunctionName(name: string): boolean {
  return Object.hasOwn(AGGREGATE_FUNCTIONS, name.toLowerCase());
}

type Call = Extract<Expression, { kind: 'UnresolvedFunction' }>;

export const isAggregateCall = (e: Expression): e is Call =>
  e.kind === 'UnresolvedFunction' && e.nameParts.length === 1 && isAggregateFunctionName(e.nameParts[0]);

/**
 * An aggregate call outside a window expression: `sum(x) OVER (…)` is a window function (refused
 * on a stream), which makes no aggregation of its SELECT.
 */
export const containsAggregate = (e: Expression): boolean => someExpression(e, isAggregateCall, (x) => x.kind !== 'UnresolvedWindowExpression');

const countStar: AggregateFunction = {
  name: 'count', resultType: 'long', op: COUNT_STAR,
  init: () => 0,
  result: (b) => b,
};

const countCol: AggregateFunction = {
  name: 'count', resultType: 'long', op: COUNT,
  init: () => 0,
  result: (b) => b,
};

/** sum: null until the first non-NULL value. */
function sum(resultType: 'long' | 'double'): AggregateFunction {
  return {
    name: 'sum', resultType, op: resultType === 'long' ? SUM_LONG : SUM,
    init: () => null,
    result: (b) => b,
  };
}

/** avg buffer: [sum, count]. */
const avg: AggregateFunction = {
  name: 'avg', resultType: 'double', op: AVG,
  init: () => [0, 0],
  result: (b) => {
    const [s, n] = b as [number, number];
    return n === 0 ? null : s / n;
  },
};

/**
 * sum of DECIMAL(p,s): the exact sum (a bigint at scale s) in a buffer of 38 digits and more, so
 * that partial sums never overflow; the result is NULL when it does not fit DECIMAL(p+10,s).
 */
function sumDecimal(arg: DecimalType): AggregateFunction {
  const t = bounded(arg.precision + 10, arg.scale);
  return {
    name: 'sum', resultType: 'decimal', resultDecimal: t, op: SUM_DECIMAL,
    init: () => null,
    result: (b) => (b === null ? null : toPrecision(b as bigint, arg.scale, t)),
  };
}

/** avg of DECIMAL(p,s): [exact sum, count], divided as Spark's Average does, to DECIMAL(p+4,s+4) HALF_UP. */
function avgDecimal(arg: DecimalType): AggregateFunction {
  const t = bounded(arg.precision + 4, arg.scale + 4);
  return {
    name: 'avg', resultType: 'decimal', resultDecimal: t, op: AVG_DECIMAL,
    init: () => [0n, 0],
    result: (b) => {
      const [s, n] = b as [bigint, number];
      return n === 0 ? null : arithmetic('/', s, arg.scale, BigInt(n), 0, t);
    },
  };
}

/**
 * sum of an ANSI interval, as Spark's Sum: of the argument's own type (`sum` of INTERVAL HOUR is
 * an INTERVAL HOUR), each addition exact: past the type's range (a BIGINT of microseconds, an
 * INT of months) ARITHMETIC_OVERFLOW, whatever the ANSI mode, as Spark's Math.addExact.
 */
function sumInterval(arg: TypeInfo, tolerant = false): AggregateFunction {
  const kind = arg.type as IntervalKind;
  return {
    name: tolerant ? 'try_sum' : 'sum', resultType: kind, resultShape: { interval: arg.interval ?? fullRange(kind) },
    op: INTERVAL_OPS.sum[(kind === 'day_time_interval' ? 0 : 1) + (tolerant ? 2 : 0)],
    init: () => null,
    result: (b) => (b === false ? null : b),
  };
}

/**
 * avg of an ANSI interval, as Spark's Average: [exact sum, count] (the sum overflows as sum's
 * does), the sum divided by the count rounded half up (DivideDTInterval, DivideYMInterval), of
 * the kind's whole type (INTERVAL DAY TO SECOND, INTERVAL YEAR TO MONTH).
 */
function avgInterval(arg: TypeInfo, tolerant = false): AggregateFunction {
  const kind = arg.type as IntervalKind;
  return {
    name: tolerant ? 'try_avg' : 'avg', resultType: kind, resultShape: { interval: fullRange(kind) },
    op: INTERVAL_OPS.avg[(kind === 'day_time_interval' ? 0 : 1) + (tolerant ? 2 : 0)],
    init: () => [0, 0],
    result: (b) => {
      const [s, n] = b as [Long | false, number];
      if (n === 0 || s === false) return null;
      const q = divideHalfUp(bigOf(s), BigInt(n));
      return kind === 'day_time_interval' ? toLong(q) : Number(q);
    },
  };
}

function extremum(name: 'min' | 'max', arg: TypeInfo): AggregateFunction {
  return { name, ...shapeOf(arg), op: name === 'min' ? MIN : MAX, init: () => null, result: (b) => b };
}

function approxCountDistinct(relativeSD: number): AggregateFunction {
  const p = precisionFor(relativeSD);
  return {
    name: 'approx_count_distinct', resultType: 'long', op: APPROX_COUNT_DISTINCT,
    init: () => hllCreate(p),
    result: (b) => hllEstimate(b as Uint8Array),
  };
}

/** The aggregates of one number that read a STRING argument as a DOUBLE, as Spark casts it. */
const NUMBERS_FROM_STRINGS: ReadonlySet<string> = new Set([
  'sum', 'avg', 'mean', 'try_sum', 'try_avg', 'stddev', 'stddev_samp', 'stddev_pop', 'std', 'variance', 'var_samp', 'var_pop', 'skewness', 'kurtosis',
  'median', 'percentile', 'percentile_approx', 'approx_percentile',
]);

/** An argument of an aggregate call: its type, and its value when it is a literal. */
export interface AggregateArg extends TypeInfo {
  literal?: { value: unknown };
}

export interface AggregateCall {
  name: string;
  /** The arguments; count(*) has none. */
  args: AggregateArg[];
  star: boolean;
  distinct: boolean;
}

/** A literal argument as a number (a decimal literal such as 0.05 is an unscaled bigint), else undefined. */
function literalNumber(a: AggregateArg | undefined): number | undefined {
  const v = a?.literal?.value;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return a!.type === 'decimal' && a!.decimal ? decimalToDouble(v, a!.decimal.scale) : Number(v);
  return undefined;
}

/** percentile_approx's percentage: a number, or an array literal of numbers. */
function percentages(a: AggregateArg): number | (number | undefined)[] | undefined {
  const v = a.literal?.value;
  if (!Array.isArray(v)) return literalNumber(a);
  const e = a.elementType;
  return v.map((x) => literalNumber({ type: e?.type === 'decimal' ? 'decimal' : 'double', ...(e?.type === 'decimal' ? { decimal: { precision: e.precision!, scale: e.scale! } } : {}), literal: { value: x } }));
}

/** The result type of an aggregate that returns its argument's values (first, min_by, mode, …). */
function shapeOf(t: TypeInfo): Pick<AggregateFunction, 'resultType' | 'resultDecimal' | 'resultShape'> {
  const shape: NonNullable<AggregateFunction['resultShape']> = {};
  if (t.fields) shape.fields = t.fields;
  if (t.elementType) shape.elementType = t.elementType;
  if (t.integral) shape.integral = t.integral;
  if (t.float32) shape.float32 = true;
  if (t.ntz) shape.ntz = true;
  if (t.interval) shape.interval = t.interval;
  // Spark's result is the argument's type: VOID stays VOID (kept as a STRING, as fieldOfType does).
  if (t.type === 'null') shape.void = true;
  if (t.keyType) {
    shape.keyType = t.keyType;
    shape.valueType = t.valueType;
  }
  return {
    resultType: (t.type === 'null' ? 'string' : t.type) as AggregateFunction['resultType'],
    ...(t.decimal ? { resultDecimal: t.decimal } : {}),
    ...(Object.keys(shape).length > 0 ? { resultShape: shape } : {}),
  };
}

/** A numeric argument's value as the double Spark casts it to (a DECIMAL or a bigint BIGINT); undefined for a double. */
function toDouble(t: TypeInfo): ((v: unknown) => unknown) | undefined {
  if (t.type === 'decimal') {
    const scale = t.decimal!.scale;
    return (v) => (typeof v === 'bigint' ? decimalToDouble(v, scale) : v);
  }
  if (t.type === 'long') return (v) => (typeof v === 'bigint' ? Number(v) : v);
  return undefined;
}

/**
 * histogram_numeric's input types: how a value reads as the double Spark bins (a timestamp in
 * microseconds, as Spark holds it) and how a bin's centre becomes a value of the type again (an
 * integral type's centre truncated, as Spark's Double.toLong and toInt do).
 */
const HISTOGRAM_CENTRES: Partial<Record<TypeInfo['type'], { toDouble: (v: unknown) => number; fromDouble: (x: number) => unknown }>> = {
  long: { toDouble: Number, fromDouble: longFromDouble },
  double: { toDouble: Number, fromDouble: (x) => x },
  null: { toDouble: Number, fromDouble: (x) => x },
  date: { toDouble: Number, fromDouble: Math.trunc },
  year_month_interval: { toDouble: Number, fromDouble: Math.trunc },
  day_time_interval: { toDouble: Number, fromDouble: longFromDouble },
  timestamp: { toDouble: (v) => Number(microsOfTimestamp(v as number)), fromDouble: (x) => timestampFromMicros(longFromDouble(x)) },
};

const isNumber = (t: TypeInfo) => t.type === 'long' || t.type === 'double' || t.type === 'decimal' || t.type === 'null';

/** Resolves an aggregate call to its function, or throws the error a user can act on. */
export function resolveAggregate(call: AggregateCall, text: string): AggregateFunction {
  const name = call.name.toLowerCase();
  if (call.distinct) {
    throw new AnalysisException(
      'Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.',
      { aggregate: text },
    );
  }
  const fn = numberFromString(name, call, text) ?? resolve(name, call, text);
  // Arguments not read per row are options, which must be literals.
  const inputs = fn.inputs ?? (call.args.length > 0 ? [0] : []);
  call.args.forEach((a, i) => {
    if (!inputs.includes(i) && !a.literal) throw new AnalysisException(`${text}: argument ${i + 1} of ${name}() must be a literal`, { aggregate: text });
  });
  return fn;
}

/**
 * Spark's ImplicitTypeCasts: a STRING where the function takes a number is read as a DOUBLE
 * (sum('10') is 10.0, median(s) of '1.5' and '2' is 1.75; text that is no number is NULL, which
 * the function skips). Undefined where the call reads no STRING there.
 */
function numberFromString(name: string, call: AggregateCall, text: string): AggregateFunction | undefined {
  const from = call.args[0];
  // Spark's FunctionArgumentConversion (ANSI off): "Hive lets you do aggregation of timestamps",
  // sum and avg (try_sum, try_avg, mean: Sum and Average) of a TIMESTAMP (not a TIMESTAMP_NTZ)
  // fold its value cast to a DOUBLE, its seconds since the epoch.
  const timestamp = from?.type === 'timestamp' && !from.ntz && SUMS_OF_TIMESTAMPS.has(name);
  if (!timestamp && (!NUMBERS_FROM_STRINGS.has(name) || from?.type !== 'string')) return undefined;
  const fn = resolve(name, { ...call, args: [{ ...from, type: 'double' }, ...call.args.slice(1)] }, text);
  // Only a function that folds its first argument alone (not percentile's frequency beside it).
  if (fn.prepare !== undefined || (fn.inputs !== undefined && (fn.inputs.length !== 1 || fn.inputs[0] !== 0))) return undefined;
  return { ...fn, prepare: (v) => castValue(v ?? null, from.type, 'double') };
}

const SUMS_OF_TIMESTAMPS: ReadonlySet<string> = new Set(['sum', 'avg', 'mean', 'try_sum', 'try_avg']);

function resolve(name: string, call: AggregateCall, text: string): AggregateFunction {
  const args = call.args;
  const arg = args[0] as AggregateArg | undefined;
  const fail = (msg: string, errorClass?: string): never => {
    throw new AnalysisException(`${text}: ${msg}`, { aggregate: text }, errorClass);
  };
  const arity = (min: number, max = min) => {
    if (call.star || args.length < min || args.length > max) {
      fail(`${name}() takes ${min === max ? (min === 1 ? 'exactly one column or expression' : `${min} arguments`) : `${min} to ${max} arguments`}, got ${call.star ? '*' : args.length}`);
    }
  };
  const needNumbers = (...ts: TypeInfo[]) => {
    for (const t of ts) if (!isNumber(t)) fail(`${name}() needs a numeric argument, got ${typeText(t)}; CAST it AS DOUBLE`);
  };
  const needBoolean = (t: TypeInfo) => {
    if (t.type !== 'boolean' && t.type !== 'null') fail(`${name}() needs a boolean argument, got ${typeText(t)}; write a condition such as x > 0`);
  };
  // Spark orders structs and arrays (field by field, element by element), never maps.
  const needOrderable = (t: TypeInfo) => {
    if (!isOrderable(t)) {
      const instead = holdsVariant(t) ? `(a VARIANT has no order); take ${name}() of variant_get(v, '$.path', 'type')` : `(a map has no order); take ${name}() of map_keys(…), map_values(…) or an element_at(…)`;
      fail(`The \`${name}\` does not support ordering on type "${typeText(t)}" ${instead}`, 'DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    }
  };
  const numeric = arg !== undefined && (arg.type === 'long' || arg.type === 'double' || arg.type === 'null');
  switch (name) {
    case 'count':
      if (call.star) return countStar;
      arity(1, Infinity);
      if (args.length === 1) return countCol;
      // count(a, b, …): the rows where none of them is NULL.
      return { ...countCol, inputs: args.map((_, i) => i), prepare: (...vs) => (vs.some((v) => v === null || v === undefined) ? null : 1) };
    case 'sum':
      arity(1);
      if (arg!.type === 'decimal') return sumDecimal(arg!.decimal!);
      if (isInterval(arg!.type)) return sumInterval(arg!);
      if (!numeric) fail(`sum() needs a numeric or interval argument, got ${typeText(arg!)}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
      // A column of NULLs sums as Spark's Sum casts it, to a DOUBLE (NumericType's default).
      return sum(arg!.type === 'long' ? 'long' : 'double');
    case 'avg':
    case 'mean':
      arity(1);
      if (arg!.type === 'decimal') return avgDecimal(arg!.decimal!);
      if (isInterval(arg!.type)) return avgInterval(arg!);
      if (!numeric) fail(`avg() needs a numeric or interval argument, got ${typeText(arg!)}`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
      return avg;
    case 'try_sum':
      arity(1);
      if (arg!.type === 'decimal') return { ...sumDecimal(arg!.decimal!), name };
      if (isInterval(arg!.type)) return sumInterval(arg!, true);
      needNumbers(arg!);
      return arg!.type === 'long' ? trySumLong : { ...sum('double'), name };
    case 'try_avg':
      arity(1);
      if (arg!.type === 'decimal') return { ...avgDecimal(arg!.decimal!), name };
      if (isInterval(arg!.type)) return avgInterval(arg!, true);
      needNumbers(arg!);
      return arg!.type === 'double' ? { ...avg, name } : tryAvgLong;
    case 'min':
    case 'max':
      arity(1);
      needOrderable(arg!);
      return extremum(name, arg!);
    case 'approx_count_distinct': {
      arity(1, 2);
      const rsd = literalNumber(args[1]);
      if (args[1] !== undefined && (rsd === undefined || !(rsd > 0 && rsd < 1))) fail('the relative standard deviation must be a number between 0 and 1, such as 0.05');
      return approxCountDistinct(rsd ?? 0.05);
    }
    case 'collect_list':
    case 'array_agg':
    case 'collect_set':
      arity(1);
      if (name === 'collect_set' && arg!.type === 'map') fail('collect_set() cannot collect maps (a map has no equality); collect map_entries(…) or its keys');
      return collect(name, name === 'collect_set', { resultType: 'array', resultShape: { elementType: elementOf(arg!) } });
    case 'listagg':
    case 'string_agg':
      return listAggregate(name, args, text);
    case 'first':
    case 'first_value':
    case 'any_value':
    case 'last':
    case 'last_value': {
      // A third argument is the planner's: the FILTER condition (first and last must tell a
      // row left out from a NULL value).
      arity(1, 3);
      const ignore = args[1];
      if (ignore !== undefined && (ignore.type !== 'boolean' || typeof ignore.literal?.value !== 'boolean')) fail(`the second argument of ${name}() must be a boolean literal (true: ignore NULLs)`);
      const fn = firstLast(name, name.startsWith('last'), ignore?.literal?.value === true, shapeOf(arg!));
      return args.length === 3 ? { ...fn, inputs: [0, 2], prepare: (x, keep) => (keep === true ? x : SKIP_ROW) } : fn;
    }
    case 'count_if':
      arity(1);
      needBoolean(arg!);
      return countIf;
    case 'schema_of_variant_agg':
      arity(1);
      // Spark's ExpectsInputTypes(VARIANT): no other type is cast to one, a NULL neither.
      if (arg!.type !== 'variant') fail(`the first parameter of schema_of_variant_agg requires the "VARIANT" type, got ${typeText(arg!)}; read the text with parse_json(…)`, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
      return schemaOfVariantAgg;
    case 'bool_and':
    case 'every':
    case 'bool_or':
    case 'some':
    case 'any':
      arity(1);
      needBoolean(arg!);
      return boolAggregate(name, name === 'bool_and' || name === 'every');
    case 'bit_and':
    case 'bit_or':
    case 'bit_xor':
      arity(1);
      // Spark's IntegralType input: a BIGINT, INT, SMALLINT or TINYINT, whose type the result keeps.
      if (arg!.type !== 'long' && arg!.type !== 'null') fail(`${name}() needs an integer argument, got ${typeText(arg!)}; CAST it to BIGINT`);
      return bitAggregate(name, shapeOf(arg!.type === 'null' ? { type: 'long' } : arg!));
    case 'min_by':
    case 'max_by':
      arity(2);
      needOrderable(args[1]);
      return { ...extremumBy(name, name === 'max_by', shapeOf(arg!)), inputs: [0, 1], prepare: (x, ord) => [x, ord] };
    case 'percentile': {
      // percentile(col, percentage[, frequency]): each row counts `frequency` (an integral column) times.
      arity(2, 3);
      if (args[2] && args[2].type !== 'long' && args[2].type !== 'null') fail(`percentile() takes its frequency as an integral column or expression, got ${typeText(args[2])}`);
      const fn = exactPercentile(name, arg!, args[1], { withFrequency: args.length === 3 }, text);
      return args.length === 3 ? { ...fn, inputs: [0, 2], prepare: (x, f) => [x, f] } : fn;
    }
    case 'median':
      arity(1);
      return exactPercentile(name, arg!, { type: 'double', literal: { value: 0.5 } }, {}, text);
    case 'percentile_cont':
    case 'percentile_disc': {
      // The planner's (x, percentage, reverse) of `percentile_cont(percentage) WITHIN GROUP (ORDER BY x [DESC])`.
      arity(3);
      return exactPercentile(name, arg!, args[1], { reverse: args[2].literal?.value === true, discrete: name === 'percentile_disc' }, text);
    }
    case 'mode': {
      // mode(x[, deterministic]), or the planner's (x, true, reverse) of `mode() WITHIN GROUP (ORDER BY x [DESC])`.
      arity(1, 3);
      modeDeterministic(args[1], text);
      const fn = mode(shapeOf(arg!), args[2]?.literal?.value === true);
      // Spark 4 counts any value, a map too (by its entries, in their order); mode(x, true) picks
      // among the most frequent by their order, which a map has not: Spark's eval fails there
      // (PhysicalDataType.ordering), once a group has a value.
      if (args[1]?.literal?.value !== true || isOrderable(arg!)) return fn;
      return {
        ...fn,
        result: (b) => {
          if ((b as unknown[]).length === 0) return null;
          throw new RecordExpressionError(`[_LEGACY_ERROR_TEMP_2005] Type ${typeText(arg!)} does not support ordered operations.`, { function: text, errorClass: '_LEGACY_ERROR_TEMP_2005' });
        },
      };
    }
    case 'percentile_approx':
    case 'approx_percentile': {
      arity(2, 3);
      if (!isNumber(arg!) && arg!.type !== 'date' && arg!.type !== 'timestamp') fail(`${name}() needs a numeric, date or timestamp column, got ${typeText(arg!)}`);
      const ps = percentages(args[1]);
      const all = Array.isArray(ps) ? ps : [ps];
      if (all.length === 0 || all.some((x) => x === undefined || !(x >= 0 && x <= 1))) fail('the percentage must be a number between 0.0 and 1.0, or an array of such numbers, such as 0.5 or array(0.25, 0.75)');
      const accuracy = args[2] === undefined ? 10000 : literalNumber(args[2]);
      if (accuracy === undefined || !Number.isInteger(accuracy) || accuracy <= 0 || accuracy > 2 ** 31 - 1) fail('the accuracy must be a positive integer literal, such as 10000 (the default)');
      return percentileApprox(name, ps as number | number[], accuracy!, Array.isArray(ps) ? { resultType: 'array', resultShape: { elementType: elementOf(arg!) } } : shapeOf(arg!));
    }
    case 'histogram_numeric': {
      arity(2);
      const nb = literalNumber(args[1]);
      if (args[1].type !== 'long' || nb === undefined || nb < 2 || nb > 2 ** 31 - 1) fail('the number of bins must be an integer literal from 2 to 2147483647, such as 10');
      if (arg!.type === 'decimal') fail('histogram_numeric() of a DECIMAL is not supported; CAST it AS DOUBLE');
      const centre = HISTOGRAM_CENTRES[arg!.type];
      if (!centre) fail(`histogram_numeric() needs a numeric, date, timestamp or interval column, got ${typeText(arg!)}`);
      // Spark's NULL argument is a DOUBLE.
      const x = fieldOfType('x', arg!.type === 'null' ? { type: 'double' } : arg!);
      const bin: Field = { name: 'element', type: 'struct', nullable: true, fields: [x, { name: 'y', type: 'double', nullable: true }] };
      return histogramNumeric(nb!, centre!.toDouble, centre!.fromDouble, { resultType: 'array', resultShape: { elementType: bin } });
    }
    case 'bitmap_construct_agg': {
      arity(1);
      // Spark's ImplicitCastInputTypes of a BIGINT: a DOUBLE truncated, a STRING parsed (NULL if it is no number).
      if (!isNumber(arg!) && arg!.type !== 'string') fail(`bitmap_construct_agg() takes a bit position (a BIGINT, most likely bitmap_bit_position(…)), got ${typeText(arg!)}`);
      const from = arg!;
      const fn = bitmapAggregate(name);
      return from.type === 'long' || from.type === 'null' ? fn : { ...fn, prepare: (v) => castValue(v ?? null, from.type, 'long', from.decimal) };
    }
    case 'bitmap_or_agg':
      arity(1);
      if (arg!.type !== 'binary' && arg!.type !== 'null') fail(`bitmap_or_agg() takes bitmaps (a BINARY, such as bitmap_construct_agg(…) gives), got ${typeText(arg!)}`);
      return bitmapAggregate(name);
    case 'count_min_sketch':
      return countMinSketchOf(args, fail);
    case 'hll_sketch_agg':
      arity(1, 2);
      return hllSketchAggOf(arg!, args[1], text);
    case 'hll_union_agg': {
      arity(1, 2);
      if (arg!.type !== 'binary' && arg!.type !== 'null') unexpectedInputType(text, 1, '"BINARY"', arg!);
      const allow = args[1]?.literal?.value ?? false;
      if (args[1] !== undefined && (args[1].type !== 'boolean' || typeof allow !== 'boolean')) unexpectedInputType(text, 2, '"BOOLEAN"', args[1]);
      return hllUnionAggregate(allow as boolean);
    }
    default:
      if (MOMENT_NAMES.includes(name)) {
        arity(1);
        needNumbers(arg!);
        const conv = toDouble(arg!);
        return conv ? { ...centralMoment(name), prepare: conv } : centralMoment(name);
      }
      if (CO_MOMENT_NAMES.includes(name)) {
        arity(2);
        needNumbers(args[0], args[1]);
        const cx = toDouble(args[0]) ?? ((v: unknown) => v), cy = toDouble(args[1]) ?? ((v: unknown) => v);
        return { ...coMoment(name), inputs: [0, 1], prepare: (x, y) => [cx(x) ?? null, cy(y) ?? null] };
      }
      if (REGRESSION_NAMES.includes(name)) {
        arity(2);
        needNumbers(args[0], args[1]);
        const cy = toDouble(args[0]) ?? ((v: unknown) => v), cx = toDouble(args[1]) ?? ((v: unknown) => v);
        // Spark's regr_*(y, x): the buffer is the correlation's of (x, y).
        return { ...regression(name), inputs: [0, 1], prepare: (y, x) => [cx(x) ?? null, cy(y) ?? null] };
      }
      throw new AnalysisException(`${text}: ${name} is not an aggregate function; use one of ${AGGREGATE_FUNCTION_NAMES.join(', ')}`, { aggregate: text });
  }
}

/**
 * Spark 4's ListAgg: listagg(x[, delimiter]), or the planner's (x, delimiter, orderings, ...keys)
 * of `listagg(x[, delimiter]) WITHIN GROUP (ORDER BY key [ASC|DESC] [NULLS FIRST|LAST], …)`,
 * `orderings` a literal such as 'ASC NULLS FIRST,DESC NULLS LAST'. x is a STRING or BINARY, or a
 * value Spark's implicit casts make a STRING (a number, a boolean, a date or timestamp); the
 * delimiter a literal of x's type, NULL (the default) for none.
 */
function listAggregate(name: string, args: readonly AggregateArg[], text: string): AggregateFunction {
  const sqlExpr = text.replace(/ WITHIN GROUP \(.*$/, '');
  const mismatch = (subclass: string, message: string): never => {
    throw new AnalysisException(`[DATATYPE_MISMATCH.${subclass}] Cannot resolve "${sqlExpr}" due to data type mismatch: ${message}`, { aggregate: text }, `DATATYPE_MISMATCH.${subclass}`);
  };
  const [x, delimiter] = args;
  if (args.length < 1 || args.length === 3 || (args.length > 2 && delimiter === undefined)) throw new AnalysisException(`${text}: ${name}() takes a value and an optional delimiter`, { aggregate: text });
  const binary = x.type === 'binary';
  const implicit = x.type === 'long' || x.type === 'double' || x.type === 'decimal' || x.type === 'boolean' || x.type === 'date' || x.type === 'timestamp' || x.type === 'null';
  if (!binary && x.type !== 'string' && !implicit) {
    mismatch('UNEXPECTED_INPUT_TYPE', `The first parameter requires the ("STRING" or "BINARY") type, however "${sqlExpr.slice(name.length + 1).split(',')[0]}" has the type "${typeText(x)}"; CAST it AS STRING.`);
  }
  const d = delimiter ?? { type: 'null', literal: { value: null } };
  if (d.literal === undefined && d.type !== 'null') {
    mismatch('NON_FOLDABLE_INPUT', `The input \`delimiter\` should be a foldable "${typeText(d)}" expression; however, it reads the rows: write a literal such as ','.`);
  }
  if (d.type !== 'null' && (d.type === 'binary') !== binary) {
    mismatch('DATA_DIFF_TYPES', `Input to \`${name === 'string_agg' ? 'listagg' : name}\` should all be the same type, but it's ("${typeText(x)}" or "${typeText(d)}"); write the delimiter as a ${binary ? "BINARY such as X'2C'" : "STRING such as ','"}.`);
  }
  const sep = d.literal?.value ?? (binary ? new Uint8Array(0) : '');
  const orderings = args.length > 2 ? String(args[2].literal?.value ?? '').split(',') : [];
  const order = orderings.map((o) => ({ ascending: o.startsWith('ASC'), nullsFirst: o.endsWith('FIRST') }));
  const fn = listAgg(name, binary, sep as string | Uint8Array, order);
  const cast = binary || x.type === 'string' ? undefined : (v: unknown) => castValue(v ?? null, x.type, 'string', x.decimal);
  const keys = order.map((_o, i) => i + 3);
  return { ...fn, inputs: [0, ...keys], prepare: (v, ...ks) => [cast ? cast(v) : v, ...ks] };
}

/**
 * Spark's exact percentiles (PercentileBase: percentile, median, percentile_cont, percentile_disc)
 * of a number or an ANSI interval `x` at the literal percentage(s) `p`, checked as Spark checks
 * them: a DOUBLE, or of an interval its kind's widest type (INTERVAL YEAR TO MONTH, INTERVAL DAY
 * TO SECOND), the result truncated to a whole month or microsecond as Spark's toInt and toLong.
 */
function exactPercentile(name: string, x: AggregateArg, p: AggregateArg, options: PercentileOptions, text: string): AggregateFunction {
  const interval = x.type === 'year_month_interval' || x.type === 'day_time_interval' ? x.type : undefined;
  // Spark's DATATYPE_MISMATCH of the call, named as Spark names it: percentile_cont(x, p), without the planner's `reverse`.
  const sqlExpr = PERCENTILE_WITHIN_GROUP.includes(name) ? text.replace(/, (true|false)\)$/, ')') : text;
  const mismatch = (subclass: string, message: string): never => {
    throw new AnalysisException(`[DATATYPE_MISMATCH.${subclass}] Cannot resolve "${sqlExpr}" due to data type mismatch: ${message}`, { aggregate: text }, `DATATYPE_MISMATCH.${subclass}`);
  };
  if (!interval && !isNumber(x)) {
    mismatch('UNEXPECTED_INPUT_TYPE', `Parameter 1 requires the ("NUMERIC" or "INTERVAL YEAR TO MONTH" or "INTERVAL DAY TO SECOND") type, however it has the type "${typeText(x)}"; CAST it AS DOUBLE.`);
  }
  if (p.literal === undefined && p.type !== 'null') {
    mismatch('NON_FOLDABLE_INPUT', 'the input `percentage` should be a foldable "DOUBLE" expression; however, it reads the rows: write a literal such as 0.5.');
  }
  if (p.type === 'null' || p.literal?.value === null) mismatch('UNEXPECTED_NULL', 'The `percentage` must not be null.');
  const ps = percentages(p);
  const all = Array.isArray(ps) ? ps : [ps];
  if (all.length === 0 || all.some((q) => q === undefined)) {
    mismatch('UNEXPECTED_INPUT_TYPE', `the percentage must be a number between 0.0 and 1.0, or an array of such numbers, such as 0.5 or array(0.25, 0.75); got "${typeText(p)}".`);
  }
  if (all.some((q) => !(q! >= 0 && q! <= 1))) {
    mismatch('VALUE_OUT_OF_RANGE', `The \`percentage\` must be between [0.0, 1.0] (current value = ${all.map((q) => `${formatDouble(q!)}D`).join(',')}).`);
  }
  const conv = toDouble(x);
  const toNumber = interval ? Number : conv ? (v: unknown) => conv(v) as number : (v: unknown) => v as number;
  const element: TypeInfo = interval ? { type: interval, interval: fullRange(interval) } : { type: 'double' };
  // Spark's ARRAY<DOUBLE> of several percentages holds no NULL.
  const shape = Array.isArray(ps) ? { resultType: 'array' as const, resultShape: { elementType: fieldOfType('element', element, false) } } : shapeOf(element);
  const fromDouble = interval === 'day_time_interval' ? longFromDouble : interval ? Math.trunc : undefined;
  return percentile(name, toNumber, ps as number | number[], shape, { ...options, ...(fromDouble ? { fromDouble } : {}) });
}

/**
 * mode(x, deterministic), Spark 4's: `deterministic` a BOOLEAN literal, checked as Spark's Mode
 * checks it. Either way Weir's mode gives the least of tied values, which `true` asks for and
 * `false` (any of them) allows.
 */
function modeDeterministic(d: AggregateArg | undefined, text: string): void {
  if (d === undefined) return;
  if (d.literal === undefined && d.type !== 'null') {
    throw new AnalysisException(`[NON_FOLDABLE_ARGUMENT] The function \`mode\` requires the parameter \`deterministic\` to be a foldable expression of the type "BOOLEAN", but the actual argument reads the rows: write true or false`, { aggregate: text }, 'NON_FOLDABLE_ARGUMENT');
  }
  if (d.type === 'null' || d.literal?.value === null) {
    throw new AnalysisException(`[DATATYPE_MISMATCH.UNEXPECTED_NULL] Cannot resolve "${text}" due to data type mismatch: The \`deterministic\` must not be null.`, { aggregate: text }, 'DATATYPE_MISMATCH.UNEXPECTED_NULL');
  }
  if (d.type !== 'boolean') {
    throw new AnalysisException(`[UNEXPECTED_INPUT_TYPE] The second parameter of the function \`mode\` requires the "BOOLEAN" type, however it has the type "${typeText(d)}": write true or false`, { aggregate: text }, 'UNEXPECTED_INPUT_TYPE');
  }
}

/** Spark's DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE of an ExpectsInputTypes function's argument. */
function unexpectedInputType(text: string, index: number, required: string, arg: TypeInfo): never {
  throw new AnalysisException(
    `[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "${text}" due to data type mismatch: Parameter ${index} requires the ${required} type, however it has the type "${typeText(arg)}".`,
    { aggregate: text }, 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE',
  );
}

/**
 * hll_sketch_agg(col[, lgConfigK]): Spark's HllSketchAgg, of an INT, BIGINT, STRING or BINARY
 * (no other type is cast to one), with an INT literal lgConfigK from 4 to 21 (default 12), whose
 * HLL_INVALID_LG_K Weir raises when it analyses the query rather than when the first group starts.
 */
function hllSketchAggOf(col: AggregateArg, lgK: AggregateArg | undefined, text: string): AggregateFunction {
  const integer = col.type === 'null' || (col.type === 'long' && (col.integral === undefined || col.integral === 32));
  if (!integer && col.type !== 'string' && col.type !== 'binary') unexpectedInputType(text, 1, '("INT" or "BIGINT" or "STRING" or "BINARY")', col);
  const k = lgK === undefined ? HLL_DEFAULT_LG_K : lgK.literal?.value;
  if (lgK !== undefined && (lgK.type !== 'long' || (typeof k !== 'number' && typeof k !== 'bigint'))) unexpectedInputType(text, 2, '"INT"', lgK);
  const n = Number(k);
  if (n < HLL_MIN_LG_K || n > HLL_MAX_LG_K) {
    throw new AnalysisException(
      `[HLL_INVALID_LG_K] Invalid call to \`hll_sketch_agg\`; the \`lgConfigK\` value must be between ${HLL_MIN_LG_K} and ${HLL_MAX_LG_K}, inclusive: ${n}.`,
      { aggregate: text }, 'HLL_INVALID_LG_K',
    );
  }
  return hllSketchAggregate(!integer, n);
}

/**
 * count_min_sketch(col, eps, confidence, seed): Spark's CountMinSketchAgg, of an integer, a
 * STRING or a BINARY column, with a DOUBLE eps above 0, a DOUBLE confidence in (0, 1) and an INT
 * seed, all literals (Spark's ExpectsInputTypes: 0.5 is a DECIMAL there, so write 0.5d).
 */
function countMinSketchOf(args: AggregateArg[], fail: (msg: string) => never): AggregateFunction {
  if (args.length !== 4) fail(`count_min_sketch() takes 4 arguments (col, eps, confidence, seed), got ${args.length}`);
  const [col, eps, confidence, seed] = args;
  if (col.type !== 'long' && col.type !== 'string' && col.type !== 'binary' && col.type !== 'null') {
    fail(`count_min_sketch() counts integers, STRINGs or BINARYs, not ${typeText(col)}; CAST it AS STRING`);
  }
  const double = (a: AggregateArg, what: string): number => {
    if (a.type !== 'double' || typeof a.literal?.value !== 'number') fail(`the ${what} must be a DOUBLE literal, such as 0.5d (0.5 is a DECIMAL), got ${typeText(a)}`);
    return a.literal!.value as number;
  };
  const e = double(eps, 'eps'), c = double(confidence, 'confidence');
  const s = seed.literal?.value;
  if (seed.type !== 'long' || seed.integral === undefined || seed.integral > 32 || (typeof s !== 'number' && typeof s !== 'bigint')) fail(`the seed must be an INT literal, such as 1, got ${typeText(seed)}`);
  // Spark's VALUE_OUT_OF_RANGE texts.
  if (!(e > 0)) fail(`The \`eps\` must be between (0.0, ${formatDouble(Number.MAX_VALUE)}] (current value = ${formatDouble(e)}D)`);
  if (!(c > 0 && c < 1)) fail(`The \`confidence\` must be between (0.0, 1.0] (current value = ${formatDouble(c)}D)`);
  return countMinSketch(col.type !== 'long', e, c, Number(s));
}
