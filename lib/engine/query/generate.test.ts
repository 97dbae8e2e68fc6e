/**
 * Generators in a SELECT list (Spark's Generate): explode, posexplode, inline and the _outer
 * forms over arrays and maps, with Spark's output column names, on the examples of Spark's function
 * reference, and what Spark refuses.
 */
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { simpleTypeString, typeText } from './data-types';
import { SqlValidationError } from './sql-error';
import { writtenColumnName } from './column-names';
import { compileStreamingQuery } from './streaming-query';

const SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 'line', type: 'string' },
  { name: 'tags', type: 'array', elementType: { name: 'element', type: 'string', nullable: true } },
];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };

async function evalRows(sql: string, rows: Row[]): Promise<{ rows: Row[]; schema: Schema; explain: string }> {
  const q = compileStreamingQuery(sql, rel);
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return { rows: out, schema: q.outputSchema, explain: q.explain };
}

const ROWS: Row[] = [
  { id: 1, line: 'a b', tags: ['x', 'y'] },
  { id: 2, line: '', tags: [] },
  { id: 3, line: 'c', tags: null },
];

function sqlError(sql: string): SqlValidationError {
  try {
    compileStreamingQuery(sql, rel);
  } catch (e) {
    if (e instanceof SqlValidationError) return e;
    throw e;
  }
  throw new Error(`expected ${sql} to fail`);
}

