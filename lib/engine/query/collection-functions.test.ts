/**
 * ARRAY and MAP functions on the examples of Spark's function reference (the `> SELECT …`
 * lines of each function's documentation and its result as Spark prints it), plus the NULL
 * handling and the edge cases Spark documents (size(NULL) = -1, element_at out of range NULL,
 * split's limit and trailing empty strings).
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../errors';
import type { Row, Schema } from '../types';
import { splitString } from './regexp-functions';
import { compileStreamingQuery } from './streaming-query';

const SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 'n', type: 'long' },
  { name: 'arr', type: 'array', elementType: { name: 'element', type: 'long', nullable: true } },
];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };

async function run(sql: string, rows: Row[] = [{ id: 1, n: null, arr: [1, 2, 3] }]): Promise<{ rows: Row[]; schema: Schema }> {
  const q = compileStreamingQuery(sql, rel);
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return { rows: out, schema: q.outputSchema };
}

async function one(expr: string): Promise<unknown> {
  return (await run(`SELECT ${expr} AS v FROM src`)).rows[0].v;
}

// [expression, Spark's documented result]
const EXAMPLES: [string, unknown][] = [
  // split: > SELECT split('oneAtwoBthreeC', '[ABC]'); ["one","two","three",""]
  ["split('oneAtwoBthreeC', '[ABC]')", ['one', 'two', 'three', '']],
  // > SELECT split('oneAtwoBthreeC', '[ABC]', -1); ["one","two","three",""]
  ["split('oneAtwoBthreeC', '[ABC]', -1)", ['one', 'two', 'three', '']],
  // > SELECT split('oneAtwoBthreeC', '[ABC]', 2); ["one","twoBthreeC"]
  ["split('oneAtwoBthreeC', '[ABC]', 2)", ['one', 'twoBthreeC']],
  ["split('a,b,,', ',')", ['a', 'b', '', '']],
  ["split('a,b,,', ',', 0)", ['a', 'b', '', '']],
  ["split('', ',')", ['']],
  ["split('abc', '')", ['a', 'b', 'c']],
  ["split(NULL, ',')", null],
  // size: > SELECT size(array('b', 'd', 'c', 'a')); 4 · > SELECT size(map('a', 1, 'b', 2)); 2
  ["size(array('b', 'd', 'c', 'a'))", 4],
  ["size(map('a', 1, 'b', 2))", 2],
  // Spark's default spark.sql.legacy.sizeOfNull=true: > SELECT size(NULL); -1
  ['size(NULL)', -1],
  ["cardinality(array('b', 'd', 'c', 'a'))", 4],
  // element_at: > SELECT element_at(array(1, 2, 3), 2); 2 · > SELECT element_at(map(1, 'a', 2, 'b'), 2); b
  ['element_at(array(1, 2, 3), 2)', 2],
  ['element_at(array(1, 2, 3), -1)', 3],
  ['element_at(array(1, 2, 3), 5)', null],
  ["element_at(map(1, 'a', 2, 'b'), 2)", 'b'],
  ["element_at(map(1, 'a', 2, 'b'), 3)", null],
  // get: > SELECT get(array(1, 2, 3), 0); 1 · > SELECT get(array(1, 2, 3), 3); NULL · > SELECT get(array(1, 2, 3), -1); NULL
  ['get(array(1, 2, 3), 0)', 1],
  ['get(array(1, 2, 3), 3)', null],
  ['get(array(1, 2, 3), -1)', null],
  ['arr[0]', 1],
  ['arr[5]', null],
  ["split('a b c', ' ')[1]", 'b'],
  ["map('a', 1, 'b', 2)['b']", 2],
  // array_contains: > SELECT array_contains(array(1, 2, 3), 2); true
  ['array_contains(array(1, 2, 3), 2)', true],
  ['array_contains(array(1, 2, 3), 4)', false],
  ['array_contains(array(1, NULL, 3), 4)', null],
  ['array_contains(array(1, NULL, 3), 1)', true],
  ['array_contains(arr, NULL)', null],
  ['array_contains(array(1.50, 2.25), 1.5)', true],
  ['array_contains(array(1.50, 2.25), 2)', false],
  ['array_contains(array(1.5D, 2.0D), 2)', true],
  ['CAST(array_max(array(1.50, 12.25, NULL)) AS STRING)', '12.25'],
  // array: > SELECT array(1, 2, 3); [1,2,3]
  ['array(1, 2, 3)', [1, 2, 3]],
  ['array(1, 2.5D)', [1, 2.5]],
  // array_join: > SELECT array_join(array('hello', 'world'), ' '); hello world
  ["array_join(array('hello', 'world'), ' ')", 'hello world'],
  // > SELECT array_join(array('hello', null ,'world'), ' '); hello world
  ["array_join(array('hello', null ,'world'), ' ')", 'hello world'],
  // > SELECT array_join(array('hello', null ,'world'), ' ', ','); hello , world
  ["array_join(array('hello', null ,'world'), ' ', ',')", 'hello , world'],
  ["array_join(array(1, 2), '-')", '1-2'],
  // concat_ws: > SELECT concat_ws(',', 'a', array('b', 'c'), NULL); a,b,c
  ["concat_ws(',', 'a', array('b', 'c'), NULL)", 'a,b,c'],
  ["concat_ws(' ', 'Spark', 'SQL')", 'Spark SQL'],
  // sort_array: > SELECT sort_array(array('b', 'd', null, 'c', 'a'), true); [null,"a","b","c","d"]
  ["sort_array(array('b', 'd', null, 'c', 'a'), true)", [null, 'a', 'b', 'c', 'd']],
  ["sort_array(array('b', 'd', null, 'c', 'a'), false)", ['d', 'c', 'b', 'a', null]],
  ["sort_array(array('b', 'd', null, 'c', 'a'))", [null, 'a', 'b', 'c', 'd']],
  // array_distinct: > SELECT array_distinct(array(1, 2, 3, null, 3)); [1,2,3,null]
  ['array_distinct(array(1, 2, 3, null, 3))', [1, 2, 3, null]],
  // array_max: > SELECT array_max(array(1, 20, null, 3)); 20 · array_min: > SELECT array_min(array(1, 20, null, 3)); 1
  ['array_max(array(1, 20, null, 3))', 20],
  ['array_min(array(1, 20, null, 3))', 1],
  ['array_max(array(CAST(NULL AS BIGINT)))', null],
  // slice: > SELECT slice(array(1, 2, 3, 4), 2, 2); [2,3] · > SELECT slice(array(1, 2, 3, 4), -2, 2); [3,4]
  ['slice(array(1, 2, 3, 4), 2, 2)', [2, 3]],
  ['slice(array(1, 2, 3, 4), -2, 2)', [3, 4]],
  ['slice(array(1, 2, 3, 4), 9, 2)', []],
  // flatten: > SELECT flatten(array(array(1, 2), array(3, 4))); [1,2,3,4]
  ['flatten(array(array(1, 2), array(3, 4)))', [1, 2, 3, 4]],
  ['flatten(array(array(1, 2), NULL))', null],
  // map_keys: > SELECT map_keys(map(1, 'a', 2, 'b')); [1,2] · map_values: ["a","b"]
  ["map_keys(map(1, 'a', 2, 'b'))", [1, 2]],
  ["map_values(map(1, 'a', 2, 'b'))", ['a', 'b']],
  // map: > SELECT map(1.0, '2', 3.0, '4'); {1.0:"2",3.0:"4"} (keys as their text inside Weir)
  ["map('a', 1, 'b', 2)", { a: 1, b: 2 }],
  // str_to_map: > SELECT str_to_map('a:1,b:2,c:3', ',', ':'); {"a":"1","b":"2","c":"3"} · > SELECT str_to_map('a'); {"a":null}
  ["str_to_map('a:1,b:2,c:3', ',', ':')", { a: '1', b: '2', c: '3' }],
  ["str_to_map('a:1,b:2,c:3')", { a: '1', b: '2', c: '3' }],
  ["str_to_map('a')", { a: null }],
  // to_json: > SELECT to_json(array(named_struct('a', 1, 'b', 2))) …; of an array and a map:
  // > SELECT to_json(map('a', named_struct('b', 1))); {"a":{"b":1}} · > SELECT to_json(array(map('a', 1))); [{"a":1}]
  ["to_json(array(map('a', 1)))", '[{"a":1}]'],
  ["to_json(map('a', array(1, 2)))", '{"a":[1,2]}'],
  ["to_json(array('a', NULL))", '["a",null]'],
  // from_json: > SELECT from_json('[1, 2, 3]', 'array<int>') … and a map schema
  ["from_json('[1, 2, 3]', 'ARRAY<INT>')", [1, 2, 3]],
  ["from_json('{\"a\": 1, \"b\": 0.8}', 'MAP<STRING, DOUBLE>')", { a: 1, b: 0.8 }],
  ["from_json('{\"a\": 1}', 'ARRAY<STRUCT<a: INT>>')", [{ a: 1 }]],
  ["from_json('not json', 'ARRAY<INT>')", null],
];

describe('ARRAY and MAP functions (Spark documentation examples)', () => {
  it.each(EXAMPLES)('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('reads arrays as struct fields: > SELECT from_json(…, \'STRUCT<teacher: STRING, student: ARRAY<STRUCT<name: STRING, rank: INT>>>\')', async () => {
    const json = '{"teacher": "Alice", "student": [{"name": "Bob", "rank": 1}, {"name": "Charlie", "rank": 2}]}';
    const sql = `SELECT p.teacher, element_at(p.student, 2) AS second, size(p.student) AS n FROM (SELECT from_json('${json}', 'STRUCT<teacher: STRING, student: ARRAY<STRUCT<name: STRING, rank: INT>>>') AS p FROM src)`;
    const { rows, schema } = await run(sql);
    expect(rows[0]).toEqual({ teacher: 'Alice', second: { name: 'Charlie', rank: 2 }, n: 2 });
    expect(schema[1]).toMatchObject({ type: 'struct', fields: [{ name: 'name' }, { name: 'rank' }] });
  });

  it('refuses what Spark refuses, at validation', () => {
    const refused = (expr: string) => expect(() => compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel)).toThrow(WeirError);
    refused('element_at(array(1, 2, 3), 0)');
    refused('slice(array(1, 2), 0, 1)');
    refused("size('abc')");
    refused("array_contains(array(1, 2), array(1))");
    // (array(1, 'a') is an ARRAY<STRING>: CreateArray widens by findWiderCommonType.)
    refused('array(1, true)');
    refused("explode(array(1)) + 1");
    refused("split(id, '[')");
  });

  it('a duplicate or NULL map key makes the record bad, as Spark fails on it', async () => {
    await expect(one("map('a', 1, 'a', 2)")).rejects.toThrow(/DUPLICATED_MAP_KEY/);
    await expect(one("str_to_map('a:1,a:2')")).rejects.toThrow(/DUPLICATED_MAP_KEY/);
  });

  it('types results with their element, key and value types', async () => {
    const { schema } = await run("SELECT split('a b', ' ') AS words, map('k', arr) AS m, arr FROM src");
    expect(schema[0]).toMatchObject({ type: 'array', elementType: { type: 'string' } });
    expect(schema[1]).toMatchObject({ type: 'map', keyType: { type: 'string' }, valueType: { type: 'array', elementType: { type: 'long' } } });
    expect(schema[2]).toMatchObject({ type: 'array', elementType: { type: 'long' } });
  });
});

describe('splitString (Java String.split with limit -1, as Spark)', () => {
  it.each<[string, string, number, string[]]>([
    ['a1b22c', '\\d+', -1, ['a', 'b', 'c']],
    ['a1b2', '\\d', -1, ['a', 'b', '']],
    ['1a', '\\d', -1, ['', 'a']],
    ['abc', 'x*', -1, ['a', 'b', 'c', '']],
    ['a😀b', '', -1, ['a', '😀', 'b']],
    ['a😀b😀', '[😀]', -1, ['a', 'b', '']],
    ['😀 x  y', '\\s+', -1, ['😀', 'x', 'y']],
    ['a😀b', 'x*', -1, ['a', '😀', 'b', '']],
    ['a,b,c', ',', 2, ['a', 'b,c']],
    ['a,b,c', ',', 1, ['a,b,c']],
    ['abc', '', 2, ['a', 'bc']],
  ])('split(%j, %j, %d)', (s, p, limit, expected) => {
    expect(splitString(s, p, limit)).toEqual(expected);
  });
});
