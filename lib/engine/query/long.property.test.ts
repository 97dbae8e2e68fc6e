/**
 * BIGINT arithmetic against an exact oracle: BigInt with Java's 64-bit wrap (BigInt.asIntN), at
 * the edges where doubles stop being exact (2^53) and where 64 bits wrap (2^63).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import {
  bigOf, LONG_MAX, LONG_MIN, longAdd, longDivide, longFromDouble, longMultiply, longNegate, longRemainder, longSubtract, parseLong, toLong, type Long,
} from './long';
import { eventsQuery } from './testing/events-query';

const wrap = (b: bigint) => BigInt.asIntN(64, b);
/** Values clustered at the edges: small, near ±2^31, ±2^53 and ±2^63. */
const edge = fc.oneof(
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.bigInt({ min: 2n ** 31n - 5n, max: 2n ** 31n + 5n }).map((b) => b),
  fc.bigInt({ min: 2n ** 53n - 5n, max: 2n ** 53n + 5n }),
  fc.bigInt({ min: -(2n ** 53n) - 5n, max: -(2n ** 53n) + 5n }),
  fc.bigInt({ min: LONG_MAX - 5n, max: LONG_MAX }),
  fc.bigInt({ min: LONG_MIN, max: LONG_MIN + 5n }),
  fc.bigInt({ min: LONG_MIN, max: LONG_MAX }),
);
const long = edge.map(toLong);
/** One representation per value: a number exactly when it is a safe integer. */
const canonical = (v: Long) => (typeof v === 'number' ? Number.isSafeInteger(v) : v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER));

