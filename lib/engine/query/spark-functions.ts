/**
 * Spark's built-in scalar functions beyond the first set in functions.ts: the rest of the
 * string, regexp, conditional/null, math and date-time groups of Spark's function reference,
 * with Spark's names, optional arguments, NULL handling and results (ANSI mode off; UTC).
 *
 * Date-time: functions Spark types DATE (to_date, date_add, date_sub, current_date, last_day,
 * add_months) return a DATE (days since 1970-01-01, date.ts) and take a DATE, a timestamp (its day)
 * or a string cast to a DATE, as Spark casts it; the other date-time functions take a DATE as its
 * midnight timestamp (the compiler converts it) and a string cast to a timestamp.
 */
import { nums, unified } from './function-args';
import type { FunctionDef } from './function-types';
import { bigOf, toLong, type Long } from './long';

/** A shift of a BIGINT by an INT distance (a wider one narrowed to its low 32 bits, then mod 64). */
function shiftFunction(op: (a: bigint, n: bigint) => bigint): FunctionDef {
  return {
    min: 2, max: 2, exactLongs: true,
    type: (a) => (a.every((t) => t === 'long' || t === 'null') ? 'long' : 'expects integers'),
    impl: ([x, n]) => toLong(op(bigOf(x as Long), BigInt(Number(BigInt.asIntN(32, bigOf(n as Long))) & 63))),
  };
}

/** Spark's bround: HALF_EVEN at `scale` digits. */
function roundHalfEven(v: number, scale: number): number {
  const f = 10 ** scale;
  const x = Number((v * f).toPrecision(15));
  const r = Math.round(x);
  // Exactly halfway (within float noise of the scaled value): to the even neighbour.
  const diff = Math.abs(x - Math.trunc(x));
  const even = Math.abs(diff - 0.5) < 1e-9 ? (Math.trunc(x) % 2 === 0 ? Math.trunc(x) : Math.trunc(x) + Math.sign(x)) : r;
  return even / f;
}

function roundWith(fn: (x: number) => number, v: number, scale: number): number {
  const f = 10 ** scale;
  return fn(Number((v * f).toPrecision(15))) / f || 0;
}

