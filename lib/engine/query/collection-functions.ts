/**
 * Spark's collection functions over ARRAY and MAP values, with Spark's names, argument forms,
 * NULL handling and results (ANSI mode off). Their types carry element, key and value types
 * (data-types.ts), so they are typed from full TypeInfo, not from ExprType names alone.
 *
 * Values: an ARRAY is a JS array. A MAP is a plain object from each key's text (CAST(key AS
 * STRING)) to its value, built with Object.fromEntries so that `__proto__` is an ordinary key.
 * Why a plain object and not a JS Map: every output of the engine (sinks, preview, the state
 * codec) already writes plain objects as JSON, as Spark's to_json writes a map; a Map would write
 * as `{}` wherever a conversion was forgotten. What it costs: keys are strings inside (map_keys
 * casts them back to the key type), and JavaScript orders integer-like keys ('1', '20') first
 * in ascending order, before the other keys in insertion order, where Spark keeps insertion order.
 */
import { RecordExpressionError } from '../errors';
import { encodeKey } from '../state/state-value-codec';
import { sameType, typeOfField, typeText, type TypeInfo } from './data-types';
import { joinChecked } from './function-args';
import type { CollectionFunctionDef } from './function-types';
import { buildMap, keyText, keyValue } from './map-functions';
import { splitString } from './regexp-functions';
import { castValue, isNumeric } from './sql-values';


const isStr = (t: TypeInfo) => t.type === 'string' || t.type === 'null';
const isArr = (t: TypeInfo) => t.type === 'array' || t.type === 'null';
const isInt = (t: TypeInfo) => t.type === 'long' || t.type === 'null';
/** The element type of an array argument (NULL: a string element). */
const elem = (t: TypeInfo): TypeInfo => (t.type === 'array' && t.elementType ? typeOfField(t.elementType) : { type: 'string' });

/** A record whose arguments make the function fail, as Spark fails the query (the record is then bad). */
function fail(fn: string, msg: string): never {
  throw new RecordExpressionError(`${fn}: ${msg}`, { function: fn });
}

/** Equality of two non-NULL values as SQL compares them (arrays and structs element by element). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return encodeKey([a]) === encodeKey([b]);
}

/**
 * Spark's ordering of two non-NULL values of one type: numbers (NaN above everything, as Spark
 * orders doubles), strings by code unit, false before true, decimals' bigints, arrays element by
 * element (NULL first, then the shorter first).
 */
export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const x = a[i] ?? null, y = b[i] ?? null;
      if (x === null || y === null) { if (x !== y) return x === null ? -1 : 1; continue; }
      const c = compareValues(x, y);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

const literalIndexCheck = (fn: string, what: string) => (lits: unknown[]): string | undefined =>
  lits[1] === 0 ? `${fn}: ${what}` : undefined;

const ELEMENT_AT_ZERO = 'the index 0 is invalid: SQL array indices start at 1 (INVALID_INDEX_OF_ZERO)';

function arrayMax(fn: string, sign: 1 | -1): CollectionFunctionDef {
  return {
    min: 1, max: 1, type: (a) => (isArr(a[0]) ? elem(a[0]) : `${fn} takes an array, got ${typeText(a[0])}`),
    impl: ([arr]) => (arr as unknown[]).reduce<unknown>((m, v) => (v === null || v === undefined ? m : m === null || sign * compareValues(v, m) > 0 ? v : m), null),
  };
}

