import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../types';
import { MemorySource, MemoryStream } from './memory-source';

const schema: Schema = [
  { name: 'a', type: 'long' },
  { name: 'b', type: 'string' },
];

describe('MemorySource.getBatch', () => {
  it('projects rows onto the schema (order, missing and extra columns) and replays the same values', async () => {
    const name = `memory-source-test-${process.pid}`;
    const stream = MemoryStream.named(name);
    try {
      const exact = { a: 1, b: 'x' };
      stream.addData(exact, { b: 'y', a: 2 }, { a: 3 }, { a: 4, b: 'z', c: true }, { a: 5, b: undefined } as never, {});
      exact.a = 99; // addData keeps its own copy
      const src = new MemorySource(stream, schema);
      const want = [
        { a: 1, b: 'x' },
        { a: 2, b: 'y' },
        { a: 3, b: null },
        { a: 4, b: 'z' },
        { a: 5, b: null },
        { a: null, b: null },
      ];
      const first = await src.getBatch(null, 6);
      expect(first.rows).toEqual(want);
      for (const r of first.rows) expect(Object.keys(r)).toEqual(['a', 'b']);
      expect((await src.getBatch(2, 4)).rows).toEqual(want.slice(2, 4));
      expect((await src.getBatch(null, 6)).rows).toEqual(want);
      expect((await src.getBatch(4, 10)).rows).toEqual(want.slice(4));
    } finally {
      MemoryStream.drop(name);
    }
  });

  it('reads any (start, end] as a row-by-row projection would, however the rows were shaped and chunked (property)', async () => {
    const value = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant('s'), fc.constant(null), fc.constant(undefined));
    const row = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), value), { maxLength: 4 }).map((kv) => {
      const r: Record<string, unknown> = {};
      for (const [k, v] of kv) r[k] = v;
      return r;
    });
    // Mostly well-formed rows (the common case, which the reader takes as they are) among odd ones.
    const exact = fc.record({ a: fc.integer(), b: fc.string({ maxLength: 2 }) });
    const chunks = fc.array(fc.array(fc.oneof({ weight: 3, arbitrary: exact }, { weight: 1, arbitrary: row }), { maxLength: 6 }), { maxLength: 6 });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(chunks, fc.nat(), fc.nat(), async (added, x, y) => {
        const name = `memory-source-prop-${process.pid}-${run++}`;
        const stream = MemoryStream.named(name);
        try {
          for (const chunk of added) stream.addData(...(chunk as never[]));
          const all = added.flat();
          const n = all.length;
          const from = n === 0 ? 0 : x % (n + 1);
          const to = n === 0 ? 0 : from + (y % (n - from + 1));
          const want = all.slice(from, to).map((r) => ({ a: (r as Record<string, unknown>).a ?? null, b: (r as Record<string, unknown>).b ?? null }));
          const got = (await new MemorySource(stream, schema).getBatch(from === 0 ? null : from, to)).rows;
          expect(got).toEqual(want);
          for (const r of got) expect(Object.keys(r)).toEqual(['a', 'b']);
        } finally {
          MemoryStream.drop(name);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes a batch of 600k rows through addRows (spread into addData arguments it overflowed the stack)', async () => {
    const name = `memory-big-${process.pid}`;
    const stream = MemoryStream.named(name);
    try {
      const rows = Array.from({ length: 600_000 }, (_, a) => ({ a, b: 'x' }));
      expect(stream.addRows(rows)).toBe(600_000);
      const got = (await new MemorySource(stream, [{ name: 'a', type: 'long' }, { name: 'b', type: 'string' }]).getBatch(null, 600_000)).rows;
      expect(got.length).toBe(600_000);
      expect(got[599_999]).toEqual({ a: 599_999, b: 'x' });
    } finally {
      MemoryStream.drop(name);
    }
  });
});
