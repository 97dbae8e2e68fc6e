/**
 * Spark's array functions that build or search arrays (array_append, array_insert, arrays_zip,
 * the set operations array_union/array_intersect/array_except, sequence, array_repeat, …),
 * and those that read or sort them (size, element_at, array_contains, sort_array, slice, …),
 * with Spark's NULL handling and results (ANSI mode off). Their types carry element, key and
 * value types (data-types.ts), so they are typed from full TypeInfo, not ExprType names alone.
 *
 * Equality of elements is SQL's `=` (ordering.ts's sqlEquals: NaN equal to NaN, -0 to 0, arrays
 * and structs element by element), with
 * NULL a value of its own in the set operations, as Spark's ArrayBinaryLike keeps one NULL.
 */
import { RecordExpressionError } from '../errors';
import { encodeKey } from '../state/state-value-codec';
import { joinChecked } from './function-args';
import type { CollectionFunctionDef } from './function-types';
import { mapKeyText } from './map-keys';
import { elementOf, integralWidth, isOrderable, sameType, typeOfField, typeText, type TypeInfo } from './data-types';
import { compareValues, sqlEquals } from './ordering';
import { castValue, isNumeric } from './sql-values';
import { dateAddMonths, MICROS_PER_DAY, timestampAddMicros, timestampAddMonths } from './interval-utils';
import type { IntegralBits, Long } from './long';
import { MAX_ARRAY_ELEMENTS } from './value-limits';


const isArr = (t: TypeInfo) => t.type === 'array' || t.type === 'null';
const isInt = (t: TypeInfo) => t.type === 'long' || t.type === 'null';
/** An array's element type; NULL for a NULL, and for array()'s elements (ARRAY<VOID>, which widens to any array). */
const elem = (t: TypeInfo): TypeInfo => (t.type === 'array' && t.elementType && !t.voidElements ? typeOfField(t.elementType) : { type: 'null' });
const isNull = (v: unknown) => v === null || v === undefined;

function fail(fn: string, msg: string): never {
  throw new RecordExpressionError(`${fn}: ${msg}`, { function: fn });
}

/**
 * A value's identity for the set operations' hashing: equal identities (by SameValueZero, as a
 * Set compares) exactly where sqlEquals finds the values equal: -0 is 0 and NaN is NaN at any
 * depth, arrays and structs by content.
 */
function identity(v: unknown): unknown {
  if (isNull(v)) return null;
  if (typeof v === 'object') return encodeKey([withoutNegativeZeros(v)]);
  return Object.is(v, -0) ? 0 : v;
}

/** `v` with each -0 inside its arrays and structs read as 0. */
function withoutNegativeZeros(v: unknown): unknown {
  if (Object.is(v, -0)) return 0;
  if (Array.isArray(v)) return v.map(withoutNegativeZeros);
  if (typeof v === 'object' && v !== null && !(v instanceof Uint8Array)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutNegativeZeros(x)]));
  return v;
}

/**
 * Spark's TypeUtils.checkForOrderingExpr of a function that compares elements (`fn` its name):
 * the message when `t`, the elements' type, has no order (a map, or an array or struct holding
 * one), which `then` gives way to; `then` otherwise.
 */
function ordered(fn: string, t: TypeInfo | string, elementType: (t: TypeInfo) => TypeInfo = (x) => x): TypeInfo | string {
  if (typeof t === 'string' || isOrderable(elementType(t))) return t;
  return `The \`${fn}\` does not support ordering on type "${typeText(elementType(t))}" (DATATYPE_MISMATCH.INVALID_ORDERING_TYPE)`;
}

/** Whether a value of type `v` fits an array of elements of type `e` (NULL fits anything). */
function fits(e: TypeInfo, v: TypeInfo): boolean {
  if (v.type === 'null' || e.type === 'null') return true;
  // array() (ARRAY<VOID>) fits an array of any element type.
  if (e.type === 'array' && v.type === 'array' && v.voidElements) return true;
  if (e.type === 'array' || e.type === 'map' || e.type === 'struct') return sameType(e, v);
  return e.type === v.type || (isNumeric(e.type) && isNumeric(v.type) && e.type === 'double');
}

