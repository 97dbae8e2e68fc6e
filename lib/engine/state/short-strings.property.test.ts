/**
 * Differential property test: short strings (state keys, string values) are measured and
 * written as UTF-8 by a loop in JS when every char is below U+0800, and by Buffer's UTF-8 (or
 * UTF-16LE, for a lone surrogate) otherwise. Over random strings of ASCII, two-byte, three-byte
 * and surrogate chars, around the short-string bound, the codec must write Buffer's bytes and
 * a state file must read back every key (an indexed slot key too) and value as written.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readStateFile, StateFileWriter } from './state-file-format';
import { indexedKey } from './state-store';
import { decodeValue, encodeValue, isWellFormed, SHORT_STRING } from './state-value-codec';
import { propertyRuns } from '@/lib/testing/property-runs';

const char = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 0x7f }) },
  { weight: 3, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x100, max: 0x7ff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x800, max: 0xffff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }) },
);
const text = fc.oneof(
  fc.array(char, { maxLength: 12 }),
  fc.array(char, { minLength: SHORT_STRING - 2, maxLength: SHORT_STRING + 2 }),
).map((cs) => String.fromCharCode(...cs));

/** A state value as the store keeps it: one char per byte. */
const byteString = fc.array(fc.integer({ min: 0, max: 0xff }), { maxLength: SHORT_STRING + 2 }).map((bs) => String.fromCharCode(...bs));

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

describe('short strings written by a loop', () => {
  it('the codec writes the bytes Buffer writes, and reads the string back', () => {
    fc.assert(
      fc.property(text, (s) => {
        const bytes = isWellFormed(s) ? Buffer.from(s, 'utf8') : Buffer.from(s, 'utf16le');
        const expected = Buffer.from([isWellFormed(s) ? 5 : 12, ...varint(bytes.length), ...bytes]);
        expect(Buffer.from(encodeValue(s))).toEqual(expected);
        expect(decodeValue(encodeValue(s))).toBe(s);
      }),
      { numRuns: propertyRuns(2000, 10000) },
    );
  });

  it('a state file reads back each key, slot key and value as written', () => {
    const record = fc.record({ key: text, index: fc.oneof(fc.constant(-1), fc.nat(12), fc.nat(100_000)), value: fc.option(byteString) });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 20 }), (records) => {
        const w = new StateFileWriter(3, 'delta');
        for (const r of records) {
          if (r.value === null) w.remove(r.key, r.index);
          else w.put(r.key, r.value, r.index);
        }
        const read: [string, string | null][] = [];
        readStateFile('3.delta', Buffer.from(w.finish()), { version: 3, kind: 'delta' }, (k, v) => void read.push([k, v]), (k) => void read.push([k, null]));
        expect(read).toEqual(records.map((r) => [r.index >= 0 ? indexedKey(r.key, r.index) : r.key, r.value]));
      }),
      { numRuns: propertyRuns(1000, 5000) },
    );
  });
});
