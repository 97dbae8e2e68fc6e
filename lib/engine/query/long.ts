/**
 * BIGINT values: Spark's exact 64-bit integers. A value is a JavaScript number while it is a safe
 * integer (|v| < 2^53, where a double is exact) and a bigint beyond that, never both for one
 * value: so `===`, Map keys and the state store's key encoding see equal values as equal, and the
 * common case (counters, ids, sums that stay small) keeps the speed of plain numbers. Arithmetic
 * wraps at 64 bits as Spark's does with ANSI off (`9223372036854775807 + 1` is
 * -9223372036854775808).
 */
export type Long = number | bigint;

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
    const r = a * b;
    // A product whose exact value is safe is computed exactly (one correctly rounded step).
    if (Number.isSafeInteger(r) || !Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return r;
  }
  return exact(a) && exact(b) ? toLong(bigOf(a) * bigOf(b)) : Number(a) * Number(b);
}

/** `a % b` with the dividend's sign (Java's); NULL for a zero divisor as Spark's non-ANSI `%`. */
export function longRemainder(a: Long, b: Long): Long | null {
  if (typeof a === 'number' && typeof b === 'number') return b === 0 ? null : a % b;
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

