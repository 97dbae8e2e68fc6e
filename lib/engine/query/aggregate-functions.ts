/**
 * Aggregate functions for streaming GROUP BY: count(*), count(col), sum, avg, min, max and
 * approx_count_distinct. Each keeps a small buffer per group that the state store holds
 * between batches (encoded with the state value codec), so it has
 * - `init()`: the buffer of a group with no rows,
 * - `update(buffer, value)`: fold one input value in (returns the new buffer: buffers may be
 *   numbers, which are immutable),
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
import { AnalysisException } from '../errors';
import { hllAdd, hllCreate, hllEstimate, precisionFor } from '../operators/hyper-log-log';
import type { Field } from '../types';
import { arithmetic, bounded, toPrecision, type DecimalType } from './decimal';
import type { ExprType } from './sql-values';

type AggBuffer = unknown;

export interface AggregateFunction {
  readonly name: string;
  readonly resultType: Exclude<Field['type'], 'window' | 'struct' | 'unknown'>;
  /** The precision and scale of a `decimal` result (spread into the output Field). */
  readonly resultDecimal?: DecimalType;
  /** count(*): its buffer is a plain counter the aggregate's hot loop may bump inline. */
  readonly countStar?: boolean;
  init(): AggBuffer;
  update(buffer: AggBuffer, value: unknown): AggBuffer;
  result(buffer: AggBuffer): unknown;
}

const AGGREGATE_FUNCTION_NAMES = ['count', 'sum', 'avg', 'mean', 'min', 'max', 'approx_count_distinct'] as const;

export function isAggregateFunctionName(name: string): boolean {
  return (AGGREGATE_FUNCTION_NAMES as readonly string[]).includes(name.toLowerCase());
}

const isNull = (v: unknown) => v === null || v === undefined;

const countStar: AggregateFunction = {
  name: 'count', resultType: 'long', countStar: true,
  init: () => 0,
  update: (b) => (b as number) + 1,
  result: (b) => b,
};

const countCol: AggregateFunction = {
  name: 'count', resultType: 'long',
  init: () => 0,
  update: (b, v) => (isNull(v) ? b : (b as number) + 1),
  result: (b) => b,
};

/** sum: null until the first non-NULL value. */
function sum(resultType: 'long' | 'double'): AggregateFunction {
  return {
    name: 'sum', resultType,
    init: () => null,
    update: (b, v) => (isNull(v) ? b : b === null ? (v as number) : (b as number) + (v as number)),
    result: (b) => b,
  };
}

/** avg buffer: [sum, count]. */
const avg: AggregateFunction = {
  name: 'avg', resultType: 'double',
  init: () => [0, 0],
  update: (b, v) => {
    if (isNull(v)) return b;
    const buf = b as [number, number];
    buf[0] += v as number;
    buf[1] += 1;
    return buf;
  },
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
    name: 'sum', resultType: 'decimal', resultDecimal: t,
    init: () => null,
    update: (b, v) => (isNull(v) ? b : b === null ? (v as bigint) : (b as bigint) + (v as bigint)),
    result: (b) => (b === null ? null : toPrecision(b as bigint, arg.scale, t)),
  };
}

/** avg of DECIMAL(p,s): [exact sum, count], divided as Spark's Average does, to DECIMAL(p+4,s+4) HALF_UP. */
function avgDecimal(arg: DecimalType): AggregateFunction {
  const t = bounded(arg.precision + 4, arg.scale + 4);
  return {
    name: 'avg', resultType: 'decimal', resultDecimal: t,
    init: () => [0n, 0],
    update: (b, v) => {
      if (isNull(v)) return b;
      const buf = b as [bigint, number];
      buf[0] += v as bigint;
      buf[1] += 1;
      return buf;
    },
    result: (b) => {
      const [s, n] = b as [bigint, number];
      return n === 0 ? null : arithmetic('/', s, arg.scale, BigInt(n), 0, t);
    },
  };
}

function extremum(name: 'min' | 'max', resultType: AggregateFunction['resultType'], resultDecimal?: DecimalType): AggregateFunction {
  const better = name === 'min' ? (a: never, b: never) => a < b : (a: never, b: never) => a > b;
  return {
    name, resultType, ...(resultDecimal ? { resultDecimal } : {}),
    init: () => null,
    // NaN is larger than any other double in Spark; JS comparisons with NaN are always false.
    update: (b, v) => {
      if (isNull(v)) return b;
      if (b === null) return v;
      if (typeof v === 'number' && Number.isNaN(v)) return name === 'max' ? v : b;
      if (typeof b === 'number' && Number.isNaN(b)) return name === 'min' ? v : b;
      return better(v as never, b as never) ? v : b;
    },
    result: (b) => b,
  };
}

function approxCountDistinct(relativeSD: number): AggregateFunction {
  const p = precisionFor(relativeSD);
  return {
    name: 'approx_count_distinct', resultType: 'long',
    init: () => hllCreate(p),
    update: (b, v) => {
      hllAdd(b as Uint8Array, v);
      return b;
    },
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
