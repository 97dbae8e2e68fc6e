/**
 * Spark's bitmap functions (3.5) and count_min_sketch: the bytes Spark gives (its examples, and
 * sketches Spark's own CountMinSketch serialized), the same bytes when the rows come over
 * several batches with restarts between (the buffer goes through state), NULLs skipped, the
 * types Spark gives and its errors.
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../types';
import type { StreamingRelation } from './logical-plan';
import { select } from './testing/spark-printed';
import { runInBatches, type StatefulQueryRunner } from './testing/stateful-test-harness';

const rel: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 't',
  schema: [
    { name: 'g', type: 'string' },
    { name: 'n', type: 'long' },
    { name: 'i', type: 'long', integral: 32 },
    { name: 's', type: 'string' },
    { name: 'b', type: 'binary' },
    { name: 'x', type: 'double' },
  ],
};

async function run(sql: string, rows: Row[], batches = 1): Promise<{ out: Row[]; runner: StatefulQueryRunner }> {
  const { output: out, runner } = await runInBatches(sql, rel, rows, batches);
  return { out, runner };
}

const hex = (b: unknown) => Buffer.from(b as Uint8Array).toString('hex').toUpperCase();
const bytes = (...b: number[]) => new Uint8Array(b);

describe('bitmap_bucket_number, bitmap_bit_position, bitmap_count', () => {
  it.each([
    ['bitmap_bucket_number(1)', 1], ['bitmap_bucket_number(32768)', 1], ['bitmap_bucket_number(32769)', 2],
    ['bitmap_bucket_number(-1)', 0], ['bitmap_bucket_number(-32768)', -1], ['bitmap_bucket_number(-32769)', -1],
    ['bitmap_bit_position(32768)', 32767], ['bitmap_bit_position(32769)', 0], ['bitmap_bit_position(0)', 0], ['bitmap_bit_position(-1)', 1],
    ['bitmap_bit_position(-32768)', 0],
    // Past 2^53, exactly; Long.MIN_VALUE's negation overflows in Java to itself, a multiple of 32768.
    ['bitmap_bucket_number(9223372036854775807)', 281474976710656], ['bitmap_bit_position(9223372036854775807)', 32766],
    ['bitmap_bit_position(-9223372036854775808)', 0], ['bitmap_bucket_number(-9223372036854775808)', -281474976710656],
    // Spark casts the argument to a BIGINT: a DOUBLE truncated, a STRING parsed.
    ['bitmap_bit_position(123.9)', 122], ["bitmap_bit_position('123')", 122], ['bitmap_bit_position(NULL)', null],
    ["bitmap_count(X'')", 0], ['bitmap_count(NULL)', null],
  ])('%s is %j, a BIGINT', async (call, expected) => {
    const { row, schema } = await select(`${call} AS v`);
    expect(typeof row.v === 'bigint' ? Number(row.v) : row.v).toBe(expected);
    expect(schema[0]).toMatchObject({ type: 'long' });
    expect(schema[0].integral).toBeUndefined();
  });

  it('bitmap_count takes a BINARY only, as Spark (no cast of a STRING)', async () => {
    await expect(select("bitmap_count('ab') AS v")).rejects.toThrow(/bitmap_count\(\) requires the "BINARY" type/);
  });
});

describe('bitmap_construct_agg and bitmap_or_agg', () => {
  it('set the bits of the positions, over batches and restarts, per group', async () => {
    const rows: Row[] = [];
    for (let k = 0; k < 200; k++) rows.push({ g: `g${k % 3}`, n: k % 7 === 0 ? null : (k * 7919) % 32768 });
    const expected = new Map<string, Uint8Array>();
    for (const r of rows) {
      const m = expected.get(r.g as string) ?? new Uint8Array(4096);
      expected.set(r.g as string, m);
      if (r.n !== null) m[(r.n as number) >> 3] |= 1 << ((r.n as number) & 7);
    }
    const sql = 'SELECT g, bitmap_construct_agg(n) AS m, bitmap_count(bitmap_construct_agg(n)) AS c FROM t GROUP BY g';
    const { out } = await run(sql, rows, 4);
    expect(out).toHaveLength(3);
    for (const r of out) {
      const m = expected.get(r.g as string)!;
      expect(hex(r.m)).toBe(hex(m));
      expect(r.c).toBe([...m].reduce((n, b) => n + [...b.toString(2)].filter((x) => x === '1').length, 0));
    }
  });

  it('are 4096 zero bytes, never NULL, for a group of NULLs; a BINARY result', async () => {
    const { out, runner } = await run('SELECT bitmap_construct_agg(n) AS m, bitmap_or_agg(b) AS o FROM t', [{ n: null, b: null }]);
    expect(out[0].m).toEqual(new Uint8Array(4096));
    expect(out[0].o).toEqual(new Uint8Array(4096));
    expect(runner.outputSchema()).toMatchObject([{ name: 'm', type: 'binary' }, { name: 'o', type: 'binary' }]);
  });

  it('bitmap_or_agg ORs each bitmap over its own length, over batches and restarts', async () => {
    const rows = [{ b: bytes(0x10) }, { b: bytes(0x01, 0x02) }, { b: null }, { b: bytes(0x20, 0, 0, 0x80) }];
    const { out } = await run('SELECT substring(hex(bitmap_or_agg(b)), 0, 10) AS h FROM t', rows, 4);
    expect(out).toEqual([{ h: '3102008000' }]);
  });

  it('a position outside 0 to 32767 fails the row with Spark\'s INVALID_BITMAP_POSITION', async () => {
    for (const n of [32768, -1]) {
      await expect(run('SELECT bitmap_construct_agg(n) AS m FROM t', [{ n }])).rejects.toThrow(
        `[INVALID_BITMAP_POSITION] The 0-indexed bitmap position ${n} is out of bounds. The bitmap has 32768 bits (4096 bytes).`,
      );
    }
  });

  it('bitmap_construct_agg reads a DOUBLE or a STRING as Spark casts it to a BIGINT', async () => {
    const { out } = await run("SELECT substring(hex(bitmap_construct_agg(x)), 0, 4) AS a, substring(hex(bitmap_construct_agg(s)), 0, 4) AS b FROM t", [
      { x: 1.9, s: '9' }, { x: null, s: 'no number' },
    ]);
    expect(out).toEqual([{ a: '0200', b: '0002' }]);
  });
});

describe('count_min_sketch', () => {
  // Sketches Spark's own CountMinSketch serialized: CountMinSketch.create(0.5, 0.5, seed), then
  // addString / addBinary of each value, then toByteArray.
  it('gives the bytes Spark gives for STRINGs and BINARYs', async () => {
    const strings = await run('SELECT hex(count_min_sketch(s, 0.5d, 0.5d, 42)) AS h FROM t', [{ s: 'hello' }, { s: 'world' }, { s: 'hello' }, { s: null }]);
    expect(strings.out[0].h).toBe('000000010000000000000003000000010000000400000000' + '5D20CE9A' + '0000000000000002' + '0000000000000000' + '0000000000000001' + '0000000000000000');
    const binaries = await run('SELECT hex(count_min_sketch(b, 0.5d, 0.5d, 1)) AS h FROM t', [{ b: bytes(0x80) }, { b: bytes(0x01, 0x80) }, { b: bytes(0x01, 0x02, 0xff) }]);
    expect(binaries.out[0].h).toBe('000000010000000000000003000000010000000400000000' + '5D8D6AB9' + '0000000000000000' + '0000000000000000' + '0000000000000002' + '0000000000000001');
  });

  it('sizes the sketch as Spark: width ceil(2 / eps), depth ceil(-log2(1 - confidence)); empty for no rows', async () => {
    const { out, runner } = await run('SELECT count_min_sketch(i, 0.1d, 0.99d, 7) AS c FROM t', [{ i: null }]);
    const v = new DataView((out[0].c as Uint8Array).buffer);
    expect([v.getInt32(0), v.getBigInt64(4), v.getInt32(12), v.getInt32(16)]).toEqual([1, 0n, 7, 20]);
    expect((out[0].c as Uint8Array).length).toBe(20 + 8 * 7 + 8 * 7 * 20);
    expect(runner.outputSchema()).toMatchObject([{ name: 'c', type: 'binary' }]);
  });

  it('gives the same bytes over batches and restarts as in one batch, per group', async () => {
    const rows: Row[] = Array.from({ length: 120 }, (_, k) => ({ g: `g${k % 2}`, n: k % 11 === 0 ? null : k * 104729 - 5_000_000, s: `v${k % 13}` }));
    const sql = 'SELECT g, hex(count_min_sketch(n, 0.05d, 0.9d, -3)) AS a, hex(count_min_sketch(s, 0.2d, 0.5d, 0)) AS b FROM t GROUP BY g';
    const once = (await run(sql, rows, 1)).out;
    const split = (await run(sql, rows, 5)).out;
    expect(split).toEqual(once);
    expect(once).toHaveLength(2);
  });

  it('refuses what Spark refuses', async () => {
    const refused = (sql: string) => run(`SELECT ${sql} AS c FROM t`, []);
    await expect(refused('count_min_sketch(n, 0.5, 0.5d, 1)')).rejects.toThrow('the eps must be a DOUBLE literal, such as 0.5d');
    await expect(refused('count_min_sketch(n, 0.0d, 0.5d, 1)')).rejects.toThrow('The `eps` must be between (0.0, 1.7976931348623157E308] (current value = 0.0D)');
    await expect(refused('count_min_sketch(n, 0.5d, 1.0d, 1)')).rejects.toThrow('The `confidence` must be between (0.0, 1.0] (current value = 1.0D)');
    await expect(refused('count_min_sketch(x, 0.5d, 0.5d, 1)')).rejects.toThrow('count_min_sketch() counts integers, STRINGs or BINARYs, not DOUBLE');
    await expect(refused('count_min_sketch(n, 0.5d, 0.5d, 1L)')).rejects.toThrow('the seed must be an INT literal');
    await expect(refused('count_min_sketch(n, 0.5d, 0.5d)')).rejects.toThrow(/count_min_sketch\(\) takes/);
  });
});
