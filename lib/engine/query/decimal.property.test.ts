/**
 * DECIMAL arithmetic through SQL against an exact oracle written apart from decimal.ts: BigInt
 * rationals, Spark's result types (DecimalPrecision with allowPrecisionLoss, the default) and
 * Spark's rounding (java.math.BigDecimal: `*` to 38 significant digits, `/` to 38 places, both
 * HALF_UP, then changePrecision to the result type; NULL when the result does not fit), and its
 * rounding functions (RoundBase: round, bround, ceil and floor with a scale). Inputs
 * cluster at the edges: precision 38, the largest value of a precision, scales 0 and p.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../types';
import { eventsQuery } from './testing/events-query';

const MAX = 38;
const pow10 = (n: number) => 10n ** BigInt(n);
const abs = (x: bigint) => (x < 0n ? -x : x);

/** n/d rounded half up (away from zero at .5) to an integer. */
function roundHalfUp(n: bigint, d: bigint): bigint {
  if (d < 0n) [n, d] = [-n, -d];
  const q = abs(n) / d;
  const r = abs(n) % d;
  const m = 2n * r >= d ? q + 1n : q;
  return n < 0n ? -m : m;
}

/** A value n/d as unscaled at `scale`, half up. */
const atScale = (n: bigint, d: bigint, scale: number) => roundHalfUp(n * pow10(scale), d);

interface T { p: number; s: number }
/** Spark's DecimalType.adjustPrecisionScale (allowPrecisionLoss = true). */
function adjust(p: number, s: number): T {
  if (p <= MAX) return { p, s };
  const intDigits = p - s;
  return { p: MAX, s: Math.max(MAX - intDigits, Math.min(s, 6)) };
}
/** Spark's DecimalPrecision result types. */
function resultOf(op: string, a: T, b: T): T {
  switch (op) {
    case '+': case '-': return adjust(Math.max(a.p - a.s, b.p - b.s) + Math.max(a.s, b.s) + 1, Math.max(a.s, b.s));
    case '*': return adjust(a.p + b.p + 1, a.s + b.s);
    case '/': { const s = Math.max(6, a.s + b.p + 1); return adjust(a.p - a.s + b.s + s, s); }
    default: { const s = Math.max(a.s, b.s); return adjust(Math.min(a.p - a.s, b.p - b.s) + s, s); }
  }
}

const digits = (x: bigint) => abs(x).toString().length;

/** The oracle: `x op y` (unscaled at their types) as unscaled at the result type, or null. */
function oracle(op: string, x: bigint, a: T, y: bigint, b: T): { t: T; v: bigint | null } {
  const t = resultOf(op, a, b);
  // Each operand as a rational n / 10^s.
  let n: bigint;
  let d: bigint;
  switch (op) {
    case '+': n = x * pow10(b.s) + y * pow10(a.s); d = pow10(a.s + b.s); break;
    case '-': n = x * pow10(b.s) - y * pow10(a.s); d = pow10(a.s + b.s); break;
    case '*': {
      // The exact product at scale a.s + b.s, rounded to 38 significant digits.
      let v = x * y;
      let s = a.s + b.s;
      const extra = digits(v) - MAX;
      if (extra > 0) { v = roundHalfUp(v, pow10(extra)); s -= extra; }
      n = v; d = s >= 0 ? pow10(s) : 1n;
      if (s < 0) n = v * pow10(-s);
      break;
    }
    case '/': {
      if (y === 0n) return { t, v: null };
      // The quotient to 38 places, half up.
      n = roundHalfUp(x * pow10(b.s) * pow10(MAX), y * pow10(a.s)); d = pow10(MAX);
      break;
    }
    default: {
      if (y === 0n) return { t, v: null };
      const s = Math.max(a.s, b.s);
      const xs = x * pow10(s - a.s);
      const ys = y * pow10(s - b.s);
      n = xs - (xs / ys) * ys; // truncated remainder: the dividend's sign, as Java's
      d = pow10(s);
    }
  }
  const v = atScale(n, d, t.s);
  return { t, v: digits(v) > t.p ? null : v };
}

