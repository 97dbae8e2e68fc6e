/**
 * Spark's higher-order functions run end to end (SQL text → plan → operators) on the examples
 * of Spark's function reference (the `> SELECT …` lines and the results Spark prints) and of its
 * own SQL test file (higher-order-functions.sql), then how lambda variables resolve (shadowing
 * of columns and of outer lambdas, outer columns in a body, case), Spark's errors, and a
 * property test of transform, filter and aggregate against hand-written loops.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordExpressionError, WeirError } from '../errors';
import type { Row, Schema } from '../types';
import { compileExpression } from './expression-compiler';
import { referencedColumns } from './expression';
import { HIGHER_ORDER_FUNCTIONS } from './higher-order-functions';
import { ExpressionBuilder } from './expression-builder';
import { parseExpression } from './parser/ast-builder';
import { compileStreamingQuery } from './streaming-query';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const element = (type: 'long' | 'string') => ({ name: 'element', type, nullable: true });
// Spark's `nested` table's integers are INTs.
const int = { name: 'element', type: 'long', integral: 32, nullable: true } as const;
const SCHEMA: Schema = [
  { name: 'id', type: 'long', integral: 32 },
  { name: 'x', type: 'long', integral: 32 },
  { name: 'ys', type: 'array', elementType: int },
  { name: 'zs', type: 'array', elementType: { name: 'element', type: 'array', nullable: true, elementType: int } },
  { name: 'm', type: 'map', keyType: { name: 'key', type: 'string', nullable: false }, valueType: { name: 'value', type: 'long', nullable: true } },
];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };

/** Spark's test table `nested` (higher-order-functions.sql), with a map column. */
const NESTED: Row[] = [
  { id: 1, x: 1, ys: [32, 97], zs: [[12, 99], [123, 42], [1]], m: { a: 1, b: 2 } },
  { id: 2, x: 2, ys: [77, -76], zs: [[6, 96, 65], [-1, -2]], m: { c: null } },
  { id: 3, x: 3, ys: [12], zs: [[17]], m: {} },
];

async function run(sql: string, rows: Row[] = NESTED): Promise<{ rows: Row[]; schema: Schema }> {
  const q = compileStreamingQuery(sql, rel);
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return { rows: out, schema: q.outputSchema };
}

async function one(expr: string): Promise<unknown> {
  return (await run(`SELECT ${expr} AS v FROM src`, [NESTED[0]])).rows[0].v;
}

/** The column v of each row of `nested`, in order. */
async function column(expr: string): Promise<unknown[]> {
  return (await run(`SELECT ${expr} AS v FROM src`)).rows.map((r) => r.v);
}

