/**
 * Spark's value-keeping and boolean aggregates for streaming GROUP BY, with buffers the state
 * value codec stores as they are (arrays, booleans, bigints):
 * - collect_list / array_agg: the non-NULL values in arrival order; collect_set: the distinct
 *   non-NULL values, in first-arrival order (Spark's order is its hash set's; the set is the
 *   same). Both are [] for a group with no non-NULL value, as in Spark. The whole list is state:
 *   it grows with the group.
 * - first / first_value / any_value, last / last_value: [valueSet, value]; with ignoreNulls
 *   (`first(x, true)`, `first(x) IGNORE NULLS`) NULLs are skipped. "First" is the first row in
 *   the order the source delivered them, which a streaming query keeps.
 * - count_if, bool_and / every, bool_or / some / any: a count, a boolean or NULL.
 * - bit_and, bit_or, bit_xor: the integer so far (a BIGINT's value, as sum's), NULL at first.
 * - min_by(x, ord) / max_by(x, ord): [ord, x] of the row with the least (greatest) non-NULL
 *   ord (x may be NULL); on a tie the later row wins, as Spark's update keeps the old pair only
 *   when its ordering is strictly better.
 * - try_sum of integers: the exact sum as a bigint, and NULL from the first step at which it
 *   leaves BIGINT's range (Spark checks every addition, so a sum that overflows and comes back
 *   is still NULL). try_avg of integers: [sum, count], the sum a DOUBLE as Spark's Average
 *   keeps it, which does not overflow. Of doubles and decimals they are sum and avg (a decimal
 *   sum that outgrows its type is already NULL).
 * - schema_of_variant_agg: the merged schema of the non-NULL variants (variant.ts's
 *   VariantSchema, plain objects), VOID before the first.
 */
import { encodeKey } from '../state/state-value-codec';
import type { AggregateFunction } from './function-types';
import { bigOf, LONG_MAX, LONG_MIN, toLong, type Long } from './long';
import { compareValues } from './ordering';
import { mergeVariantSchema, schemaOfVariant, schemaText, type Variant, type VariantSchema } from './variant';

const COLLECT_LIST = 200, COLLECT_SET = 201, FIRST = 202, FIRST_IGNORE_NULLS = 203, LAST = 204, LAST_IGNORE_NULLS = 205;
const COUNT_IF = 206, BOOL_AND = 207, BOOL_OR = 208, MIN_BY = 209, MAX_BY = 210, TRY_SUM_LONG = 211, TRY_AVG_LONG = 212;
const BIT_AND = 213, BIT_OR = 214, BIT_XOR = 215, LISTAGG = 216, SCHEMA_OF_VARIANT = 217;
export type CollectOp =
  | typeof COLLECT_LIST | typeof COLLECT_SET | typeof FIRST | typeof FIRST_IGNORE_NULLS | typeof LAST | typeof LAST_IGNORE_NULLS
  | typeof COUNT_IF | typeof BOOL_AND | typeof BOOL_OR | typeof MIN_BY | typeof MAX_BY | typeof TRY_SUM_LONG | typeof TRY_AVG_LONG
  | typeof BIT_AND | typeof BIT_OR | typeof BIT_XOR | typeof LISTAGG | typeof SCHEMA_OF_VARIANT;

/**
 * The argument value of a row that FILTER (WHERE …) leaves out, for first and last, which
 * (unlike the NULL-skipping aggregates) must tell a left-out row from a NULL value.
 */
export const SKIP_ROW = Symbol('skip row');


/** The encoded members of a collect_set buffer, rebuilt after the buffer comes back from state. */
const setIndex = new WeakMap<unknown[], Set<string>>();
function membersOf(list: unknown[]): Set<string> {
  let s = setIndex.get(list);
  if (s === undefined) {
    s = new Set(list.map((x) => encodeKey([x])));
    setIndex.set(list, s);
  }
  return s;
}

/** a before b in the order min and max use (NaN above every other double, as in Spark). */
function less(a: unknown, b: unknown): boolean {
  return compareValues(a, b) < 0;
}

