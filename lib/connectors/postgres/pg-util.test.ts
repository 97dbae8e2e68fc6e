import { describe, expect, it } from 'vitest';
import { parseVariant } from '../../engine/query/variant';
import { outputColumns } from './pg-util';

describe('PostgreSQL output columns', () => {
  it('writes a TIMESTAMP_NTZ as timestamp (without time zone), its wall-clock text, and a TIMESTAMP as timestamptz', () => {
    const ms = Date.parse('2020-01-02T03:04:05Z');
    const cols = outputColumns([{ name: 'n', type: 'timestamp', ntz: true }, { name: 't', type: 'timestamp' }], []);
    expect(cols.map((c) => c.createType)).toEqual(['timestamp', 'timestamptz']);
    expect(cols.map((c) => c.get({ n: ms, t: ms }))).toEqual(['2020-01-02T03:04:05.000', '2020-01-02T03:04:05.000Z']);
    expect(cols.map((c) => c.get({ n: null, t: null }))).toEqual([null, null]);
  });

  it('writes an interval column as interval (its exact microseconds or months), a FLOAT as real, one inside jsonb as its shortest text', () => {
    const cols = outputColumns([
      { name: 'd', type: 'day_time_interval', interval: { start: 0, end: 3 } }, { name: 'm', type: 'year_month_interval', interval: { start: 0, end: 1 } },
      { name: 'f', type: 'double', float32: true }, { name: 'a', type: 'array', elementType: { name: 'element', type: 'double', float32: true } },
    ], []);
    expect(cols.map((c) => c.createType)).toEqual(['interval', 'interval', 'real', 'jsonb']);
    expect(cols.map((c) => c.get({ d: 9_223_372_036_854_775_807n, m: -14, f: Math.fround(1.1), a: [Math.fround(1.1)] }))).toEqual(['9223372036854775807 microseconds', '-14 months', Math.fround(1.1), '[1.1]']);
  });

  it('writes a VARIANT as jsonb, its JSON with every digit of its numbers', () => {
    const cols = outputColumns([{ name: 'v', type: 'variant' }], []);
    expect(cols.map((c) => c.createType)).toEqual(['jsonb']);
    expect(cols[0].get({ v: parseVariant('{"id": 12345678901234567890, "b": [1.50, null], "a": "x"}') })).toBe('{"a":"x","b":[1.5,null],"id":12345678901234567890}');
    expect(cols[0].get({ v: null })).toBeNull();
  });
});
