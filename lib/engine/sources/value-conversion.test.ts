/** A source record's map read with its declared key type (query/map-keys.ts holds the key text). */
import { describe, expect, it } from 'vitest';
import type { Schema } from '../types';
import { parseJsonRecord } from './value-conversion';

const schema = (keyType: Schema[number]): Schema => [{ name: 'm', type: 'map', keyType: { ...keyType, name: 'key' }, valueType: { name: 'value', type: 'string' } }];

describe('a map read from a JSON record', () => {
  it('keys by an ARRAY or a STRUCT written as its key text', () => {
    const arrays = schema({ name: 'key', type: 'array', elementType: { name: 'element', type: 'long', integral: 32 } });
    expect(parseJsonRecord('{"m": {"[1,2]": "a", "[3]": "b"}}', arrays)).toEqual({ row: { m: { '[1,2]': 'a', '[3]': 'b' } } });
    // Read as the key, written back as the one text of that key.
    expect(parseJsonRecord('{"m": {"[1, 2]": "a"}}', arrays)).toEqual({ row: { m: { '[1,2]': 'a' } } });
    expect(parseJsonRecord('{"m": {"[1,x]": "a"}}', arrays)).toMatchObject({ reason: expect.stringContaining('ARRAY<INT>') as unknown });
    const structs = schema({ name: 'key', type: 'struct', fields: [{ name: 'a', type: 'string' }, { name: 'b', type: 'long' }] });
    expect(parseJsonRecord('{"m": {"[\\"x\\",1]": "a"}}', structs)).toEqual({ row: { m: { '["x",1]': 'a' } } });
  });

  it('keeps the text of a number key as before', () => {
    const ints = schema({ name: 'key', type: 'long' });
    expect(parseJsonRecord('{"m": {"12": "a"}}', ints)).toEqual({ row: { m: { 12: 'a' } } });
    expect(parseJsonRecord('{"m": {"x": "a"}}', ints)).toMatchObject({ reason: expect.stringContaining('"x"') as unknown });
  });
});
