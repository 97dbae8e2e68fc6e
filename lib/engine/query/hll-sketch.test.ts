/**
 * Apache DataSketches' HLL sketch as Spark 3.5's hll_* functions use it: the hash against
 * MurmurHash3_x64_128's published value and a BigInt transcription of DataSketches' Java,
 * DataSketches' own published estimate, sketch images Spark (Databricks) wrote read and written
 * back byte for byte, Spark's SQL examples and errors, estimates within DataSketches' error bounds,
 * and merges of partial sketches against one sketch of every value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '@/lib/testing/property-runs';
import type { Row } from '../types';
import {
  hllEstimate, hllSketchMerge, hllUnionAggMerge, hllUnionAggResult, hllUnionAggUpdate, hllUnionOf, hllUpdateBytes, hllUpdateLong, murmurHash3x64, newHllSketch, readHllSketch,
} from './hll-sketch';
import type { StreamingRelation } from './logical-plan';
import { select } from './testing/spark-printed';
import { runInBatches } from './testing/stateful-test-harness';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** DataSketches' MurmurHash3 (hash/MurmurHash3.java) in BigInt, statement for statement. */
function referenceMurmur(key: Uint8Array, seed: bigint): [bigint, bigint] {
  const M = (1n << 64n) - 1n;
  const C1 = 0x87c37b91114253d5n, C2 = 0x4cf5ad432745937fn;
  const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M;
  const mixK1 = (k: bigint) => (rotl((k * C1) & M, 31n) * C2) & M;
  const mixK2 = (k: bigint) => (rotl((k * C2) & M, 33n) * C1) & M;
  const fmix = (h: bigint) => {
    h ^= h >> 33n;
    h = (h * 0xff51afd7ed558ccdn) & M;
    h ^= h >> 33n;
    h = (h * 0xc4ceb9fe1a85ec53n) & M;
    return h ^ (h >> 33n);
  };
  const getLong = (at: number, n: number) => {
    let out = 0n;
    for (let i = n - 1; i >= 0; i--) out = (out << 8n) | BigInt(key[at + i]);
    return out;
  };
  let h1 = seed, h2 = seed;
  const blocks = key.length >>> 4;
  for (let i = 0; i < blocks; i++) {
    h1 ^= mixK1(getLong(i * 16, 8));
    h1 = rotl(h1, 27n);
    h1 = (h1 + h2) & M;
    h1 = (h1 * 5n + 0x52dce729n) & M;
    h2 ^= mixK2(getLong(i * 16 + 8, 8));
    h2 = rotl(h2, 31n);
    h2 = (h2 + h1) & M;
    h2 = (h2 * 5n + 0x38495ab5n) & M;
  }
  const tail = blocks * 16, rem = key.length - tail;
  const k1 = rem > 8 ? getLong(tail, 8) : rem === 0 ? 0n : getLong(tail, rem);
  const k2 = rem > 8 ? getLong(tail + 8, rem - 8) : 0n;
  h1 ^= mixK1(k1);
  h2 ^= mixK2(k2);
  h1 ^= BigInt(key.length);
  h2 ^= BigInt(key.length);
  h1 = (h1 + h2) & M;
  h2 = (h2 + h1) & M;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 = (h1 + h2) & M;
  h2 = (h2 + h1) & M;
  return [h1, h2];
}

const joined = ([a, b, c, d]: number[]) => [(BigInt(a) << 32n) | BigInt(b), (BigInt(c) << 32n) | BigInt(d)];

describe('MurmurHash3_x64_128', () => {
  it("gives the published hash of 'The quick brown fox jumps over the lazy dog' (seed 0)", () => {
    expect(joined(murmurHash3x64(Buffer.from('The quick brown fox jumps over the lazy dog'), 0))).toEqual([0xe34bbc7bbc071b6cn, 0x7a433ca9c49a9347n]);
  });

  it("equals a BigInt transcription of DataSketches' Java for any bytes (seed 9001)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
        expect(joined(murmurHash3x64(bytes, 9001))).toEqual(referenceMurmur(bytes, 9001n));
      }),
      { numRuns: propertyRuns(300, 2000) },
    );
  });
});

