/**
 * Differential property test of exact decimals: random DECIMAL(p,s) values of up to 38 digits,
 * combined by Weir's SQL pipeline and by DuckDB's DECIMAL, must agree digit for digit.
 * Operand types are drawn so that Spark's result type needs no precision loss (then Spark,
 * DuckDB and Weir all compute the exact value); `/` is a DOUBLE in DuckDB, so Weir's quotient
 * (rounded HALF_UP to Spark's scale) must be within half a unit of its last digit. sum goes
 * through the aggregate function (the state's buffer) and DuckDB's sum of DECIMAL.
 */
import { useDuckDB } from './testing/duckdb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue } from '../state/state-value-codec';
import type { Row, Schema } from '../types';
import { resolveAggregate, update } from './aggregate-functions';
import { formatDecimal, parseDecimal } from './decimal';
import { compileStreamingQuery } from './streaming-query';
import { propertyRuns } from '@/lib/testing/property-runs';

interface Dec {
  precision: number;
  scale: number;
}

const decType = (maxP: number) =>
  fc.integer({ min: 1, max: maxP }).chain((precision) => fc.integer({ min: 0, max: precision }).map((scale): Dec => ({ precision, scale })));

/** A value of type `t` as its text, NULL sometimes. */
const valueOf = (t: Dec) =>
  fc.option(
    fc.tuple(fc.boolean(), fc.stringMatching(new RegExp(`^[0-9]{1,${t.precision}}$`))).map(([neg, digits]) => {
      const d = digits.padStart(t.scale + 1, '0');
      const text = t.scale > 0 ? `${d.slice(0, d.length - t.scale)}.${d.slice(d.length - t.scale)}` : d;
      return neg ? `-${text}` : text;
    }),
    { nil: null, freq: 8 },
  );

/** The exact value as one canonical integer text (at scale 40), so that 1.50, 1.5 and 15E-1 compare equal. */
const canonical = (s: string | null): string | null => (s === null ? null : String(parseDecimal(s, { precision: 80, scale: 40 })));

const duckConn = useDuckDB();

const sqlDec = (v: string | null, t: Dec) => (v === null ? `CAST(NULL AS DECIMAL(${t.precision},${t.scale}))` : `CAST('${v}' AS DECIMAL(${t.precision},${t.scale}))`);

/** Weir's `a op b` over rows of (a, b), as text. */
async function weir(expr: string, ta: Dec, tb: Dec, rows: [string | null, string | null][]): Promise<(string | null)[]> {
  const schema: Schema = [
    { name: 'a', type: 'decimal', ...ta },
    { name: 'b', type: 'decimal', ...tb },
  ];
  const q = compileStreamingQuery(`SELECT ${expr} AS v FROM src`, { kind: 'StreamingRelation', sourceName: 'src', schema });
  let out: Row[] = rows.map(([a, b]) => ({ a: a === null ? null : parseDecimal(a, ta), b: b === null ? null : parseDecimal(b, tb) }));
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  const f = q.outputSchema[0];
  return out.map((r) => (r.v === null ? null : f.type === 'decimal' ? formatDecimal(r.v as bigint, f.scale ?? 0) : String(r.v)));
}

async function duck(expr: string, ta: Dec, tb: Dec, rows: [string | null, string | null][]): Promise<(string | null)[]> {
  const values = rows.map(([a, b], i) => `(${i}, ${sqlDec(a, ta)}, ${sqlDec(b, tb)})`).join(', ');
  const r = await duckConn().runAndReadAll(`SELECT CAST(${expr} AS VARCHAR) AS v FROM (VALUES ${values}) t(rid, a, b) ORDER BY rid`);
  return r.getRowObjects().map((x) => (x.v === null ? null : String(x.v)));
}

const pair = (maxA: number, fit: (a: Dec, b: Dec) => boolean) =>
  fc
    .tuple(decType(maxA), decType(maxA))
    .filter(([a, b]) => fit(a, b))
    .chain(([a, b]) => fc.tuple(fc.constant(a), fc.constant(b), fc.array(fc.tuple(valueOf(a), valueOf(b)), { minLength: 1, maxLength: 20 })));

