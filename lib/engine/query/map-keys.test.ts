/**
 * Maps keyed by arrays and structs work wherever a map of strings does (Spark builds them; a
 * MAP key alone is refused), and a map of strings or numbers keeps the key text every existing
 * checkpoint holds.
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../errors';
import { decodeValue, encodeValue } from '../state/state-value-codec';
import type { Field } from '../types';
import { prettyString } from '../sinks/show-string';
import { printed, select } from './testing/spark-printed';
import { mapKeyText, mapKeyValue } from './map-keys';

/** `expr`'s value as Spark's golden files print it. */
async function shown(expr: string): Promise<string> {
  const { row, schema } = await select(`${expr} AS v`);
  return printed(row.v, schema[0]);
}

async function failure(expr: string): Promise<string> {
  try {
    await shown(expr);
  } catch (e) {
    expect(e).toBeInstanceOf(WeirError);
    return (e as Error).message;
  }
  throw new Error(`${expr} did not fail`);
}

describe('maps keyed by arrays and structs', () => {
  it('map() builds them and prints them as Spark', async () => {
    expect(await shown('map(array(1, 2), "a", array(3), "b")')).toBe('{[1,2]:"a",[3]:"b"}');
    expect(await shown("map(named_struct('a', 1, 'b', 'x'), 1)")).toBe('{{"a":1,"b":"x"}:1}');
    expect(await shown("map(array(named_struct('a', array('p,q', NULL))), 1)")).toBe('{[{"a":["p,q",null]}]:1}');
  });

  it('a repeated array or struct key is DUPLICATED_MAP_KEY, a NULL one NULL_MAP_KEY', async () => {
    expect(await failure('map(array(1, 2), 1, array(1, 2), 2)')).toContain('DUPLICATED_MAP_KEY');
    expect(await failure("map(struct(1, 'a'), 1, struct(1, 'a'), 2)")).toContain('DUPLICATED_MAP_KEY');
    expect(await failure('map(array(0.0D), 1, array(-0.0D), 2)')).toContain('DUPLICATED_MAP_KEY');
    expect(await failure('map(0.0D, 1, -0.0D, 2)')).toContain('DUPLICATED_MAP_KEY');
    expect(await failure("map(array(CAST('NaN' AS DOUBLE)), 1, array(CAST('NaN' AS DOUBLE)), 2)")).toContain('DUPLICATED_MAP_KEY');
    expect(await failure('map(CAST(NULL AS ARRAY<INT>), 1)')).toContain('NULL_MAP_KEY');
    // An array holding a NULL is a key (only the key itself may not be NULL).
    expect(await shown('map(array(1, NULL), 1)')).toBe('{[1,null]:1}');
  });

  it('a MAP key is refused (INVALID_MAP_KEY_TYPE), as Spark', async () => {
    expect(await failure('map(map(1, 2), 1)')).toMatch(/INVALID_MAP_KEY_TYPE|invalid type for a map key/);
    expect(await failure('map(array(map(1, 2)), 1)')).toMatch(/INVALID_MAP_KEY_TYPE|invalid type for a map key/);
    expect(await failure('map_from_arrays(array(map(1, 2)), array(1))')).toMatch(/INVALID_MAP_KEY_TYPE|invalid type for a map key/);
    expect(await failure("transform_keys(map('a', 1), (k, v) -> map(k, v))")).toMatch(/INVALID_MAP_KEY_TYPE|invalid type for a map key/);
  });

  it('map_from_arrays, map_from_entries and transform_keys build them', async () => {
    expect(await shown("map_from_arrays(array(array(1), array(2, 3)), array('a', 'b'))")).toBe('{[1]:"a",[2,3]:"b"}');
    expect(await failure('map_from_arrays(array(array(1), array(1)), array(1, 2))')).toContain('DUPLICATED_MAP_KEY');
    expect(await shown("map_from_entries(array(struct(named_struct('x', 1), 'a')))")).toBe('{{"x":1}:"a"}');
    expect(await shown("transform_keys(map('a', 1, 'b', 2), (k, v) -> array(k, 'z'))")).toBe('{["a","z"]:1,["b","z"]:2}');
    expect(await failure("transform_keys(map('a', 1, 'b', 2), (k, v) -> array('z'))")).toContain('DUPLICATED_MAP_KEY');
  });

  it('element_at, map[key] and map_contains_key find a key by value', async () => {
    expect(await shown("element_at(map(array(1, 2), 'a', array(3), 'b'), array(3))")).toBe('b');
    expect(await shown("map(named_struct('a', 1, 'b', 'x'), 'v')[named_struct('a', 1, 'b', 'x')]")).toBe('v');
    expect(await shown("element_at(map(array(1, 2), 'a'), array(2, 1))")).toBe('NULL');
    expect(await shown("map_contains_key(map(array('a'), 1), array('a'))")).toBe('true');
    expect(await shown("map_contains_key(map(array(1L), 1), array(1))")).toBe('true');
    expect(await shown("map_contains_key(map(array(1L), 1), array(2))")).toBe('false');
    expect(await shown("map_contains_key(map(1, 'a'), 1.0)")).toBe('true');
  });

  it('map_keys, map_entries and explode give the keys themselves', async () => {
    expect(await shown("map_keys(map(array(1, 2), 'a', array(3), 'b'))")).toBe('[[1,2],[3]]');
    expect(await shown("map_keys(map(named_struct('a', 1.5BD, 'd', date '2016-03-14'), 'a'))")).toBe('[{"a":1.5,"d":2016-03-14}]');
    expect(await shown("map_entries(map(array('x'), 1))")).toBe('[{"key":["x"],"value":1}]');
    expect(await shown("map_values(map(array('x'), 1))")).toBe('[1]');
    expect(await shown("map_keys(map(array(interval 1 day), 1))")).toBe("[[INTERVAL '1' DAY]]");
    expect(await shown("map_keys(map(interval '1-2' year to month, 1))")).toBe("[INTERVAL '1-2' YEAR TO MONTH]");
    const { row } = await select("explode(map(array(1, 2), 'a')) AS (k, v)");
    expect(row).toMatchObject({ k: [1, 2], v: 'a' });
  });

  it('map_concat, map_filter, transform_values and map_zip_with keep them', async () => {
    expect(await shown("map_concat(map(array(1), 'a'), map(array(2), 'b'))")).toBe('{[1]:"a",[2]:"b"}');
    expect(await failure("map_concat(map(array(1), 'a'), map(array(1), 'b'))")).toContain('DUPLICATED_MAP_KEY');
    expect(await shown("map_filter(map(array(1), 1, array(2), 2), (k, v) -> k[0] > 1)")).toBe('{[2]:2}');
    expect(await shown("transform_values(map(struct(1, 2), 1), (k, v) -> k.col1 + v)")).toBe('{{"col1":1,"col2":2}:2}');
    expect(await shown("map_zip_with(map(array(1), 'a'), map(array(1), 'b', array(2), 'c'), (k, v1, v2) -> concat(k[0], v1, v2))"))
      .toBe('{[1]:"1ab",[2]:null}');
  });

  it('map_zip_with reads two maps with their keys\' wider type, as Spark\'s MapZipWithCoercion', async () => {
    expect(await shown("map_zip_with(map(array(1L), 'a'), map(array(1), 'b'), (k, v1, v2) -> concat(v1, v2))")).toBe('{[1]:"ab"}');
    expect(await shown("map_zip_with(map(struct(1S, 2L), 'a'), map(struct(1, 2), 'b'), (k, v1, v2) -> concat(v1, v2))")).toBe('{{"col1":1,"col2":2}:"ab"}');
    expect(await shown("map_zip_with(map('2', 'a'), map(2, 'b', 3, 'c'), (k, v1, v2) -> concat(k, v1, v2))")).toBe('{"2":"2ab","3":null}');
    expect(await shown("map_zip_with(map(2.0D, 'a'), map(2, 'b'), (k, v1, v2) -> concat(v1, v2))")).toBe('{2.0:"ab"}');
  });

  it('CAST to a STRING, to_json and a CAST between map types write them as Spark', async () => {
    expect(await shown("CAST(map(array(1, 2), 'a') AS STRING)")).toBe('{[1, 2] -> a}');
    expect(await shown("CAST(map(struct(1, 'x'), 'a') AS STRING)")).toBe('{{1, x} -> a}');
    expect(await shown("to_json(map(named_struct('a', 1, 'b', 2), named_struct('a', 1, 'b', 2)))")).toBe('{"[1,2]":{"a":1,"b":2}}');
    expect(await shown("CAST(map(array(1, 2), 'a') AS MAP<ARRAY<STRING>, STRING>)")).toBe('{["1","2"]:"a"}');
    expect(await shown("from_json('{\"[1,2]\": 3}', 'MAP<ARRAY<INT>, INT>')")).toBe('{[1,2]:3}');
    // The console sink, as Spark's show().
    const { row, schema } = await select("map(struct(1, 'x'), 'a', struct(2, 'y'), 'b') AS v");
    expect(prettyString(row.v, schema[0])).toBe('{{1, x} -> a, {2, y} -> b}');
  });
});