// [expression, Spark's documented result]
const EXAMPLES: [string, unknown][] = [
  // transform: > SELECT transform(array(1, 2, 3), x -> x + 1); [2,3,4] · (x, i) -> x + i; [1,3,5]
  ['transform(array(1, 2, 3), x -> x + 1)', [2, 3, 4]],
  ['transform(array(1, 2, 3), (x, i) -> x + i)', [1, 3, 5]],
  // filter: > SELECT filter(array(1, 2, 3), x -> x % 2 == 1); [1,3] · > … (x, i) -> x > i; [2,3] · x IS NOT NULL; [0,2,3]
  ['filter(array(1, 2, 3), x -> x % 2 == 1)', [1, 3]],
  ['filter(array(0, 2, 3), (x, i) -> x > i)', [2, 3]],
  ['filter(array(0, null, 2, 3, null), x -> x IS NOT NULL)', [0, 2, 3]],
  // exists: true · false · NULL · true · false
  ['exists(array(1, 2, 3), x -> x % 2 == 0)', true],
  ['exists(array(1, 2, 3), x -> x % 2 == 10)', false],
  ['exists(array(1, null, 3), x -> x % 2 == 0)', null],
  ['exists(array(0, null, 2, 3, null), x -> x IS NULL)', true],
  ['exists(array(1, 2, 3), x -> x IS NULL)', false],
  // forall: false · true · false · NULL
  ['forall(array(1, 2, 3), x -> x % 2 == 0)', false],
  ['forall(array(2, 4, 8), x -> x % 2 == 0)', true],
  ['forall(array(1, null, 3), x -> x % 2 == 0)', false],
  ['forall(array(2, null, 8), x -> x % 2 == 0)', null],
  // aggregate: > SELECT aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x); 6 · with acc -> acc * 10; 60
  ['aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x)', 6],
  ['aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10)', 60],
  // reduce (Spark 3.4): the same examples
  ['reduce(array(1, 2, 3), 0, (acc, x) -> acc + x)', 6],
  ['reduce(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10)', 60],
  // zip_with: > SELECT zip_with(array(1, 2), array(3, 4), (x, y) -> x + y); [4,6] · concat; ["ad","be","cf"]
  ['zip_with(array(1, 2), array(3, 4), (x, y) -> x + y)', [4, 6]],
  ["zip_with(array('a', 'b', 'c'), array('d', 'e', 'f'), (x, y) -> concat(x, y))", ['ad', 'be', 'cf']],
  ["zip_with(array('a'), array('d', null, 'f'), (x, y) -> coalesce(x, y))", ['a', null, 'f']],
  // array_sort: > … (left, right) -> case when left < right then -1 when left > right then 1 else 0 end); [1,5,6]
  ['array_sort(array(5, 6, 1), (left, right) -> case when left < right then -1 when left > right then 1 else 0 end)', [1, 5, 6]],
  [
    "array_sort(array('bc', 'ab', 'dc'), (left, right) -> case when left is null and right is null then 0 when left is null then -1 when right is null then 1 when left < right then 1 when left > right then -1 else 0 end)",
    ['dc', 'bc', 'ab'],
  ],
  // > SELECT array_sort(array('b', 'd', null, 'c', 'a')); ["a","b","c","d",null]
  ["array_sort(array('b', 'd', null, 'c', 'a'))", ['a', 'b', 'c', 'd', null]],
  ["array_sort(array(2D, CAST('NaN' AS DOUBLE), NULL, 1D))", [1, 2, NaN, null]],
  // Constant folding reaches into a body, never past a variable.
  ['transform(array(1, 2), x -> x * (1 + 2))', [3, 6]],
  ['aggregate(array(1L), 0L, (a, x) -> a + x)', 1],
  // map_filter: > SELECT map_filter(map(1, 0, 2, 2, 3, -1), (k, v) -> k > v); {1:0,3:-1}
  ['map_filter(map(1, 0, 2, 2, 3, -1), (k, v) -> k > v)', { 1: 0, 3: -1 }],
  // transform_keys / transform_values: Spark's examples build the map with map_from_arrays(array(1, 2, 3), array(1, 2, 3))
  ['transform_keys(map(1, 1, 2, 2, 3, 3), (k, v) -> k + 1)', { 2: 1, 3: 2, 4: 3 }],
  ['transform_keys(map(1, 1, 2, 2, 3, 3), (k, v) -> k + v)', { 2: 1, 4: 2, 6: 3 }],
  ['transform_values(map(1, 1, 2, 2, 3, 3), (k, v) -> v + 1)', { 1: 2, 2: 3, 3: 4 }],
  ['transform_values(map(1, 1, 2, 2, 3, 3), (k, v) -> k + v)', { 1: 2, 2: 4, 3: 6 }],
  // map_zip_with: {1:"ax",2:"by"} · {"a":1,"b":5,"c":4}
  ["map_zip_with(map(1, 'a', 2, 'b'), map(1, 'x', 2, 'y'), (k, v1, v2) -> concat(v1, v2))", { 1: 'ax', 2: 'by' }],
  ["map_zip_with(map('a', 1, 'b', 2), map('b', 3, 'c', 4), (k, v1, v2) -> coalesce(v1, 0) + coalesce(v2, 0))", { a: 1, b: 5, c: 4 }],
  // Keys of two integer types: the wider (mapZipWith.sql: a TINYINT map with a SMALLINT map).
  ["map_zip_with(map(cast(1 as tinyint), 'a'), map(cast(1 as smallint), 'b', cast(2 as smallint), 'c'), (k, v1, v2) -> concat(v1, v2))", { 1: 'ab', 2: null }],
  ["map_keys(map_zip_with(map(1, 'a'), map(2L, 'b'), (k, v1, v2) -> v1))", [1, 2]],
];

