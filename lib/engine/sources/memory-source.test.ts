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
});
