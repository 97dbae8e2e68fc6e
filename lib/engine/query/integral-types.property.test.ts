/**
 * Spark's narrower integral types (TINYINT, SMALLINT, INT) through the engine, against an exact
 * oracle: BigInt arithmetic wrapped to the result's width with BigInt.asIntN, as the JVM's byte,
 * short and int arithmetic wraps with ANSI off, at the edges where each width wraps (2^7, 2^15,
 * 2^31); then Spark's typing (literals, typeof, the wider operand's type) and casts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqlValidationError } from './sql-error';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { toLong } from './long';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { eventsQuery } from './testing/events-query';

const WIDTHS = [
  { bits: 8, name: 'tinyint', col: 'b' },
  { bits: 16, name: 'smallint', col: 's' },
  { bits: 32, name: 'int', col: 'i' },
] as const;

const SCHEMA: Schema = [
  { name: 'b', type: 'long', integral: 8 }, { name: 'b2', type: 'long', integral: 8 },
  { name: 's', type: 'long', integral: 16 }, { name: 's2', type: 'long', integral: 16 },
  { name: 'i', type: 'long', integral: 32 }, { name: 'i2', type: 'long', integral: 32 },
  { name: 'l', type: 'long' },
];
const { rel, run } = eventsQuery(SCHEMA);

/** Values of a width clustered at its edges (and 0, ±1). */
function edge(bits: number): fc.Arbitrary<number> {
  const max = 2 ** (bits - 1) - 1;
  const min = -(2 ** (bits - 1));
  return fc.oneof(
    fc.integer({ min: -3, max: 3 }),
    fc.integer({ min: max - 3, max }),
    fc.integer({ min, max: min + 3 }),
    fc.integer({ min, max }),
  );
}