function sketchOfLongs(values: Iterable<number | bigint>, lgK = 12): Uint8Array {
  let s = newHllSketch(lgK);
  for (const v of values) s = hllUpdateLong(s, v);
  return s;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('HllSketch of HLL_8', () => {
  it("estimates DataSketches' published 990116.6007366662 for the longs 0 to 999999 at lgConfigK 12 (its HIP accumulator)", () => {
    // HllSketch's javadoc: a sketch updated with i for i < 1000000 prints Estimate and HipAccum 990116.6007366662.
    expect(hllEstimate(sketchOfLongs(range(0, 1_000_000)))).toBe(990116.6007366662);
  });

  it('serializes an empty sketch as Java does: an empty LIST of 8 coupon slots', () => {
    expect(hex(newHllSketch(12))).toBe(`0201070c03040008${'00'.repeat(32)}`);
  });

  it('goes LIST, SET (from 8 coupons at lgConfigK 8 and up), HLL (past 3/4 of 2^(lgConfigK - 3) coupons), or LIST to HLL below lgConfigK 8', () => {
    const modes = (lgK: number, n: number) => sketchOfLongs(range(0, n), lgK)[7];
    expect([modes(12, 7), modes(12, 8), modes(12, 384), modes(12, 385)]).toEqual([8, 9, 9, 10]);
    expect([modes(7, 7), modes(7, 8)]).toEqual([8, 10]);
    // A SET's table doubles past 3/4 full: 32 slots hold 24 coupons.
    expect(sketchOfLongs(range(0, 24))[4]).toBe(5);
    expect(sketchOfLongs(range(0, 25))[4]).toBe(6);
  });

  it('counts an INT and the BIGINT of the same value alike, and skips empty strings and binaries', () => {
    expect(hex(sketchOfLongs([5, 5n, -1, BigInt(-1)]))).toBe(hex(sketchOfLongs([5, -1])));
    expect(hex(hllUpdateBytes(newHllSketch(12), new Uint8Array(0)))).toBe(hex(newHllSketch(12)));
    expect(hex(sketchOfLongs([2 ** 60, -(2 ** 62)]))).toBe(hex(sketchOfLongs([2n ** 60n, -(2n ** 62n)])));
  });

  it('estimates N distinct values within 3 standard errors of DataSketches (HIP: 0.8326 / sqrt(K)), a coupon sketch within 0.1%', () => {
    for (const lgK of [4, 6, 8, 10, 12, 14]) {
      for (const n of [1, 7, 50, 300, 2_000, 20_000, 120_000]) {
        const est = hllEstimate(sketchOfLongs(range(n * 7, n * 8), lgK));
        const bound = sketchOfLongs(range(n * 7, n * 8), lgK)[7] === 10 ? (3 * Math.sqrt(Math.log(2))) / Math.sqrt(2 ** lgK) : 0.001;
        expect(Math.abs(est / n - 1), `lgK ${lgK}, n ${n}`).toBeLessThanOrEqual(bound + 1e-9);
      }
    }
  });
});

/** The sketch images of Databricks' hll_sketch_agg that Cube's tests load (cubestore's hyperloglog_databricks), written out as bytes. */
const DATABRICKS_IMAGES = [
  ['0201070c03000408067365047b65e608db179a0ac3b0380400000000000000000000000000000000', 4],
  ['0201070c03000408db179a0ac3b03804067365047b65e60800000000000000000000000000000000', 4],
  [
    '0301070c05000009140000000000000021f23905a1cd490a83b711071ba1d612000000000000000000000000089bd904497ad908000000002bf2fb062c45670aed9e24074b98a6086f2c7f05' +
      '0000000000000000d295900df38bc106cdc84607b50df70600000000f7628207d8d3350f00000000000000001b27b20b000000009d8a7210000000003ff95b0f',
    20,
  ],
] as const;

describe('sketches Spark wrote', () => {
  it.each(DATABRICKS_IMAGES)('%s reads back to the same bytes and estimates %i', (image, n) => {
    const bytes = Buffer.from(image, 'hex');
    const sketch = readHllSketch(bytes)!;
    expect(hex(sketch)).toBe(image);
    expect(Math.round(hllEstimate(sketch))).toBe(n);
  });

  it('unions the two LIST images (the same four coupons in another order) to four, and the SET with them to at most 24', () => {
    const [a, b, c] = DATABRICKS_IMAGES.map(([image]) => readHllSketch(Buffer.from(image, 'hex'))!);
    expect(Math.round(hllEstimate(hllUnionOf(a, b)))).toBe(4);
    const abc = Math.round(hllEstimate(hllUnionOf(hllUnionOf(a, b), c)));
    expect(abc).toBeGreaterThanOrEqual(20);
    expect(abc).toBeLessThanOrEqual(24);
  });

  it('refuses bytes that are no sketch', () => {
    for (const bad of ['616263', '0201070c0300040801000000', '0a01070c00000008', '0201070203040008' + '00'.repeat(32), '0201080c03040008' + '00'.repeat(32)]) {
      expect(readHllSketch(Buffer.from(bad, 'hex')), bad).toBeUndefined();
    }
  });
});

/** Registers of an HLL image (after the 40-byte preamble), or the sorted coupons of a LIST or SET. */
function content(s: Uint8Array): string {
  if ((s[7] & 3) === 2) return hex(s.subarray(40));
  const v = new DataView(s.buffer, s.byteOffset, s.byteLength), start = (s[7] & 3) === 0 ? 8 : 12, out: number[] = [];
  for (let at = start; at < s.length; at += 4) if (v.getInt32(at, true) !== 0) out.push(v.getInt32(at, true));
  return out.sort((x, y) => x - y).join(',');
}

describe("merging partial sketches (Spark's HllSketchAgg.merge, a DataSketches Union)", () => {
  it('gives the coupons or HLL slots of one sketch of every value, whatever the split, and an estimate within its error', () => {
    const split = fc.record({ lgK: fc.constantFrom(4, 7, 9, 12), values: fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 3000 }), parts: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }) });
    fc.assert(
      fc.property(split, ({ lgK, values, parts }) => {
        const whole = sketchOfLongs(values, lgK);
        const pieces = parts.map(() => [] as number[]);
        values.forEach((v, i) => pieces[parts[i % parts.length] % parts.length].push(v));
        const merged = pieces.map((p) => sketchOfLongs(p, lgK)).reduce((a, b) => hllSketchMerge(a, b));
        const reversed = pieces.map((p) => sketchOfLongs(p, lgK)).reduceRight((a, b) => hllSketchMerge(a, b));
        expect(content(merged)).toBe(content(whole));
        expect(content(reversed)).toBe(content(whole));
        const n = new Set(values).size;
        if (n > 0) expect(Math.abs(hllEstimate(merged) / n - 1)).toBeLessThanOrEqual((3 * 1.04) / Math.sqrt(2 ** lgK) + 0.001);
      }),
      { numRuns: propertyRuns(60, 300) },
    );
  });

  it('keeps a merged HLL sketch out of order, estimating with the composite estimator, and folds a larger lgConfigK down', () => {
    const a = sketchOfLongs(range(0, 3000)), b = sketchOfLongs(range(2000, 6000));
    const u = hllSketchMerge(a, b);
    expect(u[5] & 16).toBe(16);
    expect(Math.abs(hllEstimate(u) / 6000 - 1)).toBeLessThan(0.05);
    const wide = sketchOfLongs(range(0, 3000), 14);
    const both = hllUnionOf(wide, b);
    expect(both[3]).toBe(12);
    expect(Math.abs(hllEstimate(both) / 6000 - 1)).toBeLessThan(0.05);
  });

  it("hll_union_agg's merge of two unions has the slots of one union of every sketch", () => {
    const sketches = [range(0, 50), range(40, 3000), range(2900, 3100), range(5000, 9000)].map((r) => sketchOfLongs(r));
    const all = sketches.reduce<Uint8Array | null>((g, s) => hllUnionAggUpdate(g, s), null)!;
    const halves = hllUnionAggMerge(hllUnionAggUpdate(hllUnionAggUpdate(null, sketches[0]), sketches[1]), hllUnionAggUpdate(hllUnionAggUpdate(null, sketches[2]), sketches[3]));
    expect(content(hllUnionAggResult(halves))).toBe(content(hllUnionAggResult(all)));
    expect(hllEstimate(hllUnionAggResult(halves))).toBe(hllEstimate(hllUnionAggResult(all)));
  });

  it('hll_union_agg: an empty union is an empty sketch of lgConfigK 12; one LIST or HLL sketch unions to its own bytes, a SET to its coupons', () => {
    expect(hex(hllUnionAggResult(null))).toBe(hex(newHllSketch(12)));
    for (const n of [3, 5000]) {
      const s = sketchOfLongs(range(0, n));
      expect(hex(hllUnionAggResult(hllUnionAggUpdate(null, s)))).toBe(hex(s));
    }
    // A wrapped SET (as hll_union_agg reads its rows) is merged coupon by coupon, never copied whole:
    // the same coupons, in the slots their order of arrival gives.
    const set = sketchOfLongs(range(0, 100));
    const u = hllUnionAggResult(hllUnionAggUpdate(null, set));
    expect(content(u)).toBe(content(set));
    expect(hllEstimate(u)).toBe(hllEstimate(set));
  });
});