// [expression over `nested`, Spark's rows in id order] (higher-order-functions.sql.out)
const NESTED_EXAMPLES: [string, unknown[]][] = [
  ['transform(zs, z -> z)', [[[12, 99], [123, 42], [1]], [[6, 96, 65], [-1, -2]], [[17]]]],
  ['transform(ys, y -> y * y)', [[1024, 9409], [5929, 5776], [144]]],
  ['transform(ys, (y, i) -> y + i)', [[32, 98], [77, -75], [12]]],
  ['transform(ys, 0)', [[0, 0], [0, 0], [0]]],
  ['filter(ys, y -> y > 30)', [[32, 97], [77], []]],
  ['transform(zs, z -> filter(z, zz -> zz > 50))', [[[99], [123], []], [[96, 65], []], [[]]]],
  ['aggregate(ys, 0, (y, a) -> y + a + x)', [131, 5, 15]],
  ['transform(zs, z -> aggregate(z, 1, (acc, val) -> acc * val * size(z)))', [[4752, 20664, 1], [1010880, 8], [17]]],
  ['exists(ys, y -> y > 30)', [true, true, false]],
  ['zip_with(ys, zs, (a, b) -> a + size(b))', [[34, 99, null], [80, -74], [13]]],
];

describe('higher-order functions (Spark documentation examples)', () => {
  it.each(EXAMPLES)('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it.each(NESTED_EXAMPLES)('%s over Spark\'s `nested` table', async (expr, expected) => {
    expect(await column(expr)).toEqual(expected);
  });

  it('gives NULL for a NULL array or map, as higher-order-functions.sql does with cast(null as array<int>)', async () => {
    const sql =
      'SELECT transform(ys, y -> y + 1) AS a, filter(ys, y -> true) AS b, exists(ys, y -> y > 30) AS c, forall(ys, y -> y > 30) AS d, ' +
      'aggregate(ys, 0, (a, y) -> a + y + 1, a -> a + 2) AS e, zip_with(ys, zs, (p, q) -> p) AS f, array_sort(ys) AS g, map_filter(m, (k, v) -> true) AS h, ' +
      'transform_values(m, (k, v) -> v) AS i, map_zip_with(m, m, (k, p, q) -> p) AS j FROM src';
    const { rows } = await run(sql, [{ id: 9, x: 9, ys: null, zs: null, m: null }]);
    expect(Object.values(rows[0])).toEqual(Array(10).fill(null));
  });

  it('types results from the lambda: elements, keys, values, the state', () => {
    const { outputSchema: schema } = compileStreamingQuery(
      "SELECT transform(ys, y -> CAST(y AS STRING)) AS a, filter(zs, z -> size(z) > 1) AS b, aggregate(ys, 0D, (acc, y) -> acc + y) AS c, " +
        "transform_values(m, (k, v) -> v > 1) AS d, transform_keys(m, (k, v) -> length(k)) AS e, exists(ys, y -> y > 0) AS f, zip_with(ys, ys, (p, q) -> array(p, q)) AS g FROM src",
      rel,
    );
    expect(schema.map((f) => f.type)).toEqual(['array', 'array', 'double', 'map', 'map', 'boolean', 'array']);
    expect(schema[0].elementType).toMatchObject({ type: 'string' });
    expect(schema[1].elementType).toMatchObject({ type: 'array', elementType: { type: 'long' } });
    expect(schema[3]).toMatchObject({ keyType: { type: 'string' }, valueType: { type: 'boolean' } });
    expect(schema[4]).toMatchObject({ keyType: { type: 'long' }, valueType: { type: 'long' } });
    expect(schema[6].elementType).toMatchObject({ type: 'array', elementType: { type: 'long' } });
  });

  it('documents every one in docs/sql.md', () => {
    const docs = readFileSync(path.join(import.meta.dirname, '../../../docs/sql.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Higher-order functions'), docs.indexOf('### JSON'));
    for (const name of Object.keys(HIGHER_ORDER_FUNCTIONS)) expect(section, name).toContain(`\`${name}(`);
  });

  it('passes map keys to a lambda in their own type', async () => {
    expect(await one("map_filter(map(1, 'a', 20, 'b'), (k, v) -> k > 5)")).toEqual({ 20: 'b' });
    expect(await one('transform_values(map(1.5, 1), (k, v) -> k * 2)')).toEqual({ '1.5': 30n });
    expect(await column('map_filter(m, (k, v) -> v IS NULL OR k = \'b\')')).toEqual([{ b: 2 }, { c: null }, {}]);
  });
});