describe('TINYINT, SMALLINT and INT arithmetic (wrapping at their width, ANSI off)', () => {
  for (const w of WIDTHS) {
    it(`${w.name}: +, -, *, %, unary minus and try_add equal the BigInt oracle`, async () => {
      const sql = `SELECT ${w.col} + ${w.col}2 AS add, ${w.col} - ${w.col}2 AS sub, ${w.col} * ${w.col}2 AS mul, ${w.col} % ${w.col}2 AS rem,
        -${w.col} AS neg, try_add(${w.col}, ${w.col}2) AS tadd, try_multiply(${w.col}, ${w.col}2) AS tmul, typeof(${w.col} * ${w.col}2) AS t FROM events`;
      const q = compileStreamingQuery(sql, rel as never);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(edge(w.bits), edge(w.bits)), { minLength: 1, maxLength: 50 }), async (pairs) => {
          let out: Row[] = pairs.map(([a, b]) => ({ [w.col]: a, [`${w.col}2`]: b }));
          for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
          pairs.forEach(([a, b], k) => {
            const [x, y] = [BigInt(a), BigInt(b)];
            const wrap = (v: bigint) => Number(BigInt.asIntN(w.bits, v));
            const fits = (v: bigint) => v === BigInt.asIntN(w.bits, v);
            expect(out[k]).toEqual({
              add: wrap(x + y), sub: wrap(x - y), mul: wrap(x * y), rem: y === 0n ? null : wrap(x % y),
              neg: wrap(-x), tadd: fits(x + y) ? Number(x + y) : null, tmul: fits(x * y) ? Number(x * y) : null, t: w.name,
            });
          });
        }),
        { numRuns: 200 },
      );
    });
  }

  it('takes the wider operand’s type: TINYINT + INT wraps at 32 bits, INT + BIGINT does not', async () => {
    await fc.assert(
      fc.asyncProperty(edge(8), edge(32), edge(32), async (b, i, l) => {
        const [r] = await run('SELECT b + i AS bi, i * l AS il, typeof(b + s) AS bs, typeof(s - i) AS si, typeof(i * l) AS tl FROM events', [{ b, s: 0, i, l }]);
        expect(r).toEqual({
          bi: Number(BigInt.asIntN(32, BigInt(b) + BigInt(i))),
          il: toLong(BigInt(i) * BigInt(l)),
          bs: 'smallint', si: 'int', tl: 'bigint',
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe("Spark's narrower integral types end to end", () => {
  const one = async (sql: string) => (await run(`SELECT ${sql} FROM events`, [{ b: 1, b2: 2, s: 3, s2: 4, i: 5, i2: 6, l: 7 }]))[0];

  it('types literals as Spark: 1Y TINYINT, 1S SMALLINT, 1 INT (BIGINT past 32 bits), 1L BIGINT', async () => {
    expect(await one('typeof(1Y) AS a, typeof(1S) AS b, typeof(1) AS c, typeof(2147483648) AS d, typeof(1L) AS e, typeof(1 / 2) AS f')).toEqual({
      a: 'tinyint', b: 'smallint', c: 'int', d: 'bigint', e: 'bigint', f: 'double',
    });
    expect(() => compileStreamingQuery('SELECT 128Y AS x FROM events', rel as never)).toThrow(/INVALID_NUMERIC_LITERAL_RANGE|outside the valid range for tinyint/);
    expect(() => compileStreamingQuery('SELECT 32768S AS x FROM events', rel as never)).toThrow(SqlValidationError);
  });

  it('wraps as the JVM does with ANSI off (Spark’s non-ANSI results)', async () => {
    expect(await one(`2147483647 + 1 AS a, CAST(127 AS TINYINT) + CAST(1 AS TINYINT) AS b, 127Y + 1Y AS c, -(-128Y) AS d,
      -2147483648 - 1 AS e, 2147483647 * 2 AS f, 32767S + 1S AS g, 2147483647 + 1L AS h, try_add(2147483647, 1) AS i,
      try_subtract(-2147483648, 1) AS j, try_add(2147483647, 1L) AS k`)).toEqual({
      a: -2147483648, b: -128, c: -128, d: -128, e: 2147483647, f: -2, g: -32768, h: 2147483648, i: null, j: null, k: 2147483648,
    });
  });

  it('casts as Spark’s non-ANSI CAST: text out of range is NULL, integers narrow by their low bits', async () => {
    expect(await one(`CAST('2147483648' AS INT) AS a, CAST(2147483648L AS INT) AS b, CAST('128' AS TINYINT) AS c, CAST(128 AS TINYINT) AS d,
      int(3.9D) AS e, smallint(-40000) AS f, tinyint('-128') AS g, typeof(int('1')) AS h, typeof(CAST(1 AS SMALLINT)) AS k,
      typeof(CAST(1Y AS BIGINT)) AS m, CAST(1Y AS INT) + 2147483647 AS n`)).toEqual({
      a: null, b: -2147483648, c: null, d: -128, e: 3, f: 25536, g: -128, h: 'int', k: 'smallint', m: 'bigint', n: -2147483648,
    });
  });

  it('keeps the type through CASE, coalesce, arrays, min and max; sum is a BIGINT', async () => {
    expect(await one(`typeof(CASE WHEN b > 0 THEN b ELSE s END) AS a, typeof(coalesce(i, b)) AS c, typeof(array(b, s)) AS d,
      typeof(coalesce(i, l)) AS e, typeof(size(array(1))) AS f`)).toEqual({
      a: 'smallint', c: 'int', d: 'array<smallint>', e: 'bigint', f: 'int',
    });
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT sum(i) AS c, max(b) AS d, min(s) AS e FROM events', rel as never, 'complete');
    const { output } = await q.runBatch([{ i: 2147483647, b: 1, s: 2 }, { i: 2147483647, b: 127, s: -32768 }]);
    expect(output).toEqual([{ c: 4294967294, d: 127, e: -32768 }]);
    expect(compileStreamingQuery('SELECT sum(i) AS c, max(b) AS d, min(s) AS e, count(b) AS f FROM events', rel as never, { outputMode: 'complete' }).outputSchema).toEqual([
      { name: 'c', type: 'long', nullable: true }, { name: 'd', type: 'long', integral: 8, nullable: true },
      { name: 'e', type: 'long', integral: 16, nullable: true }, { name: 'f', type: 'long', nullable: true },
    ]);
  });

  it('widens to the decimal of its width beside a DECIMAL (INT is DECIMAL(10,0))', async () => {
    expect(await one('typeof(i + 1.5) AS a, typeof(b * 1.5) AS c, typeof(s - 1.5) AS d')).toEqual({
      a: 'decimal(12,1)', c: 'decimal(6,1)', d: 'decimal(7,1)',
    });
  });
});

describe("div (Spark's IntegralDivide, ANSI off)", () => {
  const big = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -5n, max: 5n }), fc.constantFrom(-(2n ** 63n), -1n));
  it('divides integers of any width toward zero as a BIGINT (wrapping at 64 bits), NULL for a zero divisor', async () => {
    const q = compileStreamingQuery('SELECT l div i AS a, i div i2 AS b, b div b2 AS c, typeof(b div b2) AS t, l div l AS d FROM events', rel as never);
    await fc.assert(
      fc.asyncProperty(big, edge(32), edge(32), edge(8), edge(8), async (l, i, i2, b, b2) => {
        let out: Row[] = [{ l: toLong(l), i, i2, b, b2 }];
        for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
        const div = (x: bigint, y: bigint) => (y === 0n ? null : toLong(x / y));
        expect(out[0]).toEqual({ a: div(l, BigInt(i)), b: div(BigInt(i), BigInt(i2)), c: div(BigInt(b), BigInt(b2)), t: 'bigint', d: div(l, l) });
      }),
      { numRuns: 300 },
    );
  });

  it("answers Spark's examples and takes decimals, doubles and NULL as Spark coerces them", async () => {
    const [r] = await run(`SELECT 3 div 2 AS a, div(3, 2) AS b, -7 div 2 AS c, 5 div 0 AS d, 7.5 div 2 AS e, 7.5D div 2 AS f, NULL div 2 AS g,
      (-9223372036854775807L - 1) div -1 AS h, 10.5 div 0.25 AS k, 1.5F div 0.5F AS m, typeof(7.5 div 2) AS n FROM events`, [{}]);
    expect(r).toEqual({ a: 1, b: 1, c: -3, d: null, e: 3, f: 3, g: null, h: -(2n ** 63n), k: 42, m: null, n: 'bigint' });
  });
});

describe('functions that keep an INT, SMALLINT or TINYINT, as Spark types them', () => {
  const roundOracle = (x: bigint, digits: number, halfEven: boolean) => {
    if (digits >= 0) return x;
    const unit = 10n ** BigInt(-digits);
    const sign = x < 0n ? -1n : 1n;
    let q = x / unit;
    const twice = 2n * (x - q * unit) * sign;
    if (twice > unit || (twice === unit && (!halfEven || q % 2n !== 0n))) q += sign;
    return q * unit;
  };
  /** Spark's Pmod in the type's arithmetic: an INT's r + n wraps, a TINYINT's or SMALLINT's is an int. */
  const pmodOracle = (bits: number, x: bigint, n: bigint) => {
    if (n === 0n) return null;
    const r = x % n;
    if (r >= 0n) return Number(r);
    const sum = bits >= 32 ? BigInt.asIntN(bits, r + n) : r + n;
    return Number(BigInt.asIntN(bits, sum % n));
  };

  for (const w of WIDTHS) {
    it(`${w.name}: abs, round, bround, pmod, & | ^ ~ equal the BigInt oracle and keep the type`, async () => {
      const c = w.col;
      const q = compileStreamingQuery(`SELECT abs(${c}) AS abs, round(${c}, -1) AS r1, round(${c}, -3) AS r3, bround(${c}, -1) AS b1, bround(${c}, -2) AS b2,
        pmod(${c}, ${c}2) AS pm, ${c} & ${c}2 AS band, ${c} | ${c}2 AS bor, ${c} ^ ${c}2 AS bxor, ~${c} AS bnot,
        typeof(abs(${c})) AS t1, typeof(round(${c}, -1)) AS t2, typeof(pmod(${c}, ${c}2)) AS t3, typeof(${c} & ${c}2) AS t4, typeof(~${c}) AS t5 FROM events`, rel as never);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(edge(w.bits), edge(w.bits)), { minLength: 1, maxLength: 30 }), async (pairs) => {
          let out: Row[] = pairs.map(([a, b]) => ({ [c]: a, [`${c}2`]: b }));
          for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
          pairs.forEach(([a, b], k) => {
            const [x, y] = [BigInt(a), BigInt(b)];
            const wrap = (v: bigint) => Number(BigInt.asIntN(w.bits, v));
            expect(out[k]).toEqual({
              abs: wrap(x < 0n ? -x : x), r1: wrap(roundOracle(x, -1, false)), r3: wrap(roundOracle(x, -3, false)),
              b1: wrap(roundOracle(x, -1, true)), b2: wrap(roundOracle(x, -2, true)), pm: pmodOracle(w.bits, x, y),
              band: wrap(x & y), bor: wrap(x | y), bxor: wrap(x ^ y), bnot: wrap(~x),
              t1: w.name, t2: w.name, t3: w.name, t4: w.name, t5: w.name,
            });
          });
        }),
        { numRuns: 200 },
      );
    });
  }

  it('shifts an INT (a TINYINT or SMALLINT widened to one) in 32 bits and a BIGINT in 64, the distance taken mod the width', async () => {
    const q = compileStreamingQuery(`SELECT shiftleft(i, i2) AS a, shiftright(i, i2) AS b, shiftrightunsigned(i, i2) AS c, shiftleft(l, i2) AS d,
      shiftright(l, i2) AS e, shiftrightunsigned(l, i2) AS f, l & i AS g, typeof(shiftleft(b, 1)) AS t FROM events`, rel as never);
    await fc.assert(
      fc.asyncProperty(edge(32), fc.integer({ min: -70, max: 70 }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), async (i, n, l) => {
        let out: Row[] = [{ i, i2: n, l: toLong(l), b: 1 }];
        for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
        const [x, s32, s64] = [BigInt(i), BigInt(n & 31), BigInt(n & 63)];
        expect(out[0]).toEqual({
          a: Number(BigInt.asIntN(32, x << s32)), b: Number(x >> s32), c: Number(BigInt.asIntN(32, BigInt.asUintN(32, x) >> s32)),
          d: toLong(l << s64), e: toLong(l >> s64), f: toLong(BigInt.asUintN(64, l) >> s64), g: toLong(l & x), t: 'int',
        });
      }),
      { numRuns: 300 },
    );
  });

  it("answers Spark's examples", async () => {
    const [r] = await run(`SELECT abs(-128Y) AS a, round(127Y, -1) AS b, pmod(10, 3) AS c, pmod(-10, 3) AS d, pmod(-7, -3) AS e, 3 & 5 AS f,
      3 | 5 AS g, 3 ^ 5 AS h, ~0 AS k, shiftleft(2, 1) AS m, shiftright(4, 1) AS n, shiftrightunsigned(4, 1) AS o, bround(25, -1) AS p,
      abs(-2147483648) AS q, negative(-128Y) AS s, typeof(ceil(5Y)) AS t FROM events`, [{}]);
    expect(r).toEqual({ a: -128, b: -126, c: 1, d: 2, e: -1, f: 1, g: 7, h: 6, k: -1, m: 4, n: 2, o: 2, p: 20, q: -2147483648, s: -128, t: 'bigint' });
  });
});
