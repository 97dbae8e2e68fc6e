import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { ByteWriter, decodeKey, decodeValue, encodeKey, encodeValue, encodeValueByteString, StateCodecError, writeRowValue, writeValue } from './state-value-codec';

// Values a stateful operator may keep: primitives, windows, byte arrays, nested arrays/objects.
const leaf = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double(),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.bigInt(),
  fc.uint8Array({ maxLength: 20 }),
  fc.record({ start: fc.double(), end: fc.double() }, { noNullPrototype: true }),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(fc.string({ unit: 'binary' }), tie('v'), { maxKeys: 4, noNullPrototype: true })),
})).v;

describe('state value codec', () => {
  it('round-trips every value shape exactly (-0, NaN, lone surrogates, bigint, bytes)', () => {
    fc.assert(
      fc.property(value, (v) => {
        const back = decodeValue(encodeValue(v));
        expect(back).toStrictEqual(v);
      }),
      { numRuns: 500, seed: 7 },
    );
    expect(Object.is(decodeValue(encodeValue(-0)), -0)).toBe(true);
  });

  it('keeps a lone-surrogate string\'s tag when writing it grows the buffer', () => {
    // Longer than the shared writer's buffer, as a value and as an object's key.
    const s = `\uD800${'x'.repeat(5000)}`;
    expect(decodeValue(encodeValue([s]))).toStrictEqual([s]);
    expect(decodeValue(encodeValue({ [s]: 1 }))).toStrictEqual({ [s]: 1 });
  });

  it('gives the same bytes as a byte string (one char per byte) as encodeValue does as an array', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(Buffer.from(encodeValueByteString(v), 'latin1')).toEqual(Buffer.from(encodeValue(v)));
      }),
      { numRuns: 300, seed: 8 },
    );
  });

  it('writeRowValue writes the bytes encodeValue writes for [the columns\' values (absent: null), flag]', () => {
    // Rows of up to 200 columns (a count past 127 takes two varint bytes), some absent, of every
    // value shape; written into a writer that starts at 1 byte so that it grows mid-row.
    const row = fc.array(fc.option(value, { nil: undefined }), { maxLength: 200 });
    fc.assert(
      fc.property(row, fc.boolean(), fc.integer({ min: 0, max: 40 }), (values, flag, offset) => {
        const columns = values.map((_, i) => `c${i}`);
        const r: Record<string, unknown> = {};
        values.forEach((v, i) => {
          if (v !== undefined || i % 2 === 0) r[columns[i]] = v;
        });
        const generic = new ByteWriter(1), fixed = new ByteWriter(1);
        generic.pos = fixed.pos = offset;
        writeValue(generic, [columns.map((c) => r[c] ?? null), flag]);
        writeRowValue(fixed, r, columns, flag);
        expect(fixed.finish().subarray(offset)).toEqual(generic.finish().subarray(offset));
        expect(encodeValue({ r, flag }, (w, v) => writeRowValue(w, v.r, columns, v.flag))).toEqual(encodeValue([columns.map((c) => r[c] ?? null), flag]));
      }),
      { numRuns: 300 },
    );
    // The integers at writeRowValue's own bounds, and a number that is not one.
    const edge = { a: 2 ** 52 - 1, b: -(2 ** 52) + 1, c: 2 ** 52, d: -0, e: 0, f: 2 ** 31, g: -(2 ** 31) - 1, h: 1.5, i: NaN, j: 63, k: -64, l: 64 };
    const cols = Object.keys(edge);
    expect(encodeValue(edge, (w, v) => writeRowValue(w, v, cols, true))).toEqual(encodeValue([Object.values(edge), true]));
  });

  it('writes an integer as TAG_INT and its zigzag as plain LEB128, 7 bits a byte from the lowest (the bytes of every checkpoint)', () => {
    // The reference: one byte per 7 bits by division, no shortcut for any range.
    const leb128 = (v: number): number[] => {
      const z = v >= 0 ? v * 2 : -v * 2 - 1;
      const out = [3];
      let rest = z;
      while (rest >= 128) {
        out.push((rest % 128) + 128);
        rest = Math.floor(rest / 128);
      }
      out.push(rest);
      return out;
    };
    const safe = fc.oneof(fc.integer({ min: -(2 ** 52) + 1, max: 2 ** 52 - 1 }), fc.integer({ min: 2 ** 30, max: 2 ** 36 }), fc.integer({ min: -(2 ** 36), max: -(2 ** 30) }));
    fc.assert(
      fc.property(safe, (v) => {
        expect([...encodeValue(v)]).toEqual(leb128(v));
      }),
      { numRuns: 2000, seed: 12 },
    );
    for (const v of [2 ** 30 - 1, 2 ** 30, -(2 ** 30), -(2 ** 30) - 1, 2 ** 31 - 1, 2 ** 31, 2 ** 35, 2 ** 42 + 5, 2 ** 49, 2 ** 52 - 1, -(2 ** 52) + 1, Date.UTC(2026, 0, 1)]) {
      expect([...encodeValue(v)]).toEqual(leb128(v));
      expect(decodeValue(encodeValue(v))).toBe(v);
    }
  });

  it('is compact: small integers take 2 bytes, a window 17', () => {
    expect(encodeValue(42).length).toBe(2);
    expect(encodeValue({ start: 0, end: 600_000 }).length).toBe(17);
    const buffer = { count: 1234567, sum: 9876543.25 };
    expect(encodeValue(buffer).length).toBeLessThan(JSON.stringify(buffer).length);
  });

  it('refuses malformed bytes instead of guessing', () => {
    expect(() => decodeValue(Uint8Array.of(99))).toThrow(StateCodecError);
    expect(() => decodeValue(Uint8Array.of(5, 10, 65))).toThrow(/truncated/);
    expect(() => decodeValue(Uint8Array.of(0, 0))).toThrow(/trailing/);
    expect(() => encodeValue(() => 1)).toThrow(/cannot store a function/);
  });

  it('keys: equal exactly when the grouping tuples are equal (-0 groups with 0), and decodeKey inverts', () => {
    const cell = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.string({ unit: 'binary' }),
      fc.record({ start: fc.integer(), end: fc.integer() }, { noNullPrototype: true }));
    const tuple = fc.array(cell, { minLength: 1, maxLength: 3 });
    const norm = (t: unknown[]) => t.map((x) => (Object.is(x, -0) ? 0 : x));
    fc.assert(
      fc.property(tuple, tuple, (a, b) => {
        const ka = encodeKey(a), kb = encodeKey(b);
        expect(decodeKey(ka)).toStrictEqual(norm(a));
        expect(ka === kb).toBe(isDeepStrictEqual(norm(a), norm(b)));
        expect(encodeKey(norm(a))).toBe(ka);
      }),
      { numRuns: 1000, seed: 11 },
    );
    expect(encodeKey(['1'])).not.toBe(encodeKey([1]));
    expect(encodeKey([null])).not.toBe(encodeKey(['null']));
    expect(encodeKey(['a', 'b'])).not.toBe(encodeKey(['ab']));
  });

  it('round-trips arrays and maps (a map is an object from key text to value, `__proto__` an ordinary key)', () => {
    const m = Object.fromEntries([['__proto__', 1], ['b', [1, null]]]);
    const back = decodeValue(encodeValue([['a', null, ''], m])) as unknown[];
    expect(back).toEqual([['a', null, ''], m]);
    expect(Object.getPrototypeOf(back[1])).toBe(Object.prototype);
    expect(Object.keys(back[1] as object)).toEqual(['__proto__', 'b']);
    expect(encodeKey([['a', 'b']])).toBe(encodeKey([['a', 'b']]));
    expect(encodeKey([['a', 'b']])).not.toBe(encodeKey([['ab']]));
  });
});
