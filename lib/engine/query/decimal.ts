/**
 * Spark's DecimalType, exact to 38 digits. A decimal value is its unscaled integer as a bigint;
 * its precision and scale belong to the type (CompiledExpr.decimal, Field.precision/scale), as a
 * Spark Decimal's do to its DecimalType. A bigint keeps `===`, `<`, Map keys and the state value
 * codec (tag 9) working unchanged, and every value of one type has that type's scale, so two equal
 * decimals are the same bigint.
 *
 * Arithmetic follows Spark's result types (DecimalPrecision, with
 * spark.sql.decimalOperations.allowPrecisionLoss true, the default) and its rounding (HALF_UP).
 * A result that does not fit its precision is NULL: Weir runs Spark with ANSI mode off, where an
 * integer or a cast that does not fit is not an error either (Spark 4's ANSI default raises
 * NUMERIC_VALUE_OUT_OF_RANGE instead).
 */
import { toLong, type Long } from './long';

export const MAX_PRECISION = 38;
/** The scale Spark keeps at least when a result type needs more than 38 digits. */
const MINIMUM_ADJUSTED_SCALE = 6;

export interface DecimalType {
  precision: number;
  scale: number;
}

/** A BIGINT operand is DECIMAL(20,0). */
export const LONG_DECIMAL: DecimalType = { precision: 20, scale: 0 };

const POW10: bigint[] = [];
export function pow10(n: number): bigint {
  let p = POW10[n];
  if (p === undefined) POW10[n] = p = 10n ** BigInt(n);
  return p;
}

const abs = (v: bigint) => (v < 0n ? -v : v);

/** a / b rounded HALF_UP (halves away from zero), b ≠ 0. */
function divHalfUp(a: bigint, b: bigint): bigint {
  const q = a / b;
  const r = a % b;
  if (r === 0n) return q;
  const neg = a < 0n !== b < 0n;
  return 2n * abs(r) >= abs(b) ? (neg ? q - 1n : q + 1n) : q;
}

/** The unscaled value at another scale, rounding HALF_UP when digits are dropped. */
export function rescale(v: bigint, from: number, to: number): bigint {
  if (to === from) return v;
  return to > from ? v * pow10(to - from) : divHalfUp(v, pow10(from - to));
}

/** Spark's Decimal.changePrecision: rounded to `t`'s scale, NULL when it does not fit `t`'s precision. */
export function toPrecision(v: bigint, from: number, t: DecimalType): bigint | null {
  const r = rescale(v, from, t.scale);
  return abs(r) < pow10(t.precision) ? r : null;
}

/** The number of decimal digits of |v| (1 for 0). */
function digits(v: bigint): number {
  return abs(v).toString().length;
}

/** Rounds to at most `p` significant digits (Java's MathContext(p, HALF_UP)): [value, scale]. */
function roundSignificant(v: bigint, scale: number, p: number): [bigint, number] {
  const drop = digits(v) - p;
  if (drop <= 0) return [v, scale];
  return [divHalfUp(v, pow10(drop)), scale - drop];
}

/** Spark's DecimalType.adjustPrecisionScale (allowPrecisionLoss): keep the integer digits, give up scale down to 6. */
function adjust(precision: number, scale: number): DecimalType {
  if (precision <= MAX_PRECISION) return { precision, scale };
  const intDigits = precision - scale;
  const minScale = Math.min(scale, MINIMUM_ADJUSTED_SCALE);
  return { precision: MAX_PRECISION, scale: Math.max(MAX_PRECISION - intDigits, minScale) };
}

/** Spark's bounded(): a type of at most 38 digits (for sum and avg, which do not adjust). */
export function bounded(precision: number, scale: number): DecimalType {
  return { precision: Math.min(precision, MAX_PRECISION), scale: Math.min(scale, MAX_PRECISION) };
}

export type DecimalOp = '+' | '-' | '*' | '/' | '%';

/** The result type of `a op b` (Spark's Add, Subtract, Multiply, Divide, Remainder). */
export function resultType(op: DecimalOp, a: DecimalType, b: DecimalType): DecimalType {
  const { precision: p1, scale: s1 } = a;
  const { precision: p2, scale: s2 } = b;
  switch (op) {
    case '+':
    case '-': {
      const scale = Math.max(s1, s2);
      return adjust(Math.max(p1 - s1, p2 - s2) + scale + 1, scale);
    }
    case '*':
      return adjust(p1 + p2 + 1, s1 + s2);
    case '/': {
      const scale = Math.max(MINIMUM_ADJUSTED_SCALE, s1 + p2 + 1);
      return adjust(p1 - s1 + s2 + scale, scale);
    }
    case '%': {
      const scale = Math.max(s1, s2);
      return adjust(Math.min(p1 - s1, p2 - s2) + scale, scale);
    }
  }
}