export const COLLECTION_FUNCTIONS: Record<string, CollectionFunctionDef> = {
  // Spark's default (spark.sql.legacy.sizeOfNull=true with ANSI off): size(NULL) is -1. An INT.
  size: {
    min: 1, max: 1, nullIntolerant: false,
    type: (a) => (a[0].type === 'array' || a[0].type === 'map' || a[0].type === 'null' ? { type: 'long', integral: 32 } : `size() takes an array or a map, got ${typeText(a[0])}`),
    impl: ([x]) => (x === null || x === undefined ? -1 : Array.isArray(x) ? x.length : Object.keys(x).length),
  },
  element_at: {
    min: 2, max: 2,
    type: (a) => {
      if (a[0].type === 'map') return typeOfField(a[0].valueType!);
      if (isArr(a[0]) && isInt(a[1])) return elem(a[0]);
      return 'element_at() takes (array, index) or (map, key)';
    },
    impl: ([x, k], t) => {
      if (t[0].type === 'map') return mapGet(x as Record<string, unknown>, k, typeOfField(t[0].keyType!));
      const arr = x as unknown[];
      const i = Math.trunc(k as number);
      if (i === 0) fail('element_at()', ELEMENT_AT_ZERO);
      const at = i > 0 ? i - 1 : arr.length + i;
      return at >= 0 && at < arr.length ? (arr[at] ?? null) : null;
    },
    checkLiterals: literalIndexCheck('element_at()', ELEMENT_AT_ZERO),
  },
  // `arr[i]` (0-based, NULL out of range) and `m[key]`; Spark's get(arr, i) is the array form.
  get: {
    min: 2, max: 2,
    type: (a) => {
      if (a[0].type === 'map') return typeOfField(a[0].valueType!);
      if (isArr(a[0]) && isInt(a[1])) return elem(a[0]);
      return `[] takes an array with an integer index or a map with a key, got ${typeText(a[0])} and ${typeText(a[1])}`;
    },
    impl: ([x, k], t) => {
      if (t[0].type === 'map') return mapGet(x as Record<string, unknown>, k, typeOfField(t[0].keyType!));
      const i = Math.trunc(k as number);
      const arr = x as unknown[];
      return i >= 0 && i < arr.length ? (arr[i] ?? null) : null;
    },
  },
  array_contains: {
    min: 2, max: 2,
    type: (a) => (isArr(a[0]) && (a[1].type === 'null' || a[0].type === 'null' || comparable(elem(a[0]), a[1])) ? { type: 'boolean' } : `array_contains() takes (array, value of its element type), got ${typeText(a[0])} and ${typeText(a[1])}`),
    impl: ([arr, v]) => {
      let sawNull = false;
      for (const x of arr as unknown[]) {
        if (x === null || x === undefined) sawNull = true;
        else if (sameValue(x, v)) return true;
      }
      return sawNull ? null : false;
    },
  },
  array_join: {
    min: 2, max: 3,
    type: (a) => (isArr(a[0]) && isStr(a[1]) && (a.length < 3 || isStr(a[2])) ? { type: 'string' } : 'array_join() takes (array, delimiter[, nullReplacement])'),
    impl: ([arr, sep, nullRep], t) => joinChecked('array_join()', arrayText(arr as unknown[], elem(t[0]), nullRep as string | undefined), sep as string),
  },
  sort_array: {
    min: 1, max: 2,
    type: (a) => (isArr(a[0]) && (a.length < 2 || a[1].type === 'boolean' || a[1].type === 'null') ? a[0] : 'sort_array() takes (array[, ascending boolean])'),
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
    min: 1, max: 1, type: (a) => (isArr(a[0]) ? a[0] : 'array_distinct() takes an array'),
    impl: ([arr]) => {
      const out: unknown[] = [];
      const seen = new Set<unknown>();
      for (const x of arr as unknown[]) {
        const k = x === null || x === undefined ? null : typeof x === 'object' ? encodeKey([x]) : Object.is(x, -0) ? 0 : x;
        if (!seen.has(k)) { seen.add(k); out.push(x ?? null); }
      }
      return out;
    },
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
    min: 1, max: 1, type: (a) => (a[0].type === 'null' || (a[0].type === 'array' && elem(a[0]).type === 'array') ? elem(a[0]) : 'flatten() takes an array of arrays'),
    impl: ([arr]) => ((arr as unknown[]).some((x) => x === null || x === undefined) ? null : (arr as unknown[][]).flat(1)),
  },
  map_keys: {
    min: 1, max: 1, type: (a) => (a[0].type === 'map' ? { type: 'array', elementType: { ...a[0].keyType!, name: 'element' } } : `map_keys() takes a map, got ${typeText(a[0])}`),
    impl: ([m], t) => {
      const kt = typeOfField(t[0].keyType!);
      return Object.keys(m as object).map((k) => keyValue(k, kt));
    },
  },
  map_values: {
    min: 1, max: 1, type: (a) => (a[0].type === 'map' ? { type: 'array', elementType: { ...a[0].valueType!, name: 'element' } } : `map_values() takes a map, got ${typeText(a[0])}`),
    impl: ([m]) => Object.values(m as object),
  },
  // Spark: both delimiters are regular expressions; a pair without the key-value delimiter has a NULL value.
  str_to_map: {
    min: 1, max: 3,
    type: (a) => (a.every(isStr) ? { type: 'map', keyType: { name: 'key', type: 'string', nullable: false }, valueType: { name: 'value', type: 'string', nullable: true } } : 'str_to_map() takes (text[, pairDelim[, keyValueDelim]])'),
    impl: ([s, pd, kd]) => {
      const pairs = splitString(s as string, (pd as string | undefined) ?? ',', -1);
      const kv = pairs.map((p) => splitString(p, (kd as string | undefined) ?? ':', 2));
      return buildMap('str_to_map()', kv.map((x) => x[0]), kv.map((x) => x[1] ?? null), { type: 'string' });
    },
  },
};
COLLECTION_FUNCTIONS.cardinality = COLLECTION_FUNCTIONS.size;

/** Whether a value of type `b` can be looked for among elements of type `a`. */
function comparable(a: TypeInfo, b: TypeInfo): boolean {
  const num = (t: TypeInfo) => isNumeric(t.type) || t.type === 'decimal';
  if (num(a) && num(b)) return true;
  return sameType(a, b) || (a.type === b.type && a.type !== 'array' && a.type !== 'map' && a.type !== 'struct');
}

function mapGet(m: Record<string, unknown>, k: unknown, keyType: TypeInfo): unknown {
  const text = keyText(k, keyType);
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
  type: (a) => (isStr(a[0]) && a.slice(1).every((t) => isStr(t) || (t.type === 'array' && elem(t).type === 'string')) ? { type: 'string' } : 'concat_ws() takes (separator, string or array<string>, …)'),
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