/** The array type of a call on an array and an element: the array's, or the element's when the array is NULL. */
function arrayAndElement(fn: string, arr: TypeInfo, v: TypeInfo): TypeInfo | string {
  if (!isArr(arr)) return `${fn} takes an array first, got ${typeText(arr)} (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)`;
  if (!fits(elem(arr), v)) return `${fn} takes (array, value of its element type), got ${typeText(arr)} and ${typeText(v)}; CAST the value to the element type (DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES)`;
  if (arr.type === 'array' && !arr.voidElements) return arr;
  return { type: 'array', elementType: elementOf(v.type === 'null' ? { type: 'string' } : v) };
}

/** Two arrays of one element type (either may be NULL-typed). */
function twoArrays(fn: string, a: TypeInfo, b: TypeInfo, diffTypes = 'BINARY_ARRAY_DIFF_TYPES'): TypeInfo | string {
  if (!isArr(a) || !isArr(b)) return `${fn} takes two arrays, got ${typeText(a)} and ${typeText(b)}`;
  if (a.type === 'array' && b.type === 'array' && !fits(elem(a), elem(b)) && !fits(elem(b), elem(a))) {
    return `${fn} takes two arrays of one element type, got ${typeText(a)} and ${typeText(b)}; CAST one to the other's type (DATATYPE_MISMATCH.${diffTypes})`;
  }
  const [ea, eb] = [elem(a), elem(b)];
  // Spark's findTightestCommonType of the elements: integers of two widths are the wider, a FLOAT
  // beside a DOUBLE a DOUBLE (the values are the same in either).
  if (ea.type === 'long' && eb.type === 'long' && ea.integral !== eb.integral) {
    const bits = integralWidth(ea, eb);
    return { type: 'array', elementType: elementOf({ type: 'long', ...(bits ? { integral: bits } : {}) }) };
  }
  if (ea.type === 'double' && eb.type === 'double' && ea.float32 !== eb.float32) return { type: 'array', elementType: elementOf({ type: 'double' }) };
  const wider = ea.type === 'null' || eb.type === 'double' ? b : a;
  return wider.type === 'array' && elem(wider).type !== 'null' ? wider : { type: 'array', elementType: elementOf({ type: 'string' }) };
}

/** Spark's array set operations: distinct elements, in first-seen order. */
function distinctWhere(xs: unknown[], keep: (id: unknown) => boolean): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<unknown>();
  for (const x of xs) {
    const id = identity(x);
    if (seen.has(id) || !keep(id)) continue;
    seen.add(id);
    out.push(x ?? null);
  }
  return out;
}

const ids = (xs: unknown[]) => new Set(xs.map(identity));

function checkLength(fn: string, n: number): void {
  if (n > MAX_ARRAY_ELEMENTS) fail(fn, `the result would have ${n} elements, over the limit of ${MAX_ARRAY_ELEMENTS} a value`);
}

/** Spark's sequence of integers or of dates (a DATE steps by days). */
function sequence(start: number, stop: number, step: number | undefined): number[] {
  const by = step ?? (start <= stop ? 1 : -1);
  if (by === 0 ? start !== stop : (by > 0) !== (start <= stop) && start !== stop) {
    fail('sequence()', `Illegal sequence boundaries: ${start} to ${stop} by ${by}`);
  }
  const n = by === 0 ? 1 : Math.floor((stop - start) / by) + 1;
  checkLength('sequence()', n);
  return Array.from({ length: n }, (_, i) => start + i * by);
}

/**
 * Spark's sequence of DATEs or TIMESTAMPs by an INTERVAL step: start + i × step while not past
 * stop. A year-month step adds months to the start (Jan 31 steps to Feb 29, then Mar 31); a
 * DATE steps by whole days or by months. `start` and `stop` are of the element type (days, or
 * epoch milliseconds with their microseconds).
 */
