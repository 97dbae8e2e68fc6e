/**
 * Spark's FloatType (FLOAT, REAL): a `double` whose values are IEEE single-precision numbers.
 * A float is held as the JavaScript number of the same value (every float is exactly a double),
 * so a FLOAT widens to a DOUBLE without conversion (CAST(CAST(0.1 AS FLOAT) AS DOUBLE) is
 * 0.10000000149011612, as on the JVM) and comparisons need nothing of their own.
 *
 * Arithmetic: the exact result rounded to a float. For + - * / % of two floats, rounding the
 * double result once more to a float gives the correctly rounded float (a double has more than
 * 2 * 24 + 2 bits of precision), so Math.fround(a op b) is the JVM's float arithmetic.
 */
import type { CompiledExpr } from './function-types';
import { compiled, retyped } from './compiled-expr';
import type { Long } from './long';

/** The nearest float to an integer, as the JVM's `(float) long` (round half to even, exact past 2^53). */
export function floatFromLong(v: Long): number {
  if (typeof v === 'number') return Math.fround(v);
  const negative = v < 0n;
  const m = negative ? -v : v;
  const bits = m.toString(2).length;
  if (bits <= 53) return Math.fround(Number(v));
  // Keep the top 24 bits, rounded half to even on the rest: one rounding, from the exact value.
  const shift = BigInt(bits - 24);
  let q = m >> shift;
  const rest = m - (q << shift);
  const half = 1n << (shift - 1n);
  if (rest > half || (rest === half && (q & 1n) === 1n)) q += 1n;
  const r = Number(q) * 2 ** Number(shift);
  return negative ? -r : r;
}

/**
 * The decimals of `digits` significant digits closest to `a` (toExponential's form), the one Java
 * prefers first: when `a` lies exactly halfway between two, the one with the even last digit
 * (toExponential takes the larger), then the other.
 */
function closest(a: number, digits: number): string[] {
  const t = a.toExponential(digits - 1);
  const [mantissa, exp] = a.toExponential(100).split('e');
  const all = mantissa.replace('.', '');
  if (all[digits] !== '5' || !/^0*$/.test(all.slice(digits + 1))) return [t];
  const floorDigits = all.slice(0, digits);
  const lower = `${floorDigits[0]}${digits > 1 ? `.${floorDigits.slice(1)}` : ''}e${exp}`;
  return Number(floorDigits.at(-1)) % 2 === 0 ? [lower, t] : [t, lower];
}

/**
 * Java's Float.toString (as specified since JDK 19): the shortest decimal that reads back as the
 * same float (of one digit, the closest of one or two digits; of two equally close, the one
 * with the even last digit), plain between
 * 10^-3 and 10^7 (`1.1`, `100.0`, `0.001`) and in computerized scientific notation outside
 * (`1.0E7`, `1.0E-4`, `3.4028235E38`).
 */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const sign = v < 0 ? '-' : '';
  const a = Math.abs(v);
  let text = a.toExponential(8);
  for (let p = 1; p <= 9; p++) {
    const t = closest(a, p).find((c) => Math.fround(Number(c)) === a);
    if (t !== undefined) {
      // One digit is enough: Java picks the closest of one or two digits (1.4E-45, not 1.0E-45).
      text = p === 1 ? closest(a, 2)[0] : t;
      break;
    }
  }
  const [mantissa, e] = text.split('e');
  const exp = Number(e);
  const digits = mantissa.replace('.', '').replace(/0+$/, '') || '0';
  if (a >= 1e-3 && a < 1e7) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    return `${sign}${whole}.${digits.slice(exp + 1) || '0'}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${exp}`;
}

/** `c` as a FLOAT: an integer is the nearest float, as the JVM's `(float) long`. */
export function asFloat(c: CompiledExpr): CompiledExpr {
  if (c.float32) return c;
  if (c.type === 'null') return retyped(c, { type: 'double', float32: true });
  return compiled({ type: 'double', float32: true }, () => { const get = c.eval; return (r, x) => { const v = get(r, x); return v === null ? null : floatFromLong(v as Long); }; });
}
