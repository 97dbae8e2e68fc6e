/**
 * Built-in scalar functions for the stateless subset: strings, numbers, null handling and
 * dates on timestamps (UTC). Each declares its arity, its result type from its argument types
 * (a string result is an error message), and whether NULL in means NULL out (most do).
 *
 * A function whose result can be longer than its inputs checks the result's length before
 * building it (value-limits.ts: 1 MiB a value); regular expressions run on RE2 (regex.ts).
 */
import { RecordExpressionError } from '../errors';
import { getJsonObject, jsonTuple } from './json-functions';
import { recordRegex, regexLiterals } from './regex';
import { formatTimestamp, isNumeric, type ExprType } from './sql-values';
import { chars, joinChecked, str } from './function-args';
import type { FunctionDef } from './function-types';
import { checkStringLength, MAX_STRING_VALUE_LENGTH, stringTooLargeMessage } from './value-limits';
import { toLong } from './long';


const num = (t: ExprType): boolean => isNumeric(t);


/** Spark's round: HALF_UP, i.e. halves away from zero. */
function roundHalfUp(v: number, scale: number): number {
  const f = 10 ** scale;
  // Spark rounds a double through its decimal text: 15 significant digits take the binary noise out.
  const r = Math.round(Number((Math.abs(v) * f).toPrecision(15))) / f;
  return v < 0 ? -r : r;
}

/**
 * Spark's lpad/rpad: pads with `fill` (cycled) to `len` characters, or cuts to `len`. The
 * result's length is known from the arguments, so an oversize one fails before any allocation.
 */
function pad(fn: string, s: string, len: number, fill: string, left: boolean): string {
  const n = Math.trunc(len);
  // n characters take at least n code units: refuse before splitting anything into characters.
  if (fill !== '' && n > MAX_STRING_VALUE_LENGTH) checkStringLength(fn, n);
  const cs = chars(s);
  if (!(n > cs.length)) return cs.slice(0, Math.max(0, n || 0)).join('');
  if (fill === '') return s;
  const need = n - cs.length;
  const f = chars(fill);
  const rest = f.slice(0, need % f.length).join('');
  const cycles = Math.floor(need / f.length);
  checkStringLength(fn, s.length + cycles * fill.length + rest.length);
  const padding = fill.repeat(cycles) + rest;
  return left ? padding + s : s + padding;
}

/** lpad/rpad's types: (string, length[, string]) → STRING, or (binary, length[, binary]) → BINARY. */
function padType(a: ExprType[]): ExprType | string {
  if (!num(a[1])) return 'expects (string, length[, pad]) or (binary, length[, binary pad])';
  if (a[0] === 'binary' && (a.length < 3 || a[2] === 'binary' || a[2] === 'null')) return 'binary';
  return (a[0] === 'string' || a[0] === 'null') && (a.length < 3 || a[2] === 'string' || a[2] === 'null') ? 'string' : 'expects (string, length[, pad]) or (binary, length[, binary pad])';
}

/** Spark's ByteArray.lpad/rpad: cut to `len` bytes, or padded with `fill` (cycled; a zero byte by default). */
function padBytes(fn: string, b: Uint8Array, len: number, fill: Uint8Array | undefined, left: boolean): Uint8Array {
  const n = Math.max(0, Math.trunc(len));
  const f = fill ?? new Uint8Array([0]);
  if (n <= b.length || f.length === 0) return b.subarray(0, Math.min(n, b.length));
  checkStringLength(fn, n);
  const out = new Uint8Array(n);
  const padLength = n - b.length;
  for (let i = 0; i < padLength; i++) out[left ? i : b.length + i] = f[i % f.length];
  out.set(b, left ? padLength : 0);
  return out;
}