function temporalSequence(start: number, stop: number, step: Long, months: boolean, dates: boolean): number[] {
  const sign = typeof step === 'bigint' ? (step > 0n ? 1 : step < 0n ? -1 : 0) : Math.sign(step);
  if (sign === 0 ? start !== stop : (sign > 0) !== (start <= stop) && start !== stop) {
    fail('sequence()', `Illegal sequence boundaries: ${start} to ${stop} by ${step}`);
  }
  const micros = months ? 0n : BigInt(step);
  if (dates && !months && micros % MICROS_PER_DAY !== 0n) fail('sequence()', 'sequence step must be an interval day to second of day granularity if start and end values are dates');
  const at = (i: number): number => {
    if (months) return dates ? dateAddMonths(start, i * Number(step)) : timestampAddMonths(start, i * Number(step));
    return dates ? start + i * Number(micros / MICROS_PER_DAY) : timestampAddMicros(start, BigInt(i) * micros);
  };
  const out: number[] = [];
  for (let i = 0; ; i++) {
    const v = at(i);
    if (sign >= 0 ? v > stop : v < stop) break;
    out.push(v);
    checkLength('sequence()', out.length);
    if (sign === 0) break;
  }
  return out;
}

const isStrType = (t: TypeInfo) => t.type === 'string' || t.type === 'null';

/** The element type of an array argument (NULL: a string element, where elem gives NULL). */
const elementOrString = (t: TypeInfo): TypeInfo => (t.type === 'array' && t.elementType ? typeOfField(t.elementType) : { type: 'string' });

const literalIndexCheck = (fn: string, what: string) => (lits: unknown[]): string | undefined =>
  lits[1] === 0 ? `${fn}: ${what}` : undefined;

const ELEMENT_AT_ZERO = 'the index 0 is invalid: SQL array indices start at 1 (INVALID_INDEX_OF_ZERO)';

function arrayMax(fn: string, sign: 1 | -1): CollectionFunctionDef {
  return {
    min: 1, max: 1, type: (a) => (isArr(a[0]) && isOrderable(elementOrString(a[0])) ? elementOrString(a[0]) : `${fn} takes an array of a type with an order (not a map), got ${typeText(a[0])}`),
    impl: ([arr]) => (arr as unknown[]).reduce<unknown>((m, v) => (v === null || v === undefined ? m : m === null || sign * compareValues(v, m) > 0 ? v : m), null),
  };
}

/** Whether a value of type `b` can be looked for among elements of type `a`. */
function comparable(a: TypeInfo, b: TypeInfo): boolean {
  const num = (t: TypeInfo) => isNumeric(t.type) || t.type === 'decimal';
  if (num(a) && num(b)) return true;
  // array() (ARRAY<VOID>) beside any array: no element to compare.
  if (a.type === 'array' && b.type === 'array' && (a.voidElements || b.voidElements)) return true;
  return sameType(a, b) || (a.type === b.type && a.type !== 'array' && a.type !== 'map' && a.type !== 'struct');
}

function mapGet(m: Record<string, unknown>, k: unknown, keyType: TypeInfo): unknown {
  const text = mapKeyText(k, keyType);
  return Object.hasOwn(m, text) ? (m[text] ?? null) : null;
}

/** An array's elements as text (Spark casts array_join's elements to STRING); NULLs dropped unless replaced. */
function arrayText(arr: unknown[], t: TypeInfo, nullRep?: string): string[] {
  const out: string[] = [];
  for (const x of arr) {
    if (x === null || x === undefined) { if (nullRep !== undefined) out.push(nullRep); }
    else out.push(t.type === 'string' ? (x as string) : (castValue(x, t.type, 'string', t.decimal) as string));
  }
  return out;
}

/** concat_ws(sep, …) where some arguments are arrays: Spark joins their elements too, skipping NULLs. */
export const CONCAT_WS_ARRAYS: CollectionFunctionDef = {
  min: 1, max: 64, nullIntolerant: false,
  type: (a) => (isStrType(a[0]) && a.slice(1).every((t) => isStrType(t) || (t.type === 'array' && elementOrString(t).type === 'string')) ? { type: 'string' } : 'concat_ws() takes (separator, string or array<string>, …)'),
  impl: ([sep, ...rest]) => {
    if (sep === null) return null;
    const parts: string[] = [];
    for (const v of rest) {
      // A loop, not push(...elements): spreading a million elements into a call overflows the stack.
      if (Array.isArray(v)) for (const x of arrayText(v, { type: 'string' })) parts.push(x);
      else if (v !== null && v !== undefined) parts.push(v as string);
    }
    return joinChecked('concat_ws()', parts, sep as string);
  },
};