describe('the key text of a map of strings and numbers is the text existing state holds', () => {
  const cases: [unknown, Field][] = [
    ['a', { name: 'key', type: 'string' }],
    [12, { name: 'key', type: 'long', integral: 32 }],
    [1.5, { name: 'key', type: 'double' }],
    [150n, { name: 'key', type: 'decimal', precision: 5, scale: 2 }],
    [true, { name: 'key', type: 'boolean' }],
    [16874, { name: 'key', type: 'date' }],
  ];
  it.each(cases)('%s as %o', async (k, f) => {
    const sql = { string: "'a'", long: '12', double: '1.5D', decimal: '1.50BD', boolean: 'true', date: "date '2016-03-14'" }[f.type as string];
    const { row } = await select(`map(${sql}, 'x') AS v`);
    const text = { string: 'a', long: '12', double: '1.5', decimal: '1.50', boolean: 'true', date: '2016-03-14' }[f.type as string]!;
    expect(row.v).toEqual({ [text]: 'x' });
    // The state codec writes the same bytes as for the plain object every earlier version wrote.
    expect(encodeValue(row.v)).toEqual(encodeValue({ [text]: 'x' }));
    expect(decodeValue(encodeValue(row.v))).toEqual({ [text]: 'x' });
    expect(mapKeyValue(text, { type: f.type as never, ...(f.type === 'decimal' ? { decimal: { precision: 5, scale: 2 } } : {}), ...(f.integral ? { integral: f.integral } : {}) })).toEqual(k);
  });

  it('a BINARY key that is UTF-8 keeps its text; any other has a hex text of its own', () => {
    expect(mapKeyText(Buffer.from('ab'), { type: 'binary' })).toBe('ab');
    const ff = mapKeyText(Uint8Array.of(0xff), { type: 'binary' });
    expect(ff).not.toBe(mapKeyText(Uint8Array.of(0xfe), { type: 'binary' }));
    expect([...(mapKeyValue(ff, { type: 'binary' }) as Uint8Array)]).toEqual([0xff]);
  });
});