/** Floor division (toward -∞) by a positive divisor: written apart from decimal.ts's truncating one. */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}
type Mode = 'HALF_UP' | 'HALF_EVEN' | 'CEILING' | 'FLOOR';
const ROUNDINGS: [string, Mode][] = [['round', 'HALF_UP'], ['bround', 'HALF_EVEN'], ['ceil', 'CEILING'], ['floor', 'FLOOR']];
/** a / b (b > 0) rounded to an integer by `mode`. */
function roundedDiv(mode: Mode, a: bigint, b: bigint): bigint {
  const f = floorDiv(a, b);
  const r = a - f * b;
  if (r === 0n) return f;
  switch (mode) {
    case 'FLOOR': return f;
    case 'CEILING': return f + 1n;
    case 'HALF_UP': return a < 0n ? -floorDiv(2n * -a + b, 2n * b) : floorDiv(2n * a + b, 2n * b);
    case 'HALF_EVEN': return 2n * r > b || (2n * r === b && f % 2n !== 0n) ? f + 1n : f;
  }
}
/**
 * Spark's RoundBase over DECIMAL(p,s) at d digits (mathExpressions.scala): DECIMAL(min(p - s + 1 +
 * min(s, d), 38), min(s, d)), or for d < 0 DECIMAL(min(max(p - s + 1, 1 - d), 38), 0); the value
 * x / 10^s rounded at 10^-d by `mode`, NULL when it does not fit.
 */
function roundingOracle(mode: Mode, x: bigint, a: T, d: number): { t: T; v: bigint | null } {
  const t = d < 0 ? { p: Math.min(Math.max(a.p - a.s + 1, 1 - d), MAX), s: 0 } : { p: Math.min(a.p - a.s + 1 + Math.min(a.s, d), MAX), s: Math.min(a.s, d) };
  const k = d < 0 ? d : t.s;
  // x / 10^s at scale k: x * 10^k / 10^s, as unscaled at scale k, then at the type's scale 0 for d < 0.
  const atK = k >= a.s ? x * pow10(k - a.s) : roundedDiv(mode, x, pow10(a.s - k));
  const v = d < 0 ? atK * pow10(-d) : atK;
  return { t, v: digits(v) > t.p ? null : v };
}

const type = fc.integer({ min: 1, max: MAX }).chain((p) => fc.oneof(fc.constant(0), fc.constant(p), fc.integer({ min: 0, max: p })).map((s) => ({ p, s })));
/** An unscaled value that fits `t`: small, the largest, or any. */
const valueOf = (t: T) => {
  const top = pow10(t.p) - 1n;
  const small = top < 100n ? top : 100n;
  return fc.oneof(fc.bigInt({ min: -small, max: small }), fc.constantFrom(top, -top, 0n), fc.bigInt({ min: top - 1000n > -top ? top - 1000n : -top, max: top }), fc.bigInt({ min: -top, max: top }));
};
const operand = type.chain((t) => valueOf(t).map((v) => ({ t, v })));

const text = (v: bigint, s: number) => {
  const d = abs(v).toString().padStart(s + 1, '0');
  return `${v < 0n ? '-' : ''}${s === 0 ? d : `${d.slice(0, -s)}.${d.slice(-s)}`}`;
};

const SCHEMA: Schema = [{ name: 'a', type: 'string' }, { name: 'b', type: 'string' }];
const { run } = eventsQuery(SCHEMA);