/** element_at(array, index) (1-based, negative from the end, NULL past the end) or element_at(map, key). */
function elementAt(fn: string): CollectionFunctionDef {
  return {
    min: 2, max: 2,
    type: (a) => {
      if (a[0].type === 'map') return typeOfField(a[0].valueType!);
      // An untyped NULL is no array here: Spark refuses get(NULL, 0) and NULL[0] (VOID is not ARRAY).
      if (a[0].type === 'array' && isInt(a[1])) return elementOrString(a[0]);
      return `${fn} takes (array, index) or (map, key)`;
    },
    impl: ([x, k], t) => {
      if (t[0].type === 'map') return mapGet(x as Record<string, unknown>, k, typeOfField(t[0].keyType!));
      const arr = x as unknown[];
      const i = Math.trunc(k as number);
      if (i === 0) fail(fn, ELEMENT_AT_ZERO);
      const at = i > 0 ? i - 1 : arr.length + i;
      return at >= 0 && at < arr.length ? (arr[at] ?? null) : null;
    },
    checkLiterals: literalIndexCheck(fn, ELEMENT_AT_ZERO),
  };
}

export const ARRAY_FUNCTIONS: Record<string, CollectionFunctionDef> = {
  array_append: {
    min: 2, max: 2, nullIntolerant: false, type: (a) => arrayAndElement('array_append()', a[0], a[1]),
    impl: ([arr, v]) => (isNull(arr) ? null : [...(arr as unknown[]), v ?? null]),
  },
  array_prepend: {
    min: 2, max: 2, nullIntolerant: false, type: (a) => arrayAndElement('array_prepend()', a[0], a[1]),
    impl: ([arr, v]) => (isNull(arr) ? null : [v ?? null, ...(arr as unknown[])]),
  },
  array_compact: {
    min: 1, max: 1, type: (a) => (isArr(a[0]) ? (a[0].type === 'array' ? a[0] : { type: 'array', elementType: elementOf({ type: 'string' }) }) : `array_compact() takes an array, got ${typeText(a[0])}`),
    impl: ([arr]) => (arr as unknown[]).filter((x) => !isNull(x)),
  },
  // size() without its legacy -1: NULL for a NULL array.
  array_size: {
    min: 1, max: 1, type: (a) => (isArr(a[0]) ? { type: 'long', integral: 32 } : `array_size() takes an array, got ${typeText(a[0])} (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)`),
    impl: ([arr]) => (arr as unknown[]).length,
  },
  // Spark's ArrayInsert (spark.sql.legacy.negativeIndexInArrayInsert=false): 1-based; -1 is
  // after the last element; past either end the gap fills with NULLs.
  array_insert: {
    min: 3, max: 3, nullIntolerant: false,
    type: (a) => (isInt(a[1]) ? arrayAndElement('array_insert()', a[0], a[2]) : `array_insert() takes (array, position, value), got a position of type ${typeText(a[1])}`),
    impl: ([arr, p, v]) => {
      if (isNull(arr) || isNull(p)) return null;
      const xs = arr as unknown[];
      const pos = Math.trunc(p as number);
      if (pos === 0) fail('array_insert()', '[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1)');
      if (pos < 0 && -pos > xs.length) {
        checkLength('array_insert()', -pos);
        const out: unknown[] = new Array(-pos).fill(null);
        out[0] = v ?? null;
        xs.forEach((x, i) => { out[-pos - xs.length + i] = x ?? null; });
        return out;
      }
      const at = pos < 0 ? pos + xs.length + 1 : pos - 1;
      checkLength('array_insert()', Math.max(xs.length + 1, at + 1));
      const out: unknown[] = xs.slice(0, at);
      while (out.length < at) out.push(null);
      out.push(v ?? null);
      for (let i = at; i < xs.length; i++) out.push(xs[i] ?? null);
      return out;
    },
    checkLiterals: ([, p]) => (p === 0 ? 'array_insert(): [INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1)' : undefined),
  },
  // Fields named after each argument's column, or its position ("0", "1", …), as Spark's.
  arrays_zip: {
    min: 1, max: 64,
    type: (a, names) => {
      if (!a.every(isArr)) return `arrays_zip() takes arrays, got ${a.map((t) => typeText(t)).join(', ')}`;
      const fields = a.map((t, i) => ({ ...elementOf(elem(t).type === 'null' ? { type: 'string' } : elem(t)), name: names?.[i] || String(i) }));
      return { type: 'array', elementType: { name: 'element', type: 'struct', nullable: true, fields } };
    },
    impl: (arrs, _types, result) => {
      const xs = arrs as unknown[][];
      const names = (result.elementType?.fields ?? []).map((f) => f.name);
      const n = Math.max(0, ...xs.map((x) => x.length));
      return Array.from({ length: n }, (_, i) => Object.fromEntries(names.map((name, k) => [name, xs[k][i] ?? null])));
    },
  },
  array_position: {
    min: 2, max: 2,
    type: (a) => { const t = ordered('array_position', arrayAndElement('array_position()', a[0], a[1]), elem); return typeof t === 'string' ? t : { type: 'long' }; },
    impl: ([arr, v]) => (arr as unknown[]).findIndex((x) => !isNull(x) && sqlEquals(x, v)) + 1,
  },
  array_remove: {
    min: 2, max: 2, type: (a) => ordered('array_remove', arrayAndElement('array_remove()', a[0], a[1]), elem),
    impl: ([arr, v]) => (arr as unknown[]).filter((x) => isNull(x) || !sqlEquals(x, v)),
  },
  array_union: {
    min: 2, max: 2, type: (a) => ordered('array_union', twoArrays('array_union()', a[0], a[1]), elem),
    impl: ([a, b]) => distinctWhere([...(a as unknown[]), ...(b as unknown[])], () => true),
  },
  array_intersect: {
    min: 2, max: 2, type: (a) => ordered('array_intersect', twoArrays('array_intersect()', a[0], a[1]), elem),
    impl: ([a, b]) => { const inB = ids(b as unknown[]); return distinctWhere(a as unknown[], (id) => inB.has(id)); },
  },
  array_except: {
    min: 2, max: 2, type: (a) => ordered('array_except', twoArrays('array_except()', a[0], a[1]), elem),
    impl: ([a, b]) => { const inB = ids(b as unknown[]); return distinctWhere(a as unknown[], (id) => !inB.has(id)); },
  },
  // true on a common non-NULL element; else NULL when both are non-empty and either has a NULL.
  arrays_overlap: {
    min: 2, max: 2, type: (a) => { const t = ordered('arrays_overlap', twoArrays('arrays_overlap()', a[0], a[1]), elem); return typeof t === 'string' ? t : { type: 'boolean' }; },
    impl: ([a, b]) => {
      const xs = a as unknown[], ys = b as unknown[];
      const inB = new Set(ys.filter((y) => !isNull(y)).map(identity));
      if (xs.some((x) => !isNull(x) && inB.has(identity(x)))) return true;
      return xs.length > 0 && ys.length > 0 && (xs.some(isNull) || ys.some(isNull)) ? null : false;
    },
  },
  // Integers, or dates a day apart (Weir has no INTERVAL for another step).
  sequence: {
    min: 2, max: 3,
    type: (a) => {
      const t = a[0].type === 'null' ? a[1] : a[0];
      if (t.type === 'date' && (a[1].type === 'date' || a[1].type === 'null') && a.length === 2) return { type: 'array', elementType: elementOf({ type: 'date' }) };
      const temporal = (x: TypeInfo) => x.type === 'date' || x.type === 'timestamp' || x.type === 'null';
      if (a.length === 3 && temporal(a[0]) && temporal(a[1]) && (a[2].type === 'day_time_interval' || a[2].type === 'year_month_interval')) {
        // A DATE beside a TIMESTAMP is read as its midnight, as Spark casts it.
        const ts = a.slice(0, 2).find((x) => x.type === 'timestamp');
        return { type: 'array', elementType: elementOf(ts ?? { type: 'date' }) };
      }
      if (!a.every(isInt)) return `sequence() takes (start, stop[, step]) integers, or dates or timestamps with an INTERVAL step (dates alone step a day), got ${a.map((x) => typeText(x)).join(', ')}`;
      // Spark casts the integers to their wider type (TypeCoercion's Sequence rule) and makes an
      // array of it: sequence(1, 5) is an ARRAY<INT>, sequence(1, 5L) an ARRAY<BIGINT>.
      const ints = a.filter((x) => x.type === 'long');
      const bits = ints.length > 0 && ints.every((x) => x.integral !== undefined) ? Math.max(...ints.map((x) => x.integral!)) as IntegralBits : undefined;
      return { type: 'array', elementType: elementOf({ type: 'long', ...(bits ? { integral: bits } : {}) }) };
    },
    impl: ([start, stop, step], t) => {
      if (t[2]?.type !== 'day_time_interval' && t[2]?.type !== 'year_month_interval') return sequence(Number(start), Number(stop), step === undefined ? undefined : Number(step));
      const dates = t[0].type !== 'timestamp' && t[1].type !== 'timestamp';
      const asElement = (v: unknown, x: TypeInfo) => (!dates && x.type === 'date' ? (v as number) * 86_400_000 : (v as number));
      return temporalSequence(asElement(start, t[0]), asElement(stop, t[1]), step as Long, t[2].type === 'year_month_interval', dates);
    },
    checkLiterals: ([start, stop, step]) => (typeof start === 'number' && typeof stop === 'number' && step === 0 && start !== stop ? `sequence(): Illegal sequence boundaries: ${start} to ${stop} by 0` : undefined),
  },
  array_repeat: {
    min: 2, max: 2, nullIntolerant: false,
    type: (a) => (isInt(a[1]) ? { type: 'array', elementType: elementOf(a[0].type === 'null' ? { type: 'string' } : a[0]) } : `array_repeat() takes (element, count), got a count of type ${typeText(a[1])}`),
    impl: ([v, n]) => {
      if (isNull(n)) return null;
      const k = Math.max(0, Math.trunc(n as number));
      checkLength('array_repeat()', k);
      return new Array(k).fill(v ?? null);
    },
  },
  // Spark's default (spark.sql.legacy.sizeOfNull=true with ANSI off): size(NULL) is -1. An INT.
  size: {
    min: 1, max: 1, nullIntolerant: false,
    type: (a) => (a[0].type === 'array' || a[0].type === 'map' || a[0].type === 'null' ? { type: 'long', integral: 32 } : `size() takes an array or a map, got ${typeText(a[0])}`),
    impl: ([x]) => (x === null || x === undefined ? -1 : Array.isArray(x) ? x.length : Object.keys(x).length),
  },
  element_at: elementAt('element_at()'),
  // Spark's try_element_at: element_at's answers with ANSI off (NULL past the end), and as
  // Spark's, an index of 0 still fails.
  try_element_at: elementAt('try_element_at()'),
  // `arr[i]` (0-based, NULL out of range) and `m[key]`; Spark's get(arr, i) is the array form.
  get: {
    min: 2, max: 2,
    type: (a) => {
      if (a[0].type === 'map') return typeOfField(a[0].valueType!);
      // An untyped NULL is no array here: Spark refuses get(NULL, 0) and NULL[0] (VOID is not ARRAY).
      if (a[0].type === 'array' && isInt(a[1])) return elementOrString(a[0]);
      return `[] takes an array with an integer index or a map with a key, got ${typeText(a[0])} and ${typeText(a[1])} (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)`;
    },
    impl: ([x, k], t) => {
      if (t[0].type === 'map') return mapGet(x as Record<string, unknown>, k, typeOfField(t[0].keyType!));
      const i = Math.trunc(k as number);
      const arr = x as unknown[];
      return i >= 0 && i < arr.length ? (arr[i] ?? null) : null;
    },
  },
  array_contains: {
    min: 2, max: 2, valueAsElement: true,
    // Spark's ArrayContains checks the value's type for an order.
    type: (a) => (!isOrderable(a[1]) ? ordered('array_contains', a[1])
      : isArr(a[0]) && (a[1].type === 'null' || a[0].type === 'null' || comparable(elementOrString(a[0]), a[1])) ? { type: 'boolean' } : `array_contains() takes (array, value of its element type), got ${typeText(a[0])} and ${typeText(a[1])}`),
    impl: ([arr, v]) => {
      let sawNull = false;
      for (const x of arr as unknown[]) {
        if (x === null || x === undefined) sawNull = true;
        else if (sqlEquals(x, v)) return true;
      }
      return sawNull ? null : false;
    },
  },
  array_join: {
    min: 2, max: 3,
    type: (a) => (isArr(a[0]) && isStrType(a[1]) && (a.length < 3 || isStrType(a[2])) ? { type: 'string' } : 'array_join() takes (array, delimiter[, nullReplacement])'),
    impl: ([arr, sep, nullRep], t) => joinChecked('array_join()', arrayText(arr as unknown[], elementOrString(t[0]), nullRep as string | undefined), sep as string),
  },
  sort_array: {
    min: 1, max: 2,
    type: (a) => (isArr(a[0]) && isOrderable(elementOrString(a[0])) && (a.length < 2 || a[1].type === 'boolean' || a[1].type === 'null') ? a[0] : 'sort_array() takes (array[, ascending boolean]), an array of a type with an order (not a map) (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)'),
    // NULLs first ascending, last descending, as Spark's sort_array.
    impl: ([arr, asc]) => {
      const up = asc !== false;
      return [...(arr as unknown[])].sort((x, y) => {
        const nx = x === null || x === undefined, ny = y === null || y === undefined;
        if (nx || ny) return nx && ny ? 0 : nx === up ? -1 : 1;
        return up ? compareValues(x, y) : compareValues(y, x);
      });
    },
  },
  array_distinct: {
    min: 1, max: 1, type: (a) => (isArr(a[0]) ? ordered('array_distinct', a[0], elem) : 'array_distinct() takes an array'),
    impl: ([arr]) => distinctWhere(arr as unknown[], () => true),
  },
  array_max: arrayMax('array_max()', 1),
  array_min: arrayMax('array_min()', -1),
  slice: {
    min: 3, max: 3,
    type: (a) => (isArr(a[0]) && isInt(a[1]) && isInt(a[2]) ? a[0] : 'slice() takes (array, start, length)'),
    impl: ([arr, s, n]) => {
      const xs = arr as unknown[];
      const start = Math.trunc(s as number), len = Math.trunc(n as number);
      if (start === 0) fail('slice()', 'Unexpected value for start in function slice: SQL array indices start at 1');
      if (len < 0) fail('slice()', 'Unexpected value for length in function slice: length must be greater than or equal to 0');
      const from = start > 0 ? start - 1 : xs.length + start;
      if (from < 0 || from >= xs.length) return [];
      return xs.slice(from, from + len);
    },
    checkLiterals: ([, s, n]) => (s === 0 ? 'slice(): Unexpected value for start in function slice: SQL array indices start at 1' : typeof n === 'number' && n < 0 ? 'slice(): Unexpected value for length in function slice: length must be greater than or equal to 0' : undefined),
  },
  // Spark: NULL when any inner array is NULL.
  flatten: {
    min: 1, max: 1, type: (a) => (a[0].type === 'null' || (a[0].type === 'array' && elementOrString(a[0]).type === 'array') ? elementOrString(a[0]) : 'flatten() takes an array of arrays'),
    impl: ([arr]) => ((arr as unknown[]).some((x) => x === null || x === undefined) ? null : (arr as unknown[][]).flat(1)),
  },
};
ARRAY_FUNCTIONS.cardinality = ARRAY_FUNCTIONS.size;