describe('Generate: explode and posexplode in the SELECT list', () => {
  it('> SELECT explode(array(10, 20)); 10 · 20 (column col)', async () => {
    const { rows, schema } = await evalRows('SELECT explode(array(10, 20)) FROM src', [{ id: 1 }]);
    expect(rows).toEqual([{ col: 10 }, { col: 20 }]);
    expect(schema).toMatchObject([{ name: 'col', type: 'long' }]);
  });

  it('> SELECT posexplode(array(10,20)); 0 10 · 1 20 (columns pos, col)', async () => {
    const { rows } = await evalRows('SELECT posexplode(array(10, 20)) FROM src', [{ id: 1 }]);
    expect(rows).toEqual([{ pos: 0, col: 10 }, { pos: 1, col: 20 }]);
  });

  it("> SELECT explode(map('a', 1, 'b', 2)); a 1 · b 2 (columns key, value); posexplode adds pos", async () => {
    expect((await evalRows("SELECT explode(map('a', 1, 'b', 2)) FROM src", [{ id: 1 }])).rows).toEqual([{ key: 'a', value: 1 }, { key: 'b', value: 2 }]);
    expect((await evalRows("SELECT posexplode(map(1, 'a')) FROM src", [{ id: 1 }])).rows).toEqual([{ pos: 0, key: 1, value: 'a' }]);
  });

  it('carries the other items beside each element; NULL and empty arrays give no row, _outer one row of NULLs', async () => {
    const carried = await evalRows('SELECT id, explode(tags) AS tag FROM src', ROWS);
    expect(carried.rows).toEqual([{ id: 1, tag: 'x' }, { id: 1, tag: 'y' }]);
    expect(carried.explain).toMatch(/Generate explode\(tags\), \[tag\] carries \[id\]/);
    expect((await evalRows('SELECT id, explode_outer(tags) AS tag FROM src', ROWS)).rows).toEqual([
      { id: 1, tag: 'x' }, { id: 1, tag: 'y' }, { id: 2, tag: null }, { id: 3, tag: null },
    ]);
    expect((await evalRows('SELECT upper(line) AS u, posexplode_outer(tags) FROM src WHERE id > 1', ROWS)).rows).toEqual([
      { u: '', pos: null, col: null }, { u: 'C', pos: null, col: null },
    ]);
  });

  it('splits words as Spark: an empty line is one empty word', async () => {
    const { rows, explain } = await evalRows("SELECT explode(split(line, ' ')) AS word FROM src", ROWS);
    expect(rows.map((r) => r.word)).toEqual(['a', 'b', '', 'c']);
    // ColumnPruning: nothing above reads an input column, so none is copied into the word rows.
    expect(explain).toMatch(/Generate explode\(split\(line, ' '\)\), \[word\] carries \[\] \[stateless\]/);
  });

  it('a projection above reads the generated column, and a WHERE below filters the input rows', async () => {
    const { rows } = await evalRows("SELECT upper(word) AS w, length(word) AS n FROM (SELECT id, explode(split(line, ' ')) AS word FROM src WHERE id = 1) WHERE word <> 'b'", ROWS);
    expect(rows).toEqual([{ w: 'A', n: 1 }]);
  });

  it("> SELECT inline(array(struct(1, 'a'), struct(2, 'b'))); 1 a · 2 b (the struct's fields, col1 and col2)", async () => {
    const { rows, schema } = await evalRows("SELECT inline(array(struct(1, 'a'), struct(2, 'b'))) FROM src", [{ id: 1 }]);
    expect(rows).toEqual([{ col1: 1, col2: 'a' }, { col1: 2, col2: 'b' }]);
    expect(schema).toMatchObject([{ name: 'col1', type: 'long', integral: 32 }, { name: 'col2', type: 'string' }]);
  });

  it('inlines an array of structs read from JSON, a NULL element a row of NULLs; _outer keeps a row with none, LATERAL VIEW too', async () => {
    const events = "from_json(line, 'ARRAY<STRUCT<user: STRING, n: BIGINT>>')";
    const input: Row[] = [{ id: 1, line: '[{"user":"ann","n":3},null,{"user":"bob"}]' }, { id: 2, line: '[]' }, { id: 3, line: 'not json' }];
    const inner = await evalRows(`SELECT id, inline(${events}) AS (who, n) FROM src`, input);
    expect(inner.rows).toEqual([{ id: 1, who: 'ann', n: 3 }, { id: 1, who: null, n: null }, { id: 1, who: 'bob', n: null }]);
    expect(inner.schema).toMatchObject([{ name: 'id' }, { name: 'who', type: 'string' }, { name: 'n', type: 'long' }]);
    expect((await evalRows(`SELECT id, inline_outer(${events}) FROM src WHERE id > 1`, input)).rows).toStrictEqual([{ id: 2, user: null, n: null }, { id: 3, user: null, n: null }]);
    expect((await evalRows(`SELECT id, e.user FROM src LATERAL VIEW inline(${events}) e AS user, n WHERE n > 1`, input)).rows).toEqual([{ id: 1, user: 'ann' }]);
    expect(sqlError('SELECT inline(tags) FROM src').message).toMatch(/inline\(\) takes an array of structs, got ARRAY<STRING>/);
    expect(sqlError(`SELECT inline(${events}) AS x FROM src`).errorClass).toBe('UDTF_ALIAS_NUMBER_MISMATCH');
  });

  // Spark's sql-tests generators.sql and GeneratorFunctionSuite's "stack".
  it('> SELECT stack(2, 1, 2, 3); 1 2 · 3 NULL: n rows of the values, the last padded with NULL', async () => {
    const one = [{ id: 1 }];
    expect((await evalRows('SELECT stack(1, 1, 2, 3) FROM src', one)).rows).toEqual([{ col0: 1, col1: 2, col2: 3 }]);
    expect((await evalRows('SELECT stack(2, 1, 2, 3) FROM src', one)).rows).toStrictEqual([{ col0: 1, col1: 2 }, { col0: 3, col1: null }]);
    expect((await evalRows('SELECT stack(3, 1, 2, 3) FROM src', one)).rows).toEqual([{ col0: 1 }, { col0: 2 }, { col0: 3 }]);
    expect((await evalRows('SELECT stack(4, 1, 2, 3) FROM src', one)).rows).toStrictEqual([{ col0: 1 }, { col0: 2 }, { col0: 3 }, { col0: null }]);
    const typed = await evalRows("SELECT stack(2, 1, 1.1, null, 2, null, 'b') FROM src", one);
    expect(typed.schema.map((f) => [f.name, typeText(f)])).toEqual([['col0', 'INT'], ['col1', 'DECIMAL(2,1)'], ['col2', 'STRING']]);
    // A DECIMAL(2,1) holds its unscaled value: 1.1 is 11n.
    expect(typed.rows).toStrictEqual([{ col0: 1, col1: 11n, col2: null }, { col0: 2, col1: null, col2: 'b' }]);
    // Each input row generates its rows, from its columns; AS (a, b) and LATERAL VIEW name them.
    const input: Row[] = [{ id: 1, line: 'x' }, { id: 2, line: 'y' }];
    expect((await evalRows("SELECT id, stack(2, 'line', line, 'id', cast(id AS STRING)) AS (k, v) FROM src", input)).rows).toEqual([
      { id: 1, k: 'line', v: 'x' }, { id: 1, k: 'id', v: '1' }, { id: 2, k: 'line', v: 'y' }, { id: 2, k: 'id', v: '2' },
    ]);
    expect((await evalRows("SELECT id, s.k FROM src LATERAL VIEW stack(2, 'a', id, 'b', id + 10) s AS k, n WHERE s.n > 10", input)).rows).toEqual([{ id: 1, k: 'b' }, { id: 2, k: 'b' }]);
  });

  // Spark's Stack evaluates any foldable INT row count; findDataType leaves a column of NULLs VOID.
  it('stack(CAST(1 AS INT), CAST(1 AS TINYINT), null): a constant INT row count, a column of NULLs VOID', async () => {
    const one = [{ id: 1 }];
    const folded = await evalRows('SELECT stack(CAST(1 AS INT), CAST(1 AS TINYINT), null) FROM src', one);
    expect(folded.rows).toStrictEqual([{ col0: 1, col1: null }]);
    expect(folded.schema.map((f) => simpleTypeString(f))).toEqual(['tinyint', 'void']);
    expect((await evalRows('SELECT stack(1 + 1, 1, 2) FROM src', one)).rows).toStrictEqual([{ col0: 1 }, { col0: 2 }]);
    expect(sqlError('SELECT stack(CAST(NULL AS INT), 1) FROM src').errorClass).toBe('DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE');
    expect(sqlError('SELECT stack(CAST(1 AS BIGINT), 1) FROM src').errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
  });

  it('LATERAL VIEW json_tuple: one row per input row, its keys as strings (c0, c1, … or the names given)', async () => {
    const input: Row[] = [{ id: 1, line: '{"a":1,"b":"x","c":[1,2]}' }, { id: 2, line: 'not json' }];
    expect((await evalRows("SELECT id, a, t.b FROM src LATERAL VIEW json_tuple(line, 'a', 'b') t AS a, b", input)).rows).toEqual([
      { id: 1, a: '1', b: 'x' }, { id: 2, a: null, b: null },
    ]);
    expect((await evalRows("SELECT id, c0, x FROM src LATERAL VIEW json_tuple(line, 'c') t LATERAL VIEW explode(from_json(c0, 'ARRAY<INT>')) u AS x", input)).rows).toEqual([
      { id: 1, c0: '[1,2]', x: 1 }, { id: 1, c0: '[1,2]', x: 2 },
    ]);
    expect(sqlError("SELECT 1 FROM src LATERAL VIEW json_tuple(line, 'a', 'b') t AS a").errorClass).toBe('UDTF_ALIAS_NUMBER_MISMATCH');
  });

  it('LATERAL VIEW json_tuple with a key named like an input column repeats the name, as other generators; each read by its side', async () => {
    const input: Row[] = [{ id: 1, line: '{"a":7}', tags: null }];
    const both = await evalRows("SELECT * FROM src LATERAL VIEW json_tuple(line, 'a') t AS id", input);
    expect(both.schema.map((f) => writtenColumnName(f.name))).toEqual(['id', 'line', 'tags', 'id']);
    expect(both.rows.map((r) => Object.values(r))).toEqual([[1, '{"a":7}', null, '7']]);
    expect((await evalRows("SELECT src.id AS a, t.id AS b FROM src LATERAL VIEW json_tuple(line, 'a') t AS id", input)).rows).toEqual([{ a: 1, b: '7' }]);
    expect((await evalRows("SELECT t.* FROM src LATERAL VIEW json_tuple(line, 'a', 'b') t AS id, line", input)).rows).toEqual([{ id: '7', line: null }]);
    const ambiguous = sqlError("SELECT id FROM src LATERAL VIEW json_tuple(line, 'a') t AS id");
    expect(ambiguous.errorClass).toBe('AMBIGUOUS_REFERENCE');
    expect(ambiguous.message).toMatch(/could be: \[`src`\.`id`, `t`\.`id`\]/);
  });

  it('refuses stack() as Spark does, with its error classes', () => {
    expect(sqlError("SELECT stack(2, 1, '2.2') FROM src")).toMatchObject({ errorClass: 'DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES', message: expect.stringMatching(/column \(0\) do not have the same type: INT \(1\) <> STRING \(2\)/) });
    expect(sqlError('SELECT stack(2, 1, 2.0D) FROM src').errorClass).toBe('DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES');
    expect(sqlError('SELECT stack(1.1, 1, 2, 3) FROM src').errorClass).toBe('DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE');
    expect(sqlError('SELECT stack(-1, 1, 2, 3) FROM src').errorClass).toBe('DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE');
    expect(sqlError('SELECT stack(cast(id AS INT), 1, 2) FROM src').errorClass).toBe('DATATYPE_MISMATCH.NON_FOLDABLE_INPUT');
    expect(sqlError('SELECT stack(1) FROM src').message).toMatch(/stack/);
    expect(sqlError('SELECT stack(2, 1, 2, 3) AS x FROM src').errorClass).toBe('UDTF_ALIAS_NUMBER_MISMATCH');
  });

  it('names a select item generator like an input column, which the other items still read (Spark\'s word count)', async () => {
    const input: Row[] = [{ id: 1, line: 'a b', tags: ['x'] }, { id: 2, line: 'c', tags: null }];
    const words = await evalRows("SELECT explode(split(line, ' ')) AS line, id, line AS whole FROM src", input);
    expect(words.rows).toEqual([{ line: 'a', id: 1, whole: 'a b' }, { line: 'b', id: 1, whole: 'a b' }, { line: 'c', id: 2, whole: 'c' }]);
    expect(words.schema.map((f) => writtenColumnName(f.name))).toEqual(['line', 'id', 'whole']);
    const outer = await evalRows("SELECT upper(line) AS u FROM (SELECT explode(split(line, ' ')) AS line FROM src)", input);
    expect(outer.rows).toEqual([{ u: 'A' }, { u: 'B' }, { u: 'C' }]);
    // The explain names a carried column as its input spells it (the pruning keeps it lower-cased).
    const mixed = { ...rel, schema: [{ name: 'timestampType', type: 'long' as const }, SCHEMA[2]] };
    expect(compileStreamingQuery('SELECT timestamptype, t FROM src LATERAL VIEW explode(tags) x AS t', mixed).explain).toContain('carries [timestampType]');
    const filtered = await evalRows('SELECT id FROM (SELECT posexplode(tags) AS (pos, id) FROM src) WHERE id IS NOT NULL', input);
    expect(filtered.rows).toEqual([{ id: 'x' }]);
  });

  it('refuses what Spark refuses, naming it', () => {
    const multi = sqlError('SELECT explode(tags), explode(tags) AS t2 FROM src');
    expect(multi.message).toMatch(/only one generator allowed per SELECT clause/);
    expect(multi.errorClass).toBe('UNSUPPORTED_GENERATOR.MULTI_GENERATOR');
    expect(sqlError('SELECT posexplode(tags) AS p FROM src').errorClass).toBe('UDTF_ALIAS_NUMBER_MISMATCH');
    expect(sqlError('SELECT explode(line) FROM src').message).toMatch(/takes an array or a map, got STRING/);
    expect(sqlError('SELECT size(explode(tags)) FROM src').message).toMatch(/explode\(\) is a generator/);
    // A LATERAL VIEW's columns sit beside its input's: a name both have is ambiguous read unqualified.
    const ambiguous = sqlError('SELECT id FROM src LATERAL VIEW explode(tags) t AS id');
    expect(ambiguous.errorClass).toBe('AMBIGUOUS_REFERENCE');
    expect(ambiguous.message).toMatch(/could be: \[`src`\.`id`, `t`\.`id`\]/);
    expect(sqlError('SELECT explode(tags) AS t, count(*) FROM src GROUP BY t').message).toMatch(/generate in a subquery/);
  });
});

describe('Generate: a generator after LATERAL in FROM (Spark 3.4\'s table-valued generator functions)', () => {
  it('`FROM src s, LATERAL explode(s.tags) AS t(tag)` is LATERAL VIEW explode(s.tags) t AS tag', async () => {
    const lateral = await evalRows('SELECT s.id, t.tag FROM src s, LATERAL explode(s.tags) AS t(tag)', ROWS);
    const view = await evalRows('SELECT s.id, t.tag FROM src s LATERAL VIEW explode(s.tags) t AS tag', ROWS);
    expect(lateral.rows).toEqual([{ id: 1, tag: 'x' }, { id: 1, tag: 'y' }]);
    expect(lateral.rows).toEqual(view.rows);
    expect(lateral.explain).toBe(view.explain);
  });

  it('JOIN LATERAL and CROSS JOIN LATERAL; without an alias the generator\'s own column names', async () => {
    expect((await evalRows('SELECT id, t.p, t.v FROM src JOIN LATERAL posexplode(tags) t(p, v)', ROWS)).rows).toEqual([{ id: 1, p: 0, v: 'x' }, { id: 1, p: 1, v: 'y' }]);
    expect((await evalRows('SELECT id, col FROM src CROSS JOIN LATERAL explode(tags)', ROWS)).rows).toEqual([{ id: 1, col: 'x' }, { id: 1, col: 'y' }]);
  });

  it('LEFT JOIN LATERAL … ON TRUE keeps a row that generates none, as LATERAL VIEW OUTER', async () => {
    expect((await evalRows('SELECT id, t.tag FROM src LEFT JOIN LATERAL explode(tags) t(tag) ON true', ROWS)).rows).toEqual([
      { id: 1, tag: 'x' }, { id: 1, tag: 'y' }, { id: 2, tag: null }, { id: 3, tag: null },
    ]);
  });

  it('two in a row each generate over the rows before; in brackets the whole is a relation', async () => {
    expect((await evalRows('SELECT id, t.tag, u.n FROM src, LATERAL explode(tags) t(tag), LATERAL explode(array(1, 2)) u(n) WHERE id = 1 AND tag = \'x\'', ROWS)).rows).toEqual([{ id: 1, tag: 'x', n: 1 }, { id: 1, tag: 'x', n: 2 }]);
    expect((await evalRows('SELECT x.id, x.tag FROM (src s JOIN LATERAL explode(s.tags) t(tag)) x', ROWS)).rows).toEqual([{ id: 1, tag: 'x' }, { id: 1, tag: 'y' }]);
  });

  it('a generated column named like an input column repeats the name, as Spark\'s output does; each read by its side', async () => {
    const both = await evalRows('SELECT * FROM src LATERAL VIEW explode(array(id * 10)) t AS id', ROWS);
    expect(both.schema.map((f) => writtenColumnName(f.name))).toEqual(['id', 'line', 'tags', 'id']);
    expect(both.rows.map((r) => Object.values(r))).toEqual([[1, 'a b', ['x', 'y'], 10], [2, '', [], 20], [3, 'c', null, 30]]);
    expect((await evalRows('SELECT src.id AS a, t.id AS b FROM src LATERAL VIEW explode(array(id * 10)) t AS id', ROWS)).rows)
      .toEqual([{ a: 1, b: 10 }, { a: 2, b: 20 }, { a: 3, b: 30 }]);
    // Unaliased (`LATERAL explode(…)`): its `col` beside the input's, as Spark's named-function-arguments.sql.
    const cols = await evalRows('SELECT * FROM src s JOIN LATERAL explode(array(1, 2)) AS t, LATERAL explode(array(t.col * 3)) WHERE s.id = 1', ROWS);
    expect(cols.schema.map((f) => writtenColumnName(f.name))).toEqual(['id', 'line', 'tags', 'col', 'col']);
    expect(cols.rows.map((r) => Object.values(r).slice(3))).toEqual([[1, 3], [2, 6]]);
    // An alias's star is its generator's columns only.
    expect((await evalRows('SELECT t.* FROM src LATERAL VIEW posexplode(tags) t AS pos, id', ROWS)).rows).toEqual([{ pos: 0, id: 'x' }, { pos: 1, id: 'y' }]);
  });

  it('a join after the generator joins its rows as any relation\'s, each column read by its own name', async () => {
    const words = "(VALUES ('x', 10), ('y', 20)) AS w(tag, n)";
    expect((await evalRows(`SELECT s.id, t.tag, w.n FROM src s JOIN LATERAL explode(s.tags) t(tag) JOIN ${words} ON t.tag = w.tag`, ROWS)).rows)
      .toEqual([{ id: 1, tag: 'x', n: 10 }, { id: 1, tag: 'y', n: 20 }]);
    // The comma form, its condition in WHERE; a LEFT join pads the generated rows that match none.
    expect((await evalRows(`SELECT s.id, t.tag, w.n FROM src s, LATERAL explode(s.tags) t(tag), ${words} WHERE t.tag = w.tag AND w.n > 10`, ROWS)).rows).toEqual([{ id: 1, tag: 'y', n: 20 }]);
    expect((await evalRows("SELECT s.id, t.tag, w.n FROM src s JOIN LATERAL explode(s.tags) t(tag) LEFT JOIN (VALUES ('x', 10)) AS w(tag, n) ON t.tag = w.tag", ROWS)).rows)
      .toEqual([{ id: 1, tag: 'x', n: 10 }, { id: 1, tag: 'y', n: null }]);
    // With a stream on the right too: a join of streams, whose names are its own.
    expect(sqlError('SELECT id FROM src s JOIN LATERAL explode(s.tags) t(tag) JOIN src u ON s.id = u.id').message).toMatch(/Reference `id` is ambiguous/);
  });

  it('refused: an ON other than TRUE, a function that generates nothing', () => {
    expect(sqlError('SELECT id FROM src s JOIN LATERAL explode(s.tags) t(tag) ON t.tag = \'x\'').message).toMatch(/LATERAL joins is not supported yet/);
    expect(sqlError('SELECT id FROM src s, LATERAL upper(s.line) t(u)').message).toMatch(/upper\(\) is not supported yet/);
  });
});