/** Folds `v` into buffer `b` (arrays are changed in place; the new buffer is returned). */
export function updateCollect(op: CollectOp, b: unknown, v: unknown): unknown {
  switch (op) {
    case COLLECT_LIST:
      if (v !== null && v !== undefined) (b as unknown[]).push(v);
      return b;
    // [value, ...order keys] of a row whose value is not NULL.
    case LISTAGG:
      if ((v as unknown[])[0] !== null && (v as unknown[])[0] !== undefined) (b as unknown[]).push(v);
      return b;
    case COLLECT_SET: {
      if (v === null || v === undefined) return b;
      const list = b as unknown[];
      const members = membersOf(list);
      const k = encodeKey([v]);
      if (!members.has(k)) {
        members.add(k);
        list.push(v);
      }
      return b;
    }
    case FIRST: case FIRST_IGNORE_NULLS: {
      const buf = b as [boolean, unknown];
      if (buf[0] || v === SKIP_ROW || ((v === null || v === undefined) && op === FIRST_IGNORE_NULLS)) return b;
      buf[0] = true;
      buf[1] = v ?? null;
      return b;
    }
    case LAST: case LAST_IGNORE_NULLS: {
      const buf = b as [boolean, unknown];
      if (v === SKIP_ROW || ((v === null || v === undefined) && op === LAST_IGNORE_NULLS)) return b;
      buf[0] = true;
      buf[1] = v ?? null;
      return b;
    }
    case COUNT_IF:
      return v === true ? (b as number) + 1 : b;
    case BOOL_AND:
      return v === null || v === undefined ? b : b === null ? v : (b as boolean) && (v as boolean);
    case BOOL_OR:
      return v === null || v === undefined ? b : b === null ? v : (b as boolean) || (v as boolean);
    case MIN_BY: case MAX_BY: {
      const [x, ord] = v as [unknown, unknown];
      if (ord === null || ord === undefined) return b;
      const buf = b as [unknown, unknown];
      // Spark keeps the old pair only when its ordering is strictly better: a tie takes the new row.
      if (buf[0] === null || (op === MIN_BY ? !less(buf[0], ord) : !less(ord, buf[0]))) {
        buf[0] = ord;
        buf[1] = x ?? null;
      }
      return b;
    }
    case TRY_SUM_LONG: {
      if (v === null || v === undefined || b === false) return b;
      const s = (b === null ? 0n : (b as bigint)) + BigInt(v as number | bigint);
      return s < LONG_MIN || s > LONG_MAX ? false : s;
    }
    // Spark's BitAndAgg, BitOrAgg, BitXorAgg: NULLs skipped, NULL when there is no value. The
    // buffer is the result so far, a BIGINT's value (a number, or a bigint past 2^53) as
    // sum's is, so it keeps in state as sum's does; an INT's AND, OR or XOR stays an INT's.
    case BIT_AND: case BIT_OR: case BIT_XOR: {
      if (v === null || v === undefined) return b;
      if (b === null) return v;
      const x = bigOf(b as Long), y = bigOf(v as Long);
      return toLong(op === BIT_AND ? x & y : op === BIT_OR ? x | y : x ^ y);
    }
    case SCHEMA_OF_VARIANT:
      return v === null || v === undefined ? b : mergeVariantSchema(b as VariantSchema, schemaOfVariant(v as Variant));
    // Spark's Average of an integer sums in a DOUBLE, which does not overflow. A buffer an earlier
    // Weir kept (the exact sum, a bigint; false once past BIGINT's range) reads as its sum.
    case TRY_AVG_LONG: {
      if (v === null || v === undefined) return b;
      const buf = b as [number | bigint | false, number];
      buf[1] += 1;
      if (buf[0] !== false) buf[0] = Number(buf[0]) + Number(v);
      return b;
    }
  }
}

/** Whether partial buffers of `op` merge exactly (aggregate-functions.ts, isMergeable): merged in the rows' order. */
export function isMergeableCollect(op: CollectOp): boolean {
  switch (op) {
    case COUNT_IF: case BOOL_AND: case BOOL_OR: case BIT_AND: case BIT_OR: case BIT_XOR:
    case FIRST: case FIRST_IGNORE_NULLS: case LAST: case LAST_IGNORE_NULLS:
      return true;
    case COLLECT_LIST: case COLLECT_SET: case MIN_BY: case MAX_BY: case TRY_SUM_LONG: case TRY_AVG_LONG: case LISTAGG: case SCHEMA_OF_VARIANT:
      return false;
  }
}

/** Buffer `p`, of the rows after `b`'s, merged into `b` (Spark's merge). */
export function mergeCollect(op: CollectOp, b: unknown, p: unknown): unknown {
  switch (op) {
    case COUNT_IF:
      return (b as number) + (p as number);
    // A NULL buffer (no value) merges as a NULL row does: ignored.
    case BOOL_AND: case BOOL_OR: case BIT_AND: case BIT_OR: case BIT_XOR:
      return updateCollect(op, b, p);
    // [valueSet, value]: the earlier rows' first value if they had one; the later rows' last if they had one.
    case FIRST: case FIRST_IGNORE_NULLS:
      return (b as [boolean, unknown])[0] ? b : p;
    case LAST: case LAST_IGNORE_NULLS:
      return (p as [boolean, unknown])[0] ? p : b;
    case COLLECT_LIST: case COLLECT_SET: case MIN_BY: case MAX_BY: case TRY_SUM_LONG: case TRY_AVG_LONG: case LISTAGG: case SCHEMA_OF_VARIANT:
      throw new Error(`Internal: aggregate op ${op} has no merge`);
  }
}