describe('DECIMAL arithmetic against an exact oracle', () => {
  it('+ - * / % give Spark’s result type and value (NULL past the precision), at the edges of 38 digits', async () => {
    await fc.assert(
      fc.asyncProperty(operand, operand, async (x, y) => {
        const [ca, cb] = [`CAST(a AS DECIMAL(${x.t.p},${x.t.s}))`, `CAST(b AS DECIMAL(${y.t.p},${y.t.s}))`];
        const ops = ['+', '-', '*', '/', '%'];
        const sql = `SELECT ${ops.map((op, i) => `${ca} ${op} ${cb} AS r${i}, typeof(${ca} ${op} ${cb}) AS t${i}`).join(', ')} FROM events`;
        const [row] = await run(sql, [{ a: text(x.v, x.t.s), b: text(y.v, y.t.s) }]);
        ops.forEach((op, i) => {
          const want = oracle(op, x.v, x.t, y.v, y.t);
          const what = `${text(x.v, x.t.s)} ${op} ${text(y.v, y.t.s)} as decimal(${x.t.p},${x.t.s}) ${op} decimal(${y.t.p},${y.t.s})`;
          expect(row[`t${i}`], what).toBe(`decimal(${want.t.p},${want.t.s})`);
          expect(row[`r${i}`], what).toBe(want.v);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('round, bround, ceil and floor at d digits give Spark’s RoundBase type and value', async () => {
    await fc.assert(
      fc.asyncProperty(operand, fc.integer({ min: -6, max: 8 }), async (x, d) => {
        const ca = `CAST(a AS DECIMAL(${x.t.p},${x.t.s}))`;
        const sql = `SELECT ${ROUNDINGS.map(([f], i) => `${f}(${ca}, ${d}) AS r${i}, typeof(${f}(${ca}, ${d})) AS t${i}`).join(', ')} FROM events`;
        const [row] = await run(sql, [{ a: text(x.v, x.t.s), b: '0' }]);
        ROUNDINGS.forEach(([f, mode], i) => {
          const want = roundingOracle(mode, x.v, x.t, d);
          const what = `${f}(${text(x.v, x.t.s)} as decimal(${x.t.p},${x.t.s}), ${d})`;
          expect(row[`t${i}`], what).toBe(`decimal(${want.t.p},${want.t.s})`);
          expect(row[`r${i}`], what).toBe(want.v);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('the oracle is itself right on Spark’s documented cases', () => {
    // Spark's examples: bround(2.5, 0) → 2, ceil(3.1411, 3) → 3.142, ceil(3.1411, -3) → 1000, floor(3.1411, -3) → 0, round(2.5, 0) → 3.
    expect(roundingOracle('HALF_EVEN', 25n, { p: 2, s: 1 }, 0)).toEqual({ t: { p: 2, s: 0 }, v: 2n });
    expect(roundingOracle('CEILING', 31411n, { p: 5, s: 4 }, 3)).toEqual({ t: { p: 5, s: 3 }, v: 3142n });
    expect(roundingOracle('CEILING', 31411n, { p: 5, s: 4 }, -3)).toEqual({ t: { p: 4, s: 0 }, v: 1000n });
    expect(roundingOracle('FLOOR', 31411n, { p: 5, s: 4 }, -3)).toEqual({ t: { p: 4, s: 0 }, v: 0n });
    expect(roundingOracle('HALF_UP', 25n, { p: 2, s: 1 }, 0)).toEqual({ t: { p: 2, s: 0 }, v: 3n });
    // Spark: SELECT CAST(1 AS DECIMAL(38,18)) / CAST(3 AS DECIMAL(38,18)) → 0.333333 (decimal(38,6)).
    expect(oracle('/', 10n ** 18n, { p: 38, s: 18 }, 3n * 10n ** 18n, { p: 38, s: 18 })).toEqual({ t: { p: 38, s: 6 }, v: 333333n });
    // 2 % 1.8 = 0.2 (decimal(2,1)).
    expect(oracle('%', 2n, { p: 1, s: 0 }, 18n, { p: 2, s: 1 })).toEqual({ t: { p: 2, s: 1 }, v: 2n });
    // 99999999999999999999999999999999999999 + 1 overflows decimal(38,0) → NULL.
    expect(oracle('+', pow10(38) - 1n, { p: 38, s: 0 }, 1n, { p: 1, s: 0 }).v).toBeNull();
  });
});
