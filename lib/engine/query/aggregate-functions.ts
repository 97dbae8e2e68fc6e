/**
 * Aggregate functions for streaming GROUP BY: count(*), count(col), sum, avg, min, max and
 * approx_count_distinct. Each keeps a small buffer per group that the state store holds
 * between batches (encoded with the state value codec), so it has
 * - `init()`: the buffer of a group with no rows,
 * - `update(fn.op, buffer, value)`: fold one input value in (returns the new buffer: buffers may
 *   be numbers, which are immutable),
 * - `result(buffer)`: the output value.
 * Semantics follow Spark SQL: NULL inputs are ignored; sum/avg/min/max of no non-NULL values is
 * NULL; count never is. sum of longs is a long (a JS number: exact up to 2^53). sum and avg of a
 * DECIMAL(p,s) are exact, typed as Spark types them: DECIMAL(p+10,s) and DECIMAL(p+4,s+4)
 * (at most 38 digits; a sum that outgrows its type is NULL, ANSI off). Their buffers hold
 * bigints, which the state value codec round-trips (tag 9).
 *
 * Distinct aggregates (`count(DISTINCT x)`) are refused with Spark's message; streaming state
 * would have to keep every distinct value.
 */
import { longAdd, type Long } from './long';
import { AnalysisException } from '../errors';
import { hllAdd, hllCreate, hllEstimate, precisionFor } from '../operators/hyper-log-log';
import type { Field } from '../types';
import { arithmetic, bounded, toPrecision, type DecimalType } from './decimal';
import type { ExprType } from './sql-values';

type AggBuffer = unknown;

// How each function folds a value in (AggregateFunction.op): small integers, so that the
// aggregate's hot loop applies every function through one switch (`update`) that the JIT
// inlines, instead of a call through a different closure per function (a megamorphic call
// site per row and aggregate).
const COUNT_STAR = 0, COUNT = 1, SUM = 2, AVG = 3, MIN = 4, MAX = 5, APPROX_COUNT_DISTINCT = 6, SUM_DECIMAL = 7, AVG_DECIMAL = 8, SUM_LONG = 9;
export type AggregateOp =
  | typeof COUNT_STAR | typeof COUNT | typeof SUM | typeof AVG | typeof MIN | typeof MAX | typeof APPROX_COUNT_DISTINCT
  | typeof SUM_DECIMAL | typeof AVG_DECIMAL | typeof SUM_LONG;

export interface AggregateFunction {
  readonly name: string;
  readonly resultType: Exclude<Field['type'], 'window' | 'struct' | 'unknown'>;
  /** The precision and scale of a `decimal` result (spread into the output Field). */
  readonly resultDecimal?: DecimalType;
  /** How `update` folds a value in. */
  readonly op: AggregateOp;
  init(): AggBuffer;
  result(buffer: AggBuffer): unknown;
}

/** count(*): its buffer is a plain counter the aggregate's hot loop may bump inline. */
export const isCountStar = (fn: AggregateFunction): boolean => fn.op === COUNT_STAR;

/**
 * Folds one input value into a buffer of a function whose `op` this is; returns the new buffer (numbers are immutable,
 * so a count or sum buffer is replaced; avg and HyperLogLog buffers are changed in place).
 */
export function update(op: AggregateOp, b: AggBuffer, v: unknown): AggBuffer {
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
      if (typeof v === 'number' && Number.isNaN(v)) return b;
      if (typeof b === 'number' && Number.isNaN(b)) return v;
      return (v as never) < (b as never) ? v : b;
    case MAX:
      if (v === null || v === undefined) return b;
      if (b === null) return v;
      if (typeof v === 'number' && Number.isNaN(v)) return v;
      if (typeof b === 'number' && Number.isNaN(b)) return b;
      return (v as never) > (b as never) ? v : b;
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
  }
}

/**
 * Batch-at-a-time folds over numbers, for the aggregate's columnar path: a group's buffer of
 * one function is two float64 slots, `[at]` (count, sum, min or max) and `[at + 1]` (how many
 * non-NULL values: 0 means the buffer is NULL; avg's count), so one tight loop per function
 * folds a whole batch's column into every group's slots. The results equal `update`'s, value
 * for value (a float64 holds every JS number, -0 and NaN included).
 */
export function foldsNumbersOnly(fn: AggregateFunction): boolean {
  switch (fn.op) {
    case COUNT_STAR: case COUNT: case SUM: case SUM_LONG: case AVG: return true;
    case MIN: case MAX: return fn.resultType === 'long' || fn.resultType === 'double' || fn.resultType === 'timestamp';
    case APPROX_COUNT_DISTINCT: case SUM_DECIMAL: case AVG_DECIMAL: return false;
  }
}

/** Whether `op` reads its argument's values (count(*) and count(x) only need to know NULLs). */
export const readsNumbers = (op: AggregateOp): boolean => op !== COUNT_STAR && op !== COUNT;