describe('exact decimals vs DuckDB DECIMAL', () => {
  for (const op of ['+', '-', '%'] as const) {
    it(`a ${op} b agrees digit for digit (up to 38 digits)`, async () => {
      // + and -: Spark's result precision max(p1-s1, p2-s2) + max(s1, s2) + 1 within 38.
      const fits = (a: Dec, b: Dec) => Math.max(a.precision - a.scale, b.precision - b.scale) + Math.max(a.scale, b.scale) + 1 <= 38;
      await fc.assert(
        fc.asyncProperty(pair(37, fits), async ([ta, tb, rows]) => {
          // x % 0 is NULL in Spark and an error in DuckDB.
          // DuckDB types a + b with max(p1, p2) + 1 digits (fewer integer digits than Spark): widen first.
          const w = `DECIMAL(38,${Math.max(ta.scale, tb.scale)})`;
          const dk = op === '%' ? '(a % NULLIF(b, 0))' : `(CAST(a AS ${w}) ${op} CAST(b AS ${w}))`;
          expect((await weir(`a ${op} b`, ta, tb, rows)).map(canonical)).toEqual((await duck(dk, ta, tb, rows)).map(canonical));
        }),
        { numRuns: propertyRuns(30, 120), seed: 3801 + op.charCodeAt(0) },
      );
    });
  }

  it('a * b agrees digit for digit', async () => {
    await fc.assert(
      fc.asyncProperty(pair(36, (a, b) => a.precision + b.precision + 1 <= 38), async ([ta, tb, rows]) => {
        expect((await weir('a * b', ta, tb, rows)).map(canonical)).toEqual((await duck('(a * b)', ta, tb, rows)).map(canonical));
      }),
      { numRuns: propertyRuns(30, 120), seed: 3802 },
    );
  });

  it('comparisons across scales agree', async () => {
    await fc.assert(
      fc.asyncProperty(pair(38, () => true), fc.constantFrom('=', '<', '>=', '<>'), async ([ta, tb, rows], cmp) => {
        const w = await weir(`a ${cmp} b`, ta, tb, rows);
        const d = (await duck(`(a ${cmp} b)`, ta, tb, rows)).map((v) => (v === null ? null : String(v === 'true')));
        expect(w).toEqual(d);
      }),
      { numRuns: propertyRuns(30, 120), seed: 3803 },
    );
  });

  it('a / b is within half a unit of its last digit of the true quotient', async () => {
    await fc.assert(
      fc.asyncProperty(pair(18, () => true), async ([ta, tb, rows]) => {
        const q = compileStreamingQuery('SELECT a / b AS v FROM src', {
          kind: 'StreamingRelation', sourceName: 'src', schema: [{ name: 'a', type: 'decimal', ...ta }, { name: 'b', type: 'decimal', ...tb }],
        });
        const scale = q.outputSchema[0].scale ?? 0;
        const w = await weir('a / b', ta, tb, rows);
        const d = await duck('(a / NULLIF(b, 0))', ta, tb, rows);
        w.forEach((v, i) => {
          if (d[i] === null) return expect(v).toBeNull();
          const exact = Number(d[i]);
          expect(Math.abs(Number(v) - exact)).toBeLessThanOrEqual(0.5 * 10 ** -scale + 1e-12 * Math.abs(exact));
        });
      }),
      { numRuns: propertyRuns(25, 100), seed: 3804 },
    );
  });

  it('sum is exact, through the state codec, as DuckDB sums DECIMAL', async () => {
    await fc.assert(
      fc.asyncProperty(
        decType(28).chain((t) => fc.tuple(fc.constant(t), fc.array(valueOf(t), { minLength: 1, maxLength: 40 }))),
        async ([t, values]) => {
          const fn = resolveAggregate({ name: 'sum', args: [{ type: 'decimal', decimal: t }], star: false, distinct: false }, 'sum(a)');
          expect(fn.resultDecimal).toEqual({ precision: t.precision + 10, scale: t.scale });
          let buf = fn.init();
          for (const v of values) buf = decodeValue(encodeValue(update(fn.op, buf, v === null ? null : parseDecimal(v, t))));
          const r = fn.result(buf);
          const w = r === null ? null : formatDecimal(r as bigint, t.scale);
          const rows = values.map((v, i) => `(${i}, ${sqlDec(v, t)})`).join(', ');
          const dk = await duckConn().runAndReadAll(`SELECT CAST(sum(a) AS VARCHAR) AS v FROM (VALUES ${rows}) t(rid, a)`);
          const dv = dk.getRowObjects()[0].v;
          expect(canonical(w)).toEqual(canonical(dv === null ? null : String(dv)));
        },
      ),
      { numRuns: propertyRuns(25, 100), seed: 3805 },
    );
  });

  it('can tell a wrong answer apart (the comparison is not vacuous)', async () => {
    const t = { precision: 3, scale: 1 };
    expect((await weir('a + b', t, t, [['1.5', '2.0']])).map(canonical)).not.toEqual((await duck('(a - b)', t, t, [['1.5', '2.0']])).map(canonical));
  });
});