const rel: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 't',
  schema: [
    { name: 'g', type: 'string' },
    { name: 'n', type: 'long' },
    { name: 'i', type: 'long', integral: 32 },
    { name: 'h', type: 'long', integral: 16 },
    { name: 's', type: 'string' },
    { name: 'b', type: 'binary' },
    { name: 'x', type: 'double' },
  ],
};

const run = async (sql: string, rows: Row[], batches = 1): Promise<Row[]> => (await runInBatches(sql, rel, rows, batches)).output;

describe("Spark's hll_sketch_agg, hll_union_agg, hll_union and hll_sketch_estimate", () => {
  // Spark's sql-tests (hll.sql) and the functions' examples.
  it.each([
    ['hll_sketch_estimate(hll_sketch_agg(n))', 5, [0, 1, 2, 2, 2, 3, 4].map((n) => ({ n }))],
    ['hll_sketch_estimate(hll_sketch_agg(i, 12))', 4, [50, 60, 60, 60, 75, 100].map((i) => ({ i }))],
    ['hll_sketch_estimate(hll_sketch_agg(s))', 3, ['abc', 'def', 'abc', 'ghi', 'abc'].map((s) => ({ s }))],
    ['hll_sketch_estimate(hll_sketch_agg(s))', 1, ['', null, 'a', ''].map((s) => ({ s }))],
    ['hll_sketch_estimate(hll_sketch_agg(b))', 4, [new Uint8Array(0), Buffer.from('  '), Buffer.from([0xe2, 0x80]), Buffer.from([0xc1]), Buffer.from([0xc1, 0x20])].map((b) => ({ b }))],
    ['hll_sketch_estimate(hll_union(hll_sketch_agg(n), hll_sketch_agg(i)))', 6, [[1, 4], [1, 4], [2, 5], [2, 5], [3, 6]].map(([n, i]) => ({ n, i }))],
  ])('%s is %i', async (expr, expected, rows) => {
    expect(await run(`SELECT ${expr} AS v FROM t`, rows as Row[])).toEqual([{ v: expected }]);
  });

  it('hll_union_agg of sketches of lgConfigK 12 and 20 is 1 when allowed, HLL_UNION_DIFFERENT_LG_K otherwise', async () => {
    const sketches = [sketchOfLongs([1]), sketchOfLongs([1], 20)].map((b) => ({ b }));
    expect(await run('SELECT hll_sketch_estimate(hll_union_agg(b, true)) AS v FROM t', sketches)).toEqual([{ v: 1 }]);
    await expect(run('SELECT hll_union_agg(b, false) AS v FROM t', sketches)).rejects.toThrow(
      '[HLL_UNION_DIFFERENT_LG_K] Sketches have different `lgConfigK` values: 12 and 20. Set the `allowDifferentLgConfigK` parameter to true to call `hll_union_agg` with different `lgConfigK` values.',
    );
    await expect(run('SELECT hll_union(hll_sketch_agg(n, 12), hll_sketch_agg(i, 13)) AS v FROM t', [{ n: 1, i: 4 }])).rejects.toThrow(
      'Sketches have different `lgConfigK` values: 12 and 13. Set the `allowDifferentLgConfigK` parameter to true to call `hll_union` with different `lgConfigK` values.',
    );
    expect(await run('SELECT hll_sketch_estimate(hll_union(hll_sketch_agg(n, 12), hll_sketch_agg(i, 13), true)) AS v FROM t', [{ n: 1, i: 4 }])).toEqual([{ v: 2 }]);
  });

  it('hll_union_agg of no sketch is an empty sketch (never NULL), as hll_sketch_agg of no value', async () => {
    const out = await run('SELECT hll_union_agg(b) AS u, hll_sketch_agg(n) AS s FROM t', [{ b: null, n: null }]);
    expect(hex(out[0].u as Uint8Array)).toBe(hex(newHllSketch(12)));
    expect(hex(out[0].s as Uint8Array)).toBe(hex(newHllSketch(12)));
  });

  it('refuses bytes that are no sketch with HLL_INVALID_INPUT_SKETCH_BUFFER', async () => {
    await expect(select("hll_sketch_estimate(CAST('abc' AS BINARY)) AS v")).rejects.toThrow(
      '[HLL_INVALID_INPUT_SKETCH_BUFFER] Invalid call to `hll_sketch_estimate`; only valid HLL sketch buffers are supported as inputs (such as those produced by the `hll_sketch_agg` function).',
    );
    await expect(select("hll_union(CAST('abc' AS BINARY), CAST('def' AS BINARY)) AS v")).rejects.toThrow(/HLL_INVALID_INPUT_SKETCH_BUFFER\] Invalid call to `hll_union`/);
    await expect(run('SELECT hll_union_agg(b, false) AS v FROM t', [{ b: Buffer.from('abc') }])).rejects.toThrow(/HLL_INVALID_INPUT_SKETCH_BUFFER\] Invalid call to `hll_union_agg`/);
    expect((await select('hll_sketch_estimate(NULL) AS v')).row.v).toBeNull();
  });

  it("refuses lgConfigK outside 4 to 21 (HLL_INVALID_LG_K) and types Spark's ExpectsInputTypes refuse", async () => {
    for (const k of [2, 40]) {
      await expect(run(`SELECT hll_sketch_agg(n, ${k}) AS v FROM t`, [])).rejects.toThrow(
        `[HLL_INVALID_LG_K] Invalid call to \`hll_sketch_agg\`; the \`lgConfigK\` value must be between 4 and 21, inclusive: ${k}.`,
      );
    }
    for (const sql of ['hll_sketch_agg(x)', 'hll_sketch_agg(h)', "hll_sketch_agg(n, '15')", 'hll_sketch_agg(n, i)', 'hll_union_agg(n)', 'hll_union_agg(b, 1)']) {
      await expect(run(`SELECT ${sql} AS v FROM t`, []), sql).rejects.toThrow(/DATATYPE_MISMATCH\.UNEXPECTED_INPUT_TYPE|must be a literal/);
    }
    // hll_union and hll_sketch_estimate cast no argument (ExpectsInputTypes): not even a STRING to BINARY.
    for (const sql of ['hll_union(1, 2)', "hll_union('abc', 'def')", "hll_union(X'00', X'00', 1)", "hll_union(X'00', X'00', 'true')", 'hll_sketch_estimate(1)', "hll_sketch_estimate('abc')"]) {
      await expect(select(`${sql} AS v`), sql).rejects.toMatchObject({ errorClass: 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE' });
    }
    await expect(select('hll_union(1, 2) AS v')).rejects.toThrow(/hll_union\(\) requires the "BINARY" type/);
  });

  it('keeps a group sketch in state: over batches with restarts, the bytes of one sketch fed every row in order', async () => {
    const rows = range(0, 900).map((k) => ({ g: k % 3 === 0 ? 'a' : 'b', n: (k * 7919) % 1000, s: `v${k % 500}` }));
    for (const batches of [1, 3]) {
      const out = await run('SELECT g, hll_sketch_agg(n) AS sn, hll_sketch_agg(s, 9) AS ss FROM t GROUP BY g', rows, batches);
      for (const g of ['a', 'b']) {
        const mine = rows.filter((r) => r.g === g);
        let ss = newHllSketch(9);
        for (const r of mine) ss = hllUpdateBytes(ss, Buffer.from(r.s));
        const row = out.find((r) => r.g === g)!;
        expect(hex(row.sn as Uint8Array)).toBe(hex(sketchOfLongs(mine.map((r) => r.n))));
        expect(hex(row.ss as Uint8Array)).toBe(hex(ss));
      }
    }
  });
});