/** Puts buffer `b` into `slots[at]`, `slots[at + 1]`; false when it does not hold numbers. */
export function loadSlots(op: AggregateOp, b: AggBuffer, slots: Float64Array, at: number): boolean {
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
    case APPROX_COUNT_DISTINCT: case SUM_DECIMAL: case AVG_DECIMAL:
      return false;
  }
}

/** The buffer held in `slots[at]`, `slots[at + 1]` (avg's array `b` is updated in place). */
export function storeSlots(op: AggregateOp, b: AggBuffer, slots: Float64Array, at: number): AggBuffer {
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
    case APPROX_COUNT_DISTINCT: case SUM_DECIMAL: case AVG_DECIMAL:
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
    case APPROX_COUNT_DISTINCT: case SUM_DECIMAL: case AVG_DECIMAL:
      throw new Error('Internal: this aggregate has no numeric slots');
  }
}

export const AGGREGATE_FUNCTION_NAMES = ['count', 'sum', 'avg', 'mean', 'min', 'max', 'approx_count_distinct'] as const;

export function isAggregateFunctionName(name: string): boolean {
  return (AGGREGATE_FUNCTION_NAMES as readonly string[]).includes(name.toLowerCase());
}

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

function extremum(name: 'min' | 'max', resultType: AggregateFunction['resultType'], resultDecimal?: DecimalType): AggregateFunction {
  return { name, resultType, ...(resultDecimal ? { resultDecimal } : {}), op: name === 'min' ? MIN : MAX, init: () => null, result: (b) => b };
}

function approxCountDistinct(relativeSD: number): AggregateFunction {
  const p = precisionFor(relativeSD);
  return {
    name: 'approx_count_distinct', resultType: 'long', op: APPROX_COUNT_DISTINCT,
    init: () => hllCreate(p),
    result: (b) => hllEstimate(b as Uint8Array),
  };
}

export interface AggregateCall {
  name: string;
  /** Argument types; count(*) has none. */
  argTypes: ExprType[];
  star: boolean;
  distinct: boolean;
  /** Literal extra arguments (approx_count_distinct's relativeSD). */
  literalArgs?: unknown[];
  /** The argument's precision and scale when it is a decimal. */
  argDecimal?: DecimalType;
}

/** Resolves an aggregate call to its function, or throws the error a user can act on. */
export function resolveAggregate(call: AggregateCall, text: string): AggregateFunction {
  const name = call.name.toLowerCase();
  if (call.distinct) {
    throw new AnalysisException(
      'Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.',
      { aggregate: text },
    );
  }
  const arg = call.argTypes[0];
  const numeric = arg === 'long' || arg === 'double' || arg === 'null';
  const needOne = () => {
    if (call.star || call.argTypes.length !== 1) throw new AnalysisException(`${text}: ${name}() takes exactly one column or expression`, { aggregate: text });
  };
  switch (name) {
    case 'count':
      if (call.star) return countStar;
      if (call.argTypes.length !== 1) throw new AnalysisException(`${text}: count() takes * or one expression`, { aggregate: text });
      return countCol;
    case 'sum':
      needOne();
      if (arg === 'decimal') return sumDecimal(call.argDecimal!);
      if (!numeric) throw new AnalysisException(`${text}: sum() needs a numeric argument, got ${arg}`, { aggregate: text });
      return sum(arg === 'double' ? 'double' : 'long');
    case 'avg':
    case 'mean':
      needOne();
      if (arg === 'decimal') return avgDecimal(call.argDecimal!);
      if (!numeric) throw new AnalysisException(`${text}: avg() needs a numeric argument, got ${arg}`, { aggregate: text });
      return avg;
    case 'min':
    case 'max':
      needOne();
      if (arg === 'struct') throw new AnalysisException(`${text}: ${name}() needs a value it can order, not a struct; take ${name}() of one of its fields`, { aggregate: text });
      if (arg === 'array' || arg === 'map') throw new AnalysisException(`${text}: ${name}() of an ${arg === 'array' ? 'array' : 'map'} is not supported; take ${name}() of an element (element_at(…)) or of size(…)`, { aggregate: text });
      return extremum(name, arg === 'null' ? 'string' : arg, call.argDecimal);
    case 'approx_count_distinct': {
      if (call.star || call.argTypes.length < 1) throw new AnalysisException(`${text}: approx_count_distinct() takes one expression`, { aggregate: text });
      const rsd = call.literalArgs?.[0];
      if (rsd !== undefined && (typeof rsd !== 'number' || !(rsd > 0 && rsd < 1))) {
        throw new AnalysisException(`${text}: the relative standard deviation must be a number between 0 and 1, such as 0.05`, { aggregate: text });
      }
      return approxCountDistinct((rsd as number | undefined) ?? 0.05);
    }
    default:
      throw new AnalysisException(`${text}: ${name} is not an aggregate function; use count, sum, avg, min, max or approx_count_distinct`, { aggregate: text });
  }
}
