/**
 * Spark's bit_and, bit_or and bit_xor aggregates (BitAndAgg …), beside the operators `&`, `|`,
 * `^` whose calls no longer share their names: Spark's examples, a hand loop as the oracle over
 * random BIGINTs (past 2^53 and negative too, NULLs skipped) split over batches with a restart
 * between (the buffer goes through state), and the types Spark gives.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { Row } from '../types';
import type { StreamingRelation } from './logical-plan';
import { runInBatches, StatefulQueryRunner } from './testing/stateful-test-harness';

const rel: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 't',
  schema: [
    { name: 'n', type: 'long' },
    { name: 'i', type: 'long', integral: 32 },
    { name: 'x', type: 'double' },
    { name: 'g', type: 'string' },
  ],
};

const run = async (sql: string, rows: Row[], batches = 1): Promise<Row[]> => (await runInBatches(sql, rel, rows, batches)).output;

const ns = (...v: (number | bigint | null)[]) => v.map((n) => ({ n }));

/** A seeded generator (mulberry32), so that a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("Spark's bit aggregates", () => {
  it.each([
    ['bit_and(n)', ns(3, 5), 1],
    ['bit_or(n)', ns(3, 5), 7],
    ['bit_xor(n)', ns(3, 5), 6],
    ['bit_and(n)', ns(null, 6, null, 3), 2],
    ['bit_or(n)', ns(null, null), null],
    ['bit_xor(n)', ns(-1, 1), -2],
  ] as const)('%s over %j is %j', async (call, rows, expected) => {
    const out = await run(`SELECT ${call} AS v FROM t`, [...rows]);
    expect(out).toEqual([{ v: expected }]);
  });

  it('the operators & | ^ ~ still work beside them, in one query', async () => {
    const out = await run('SELECT bit_and(n) AS a, bit_or(n & 6) AS o, bit_xor(n ^ 1) AS x, max(~n | 0) AS m FROM t', ns(3, 5, 7));
    // n & 6: 2, 4, 6 (or 6); n ^ 1: 2, 4, 6 (xor 0); ~n: -4, -6, -8.
    expect(out).toEqual([{ a: 1, o: 6, x: 0, m: -4 }]);
  });

  it('give what a hand loop gives, per group, over batches and restarts', async () => {
    const next = random(42);
    const big = () => BigInt.asIntN(64, (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32)));
    const rows: Row[] = Array.from({ length: 300 }, () => {
      const r = next();
      const n = r < 0.1 ? null : r < 0.4 ? Math.floor(next() * 2000) - 1000 : big();
      return { g: `g${Math.floor(next() * 5)}`, n: typeof n === 'bigint' && n >= -(2n ** 53n) && n <= 2n ** 53n ? Number(n) : n };
    });
    const expected = new Map<string, { and: bigint | null; or: bigint | null; xor: bigint | null }>();
    for (const row of rows) {
      const e = expected.get(row.g as string) ?? { and: null, or: null, xor: null };
      expected.set(row.g as string, e);
      if (row.n === null) continue;
      const v = BigInt(row.n as number | bigint);
      e.and = e.and === null ? v : e.and & v;
      e.or = e.or === null ? v : e.or | v;
      e.xor = e.xor === null ? v : e.xor ^ v;
    }
    const out = await run('SELECT g, bit_and(n) AS a, bit_or(n) AS o, bit_xor(n) AS x FROM t GROUP BY g', rows, 4);
    const asBig = (v: unknown) => (v === null ? null : BigInt(v as number | bigint));
    const got = Object.fromEntries(out.map((r) => [r.g, { and: asBig(r.a), or: asBig(r.o), xor: asBig(r.x) }]));
    expect(got).toEqual(Object.fromEntries(expected));
  });

  it('keep an INT an INT, and refuse a double as Spark does', async () => {
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT bit_or(i) AS v, bit_and(n) AS w FROM t', rel, 'complete');
    expect(q.outputSchema().map((f) => [f.name, f.type, f.integral])).toEqual([['v', 'long', 32], ['w', 'long', undefined]]);
    expect(await run('SELECT bit_or(i) AS v FROM t', [{ i: 1 }, { i: -2147483648 }])).toEqual([{ v: -2147483647 }]);
    await expect(run('SELECT bit_and(x) AS v FROM t', [{ x: 1 }])).rejects.toThrow(/bit_and\(\) needs an integer argument/);
  });
});