/**
 * `a op b` at the result type `t` (from resultType), or NULL (division or remainder by zero,
 * or a result too large for `t`). Spark computes with java.math.BigDecimal: + - % exactly,
 * `*` to 38 significant digits, `/` to 38 digits after the point, then rounds to `t`.
 */
export function arithmetic(op: DecimalOp, a: bigint, sa: number, b: bigint, sb: number, t: DecimalType): bigint | null {
  switch (op) {
    case '+':
    case '-': {
      const s = Math.max(sa, sb);
      const x = rescale(a, sa, s);
      const y = rescale(b, sb, s);
      return toPrecision(op === '+' ? x + y : x - y, s, t);
    }
    case '*': {
      const [v, s] = roundSignificant(a * b, sa + sb, MAX_PRECISION);
      return toPrecision(v, s, t);
    }
    case '/': {
      if (b === 0n) return null;
      // a/10^sa ÷ b/10^sb at scale 38: a·10^(38 - sa + sb) / b.
      const shift = MAX_PRECISION - sa + sb;
      const q = shift >= 0 ? divHalfUp(a * pow10(shift), b) : divHalfUp(a, b * pow10(-shift));
      return toPrecision(q, MAX_PRECISION, t);
    }
    case '%': {
      if (b === 0n) return null;
      const s = Math.max(sa, sb);
      return toPrecision(rescale(a, sa, s) % rescale(b, sb, s), s, t);
    }
  }
}

/** Spark's Decimal.toString: plain digits, exactly `scale` of them after the point. */
export function formatDecimal(v: bigint, scale: number): string {
  const neg = v < 0n;
  let s = abs(v).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  }
  return neg ? `-${s}` : s;
}

/** Text such as `-12.50`, `1e3`, `.5`: its unscaled value at `t`, or NULL when it is not a number or does not fit. */
export function parseDecimal(text: string, t: DecimalType): bigint | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const frac = m[3] ?? '';
  const exp = m[4] ? Number(m[4]) : 0;
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 1000) return null;
  const unscaled = BigInt(`${m[1] === '-' ? '-' : ''}${m[2]}${frac}` || '0');
  return toPrecision(unscaled, frac.length - exp, t);
}

/** A double as a decimal of type `t` (through its shortest text, as Spark's Decimal(double) does); NULL for NaN, ±Infinity or too large. */
export function decimalFromDouble(x: number, t: DecimalType): bigint | null {
  if (!Number.isFinite(x)) return null;
  return parseDecimal(String(x), t);
}

/** A long as a decimal of type `t`, NULL when it does not fit. */
export function decimalFromLong(x: Long, t: DecimalType): bigint | null {
  if (typeof x === 'bigint') return toPrecision(x, 0, t);
  return Number.isSafeInteger(x) ? toPrecision(BigInt(x), 0, t) : decimalFromDouble(x, t);
}

export function decimalToDouble(v: bigint, scale: number): number {
  return Number(formatDecimal(v, scale));
}

/**
 * Truncated toward zero, as Spark's CAST(decimal AS BIGINT) (ANSI off: past the 64-bit range the
 * low 64 bits, as Java's BigInteger.longValue). A number while safe, a bigint beyond (long.ts).
 */
export function decimalToLong(v: bigint, scale: number): Long {
  return toLong(v / pow10(scale));
}

/** The precision Spark gives an integer literal (spark.sql.legacy.literal.pickMinimumPrecision): its digits. */
export function literalDecimalType(v: number): DecimalType {
  return { precision: Math.max(1, String(Math.abs(Math.trunc(v))).length), scale: 0 };
}

/** The wider of two decimal types (Spark's DecimalPrecision.widerDecimalType), for CASE, coalesce and comparisons. */
export function widerDecimalType(a: DecimalType, b: DecimalType): DecimalType {
  const scale = Math.max(a.scale, b.scale);
  const range = Math.max(a.precision - a.scale, b.precision - b.scale);
  return bounded(range + scale, scale);
}