/** At validation: a literal length over the limit with a literal non-empty fill always fails. */
const padLiterals = (fn: string) => (lits: unknown[]): string | undefined => {
  const [, n, fill] = lits;
  return typeof n === 'number' && typeof fill === 'string' && fill !== '' && Math.trunc(n) > MAX_STRING_VALUE_LENGTH
    ? stringTooLargeMessage(fn, Math.trunc(n))
    : undefined;
};

/** Upper/lower-casing can lengthen a string (ß → SS): checked on the result, at most 3× the input. */
function cased(fn: string, r: string): string {
  checkStringLength(fn, r.length);
  return r;
}

const rlike: FunctionDef = {
  min: 2, max: 2, type: (a) => str(a) ?? 'boolean',
  impl: ([s, p]) => recordRegex('rlike()', p as string).test(s as string),
  checkLiterals: regexLiterals('rlike()'),
};

/** The first functions Weir had; the registry (function-registry.ts) files each under its Spark group. */
export const CORE_FUNCTIONS: Record<string, FunctionDef> = {
  upper: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => cased('upper()', (s as string).toUpperCase()) },
  lower: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => cased('lower()', (s as string).toLowerCase()) },
  trim: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => (s as string).replace(/^ +| +$/g, '') },
  reverse: { min: 1, max: 1, type: (a) => str(a) ?? 'string', impl: ([s]) => chars(s as string).reverse().join('') },
  concat: {
    min: 1, max: 64, exactLongs: true, type: () => 'string',
    impl: (args, _c, types) => joinChecked('concat()', args.map((v, i) => (types[i] === 'timestamp' ? formatTimestamp(v as number) : String(v))), ''),
  },
  concat_ws: {
    min: 1, max: 64, exactLongs: true, nullIntolerant: false, type: (a) => str(a, 1) ?? 'string',
    impl: ([sep, ...rest]) => (sep === null ? null : joinChecked('concat_ws()', rest.filter((v) => v !== null && v !== undefined).map(String), sep as string)),
  },
  substring: {
    min: 2, max: 3,
    type: (a) => (a[0] === 'binary' ? undefined : str(a, 1)) ?? (a.slice(1).every(num) ? (a[0] === 'binary' ? 'binary' : 'string') : 'expects (string or binary, position[, length])'),
    impl: ([s, p, l]) => {
      // Spark's UTF8String.substringSQL: 1-based; 0 acts as 1; negative counts from the end, and
      // the end is reckoned from the start before it is clamped (substr('abc', -5, 3) is 'a').
      // A binary's positions are bytes (ByteArray.subStringSQL).
      const bytes = s instanceof Uint8Array;
      const cs = bytes ? s : chars(s as string);
      const pos = Math.trunc(p as number);
      const from = pos > 0 ? pos - 1 : pos < 0 ? cs.length + pos : 0;
      const end = l === undefined ? cs.length : Math.min(cs.length, from + Math.trunc(l as number));
      const start = Math.max(0, from);
      if (bytes) return (cs as Uint8Array).slice(start, Math.max(start, end));
      return start >= end ? '' : (cs as string[]).slice(start, end).join('');
    },
  },
  replace: {
    min: 2, max: 3, type: (a) => str(a) ?? 'string',
    impl: ([s, from, to]) => {
      const src = s as string;
      const f = from as string;
      const t = (to as string | undefined) ?? '';
      if (f === '') return src;
      if (t.length > f.length) {
        // Count the occurrences first: the result's length, before building anything.
        let count = 0;
        for (let i = src.indexOf(f); i >= 0; i = src.indexOf(f, i + f.length)) count++;
        checkStringLength('replace()', src.length + count * (t.length - f.length));
      }
      return src.split(f).join(t);
    },
  },
  lpad: {
    // Spark: the pad defaults to a space (a zero byte for a binary).
    min: 2, max: 3, type: padType,
    impl: ([s, n, f], _c, t) => (t[0] === 'binary' ? padBytes('lpad()', s as Uint8Array, n as number, f as Uint8Array | undefined, true) : pad('lpad()', s as string, n as number, (f as string | undefined) ?? ' ', true)),
    checkLiterals: padLiterals('lpad()'),
  },
  rpad: {
    // Spark: the pad defaults to a space (a zero byte for a binary).
    min: 2, max: 3, type: padType,
    impl: ([s, n, f], _c, t) => (t[0] === 'binary' ? padBytes('rpad()', s as Uint8Array, n as number, f as Uint8Array | undefined, false) : pad('rpad()', s as string, n as number, (f as string | undefined) ?? ' ', false)),
    checkLiterals: padLiterals('rpad()'),
  },
  // Spark's rlike/regexp/regexp_like: whether the pattern matches anywhere in the string.
  rlike,
  regexp: rlike,
  regexp_like: rlike,
  regexp_extract: {
    min: 2, max: 3,
    type: (a) => str(a, 2) ?? (a.length < 3 || num(a[2]) ? 'string' : 'expects (string, pattern[, group index])'),
    // Spark: group `idx` (default 1) of the first match; '' when nothing matches or the group did not take part.
    impl: ([s, p, idx]) => {
      const i = idx === undefined ? 1 : Math.trunc(idx as number);
      const m = recordRegex('regexp_extract()', p as string).exec(s as string);
      if (m !== null && (i < 0 || i >= m.length)) {
        throw new RecordExpressionError(`regexp_extract(): group index ${i} is out of range; the pattern has ${m.length - 1} group(s)`, { function: 'regexp_extract()' });
      }
      return m === null ? '' : (m[i] ?? '');
    },
    checkLiterals: regexLiterals('regexp_extract()'),
  },
  abs: {
    min: 1, max: 1, exactLongs: true, type: (a) => (num(a[0]) ? (a[0] === 'null' ? 'long' : a[0]) : 'expects a number'),
    // abs(-9223372036854775808) wraps to itself, as Java's Math.abs does.
    impl: ([v]) => (typeof v === 'bigint' ? toLong(v < 0n ? -v : v) : Math.abs(v as number)),
  },
  round: {
    min: 1, max: 2, type: (a) => (a.every(num) ? (a[0] === 'long' ? 'long' : 'double') : 'expects numbers'),
    impl: ([v, s]) => roundHalfUp(v as number, (s as number | undefined) ?? 0),
  },
  coalesce: { min: 1, max: 64, nullIntolerant: false, type: () => 'null', impl: (args) => args.find((v) => v !== null && v !== undefined) ?? null },
  nullif: { min: 2, max: 2, nullIntolerant: false, type: () => 'null', impl: ([a, b]) => (a !== null && b !== null && a === b ? null : a) },
  // JSON (json-functions.ts); from_json and to_json carry struct types: compiled in expression-compiler.ts.
  from_json: { min: 2, max: 3, type: () => 'struct', impl: () => { throw new Error('compiled in the expression compiler'); } },
  to_json: { min: 1, max: 2, type: () => 'string', impl: () => { throw new Error('compiled in the expression compiler'); } },
  // Avro (avro-functions.ts): typed by their schema literals, compiled in expression-compiler.ts.
  from_avro: { min: 2, max: 3, type: () => 'struct', impl: () => { throw new Error('compiled in the expression compiler'); } },
  to_avro: { min: 1, max: 2, type: () => 'binary', impl: () => { throw new Error('compiled in the expression compiler'); } },
  // One key of json_tuple (the planner expands json_tuple(j, k1, k2) into c0, c1 of these).
  json_tuple_item: { min: 2, max: 2, type: (a) => str(a) ?? 'string', impl: ([j, k]) => jsonTuple(j as string, [k as string])[0] },
  get_json_object: { min: 2, max: 2, type: (a) => str(a) ?? 'string', impl: ([j, p]) => getJsonObject(j as string, p as string) },
};

CORE_FUNCTIONS.substr = CORE_FUNCTIONS.substring;
