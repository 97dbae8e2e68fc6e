/**
 * BIGINT values: Spark's exact 64-bit integers. A value is a JavaScript number while it is a safe
 * integer (|v| < 2^53, where a double is exact) and a bigint beyond that, never both for one
 * value: so `===`, Map keys and the state store's key encoding see equal values as equal, and the
 * common case (counters, ids, sums that stay small) keeps the speed of plain numbers. Arithmetic
 * wraps at 64 bits as Spark's does with ANSI off (`9223372036854775807 + 1` is
 * -9223372036854775808).
 */
export type Long = number | bigint;

/**
 * Spark's narrower integral types by their width: TINYINT (ByteType) 8, SMALLINT (ShortType) 16,
 * INT (IntegerType) 32. Their values are JavaScript numbers (always exact); a BIGINT is a Long
 * without a width. Arithmetic wraps at the width, as the JVM's byte, short and int do with ANSI off.
 */
export type IntegralBits = 8 | 16 | 32;
export const INTEGRAL_NAMES: Record<IntegralBits, string> = { 8: 'TINYINT', 16: 'SMALLINT', 32: 'INT' };
/** The width of each of Spark's DataType kinds for them. */
export const INTEGRAL_BITS = { byte: 8, short: 16, integer: 32 } as const;

/** The low `bits` bits of an integer, as a signed value (a BIGINT, no width: the low 64). */
export function wrapToWidth(bits: IntegralBits | undefined, v: Long): Long {
  if (bits === undefined) return typeof v === 'bigint' ? toLong(v) : v;
  if (typeof v === 'number' && v >= -(2 ** 31) && v < 2 ** 31) return bits === 32 ? v | 0 : (v << (32 - bits)) >> (32 - bits);
  return Number(BigInt.asIntN(bits, bigOf(v)));
}

/** Whether an integer lies in the range of the integral type of `bits` (undefined: BIGINT). */
export function fitsWidth(bits: IntegralBits | undefined, v: Long): boolean {
  if (bits === undefined) return typeof v === 'number' || fitsLong(v);
  const n = Number(v);
  return n >= -(2 ** (bits - 1)) && n < 2 ** (bits - 1);
}

/** The wider of two integral widths (Spark's findTightestCommonType: byte < short < int < long). */
export const widerWidth = (a: IntegralBits | undefined, b: IntegralBits | undefined): IntegralBits | undefined =>
  a === undefined || b === undefined ? undefined : (Math.max(a, b) as IntegralBits);

/**
 * `a op b` for two values of a narrow integral type of `bits`: exact in doubles (an INT product
 * through Math.imul, which wraps as the JVM's int multiply), then wrapped to the width.
 */
export function narrowArithmetic(op: '+' | '-' | '*', bits: IntegralBits, a: number, b: number): number {
  const r = op === '+' ? a + b : op === '-' ? a - b : bits === 32 ? Math.imul(a, b) : a * b;
  return wrapToWidth(bits, r) as number;
}

/**
 * `a op b` of that type as try_add/try_subtract/try_multiply give it: NULL where the exact result
 * leaves the type's range (a double product outside it is outside exactly, as 2^31 is a double).
 */
export function narrowArithmeticOrNull(op: '+' | '-' | '*', bits: IntegralBits, a: number, b: number): number | null {
  const r = op === '+' ? a + b : op === '-' ? a - b : a * b;
  return fitsWidth(bits, r) ? r + 0 : null;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
export const LONG_MIN = -(2n ** 63n);
export const LONG_MAX = 2n ** 63n - 1n;

/** A 64-bit integer in its one representation (wrapped to 64 bits first). */
export function toLong(b: bigint): Long {
  const w = BigInt.asIntN(64, b);
  return w >= -MAX_SAFE && w <= MAX_SAFE ? Number(w) : w;
}

/** A 64-bit integer as a bigint (a long that is not a whole number is truncated first). */
export function bigOf(v: Long): bigint {
  return typeof v === 'bigint' ? v : BigInt(Number.isInteger(v) ? v : Math.trunc(v));
}

/** Whether a bigint lies within BIGINT's range (a cast that does not fit is NULL). */
export const fitsLong = (b: bigint): boolean => b >= LONG_MIN && b <= LONG_MAX;

/** Whether a value is a whole number the long arithmetic can take exactly. */
const exact = (v: Long): boolean => typeof v === 'bigint' || Number.isSafeInteger(v);

export function longAdd(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    // A sum of two safe integers is exact whenever it is itself safe.
    if (Number.isSafeInteger(r) || !Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return r;
  }
  return exact(a) && exact(b) ? toLong(bigOf(a) + bigOf(b)) : Number(a) + Number(b);
}

export function longSubtract(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (Number.isSafeInteger(r) || !Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return r;
  }
  return exact(a) && exact(b) ? toLong(bigOf(a) - bigOf(b)) : Number(a) - Number(b);
}

export function longMultiply(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    // `+ 0`: a zero product is 0, never the double -0 (one value, one representation).
    const r = a * b + 0;
    // A product whose exact value is safe is computed exactly (one correctly rounded step).
    if (Number.isSafeInteger(r) || !Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return r;
  }
  return exact(a) && exact(b) ? toLong(bigOf(a) * bigOf(b)) : Number(a) * Number(b);
}

/** `a % b` with the dividend's sign (Java's); NULL for a zero divisor as Spark's non-ANSI `%`. */
export function longRemainder(a: Long, b: Long): Long | null {
  if (typeof a === 'number' && typeof b === 'number') return b === 0 ? null : (a % b) + 0;
  const d = bigOf(b);
  return d === 0n ? null : toLong(bigOf(a) % d);
}

/** Integer division truncated toward zero (Spark's `div`); NULL for a zero divisor. */
export function longDivide(a: Long, b: Long): Long | null {
  if (typeof a === 'number' && typeof b === 'number') return b === 0 ? null : Math.trunc(a / b) + 0;
  const d = bigOf(b);
  return d === 0n ? null : toLong(bigOf(a) / d);
}

export function longNegate(a: Long): Long {
  return typeof a === 'number' ? -a : toLong(-a);
}

/**
 * A whole number's text as a BIGINT, or NULL when it is not one or leaves the 64-bit range
 * (Spark's non-ANSI CAST(string AS BIGINT)); a fraction is truncated, as Spark's cast does.
 */
export function parseLong(text: string): Long | null {
  const m = /^\s*([+-]?\d+)(?:\.\d*)?\s*$/.exec(text) ?? /^\s*([+-]?)\.\d+\s*$/.exec(text);
  if (!m) return null;
  const digits = m[1] === '' || m[1] === '+' || m[1] === '-' ? '0' : m[1];
  if (digits.length <= 15) return Number(digits) + 0;
  const b = BigInt(digits);
  return fitsLong(b) ? toLong(b) : null;
}

/**
 * A double as a BIGINT, as Spark's non-ANSI cast (the JVM's `(long) d`): truncated toward zero,
 * saturated at the 64-bit bounds, NaN as 0.
 */
export function longFromDouble(d: number): Long {
  if (Number.isNaN(d)) return 0;
  const t = Math.trunc(d);
  if (Number.isSafeInteger(t)) return t + 0;
  if (t >= 2 ** 63) return LONG_MAX;
  if (t <= -(2 ** 63)) return LONG_MIN;
  return toLong(BigInt(t));
}