const compare = (a: unknown, b: unknown) => ((a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0);

/** Functions Spark refuses on streaming DataFrames, or that Weir refuses because a replay would differ. */
export const STREAMING_REFUSED: Record<string, { message: string; errorClass?: string }> = {
  monotonically_increasing_id: { message: 'Expression(s): monotonically_increasing_id() is not supported with streaming DataFrames/Datasets', errorClass: '_LEGACY_ERROR_TEMP_3102' },
  ...Object.fromEntries(['rand', 'random', 'randn', 'uuid', 'shuffle'].map((f) => [f, {
    message: `${f}() is not deterministic: a batch re-run after a crash would compute different rows than its first attempt, which breaks exactly-once, so Weir refuses it (Spark accepts it). Derive the value from the row instead, for example from hash(...) of its columns`,
  }])),
};

export const SPARK_FUNCTIONS: Record<string, FunctionDef> = {
  // --- conditional and null ---
  if: {
    min: 3, max: 3, nullIntolerant: false,
    type: (a) => (a[0] === 'boolean' || a[0] === 'null' ? unified(a.slice(1), 'if') : 'needs a boolean condition first'),
    impl: ([c, x, y]) => (c === true ? x : y),
  },
  nvl: { min: 2, max: 2, nullIntolerant: false, type: (a) => unified(a, 'nvl'), impl: ([x, y]) => x ?? y },
  ifnull: { min: 2, max: 2, nullIntolerant: false, type: (a) => unified(a, 'ifnull'), impl: ([x, y]) => x ?? y },
  nvl2: { min: 3, max: 3, nullIntolerant: false, type: (a) => unified(a.slice(1), 'nvl2'), impl: ([x, y, z]) => (x !== null ? y : z) },
  isnull: { min: 1, max: 1, nullIntolerant: false, type: () => 'boolean', impl: ([x]) => x === null },
  isnotnull: { min: 1, max: 1, nullIntolerant: false, type: () => 'boolean', impl: ([x]) => x !== null },
  // --- math ---
  pow: { min: 2, max: 2, type: (a) => nums(a) ?? 'double', impl: ([x, y]) => (x as number) ** (y as number) },
  power: { min: 2, max: 2, type: (a) => nums(a) ?? 'double', impl: ([x, y]) => (x as number) ** (y as number) },
  sqrt: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) < 0 ? NaN : Math.sqrt(x as number)) },
  cbrt: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => Math.cbrt(x as number) },
  exp: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => Math.exp(x as number) },
  // Spark: the log of a non-positive number is NULL.
  ln: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) <= 0 ? null : Math.log(x as number)) },
  log: {
    min: 1, max: 2, type: (a) => nums(a) ?? 'double',
    impl: ([b, x]) => (x === undefined ? ((b as number) <= 0 ? null : Math.log(b as number)) : (x as number) <= 0 || (b as number) <= 0 ? null : Math.log(x as number) / Math.log(b as number)),
  },
  log10: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) <= 0 ? null : Math.log10(x as number)) },
  log2: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) <= 0 ? null : Math.log2(x as number)) },
  sign: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => Math.sign(x as number) },
  signum: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => Math.sign(x as number) },
  mod: { min: 2, max: 2, type: (a) => nums(a) ?? (a.every((t) => t === 'long' || t === 'null') ? 'long' : 'double'), impl: ([x, y]) => ((y as number) === 0 ? null : (x as number) % (y as number)) },
  // `a div b` (the compiler's IntegralDivide): a BIGINT, NULL for a zero divisor.
  div: { min: 2, max: 2, type: (a) => nums(a) ?? 'long', impl: ([x, y]) => ((y as number) === 0 ? null : Math.trunc((x as number) / (y as number))) },
  // Spark's Pmod: r = x % n, and (r + n) % n where r is negative (pmod(-7, -3) is -1). Integers
  // (exact, and keeping an INT, SMALLINT or TINYINT) and FLOATs are the compiler's.
  pmod: {
    min: 2, max: 2, type: (a) => nums(a) ?? (a.every((t) => t === 'long' || t === 'null') ? 'long' : 'double'),
    impl: ([x, y]) => { const n = y as number; if (n === 0) return null; const r = (x as number) % n; return r < 0 ? (r + n) % n : r; },
  },
  // Spark's ShiftLeft, ShiftRight, ShiftRightUnsigned of a BIGINT: Java's 64-bit shifts (the
  // distance, an INT, taken mod 64). Of an INT, SMALLINT or TINYINT: the compiler's, 32-bit.
  shiftleft: shiftFunction((a, n) => a << n),
  shiftright: shiftFunction((a, n) => a >> n),
  shiftrightunsigned: shiftFunction((a, n) => BigInt.asUintN(64, a) >> n),
  greatest: { min: 2, max: 64, nullIntolerant: false, type: (a) => unified(a, 'greatest'), impl: (args) => args.filter((v) => v !== null).reduce<unknown>((m, v) => (m === null || compare(v, m) > 0 ? v : m), null) },
  least: { min: 2, max: 64, nullIntolerant: false, type: (a) => unified(a, 'least'), impl: (args) => args.filter((v) => v !== null).reduce<unknown>((m, v) => (m === null || compare(v, m) < 0 ? v : m), null) },
  bround: { min: 1, max: 2, type: (a) => nums(a) ?? (a[0] === 'long' ? 'long' : 'double'), impl: ([v, s]) => roundHalfEven(v as number, Math.trunc((s as number | undefined) ?? 0)) },
  ceil: { min: 1, max: 2, type: (a) => nums(a) ?? (a.length === 1 ? 'long' : 'double'), impl: ([v, s]) => (s === undefined ? Math.ceil(v as number) || 0 : roundWith(Math.ceil, v as number, Math.trunc(s as number))) },
  ceiling: { min: 1, max: 2, type: (a) => nums(a) ?? (a.length === 1 ? 'long' : 'double'), impl: ([v, s]) => (s === undefined ? Math.ceil(v as number) || 0 : roundWith(Math.ceil, v as number, Math.trunc(s as number))) },
  floor: { min: 1, max: 2, type: (a) => nums(a) ?? (a.length === 1 ? 'long' : 'double'), impl: ([v, s]) => (s === undefined ? Math.floor(v as number) || 0 : roundWith(Math.floor, v as number, Math.trunc(s as number))) },
  pi: { min: 0, max: 0, type: () => 'double', impl: () => Math.PI },
  degrees: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) * 180) / Math.PI },
  radians: { min: 1, max: 1, type: (a) => nums(a) ?? 'double', impl: ([x]) => ((x as number) * Math.PI) / 180 },
};