describe('BIGINT arithmetic (exact, wrapping at 64 bits)', () => {
  it('+, -, *, %, div and unary minus equal the BigInt oracle, in one representation', () => {
    fc.assert(
      fc.property(long, long, (a, b) => {
        const [x, y] = [bigOf(a), bigOf(b)];
        const results: [Long | null, bigint | null][] = [
          [longAdd(a, b), wrap(x + y)],
          [longSubtract(a, b), wrap(x - y)],
          [longMultiply(a, b), wrap(x * y)],
          [longRemainder(a, b), y === 0n ? null : wrap(x % y)],
          [longDivide(a, b), y === 0n ? null : wrap(x / y)],
          [longNegate(a), wrap(-x)],
        ];
        for (const [got, want] of results) {
          if (want === null) expect(got).toBeNull();
          else {
            expect(canonical(got!)).toBe(true);
            expect(bigOf(got!)).toBe(want);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('parses every BIGINT exactly and refuses the rest (non-ANSI CAST: NULL)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: LONG_MIN * 2n, max: LONG_MAX * 2n }), (b) => {
        const got = parseLong(` ${b.toString()} `);
        if (b < LONG_MIN || b > LONG_MAX) expect(got).toBeNull();
        else expect(bigOf(got!)).toBe(b);
      }),
    );
    expect(parseLong('12.9')).toBe(12);
    expect(parseLong('-0')).toBe(0);
    expect(parseLong('1e3')).toBeNull();
  });

  it('casts doubles as the JVM does: truncated, saturated, NaN is 0', () => {
    expect(longFromDouble(1e30)).toBe(LONG_MAX);
    expect(longFromDouble(-1e30)).toBe(LONG_MIN);
    expect(longFromDouble(Number.NaN)).toBe(0);
    expect(longFromDouble(-2.7)).toBe(-2);
    expect(longFromDouble(2 ** 60)).toBe(2n ** 60n);
  });
});

const SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 'n', type: 'long' },
];
const { rel, run } = eventsQuery(SCHEMA);

describe('BIGINT through the engine', () => {
  it('keeps every digit of a 64-bit value in CAST, literals and arithmetic (Spark non-ANSI)', async () => {
    const [r] = await run(
      `SELECT CAST('9223372036854775807' AS BIGINT) AS max, 9223372036854775807 + 1 AS wrapped, id + 1 AS next, id * 2 AS twice,
              CAST(id AS STRING) AS text, CAST('9223372036854775808' AS BIGINT) AS too_big, -id AS neg, id / 2 AS half
         FROM events`,
      [{ id: 2n ** 62n + 1n, n: 1 }],
    );
    expect(r).toEqual({
      max: 9223372036854775807n,
      wrapped: -9223372036854775808n,
      next: 2n ** 62n + 2n,
      twice: wrap((2n ** 62n + 1n) * 2n),
      text: '4611686018427387905',
      too_big: null,
      neg: -(2n ** 62n) - 1n,
      half: 2 ** 61,
    });
  });

  it('compares, filters and groups 64-bit ids exactly', async () => {
    const a = 1234567890123456789n;
    const out = await run(`SELECT id, id = 1234567890123456789 AS is_a, id > 9007199254740993 AS big FROM events WHERE id <> 1234567890123456788`, [
      { id: a, n: 1 },
      { id: a - 1n, n: 2 },
      { id: 5, n: 3 },
    ]);
    expect(out).toEqual([
      { id: a, is_a: true, big: true },
      { id: 5, is_a: false, big: false },
    ]);
  });
});

describe('BIGINT aggregates (exact across batches and a restart)', () => {
  it('sum, min, max, count and avg of 64-bit values equal the BigInt oracle', async () => {
    const { InMemoryCheckpointFileManager } = await import('../checkpoint/in-memory-checkpoint-file-manager');
    const { StatefulQueryRunner } = await import('./testing/stateful-test-harness');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.record({ id: fc.integer({ min: 0, max: 2 }), n: fc.oneof(fc.constant(null), long) }), { maxLength: 30 }), { minLength: 1, maxLength: 4 }),
        async (batches) => {
          const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT id, sum(n) AS s, min(n) AS lo, max(n) AS hi, count(n) AS c, avg(n) AS a FROM events GROUP BY id', rel, 'complete');
          let out: Row[] = [];
          for (const [i, b] of batches.entries()) {
            if (i === 2) q.restart();
            out = (await q.runBatch(b)).output;
          }
          const all = batches.flat();
          for (const id of new Set(all.map((r) => r.id))) {
            const ns = all.filter((r) => r.id === id && r.n !== null).map((r) => bigOf(r.n as Long));
            const row = out.find((r) => r.id === id)!;
            if (ns.length === 0) {
              expect(row).toMatchObject({ s: null, lo: null, hi: null, c: 0, a: null });
              continue;
            }
            const sum = ns.reduce((x, y) => x + y, 0n);
            expect(bigOf(row.s as Long)).toBe(wrap(sum));
            expect(canonical(row.s as Long)).toBe(true);
            expect(row.lo).toBe(toLong(ns.reduce((x, y) => (y < x ? y : x))));
            expect(row.hi).toBe(toLong(ns.reduce((x, y) => (y > x ? y : x))));
            expect(row.c).toBe(ns.length);
            expect(typeof row.a).toBe('number');
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps a sum of safe longs exact once it passes 2^53 (the columnar fold hands over)', async () => {
    const { InMemoryCheckpointFileManager } = await import('../checkpoint/in-memory-checkpoint-file-manager');
    const { StatefulQueryRunner } = await import('./testing/stateful-test-harness');
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT id, sum(n) AS s FROM events GROUP BY id', rel, 'complete');
    const big = Number.MAX_SAFE_INTEGER; // 2^53 - 1
    const out = (await q.runBatch([{ id: 1, n: big }, { id: 1, n: 2 }, { id: 1, n: 3 }])).output;
    expect(out).toEqual([{ id: 1, s: 2n ** 53n + 4n }]);
  });
});

describe('BIGINT in functions', () => {
  it('passes a 64-bit value through exactly, and gives other functions its nearest double', async () => {
    const id = 1234567890123456789n;
    const [r] = await run(
      `SELECT abs(-id) AS a, coalesce(NULL, id) AS c, greatest(id, 5) AS g, if(true, id, 0) AS i, positive(id) AS p,
              concat('#', id) AS s, sqrt(id) AS q, id % 10 AS m, abs(-9223372036854775807 - 1) AS wrapped
         FROM events`,
      [{ id, n: 1 }],
    );
    expect(r).toEqual({ a: id, c: id, g: id, i: id, p: id, s: '#1234567890123456789', q: Math.sqrt(Number(id)), m: 9, wrapped: -(2n ** 63n) });
  });
});

describe('try_ arithmetic on BIGINT', () => {
  it('is exact within 64 bits and NULL past them', async () => {
    const [r] = await run(`SELECT try_add(id, 1) AS a, try_add(9223372036854775807, id) AS o, try_multiply(id, 4) AS m, try_subtract(-id, 5) AS s FROM events`, [{ id: 2n ** 61n + 3n, n: 1 }]);
    expect(r).toEqual({ a: 2n ** 61n + 4n, o: null, m: null, s: -(2n ** 61n) - 8n });
  });
});

describe('CAST to INT, SMALLINT and TINYINT (Spark, ANSI off)', () => {
  it('narrows a BIGINT to its low bits and refuses text out of range, as Spark does', async () => {
    await fc.assert(
      fc.asyncProperty(long, async (id) => {
        const [r] = await run('SELECT CAST(id AS INT) AS i, CAST(id AS SMALLINT) AS s, CAST(id AS TINYINT) AS t, CAST(CAST(id AS STRING) AS INT) AS fromText FROM events', [{ id, n: 1 }]);
        const b = bigOf(id);
        expect(r).toEqual({
          i: Number(BigInt.asIntN(32, b)),
          s: Number(BigInt.asIntN(16, b)),
          t: Number(BigInt.asIntN(8, b)),
          fromText: b >= -(2n ** 31n) && b < 2n ** 31n ? Number(b) : null,
        });
      }),
      { numRuns: 300 },
    );
    const [r] = await run(`SELECT CAST('2147483648' AS INT) AS a, CAST(2147483648 AS INT) AS b, CAST(1e10 AS INT) AS c, CAST(-1e10 AS SMALLINT) AS d, CAST(' 12.7 ' AS TINYINT) AS e, CAST(300 AS TINYINT) AS f FROM events`, [{ id: 1, n: 1 }]);
    expect(r).toEqual({ a: null, b: -2147483648, c: 2147483647, d: 0, e: 12, f: 44 });
  });
});

describe('typeof()', () => {
  it("answers Spark's simpleString of the argument's type", async () => {
    const [r] = await run("SELECT typeof(id) AS a, typeof(1.50) AS b, typeof(NULL) AS c, typeof(array(1, 2)) AS d, typeof(from_json('{}', 'x STRING')) AS e, typeof(map('k', 1.5D)) AS f FROM events", [{ id: 1, n: 1 }]);
    expect(r).toEqual({ a: 'bigint', b: 'decimal(3,2)', c: 'void', d: 'array<int>', e: 'struct<x:string>', f: 'map<string,double>' });
  });
});

describe("type errors carry Spark's DATATYPE_MISMATCH classes", () => {
  const refusal = (sql: string) => {
    try {
      compileStreamingQuery(sql, rel as never);
    } catch (e) {
      return e as { errorClass?: string; message: string };
    }
    throw new Error('compiled');
  };
  it('names the subclass, with Spark’s text and Weir’s sentence', () => {
    expect(refusal("SELECT id = CAST('a' AS BINARY) AS x FROM events")).toMatchObject({
      errorClass: 'DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES',
      message: expect.stringMatching(/^Cannot resolve ".*" due to data type mismatch: the left and right operands of the binary operator have incompatible types \("BIGINT" and "BINARY"\)\. Cannot compare long with binary/),
    });
    // Spark's BinaryOperator checks that the operands have one type, then that type.
    expect(refusal("SELECT id + array(1) AS x FROM events")).toMatchObject({
      errorClass: 'DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES',
      message: expect.stringMatching(/incompatible types \("BIGINT" and "ARRAY<INT>"\)\. Operator \+ needs numbers/),
    });
    expect(refusal("SELECT array(1) + array(2) AS x FROM events")).toMatchObject({
      errorClass: 'DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE',
      message: expect.stringMatching(/requires the input type "NUMERIC", not "ARRAY<INT>"\. Operator \+ needs numbers/),
    });
    expect(refusal("SELECT CAST(DATE '2024-01-01' AS INT) AS x FROM events")).toMatchObject({
      errorClass: 'DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION',
      message: expect.stringMatching(/^Cannot resolve "CAST\(DATE '2024-01-01' AS INT\)" due to data type mismatch: cannot cast "DATE" to "INT"\./),
    });
  });
});

describe('BIGINT past 2^53 in the other aggregates', () => {
  it('try_sum is exact, stddev and collect_list take the value', async () => {
    const { InMemoryCheckpointFileManager } = await import('../checkpoint/in-memory-checkpoint-file-manager');
    const { StatefulQueryRunner } = await import('./testing/stateful-test-harness');
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT id, try_sum(n) AS s, stddev_pop(n) AS sd, collect_list(n) AS l FROM events GROUP BY id', rel, 'complete');
    const big = 2n ** 60n;
    const out = (await q.runBatch([{ id: 1, n: big }, { id: 1, n: big }, { id: 1, n: 2n ** 62n }, { id: 1, n: 2n ** 62n }])).output;
    expect(out).toEqual([{ id: 1, s: null, sd: expect.any(Number), l: [big, big, 2n ** 62n, 2n ** 62n] }]);
    const q2 = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT id, try_sum(n) AS s FROM events GROUP BY id', rel, 'complete');
    expect((await q2.runBatch([{ id: 1, n: big }, { id: 1, n: 3 }])).output).toEqual([{ id: 1, s: big + 3n }]);
  });
});