/**
 * concat(…) and reverse(…) of arrays (the compiler takes these when an argument is an array; of
 * strings they are string functions): Spark's Concat and Reverse, NULL when an argument is.
 */
export const CONCAT_ARRAYS: CollectionFunctionDef = {
  // Spark's ConcatCoercion: arrays of two element types are cast to the wider (findWiderCommonType,
  // a STRING beside a DATE or a number a STRING).
  min: 1, max: 64, widenArgs: true,
  type: (a) => a.slice(1).reduce<TypeInfo | string>((t, b) => (typeof t === 'string' ? t : twoArrays('concat()', t, b, 'DATA_DIFF_TYPES')), isArr(a[0]) ? a[0] : `concat() takes strings, or arrays of one element type, got ${typeText(a[0])}`),
  impl: (args) => {
    const n = args.reduce((s: number, x) => s + (x as unknown[]).length, 0);
    checkLength('concat()', n);
    const out: unknown[] = [];
    // A loop, not push(...xs): spreading a large array into a call overflows the stack.
    for (const xs of args) for (const x of xs as unknown[]) out.push(x);
    return out;
  },
};

export const REVERSE_ARRAY: CollectionFunctionDef = {
  min: 1, max: 1, type: (a) => (isArr(a[0]) ? a[0] : `reverse() takes a string or an array, got ${typeText(a[0])}`),
  impl: ([xs]) => [...(xs as unknown[])].reverse(),
};