type Shape = Pick<AggregateFunction, 'resultType' | 'resultDecimal' | 'resultShape'>;

export function collect(name: string, set: boolean, shape: Shape): AggregateFunction {
  return { name, ...shape, op: set ? COLLECT_SET : COLLECT_LIST, init: () => [], result: (b) => (b as unknown[]).slice() };
}

/** An order key of listagg's WITHIN GROUP: Spark's SortOrder. */
interface ListAggOrder { ascending: boolean; nullsFirst: boolean }

/**
 * Spark 4's ListAgg (listagg / string_agg) of STRING or BINARY values: the non-NULL values
 * joined by `delimiter`, NULL when there is none. The buffer is the rows' [value, ...order keys]
 * in arrival order, as collect_list keeps its values (state that grows with the group); the
 * result sorts them by the WITHIN GROUP keys (stably: rows that tie keep their arrival order).
 */
export function listAgg(name: string, binary: boolean, delimiter: string | Uint8Array, order: readonly ListAggOrder[]): AggregateFunction {
  const result = (b: unknown): unknown => {
    const rows = (b as unknown[][]).slice();
    if (rows.length === 0) return null;
    if (order.length > 0) {
      rows.sort((x, y) => {
        for (let i = 0; i < order.length; i++) {
          const a = x[i + 1] ?? null, c = y[i + 1] ?? null;
          if (a === null || c === null) {
            if (a === c) continue;
            return (a === null) === order[i].nullsFirst ? -1 : 1;
          }
          const d = compareValues(a, c);
          if (d !== 0) return order[i].ascending ? d : -d;
        }
        return 0;
      });
    }
    const values = rows.map((r) => r[0]);
    if (!binary) return values.join(delimiter as string);
    const sep = delimiter as Uint8Array;
    const parts = values.flatMap((v, i) => (i === 0 ? [v as Uint8Array] : [sep, v as Uint8Array]));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  return { name, resultType: binary ? 'binary' : 'string', op: LISTAGG, init: () => [], result };
}

/** first / first_value / any_value (`last`: last / last_value); `shape` is the argument's type. */
export function firstLast(name: string, last: boolean, ignoreNulls: boolean, shape: Shape): AggregateFunction {
  const op = last ? (ignoreNulls ? LAST_IGNORE_NULLS : LAST) : ignoreNulls ? FIRST_IGNORE_NULLS : FIRST;
  return { name, ...shape, op, init: () => [false, null], result: (b) => (b as [boolean, unknown])[1] };
}

/**
 * Spark 4's SchemaOfVariantAgg: schema_of_variant's text of the schema that every non-NULL
 * variant's merges into (SchemaOfVariant.mergeSchema), `VOID` for a group with none (never NULL).
 */
export const schemaOfVariantAgg: AggregateFunction = {
  name: 'schema_of_variant_agg', resultType: 'string', op: SCHEMA_OF_VARIANT,
  init: (): VariantSchema => ({ kind: 'void' }),
  result: (b) => schemaText(b as VariantSchema),
};

export const countIf: AggregateFunction = { name: 'count_if', resultType: 'long', op: COUNT_IF, init: () => 0, result: (b) => b };

export function boolAggregate(name: string, and: boolean): AggregateFunction {
  return { name, resultType: 'boolean', op: and ? BOOL_AND : BOOL_OR, init: () => null, result: (b) => b };
}

/** bit_and, bit_or, bit_xor of an integer column: its type (`shape`), NULL with no value. */
export function bitAggregate(name: 'bit_and' | 'bit_or' | 'bit_xor', shape: Shape): AggregateFunction {
  return { name, ...shape, op: name === 'bit_and' ? BIT_AND : name === 'bit_or' ? BIT_OR : BIT_XOR, init: () => null, result: (b) => b };
}

/** min_by(x, ord) / max_by(x, ord) over pairs [x, ord]; `shape` is x's type. */
export function extremumBy(name: string, max: boolean, shape: Shape): AggregateFunction {
  return { name, ...shape, op: max ? MAX_BY : MIN_BY, init: () => [null, null], result: (b) => (b as [unknown, unknown])[1] };
}


export const trySumLong: AggregateFunction = {
  name: 'try_sum', resultType: 'long', op: TRY_SUM_LONG,
  init: () => null,
  result: (b) => (b === null || b === false ? null : toLong(b as bigint)),
};

export const tryAvgLong: AggregateFunction = {
  name: 'try_avg', resultType: 'double', op: TRY_AVG_LONG,
  init: () => [0, 0],
  result: (b) => {
    const [s, n] = b as [number | bigint | false, number];
    return n === 0 || s === false ? null : Number(s) / n;
  },
};