describe('lambda variables', () => {
  it('a parameter shadows a column of the same name; other names are the row\'s columns', async () => {
    // x is a column of `nested` (1, 2, 3) and the lambda's parameter here.
    expect(await column('transform(ys, x -> x + 1)')).toEqual([[33, 98], [78, -75], [13]]);
    expect(await column('transform(ys, y -> y + x)')).toEqual([[33, 98], [79, -74], [15]]);
  });

  it('an inner lambda reads the outer one\'s variables, and shadows them by name', async () => {
    expect(await column('transform(zs, z -> transform(z, e -> e + size(z)))')).toEqual([
      [[14, 101], [125, 44], [2]],
      [[9, 99, 68], [1, 0]],
      [[18]],
    ]);
    expect(await one('transform(array(1, 2), x -> transform(array(10), x -> x))')).toEqual([[10], [10]]);
    expect(await one('transform(array(1, 2), x -> transform(array(10, 20), (y, i) -> x * 100 + y + i))')).toEqual([[110, 121], [210, 221]]);
  });

  it('resolves names case-insensitively, and a field of a struct variable', async () => {
    expect(await one('transform(array(1, 2), X -> x * 10)')).toEqual([10, 20]);
    expect(await one("transform(array(from_json('{\"a\": 5}', 'a INT')), s -> s.a + 1)")).toEqual([6]);
  });

  it('works in WHERE, and in a streaming aggregation over the group\'s arrays', async () => {
    expect((await run('SELECT id FROM src WHERE exists(ys, y -> y < 0)')).rows).toEqual([{ id: 2 }]);
    // In the lambda, X (any case) is its parameter, not the grouping column x.
    const sql = 'SELECT x, transform(sort_array(collect_list(id)), X -> x * 10 + size(ys)) AS t, aggregate(collect_list(id), 0, (acc, v) -> acc + v * x) AS s FROM src GROUP BY x, ys';
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'complete');
    await q.runBatch([{ ...NESTED[0], id: 1 }, { ...NESTED[0], id: 4 }]);
    q.restart();
    const { output } = await q.runBatch([{ ...NESTED[0], id: 5 }, NESTED[2]]);
    expect(output.sort((a, b) => Number(a.x) - Number(b.x))).toEqual([
      { x: 1, t: [12, 42, 52], s: 10 },
      { x: 3, t: [31], s: 9 },
    ]);
  });

  it('keeps two aggregates whose lambdas differ only in which variable is where apart', async () => {
    const sql = 'SELECT x, sum(aggregate(ys, 0, (a, y) -> a - y)) AS p, sum(aggregate(ys, 0, (a, y) -> y - a)) AS q FROM src GROUP BY x';
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'complete');
    const { output } = await q.runBatch([NESTED[0]]);
    // [32, 97]: 0 - 32 - 97 = -129; 97 - (32 - 0) = 65.
    expect(output).toEqual([{ x: 1, p: -129, q: 65 }]);
  });

  it('reads the row\'s columns a body names, never its variables (what column pruning keeps)', () => {
    const sql = 'transform(zs, z -> transform(z, e -> e + x + size(ys)))';
    const e = new ExpressionBuilder({ qualifiers: new Set() }, sql).build(parseExpression(sql));
    expect([...referencedColumns(e)].sort()).toEqual(['x', 'ys', 'zs']);
  });

  it('does not change the expression it compiles', () => {
    const sql = 'aggregate(transform(ys, (y, i) -> y + i + x), 0, (acc, v) -> acc + v, acc -> acc * 2)';
    const e = new ExpressionBuilder({ qualifiers: new Set() }, sql).build(parseExpression(sql));
    const before = JSON.stringify(e);
    const frozen = deepFreeze(e);
    const c = compileExpression(frozen, SCHEMA);
    expect(c.eval(NESTED[0], { batchTimestampMs: 0 })).toBe(2 * (32 + 0 + 1 + 97 + 1 + 1));
    expect(JSON.stringify(e)).toBe(before);
    // date_part's field was lower-cased in place before: now in a copy.
    const datePart = "transform(array(TIMESTAMP '2024-05-06 07:00:00'), t -> date_part('YEAR', t) + x)";
    const d = deepFreeze(new ExpressionBuilder({ qualifiers: new Set() }, datePart).build(parseExpression(datePart)));
    expect(compileExpression(d, SCHEMA).eval(NESTED[0], { batchTimestampMs: 0 })).toEqual([2025]);
  });

  it('names the column as Spark 3.1 does (lambdafunction(body, parameters))', async () => {
    const { schema } = await run('SELECT transform(ys, y -> y + 1) FROM src');
    expect(schema[0].name).toBe('transform(ys, lambdafunction((y + 1), y))');
  });
});

