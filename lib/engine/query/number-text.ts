/**
 * Numbers as decimal digits, for the functions that print them by a format (format_number,
 * format_string, to_char): a value is `digits × 10^-scale` with its sign, and rounding works on
 * those digits so that 0.125 prints as Java prints it, not as binary noise does.
 */

export interface DecimalDigits {
  neg: boolean;
  digits: bigint;
  scale: number;
}

/** The shortest decimal text that reads back as `v` (Java's Double.toString digits). */
export function shortestDigits(v: number): DecimalDigits {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(v))!;
  const frac = m[3] ?? '';
  const exp = Number(m[4] ?? 0);
  const scale = frac.length - exp;
  const digits = BigInt(m[2] + frac);
  return scale >= 0 ? { neg: m[1] === '-', digits, scale } : { neg: m[1] === '-', digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

/** The exact value of a double in decimal digits (its binary fraction written out). */
export function exactDigits(v: number): DecimalDigits {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (biased !== 0) mant |= 1n << 52n;
  const e = (biased === 0 ? 1 : biased) - 1075;
  const neg = bits >> 63n === 1n;
  return e >= 0 ? { neg, digits: mant << BigInt(e), scale: 0 } : { neg, digits: mant * 5n ** BigInt(-e), scale: -e };
}

/** Rounded (or padded) to `scale` digits after the point: HALF_UP (halves away from zero) or HALF_EVEN. */
export function roundDigits(d: DecimalDigits, scale: number, mode: 'HALF_UP' | 'HALF_EVEN'): DecimalDigits {
  if (d.scale <= scale) return { neg: d.neg, digits: d.digits * 10n ** BigInt(scale - d.scale), scale };
  const f = 10n ** BigInt(d.scale - scale);
  let q = d.digits / f;
  const twice = (d.digits % f) * 2n;
  if (twice > f || (twice === f && (mode === 'HALF_UP' || q % 2n === 1n))) q += 1n;
  return { neg: d.neg, digits: q, scale };
}

/** The integer and fraction digit strings of a value (no sign). */
export function splitDigits(d: DecimalDigits): { int: string; frac: string } {
  const s = d.digits.toString().padStart(d.scale + 1, '0');
  return { int: s.slice(0, s.length - d.scale), frac: s.slice(s.length - d.scale) };
}

/** Digits grouped by `size` from the right with `sep` (Java's grouping). */
export function group(int: string, size: number, sep = ','): string {
  if (size <= 0) return int;
  const out: string[] = [];
  for (let end = int.length; end > 0; end -= size) out.unshift(int.slice(Math.max(0, end - size), end));
  return out.join(sep);
}