describe("Spark's errors", () => {
  const refused = (expr: string, errorClass?: string) => {
    let err: unknown;
    try {
      compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
    } catch (e) {
      err = e;
    }
    expect(err, expr).toBeInstanceOf(WeirError);
    if (errorClass) expect((err as WeirError).errorClass, `${expr}: ${(err as Error).message}`).toBe(errorClass);
    return (err as Error).message;
  };

  it('INVALID_LAMBDA_FUNCTION_CALL: the number of parameters, duplicates, a lambda outside a higher-order function', () => {
    expect(refused('transform(ys, (a, b, c) -> a)', 'INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH')).toMatch(/A higher order function expects 3 arguments, but got 1/);
    refused('exists(ys, (y, i) -> y > i)', 'INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH');
    refused('aggregate(ys, 0, acc -> acc)', 'INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH');
    refused('map_filter(m, k -> true)', 'INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH');
    refused('zip_with(ys, ys, (a, A) -> a)', 'INVALID_LAMBDA_FUNCTION_CALL.DUPLICATE_ARG_NAMES');
    expect(refused('upper(x -> x)', 'INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION')).toMatch(/upper\(\) is not a higher order function/);
    // An aggregate inside a lambda is computed over the rows, where the lambda's variables do not exist.
    expect(refused('transform(ys, y -> sum(y))')).toMatch(/y is a variable of a lambda function, used outside it/);
  });

  it('DATATYPE_MISMATCH: not an array or a map, a predicate that is not boolean, a state of another type', () => {
    expect(refused('transform(x, y -> y)', 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE')).toMatch(/The first parameter requires the "ARRAY" type, however "x" has the type "INT"/);
    refused('filter(ys, y -> y + 1)', 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    refused('forall(ys, y -> y)', 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    refused('map_filter(ys, (k, v) -> true)', 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    expect(refused('aggregate(array(1.5D, 2.5D), 0, (acc, y) -> acc + y)', 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE')).toMatch(/The third parameter requires the "INT" type/);
    // The start value is an INT and the lambda gives a BIGINT: Spark refuses it too.
    expect(refused('aggregate(array(1L), 0, (a, x) -> a + x)', 'DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE')).toMatch(/requires the "INT" type, however .* has the type "BIGINT"/);
    refused("array_sort(ys, (l, r) -> 'a')", 'DATATYPE_MISMATCH.UNEXPECTED_RETURN_TYPE');
    refused("array_sort(array(map('a', 1)))", 'DATATYPE_MISMATCH.INVALID_ORDERING_TYPE');
    // Keys of no wider type, or of one some keys cannot be read as (a DECIMAL that loses digits).
    refused("map_zip_with(m, map(array(1), 2), (k, a, b) -> a)", 'DATATYPE_MISMATCH.MAP_ZIP_WITH_DIFF_TYPES');
    refused("map_zip_with(map(1.5, 'a'), map(CAST(1 AS DECIMAL(38, 0)), 'b'), (k, a, b) -> a)", 'DATATYPE_MISMATCH.MAP_ZIP_WITH_DIFF_TYPES');
    refused('transform(ys)');
    refused('aggregate(ys, 0, (a, y) -> a, a -> a, a -> a)');
  });

  it('a comparator giving NULL, a NULL or repeated new key: the record fails, as Spark fails the query', async () => {
    await expect(one('array_sort(array(2, 1), (l, r) -> if(l > 5, 1, CAST(NULL AS INT)))')).rejects.toThrow(/COMPARATOR_RETURNS_NULL/);
    await expect(one('transform_keys(map(1, 1, 2, 2), (k, v) -> 0)')).rejects.toThrow(/DUPLICATED_MAP_KEY/);
    await expect(one('transform_keys(map(1, 1), (k, v) -> CAST(NULL AS BIGINT))')).rejects.toThrow(RecordExpressionError);
  });
});

describe('transform, filter and aggregate against hand-written loops', () => {
  const arrays = fc.array(fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: null }), { maxLength: 12 });
  const nullableArrays = fc.option(arrays, { nil: null });
  const compiled = (sql: string) =>
    compileExpression(new ExpressionBuilder({ qualifiers: new Set() }, sql).build(parseExpression(sql)), [
      { name: 'a', type: 'array', elementType: element('long') },
      { name: 'k', type: 'long' },
    ]);
  const transform = compiled('transform(a, (v, i) -> v * k + i)');
  const filter = compiled('filter(a, (v, i) -> v % 3 = 0 OR i = k)');
  const aggregate = compiled('aggregate(a, 0L, (acc, v) -> acc + coalesce(v, k), acc -> acc * 2)');
  const exists = compiled('exists(a, v -> v > k)');
  const ctx = { batchTimestampMs: 0 };

  it('gives what the loop gives, NULL elements and NULL arrays included', () => {
    fc.assert(
      fc.property(nullableArrays, fc.integer({ min: -5, max: 5 }), (a, k) => {
        const row = { a, k };
        if (a === null) {
          expect([transform, filter, aggregate, exists].map((c) => c.eval(row, ctx))).toEqual([null, null, null, null]);
          return;
        }
        const mapped: (number | null)[] = [];
        const kept: (number | null)[] = [];
        let sum = 0;
        let found: boolean | null = false;
        for (let i = 0; i < a.length; i++) {
          const v = a[i];
          mapped.push(v === null ? null : v * k + i);
          if ((v !== null && v % 3 === 0) || i === k) kept.push(v);
          sum += v ?? k;
          if (v === null) found = found === true ? true : null;
          else if (v > k) found = true;
        }
        expect(transform.eval(row, ctx)).toEqual(mapped);
        expect(filter.eval(row, ctx)).toEqual(kept);
        expect(aggregate.eval(row, ctx)).toBe(sum * 2);
        expect(exists.eval(row, ctx)).toBe(found);
      }),
      { seed: 20261203, numRuns: 500 },
    );
  });
});

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
