/**
 * Spark SQL as Spark users write it: Spark's type names and literal forms, struct field access
 * (the window struct, from_json's result, `s.*`), the JSON functions, the binary type, CTEs and
 * subqueries in FROM. Expected values are Spark's documented results.
 */
import { describe, expect, it } from 'vitest';
import { AnalysisException, WeirError } from '../errors';
import type { Row, Schema } from '../types';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import { compileStreamingQuery, type CompileOptions } from './streaming-query';

/** One stateful batch in Update mode, with real (in-memory) state stores. */
async function runUpdate(sql: string, rows: Row[]): Promise<Row[]> {
  const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'update');
  return (await q.runBatch(rows)).output;
}

const SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 's', type: 'string' },
  { name: 'x', type: 'double' },
  { name: 'ts', type: 'timestamp' },
  { name: 'value', type: 'binary' },
];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA, eventTime: 'ts', watermarkDelayMs: 0 };

async function run(sql: string, rows: Row[], opts: CompileOptions = {}): Promise<Row[]> {
  const q = compileStreamingQuery(sql, rel, opts);
  let out = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out;
}

function failure(sql: string, opts: CompileOptions = {}): WeirError {
  try {
    compileStreamingQuery(sql, rel, opts);
  } catch (e) {
    if (e instanceof WeirError) return e;
    throw e;
  }
  throw new Error(`expected ${sql} to fail`);
}

const ts = Date.UTC(2024, 0, 2, 3, 4, 5);
const json = '{"id": 12, "region": "eu", "ts": "2024-01-02 03:04:05", "extra": true, "tags": ["a", "b"], "o": {"k": 1}}';
const row: Row = { id: 7, s: json, x: 2.5, ts, value: Buffer.from(json, 'utf8') };

describe('Spark type names and literal forms', () => {
  it('casts with LONG, INT, SHORT, BYTE, FLOAT, DOUBLE, STRING and :: forms', async () => {
    const [r] = await run(
      "SELECT CAST('42' AS LONG) a, CAST('7' AS INT) b, CAST('3' AS SHORT) c, CAST('1' AS BYTE) d, CAST('1.5' AS FLOAT) e, CAST(id AS DOUBLE) f, CAST(id AS STRING) g, '12' :: int h, '2.5'::double i FROM src",
      [row],
    );
    expect(r).toEqual({ a: 42, b: 7, c: 3, d: 1, e: 1.5, f: 7, g: '7', h: 12, i: 2.5 });
  });

  it('reads 2L, 3S, 4Y, 1.5D and r-strings', async () => {
    const [r] = await run("SELECT 2L + 1 a, 3S b, 4Y c, 1.5D d, r'a\\d' e, R'x' f FROM src", [row]);
    expect(r).toEqual({ a: 3, b: 3, c: 4, d: 1.5, e: 'a\\d', f: 'x' });
  });

  it('does not rewrite inside quoted text', async () => {
    const [r] = await run("SELECT 'CAST(x AS LONG) 2L window.start' t FROM src", [row]);
    expect(r).toEqual({ t: 'CAST(x AS LONG) 2L window.start' });
  });
});

describe('binary', () => {
  it('CAST(value AS STRING) decodes UTF-8, and a string casts back to binary', async () => {
    const [r] = await run("SELECT CAST(value AS STRING) v, CAST(CAST('héllo' AS BINARY) AS STRING) h FROM src", [row]);
    expect(r).toEqual({ v: json, h: 'héllo' });
  });

  it('refuses a cast of binary to a number', () => {
    expect(failure('SELECT CAST(value AS LONG) n FROM src').message).toMatch(/Cannot cast binary to long/);
  });
});

describe('JSON functions', () => {
  it('from_json returns a struct read as parsed.id, and parsed.* in a subquery', async () => {
    const [r] = await run(
      "SELECT parsed.id, parsed.region, parsed.ts FROM (SELECT from_json(CAST(value AS STRING), 'id BIGINT, region STRING, ts TIMESTAMP') AS parsed FROM src)",
      [row],
    );
    expect(r).toEqual({ id: 12, region: 'eu', ts });
    const [star] = await run("SELECT parsed.* FROM (SELECT from_json(s, 'id BIGINT, region STRING') AS parsed FROM src) t", [row]);
    expect(star).toEqual({ id: 12, region: 'eu' });
    // A star of a name that is no table, alias or column: Spark's CANNOT_RESOLVE_STAR_EXPAND.
    const unknown = failure('SELECT up.* FROM src');
    expect(unknown.errorClass).toBe('CANNOT_RESOLVE_STAR_EXPAND');
    expect(unknown.message).toContain('Cannot resolve `up`.* given input columns `id`, `s`, `x`, `ts`, `value`');
  });

  it('from_json on text that is not an object gives NULL fields; a mistyped field is NULL', async () => {
    const rows = await run("SELECT from_json(s, 'id BIGINT, region INT') AS p FROM src", [{ ...row }, { ...row, s: '{bad' }]);
    expect(rows).toEqual([{ p: { id: 12, region: null } }, { p: { id: null, region: null } }]);
  });

  it('get_json_object follows Spark paths', async () => {
    const [r] = await run(
      "SELECT get_json_object(s, '$.region') a, get_json_object(s, '$.tags[1]') b, get_json_object(s, '$.o') c, get_json_object(s, '$.missing') d, get_json_object(s, '$.tags[*]') e, get_json_object(s, '$[\\'region\\']') f, get_json_object('nope', '$.a') g FROM src",
      [row],
    );
    expect(r).toEqual({ a: 'eu', b: 'b', c: '{"k":1}', d: null, e: '["a","b"]', f: 'eu', g: null });
  });

  it('to_json writes a struct (timestamps as ISO, NULL fields left out)', async () => {
    const [r] = await run("SELECT to_json(from_json(s, 'id BIGINT, region STRING, ts TIMESTAMP, nope STRING')) j FROM src", [row]);
    expect(r).toEqual({ j: '{"id":12,"region":"eu","ts":"2024-01-02T03:04:05.000Z"}' });
  });

  it('from_json needs a literal schema it can read', () => {
    expect(failure('SELECT from_json(s, s) p FROM src').message).toMatch(/schema as a string literal/);
    expect(failure("SELECT from_json(s, 'id MAP') p FROM src").message).toMatch(/cannot read the schema 'id MAP' .*INCOMPLETE_TYPE_DEFINITION.MAP/);
  });

  it('a field of something that is no struct is an error naming it', () => {
    expect(failure('SELECT s.id FROM src').message).toMatch(/s is a string, not a struct/);
    expect(failure("SELECT p.nope FROM (SELECT from_json(s, 'id BIGINT') p FROM src)").message).toMatch(/No such struct field nope/);
  });
});

describe('the window struct', () => {
  it('reads window.start, window.end and w.end after a window aggregation', async () => {
    const sql = "SELECT window.start AS ws, window.end AS we, n FROM (SELECT window, count(*) AS n FROM src GROUP BY window(ts, '10 minutes'))";
    const rows = await runUpdate(sql, [row]);
    expect(rows).toEqual([{ ws: Date.UTC(2024, 0, 2, 3, 0), we: Date.UTC(2024, 0, 2, 3, 10), n: 1 }]);
    const direct = await runUpdate("SELECT window.start AS ws, count(*) AS n FROM src GROUP BY window(ts, '10 minutes')", [row]);
    expect(direct).toEqual([{ ws: Date.UTC(2024, 0, 2, 3, 0), n: 1 }]);
  });
});

describe('CTEs and subqueries in FROM', () => {
  it('inlines a stateless CTE and subquery', async () => {
    const rows = await run('WITH a AS (SELECT id * 2 AS d, s FROM src WHERE id > 1), b AS (SELECT d + 1 AS e FROM a) SELECT e FROM b WHERE e > 3', [row, { ...row, id: 1 }]);
    expect(rows).toEqual([{ e: 15 }]);
  });

  it('aggregates over a stateless subquery', async () => {
    const rows = await runUpdate('SELECT r, count(*) AS n FROM (SELECT upper(s) AS r FROM src) GROUP BY r', [{ ...row, s: 'a' }, { ...row, s: 'A' }]);
    expect(rows).toEqual([{ r: 'A', n: 2 }]);
  });

  it('renames a subquery\'s and a CTE\'s columns by a column alias list, in order (Spark\'s ResolveSubqueryColumnAliases)', async () => {
    expect(await run('SELECT t.k, n FROM (SELECT s, id FROM src) AS t(k, n) WHERE n > 1', [row, { ...row, id: 1 }])).toEqual([{ k: row.s, n: row.id }]);
    expect(await run('WITH c(a, b) AS (SELECT id, s FROM src) SELECT b, a + 1 AS a1 FROM c', [row])).toEqual([{ b: row.s, a1: (row.id as number) + 1 }]);
    const words = await runUpdate("SELECT word, count(*) AS n FROM (SELECT explode(split(s, ' ')) AS s FROM src) t(word) GROUP BY word", [{ ...row, s: 'a b a' }]);
    expect(words).toEqual([{ word: 'a', n: 2 }, { word: 'b', n: 1 }]);
    const arity = failure('SELECT * FROM (SELECT id, s FROM src) t(x)');
    expect(arity.message).toMatch(/Number of column aliases: 1; number of columns: 2/);
    expect(arity.errorClass).toBe('_LEGACY_ERROR_TEMP_1028');
    // A join in brackets names its columns so too, as the subquery of its columns.
    const joined = await run("SELECT t.* FROM (src a JOIN (VALUES (7, 'seven')) AS v(k, name) ON a.id = v.k) t(i, j, k, l, m, n, o)", [row, { ...row, id: 1 }]);
    expect(joined).toEqual([{ i: 7, j: row.s, k: 2.5, l: ts, m: row.value, n: 7, o: 'seven' }]);
    // A name given twice is two columns, as in Spark.
    expect((await run('SELECT * FROM (SELECT id, s FROM src) t(x, X)', [row])).map((r) => Object.values(r))).toEqual([[row.id, row.s]]);
  });

  it('refuses a chained aggregation with Spark\'s message', () => {
    const e = failure('SELECT count(*) AS c FROM (SELECT s, count(*) AS n FROM src GROUP BY s)', { outputMode: 'complete' });
    expect(e).toBeInstanceOf(AnalysisException);
    // Spark 3.5+'s global watermark limit (3.4 said `Multiple streaming aggregations are not supported`).
    expect(e.message).toContain("Detected pattern of possible 'correctness' issue due to global watermark");
  });
});

describe("Spark's error classes", () => {
  it('a window function over a non-time window is NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING with Spark\'s text', () => {
    const e = failure('SELECT s, row_number() OVER (PARTITION BY s ORDER BY ts) AS rn FROM src');
    expect(e.errorClass).toBe('NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING');
    expect(e.message).toMatch(
      /^Window function is not supported in ROW_NUMBER\(\) \(as column `rn`\) on streaming DataFrames\/Datasets\. Structured Streaming only supports time-window aggregation using the WINDOW function\. \(window specification: \(PARTITION BY s ORDER BY ts\)\)/,
    );
  });

  it('an aggregate with OVER is that window function, beside any other select item', () => {
    const e = failure('SELECT s, sum(id) FILTER (WHERE id > 0) OVER (PARTITION BY s) AS t FROM src');
    expect(e.errorClass).toBe('NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING');
    expect(e.message).toMatch(/^Window function is not supported in SUM\(\) \(as column `t`\) .* \(window specification: \(PARTITION BY s\)\)/);
  });

  it('the analyzer\'s rules carry UnsupportedOperationChecker\'s class', () => {
    const e = failure('SELECT s FROM src ORDER BY s');
    expect(e.errorClass).toBe('_LEGACY_ERROR_TEMP_3102');
    expect(e.message).toBe('Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode');
    expect(failure('SELECT count(*) AS c FROM (SELECT s, count(*) AS n FROM src GROUP BY s)', { outputMode: 'complete' }).errorClass).toBe('_LEGACY_ERROR_TEMP_3102');
  });

  it('an aggregate in WHERE is INVALID_WHERE_CONDITION, one inside another NESTED_AGGREGATE_FUNCTION', () => {
    const e = failure('SELECT s FROM src WHERE id > 1 AND max(x) > 1');
    expect(e.errorClass).toBe('INVALID_WHERE_CONDITION');
    expect(e.message).toMatch(/^\[INVALID_WHERE_CONDITION\] The WHERE condition "\(id > 1 AND max\(x\) > 1\)" contains invalid expressions: max\(x\)\. Rewrite the query/);
    // An aggregate inside a window (OVER) or a subquery is not WHERE's own.
    expect(failure('SELECT s FROM src WHERE id > 1 AND count(*) OVER () > 1').errorClass).toBe('NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING');
    expect(() => compileStreamingQuery('SELECT s FROM src WHERE x > (SELECT max(v) FROM VALUES (1.0) t(v))', rel)).not.toThrow();
    expect(failure('SELECT s, max(sum(x)) FROM src GROUP BY s').errorClass).toBe('NESTED_AGGREGATE_FUNCTION');
  });
});

describe('UNION ALL of the same stream', () => {
  it('runs stateless branches one after the other, named by the first', async () => {
    const rows = await run("SELECT id, 'big' AS kind FROM src WHERE id > 5 UNION ALL SELECT id * 10 AS other, 'any' FROM src", [row, { ...row, id: 2 }]);
    expect(rows).toEqual([{ id: 7, kind: 'big' }, { id: 70, kind: 'any' }, { id: 20, kind: 'any' }]);
  });

  it('aggregates over a union in a subquery', async () => {
    const rows = await runUpdate('SELECT k, count(*) AS n FROM (SELECT s AS k FROM src UNION ALL SELECT upper(s) AS k FROM src) GROUP BY k', [{ ...row, s: 'a' }]);
    expect(rows).toEqual([{ k: 'a', n: 1 }, { k: 'A', n: 1 }]);
  });

  it('reads a BIGINT or DOUBLE beside a STRING column as its text', async () => {
    expect(await run('SELECT s FROM src UNION ALL SELECT id FROM src UNION ALL SELECT x FROM src', [row])).toEqual([{ s: json }, { s: '7' }, { s: '2.5' }]);
  });

  it('holds an aggregating branch to Spark\'s Append rule; UNION without ALL is an aggregation (Append needs a watermark); refuses mismatched columns', () => {
    // An aggregating branch is its own stateful operator, as in Spark (multiple-sources.test.ts runs one in Update mode).
    expect(failure('SELECT s FROM src UNION ALL SELECT s FROM src GROUP BY s').message).toMatch(/Append output mode not supported when there are streaming aggregations/);
    expect(failure('SELECT s FROM src UNION SELECT s FROM src').message).toMatch(/Append output mode not supported when there are streaming aggregations/);
    expect(failure('SELECT s, id FROM src UNION ALL SELECT s FROM src').message).toMatch(/^\[NUM_COLUMNS_MISMATCH\] UNION can only be performed on inputs with the same number of columns, but the first input has 2 columns and the second input has 1 columns\. Select as many columns in each query/);
    // ORDER BY names the union's output columns; on a stream, without an aggregation, Spark's checker refuses the sort.
    expect(failure('SELECT s FROM src UNION ALL SELECT s FROM src ORDER BY s').message).toMatch(/Sorting is not supported on streaming DataFrames\/Datasets, unless it is on aggregated DataFrame\/Dataset in Complete output mode/);
    expect(failure('SELECT s FROM src UNION ALL SELECT s FROM src ORDER BY x').errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
    expect(failure('SELECT s FROM src UNION ALL SELECT value FROM src').message).toMatch(/^\[INCOMPATIBLE_COLUMN_TYPE\] UNION can only be performed on tables with compatible column types\. The first column of the second table is "BINARY" type which is not compatible with "STRING"/);
    // A STRING and a BIGINT widen to a STRING (Spark's WidenSetOperationTypes with its stringPromotion).
    expect(compileStreamingQuery('SELECT s FROM src UNION ALL SELECT id FROM src', rel).outputSchema[0]).toMatchObject({ type: 'string' });
  });

  it("widens each column to one type across the branches, as Spark's WidenSetOperationTypes", async () => {
    // DECIMAL(5,2) and DECIMAL(10,3) widen to DECIMAL(10,3): the first branch's 1.50 is rescaled,
    // not read at the other's scale (it was 0.150 when the first branch's type was taken).
    const sql = 'SELECT CAST(x AS DECIMAL(5,2)) AS d, id AS n, ts AS t FROM src UNION ALL SELECT CAST(x AS DECIMAL(10,3)), x, CAST(ts AS DATE) FROM src';
    const q = compileStreamingQuery(sql, rel);
    expect(q.outputSchema.map((f) => [f.name, f.type, f.precision, f.scale])).toEqual([
      ['d', 'decimal', 10, 3], ['n', 'double', undefined, undefined], ['t', 'timestamp', undefined, undefined],
    ]);
    const rows = await run(sql, [{ ...row, x: 1.5, id: 7, ts: Date.UTC(2024, 0, 2, 3) }]);
    expect(rows).toEqual([
      { d: 1500n, n: 7, t: Date.UTC(2024, 0, 2, 3) },
      { d: 1500n, n: 1.5, t: Date.UTC(2024, 0, 2) },
    ]);
    // A BIGINT beside a DECIMAL(5,2): DECIMAL(22,2), Spark's widening of DECIMAL(20,0) and (5,2).
    expect(compileStreamingQuery('SELECT id AS v FROM src UNION ALL SELECT CAST(x AS DECIMAL(5,2)) FROM src', rel).outputSchema[0]).toMatchObject({ type: 'decimal', precision: 22, scale: 2 });
  });

  it("widens as Spark's findWiderCommonType: a TINYINT or SMALLINT beside a FLOAT is a FLOAT, STRING types first", async () => {
    // numericPrecedence (non-ANSI findTightestCommonType): TINYINT, SMALLINT, INT, BIGINT < FLOAT < DOUBLE.
    const types = (sql: string) => compileStreamingQuery(sql, rel).outputSchema.map((f) => [f.type, f.float32 ?? false]);
    expect(types('SELECT CAST(id AS TINYINT) AS a, CAST(id AS SMALLINT) AS b, id AS c FROM src UNION ALL SELECT CAST(x AS FLOAT) AS a, CAST(x AS FLOAT) AS b, CAST(x AS FLOAT) AS c FROM src'))
      .toEqual([['double', true], ['double', true], ['double', true]]);
    // A string beside a number: STRING (stringPromotion). With a DATE and an INT too, the strings
    // are folded first, so DATE, INT and STRING widen to STRING (they fail in the written order).
    const sql = "SELECT CAST(ts AS DATE) AS v FROM src UNION ALL SELECT CAST(id AS INT) FROM src UNION ALL SELECT s FROM src";
    expect(types(sql)).toEqual([['string', false]]);
    expect(await run(sql, [{ ...row, id: 7, s: 'a', ts: Date.UTC(2024, 0, 2) }])).toEqual([{ v: '2024-01-02' }, { v: '7' }, { v: 'a' }]);
    const [r] = await run(
      "SELECT coalesce(CAST(ts AS DATE), CAST(id AS INT), s) AS c, CASE WHEN id = 0 THEN CAST(ts AS DATE) WHEN id = 1 THEN 1 ELSE s END AS w, " +
        "CAST(ts AS DATE) IN (7, trim('2024-01-02 ')) AS i, array(1, 'a') AS arr, map('k', 1, 'j', 'a') AS m FROM src",
      [{ ...row, id: 7, s: 'a', ts: Date.UTC(2024, 0, 2) }],
    );
    expect(r).toEqual({ c: '2024-01-02', w: 'a', i: true, arr: ['1', 'a'], m: { k: '1', j: 'a' } });
  });
});

describe('json_tuple', () => {
  it('gives one string column per key, c0, c1, … as Spark names them', async () => {
    const rows = await run("SELECT id, json_tuple(s, 'region', 'id', 'nope', 'o') FROM src", [row]);
    expect(rows).toEqual([{ id: 7, c0: 'eu', c1: '12', c2: null, c3: '{"k":1}' }]);
  });
});

describe('the Kafka shape', () => {
  it('counts JSON orders per region and minute from a binary value', async () => {
    const kafka = { kind: 'StreamingRelation' as const, sourceName: 'kafka', schema: [{ name: 'value', type: 'binary' as const }] };
    const sql =
      "WITH orders AS (SELECT from_json(CAST(value AS STRING), 'id BIGINT, region STRING, ts TIMESTAMP') AS o FROM kafka) " +
      "SELECT o.region, window(o.ts, '1 minute') AS w, count(*) AS n FROM orders GROUP BY o.region, window(o.ts, '1 minute')";
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, kafka, 'update');
    const value = (region: string, ts: string) => Buffer.from(JSON.stringify({ id: 1, region, ts }));
    const out = (await q.runBatch([{ value: value('eu', '2024-01-01 00:00:30') }, { value: value('eu', '2024-01-01 00:00:50') }, { value: value('us', '2024-01-01 00:01:10') }])).output;
    const m = Date.UTC(2024, 0, 1);
    expect(out).toEqual(expect.arrayContaining([
      { region: 'eu', w: { start: m, end: m + 60_000 }, n: 2 },
      { region: 'us', w: { start: m + 60_000, end: m + 120_000 }, n: 1 },
    ]));
    expect(out).toHaveLength(2);
  });

  it('expands a star in a function\'s arguments, as a Kafka sink\'s value is written (to_json(struct(*)))', async () => {
    const kafka = {
      kind: 'StreamingRelation' as const, sourceName: 'kafka',
      schema: [{ name: 'id', type: 'long' as const }, { name: 'user', type: 'string' as const }, { name: 'o', type: 'struct' as const, fields: [{ name: 'a', type: 'long' as const }, { name: 'b', type: 'string' as const }] }],
    };
    const sql = 'SELECT CAST(id AS STRING) AS key, to_json(struct(*)) AS value, to_json(struct(o.*)) AS inner, to_json(struct(kafka.*)) AS q FROM kafka';
    const q = compileStreamingQuery(sql, kafka);
    let out: Row[] = [{ id: 1, user: 'ann', o: { a: 5, b: 'x' } }];
    for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
    const all = '{"id":1,"user":"ann","o":{"a":5,"b":"x"}}';
    expect(out).toEqual([{ key: '1', value: all, inner: '{"a":5,"b":"x"}', q: all }]);
    // Over a subquery, the star is its columns.
    const sub = compileStreamingQuery('SELECT to_json(struct(*)) AS value FROM (SELECT id, upper(user) AS u FROM kafka)', kafka);
    out = [{ id: 2, user: 'bob', o: null }];
    for (const op of sub.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
    expect(out).toEqual([{ value: '{"id":2,"u":"BOB"}' }]);
    // struct(a AS x): a field named by its alias, the others as struct() names them.
    const aliased = compileStreamingQuery('SELECT to_json(struct(user AS who, id, id + 1, o.a AS a)) AS value, struct(user AS u).u AS u FROM kafka', kafka);
    out = [{ id: 3, user: 'cy', o: { a: 9, b: 'z' } }];
    for (const op of aliased.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
    expect(out).toEqual([{ value: '{"who":"cy","id":3,"col3":4,"a":9}', u: 'cy' }]);
  });
});

describe('lateral column aliases', () => {
  // Spark 3.4's lateral column alias: a select item reads an earlier item's alias.
  it('reads an earlier select item by its alias, an input column of the name first, named as Spark names it', async () => {
    const rows = await run("SELECT x * 2 AS x2, x2 + 1 AS x3, x2 * x3, named_struct('u', s) AS st, st.u, upper(st.u) AS uu, id AS s, s AS orig FROM src", [{ ...row, x: 2.5, s: 'ab' }]);
    expect(rows).toEqual([{ x2: 5, x3: 6, '(x2 * x3)': 30, st: { u: 'ab' }, u: 'ab', uu: 'AB', s: row.id, orig: 'ab' }]);
    expect(failure('SELECT x2 + 1, x * 2 AS x2 FROM src').message).toMatch(/`x2` cannot be resolved/);
  });

  it('reads an earlier aggregate or key by its alias in an aggregation\'s select list', async () => {
    const rows = await runUpdate('SELECT upper(s) AS k, k AS again, sum(x) AS total, total * 2, count(*) AS n, total / n AS mean FROM src GROUP BY upper(s)', [{ ...row, s: 'a', x: 1 }, { ...row, s: 'a', x: 2 }]);
    expect(rows).toEqual([{ k: 'A', again: 'A', total: 3, '(total * 2)': 6, n: 2, mean: 1.5 }]);
  });

  it('reads an aggregation\'s alias through a field or inside a lambda, as in a plain select list', async () => {
    // Spark's LateralColumnAliasSuite: `named_struct('avg_salary', avg(salary)) AS foo, foo.avg_salary + 1 AS bar`.
    const rows = await runUpdate(
      "SELECT named_struct('m', max(x)) AS foo, foo.m + 1 AS bar, count(*) AS n, transform(array(1, 2), v -> v + n) AS t FROM src GROUP BY s",
      [{ ...row, s: 'a', x: 1 }, { ...row, s: 'a', x: 4 }],
    );
    expect(rows).toEqual([{ foo: { m: 4 }, bar: 5, n: 2, t: [3, 4] }]);
  });

  it('groups by an item that reads an earlier alias (by its alias, or GROUP BY ALL)', async () => {
    // Spark's column-resolution-aggregate.sql: `SELECT k AS lca, lca + 1 AS col FROM v1 GROUP BY k, col`.
    const rows = [{ ...row, id: 1 }, { ...row, id: 1 }, { ...row, id: 2 }];
    const expected = [{ lca: 1, col: 2, n: 2 }, { lca: 2, col: 3, n: 1 }];
    for (const grouping of ['id, col', 'ALL']) {
      expect(await runUpdate(`SELECT id AS lca, lca + 1 AS col, count(*) AS n FROM src GROUP BY ${grouping}`, rows)).toEqual(expected);
    }
    // A select item aliased all is grouped by, not GROUP BY ALL (Spark's groupByAliases first).
    expect(failure('SELECT id AS all, s FROM src GROUP BY all').errorClass).toBe('MISSING_AGGREGATION');
  });

  it('groups by the name Spark generates for an unaliased select item (groupByAliases)', async () => {
    // Spark's group-by-alias.sql: `SELECT concat_ws(' ', a, b) FROM testData GROUP BY \`concat_ws( , a, b)\``.
    const rows = [{ ...row, id: 1, s: 'a' }, { ...row, id: 1, s: 'a' }, { ...row, id: 2, s: 'b' }];
    const values = async (sql: string) => (await runUpdate(sql, rows)).map((r) => Object.values(r));
    expect(await values("SELECT concat_ws(' ', s, id), count(*) FROM src GROUP BY `concat_ws( , s, id)`")).toEqual([['a 1', 2], ['b 2', 1]]);
    expect(await values('SELECT id + 1, count(*) FROM src GROUP BY `(ID + 1)`')).toEqual([[2, 2], [3, 1]]);
    // An input column of the name wins, as it does over an alias; an aggregate is not grouped by.
    expect(failure('SELECT count(*) FROM src GROUP BY `count(1)`').errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
  });

  it('HAVING reads the select list\'s aliases, an input column of the name first (Spark\'s UnresolvedHaving)', async () => {
    const rows = [{ ...row, s: 'a', x: 1 }, { ...row, s: 'a', x: 2 }, { ...row, s: 'b', x: 5 }];
    expect(await runUpdate('SELECT s, count(*) AS c FROM src GROUP BY s HAVING c > 1', rows)).toEqual([{ s: 'a', c: 2 }]);
    expect(await runUpdate("SELECT upper(s) AS u, sum(x) AS t FROM src GROUP BY u HAVING u = 'B' AND t > 1", rows)).toEqual([{ u: 'B', t: 5 }]);
    // `id` is an input column: read as it, which is neither grouped nor aggregated.
    expect(failure('SELECT s, count(*) AS id FROM src GROUP BY s HAVING id > 1').message).toMatch(/'id' in HAVING is neither present in the group by/);
    // Spark resolves HAVING and ORDER BY against the aggregate's output, and an input column not
    // grouped by is not there (postgreSQL/select_having.sql: SELECT 1 AS one FROM test_having
    // HAVING a > 1; select_implicit.sql: SELECT count(*) FROM … GROUP BY a ORDER BY b).
    expect(failure('SELECT s, count(*) AS c FROM src GROUP BY s HAVING x > 1').errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
    expect(failure('SELECT count(*) AS c FROM src GROUP BY s ORDER BY x').errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
    expect(failure('SELECT x FROM src HAVING count(*) > 1').errorClass).toBe('MISSING_GROUP_BY');
  });

  it('refuses an alias read inside an aggregate function, as Spark does', () => {
    // LateralColumnAliasSuite: `SELECT 10000 AS lca, count(lca) … GROUP BY dept`, `SELECT sum(salary) AS a, avg(a)`.
    for (const sql of ['SELECT 10000 AS lca, count(lca) FROM src GROUP BY s', 'SELECT sum(x) AS a, avg(a) FROM src']) {
      const e = failure(sql);
      expect(e.message).toMatch(/Referencing a lateral column alias `(lca|a)` in the aggregate function/);
      expect(e.errorClass).toBe('UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_AGGREGATE_FUNC');
    }
  });
});

describe('named function arguments', () => {
  // Spark 3.5's named-function-arguments.sql and its .sql.out.
  it('puts named arguments in the signature\'s order and fills the defaults, naming the column as Spark does', async () => {
    const rows = await run(
      "SELECT mask('AbCD123-@$#', lowerChar => 'q', upperChar => 'Q', otherChar => 'o', digitChar => 'd'), " +
        "mask(lowerChar => 'q', upperChar => 'Q', digitChar => 'd', str => 'AbCD123-@$#'), mask(s, upperChar => 'Y') AS a, mask(s, lowerChar => 'y', digitChar => 'd') AS b FROM src",
      [{ ...row, s: 'Ab1-' }],
    );
    // Spark: `mask(AbCD123-@$#, Q, q, d, o)`; Weir names a string literal quoted.
    expect(rows).toEqual([{ "mask('AbCD123-@$#', 'Q', 'q', 'd', 'o')": 'QqQQdddoooo', "mask('AbCD123-@$#', 'Q', 'q', 'd', NULL)": 'QqQQddd-@$#', a: 'Yxn-', b: 'Xyd-' }]);
    expect(await run('SELECT explode(collection => array(1, 2)) FROM src', [row])).toEqual([{ col: 1 }, { col: 2 }]);
    // count_min_sketch's signature (column, epsilon, confidence, seed): named as the positional call.
    const sketches = await runUpdate(
      'SELECT hex(count_min_sketch(id, 0.5d, 0.5d, 1)) AS p, hex(count_min_sketch(seed => 1, epsilon => 0.5d, confidence => 0.5d, column => id)) AS n, ' +
        'hex(count_min_sketch(id, 0.5d, seed => 1, confidence => 0.5d)) AS m FROM src',
      [row, { ...row, id: 19 }],
    );
    expect(sketches).toHaveLength(1);
    expect(sketches[0].n).toBe(sketches[0].p);
    expect(sketches[0].m).toBe(sketches[0].p);
    expect(await run("SELECT inline_outer(input => array(named_struct('a', 1, 'b', 'x'))) FROM src", [row])).toEqual([{ a: 1, b: 'x' }]);
  });

  it('refuses names that do not fit with Spark\'s errors', () => {
    const cases: [string, string, RegExp][] = [
      ["mask(lowerChar => 'q', 'AbCD123-@$#', upperChar => 'Q', otherChar => 'o', digitChar => 'd')", 'UNEXPECTED_POSITIONAL_ARGUMENT', /positional argument\(s\) following the named argument assigned to `lowerChar`/],
      ["mask('AbCD123-@$#', lowerChar => 'q', upperChar => 'Q', otherChar => 'o', digitChar => 'd', digitChar => 'e')", 'DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE', /same parameter name `digitChar`/],
      ["mask('AbCD123-@$#', lowerChar => 'q', upperChar => 'Q', otherChar => 'o', digitChar => 'd', str => 'AbC')", 'DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.BOTH_POSITIONAL_AND_NAMED', /same parameter name `str`/],
      ["mask(lowerChar => 'q', upperChar => 'Q', otherChar => 'o', digitChar => 'd')", 'REQUIRED_PARAMETER_NOT_FOUND', /parameter named `str` is required.*at index 0/],
      ["mask('AbCD123-@$#', lowerChar => 'q', upperChar => 'Q', otherChar => 'o', digitChar => 'd', cellular => 'automata')", 'UNRECOGNIZED_PARAMETER_NAME', /argument named `cellular`/],
      ["encode(str => 'a', charset => 'utf-8')", 'NAMED_PARAMETERS_NOT_SUPPORTED', /Named parameters are not supported for function `encode`/],
      ['count(expr => x)', 'NAMED_PARAMETERS_NOT_SUPPORTED', /function `count`/],
    ];
    for (const [call, errorClass, message] of cases) {
      const e = failure(`SELECT ${call} FROM src`);
      expect([e.errorClass, e.message]).toEqual([errorClass, expect.stringMatching(message)]);
    }
  });
});

describe('LIKE ANY, SOME and ALL', () => {
  // Spark's like-any.sql and like-all.sql: each pattern on its own, NOT applied per pattern.
  it('matches a list of patterns as Spark\'s LikeAny, LikeAll, NotLikeAny and NotLikeAll, NULL where no pattern decides', async () => {
    const sql =
      "SELECT s LIKE ANY ('%oo%', 'a%') AS any1, s LIKE ALL ('%oo%', '%go%') AS all1, s NOT LIKE ANY ('%oo%', 'a%') AS nany, " +
      "s NOT LIKE ALL ('%oo%', 'a%') AS nall, s ILIKE SOME ('GOO%') AS some1, s LIKE ANY ('x%', NULL) AS anyNull, s LIKE ALL ('%o%', NULL) AS allNull FROM src";
    const rows = await run(sql, [{ ...row, s: 'google' }, { ...row, s: 'facebook' }]);
    expect(rows).toEqual([
      { any1: true, all1: true, nany: true, nall: false, some1: true, anyNull: null, allNull: null },
      { any1: true, all1: false, nany: true, nall: false, some1: false, anyNull: null, allNull: null },
    ]);
    expect(failure("SELECT s LIKE ANY () FROM src").message).toMatch(/^\[INVALID_SQL_SYNTAX\.EMPTY_QUANTIFIED_PATTERN\]/);
  });
});

describe('a DOUBLE as text', () => {
  // Spark casts a DOUBLE to a STRING as Java's Double.toString prints it.
  it('is plain from 10^-3 to 10^7 and scientific outside, in CAST, concat, concat_ws and ||', async () => {
    const rows = await run(
      "SELECT CAST(1e21D AS STRING) AS a, CAST(1.5e10D AS STRING) AS b, CAST(1e7D AS STRING) AS c, CAST(-1e-5D AS STRING) AS d, CAST(0.001D AS STRING) AS e, " +
      "CAST(9999999.5D AS STRING) AS f, CAST(-0.0D AS STRING) AS g, concat('x', 2.0D) AS h, concat_ws('-', x, 1e-5D) AS i, 'x' || 1e7D AS j FROM src",
      [{ ...row, x: 2 }],
    );
    expect(rows).toEqual([{ a: '1.0E21', b: '1.5E10', c: '1.0E7', d: '-1.0E-5', e: '0.001', f: '9999999.5', g: '-0.0', h: 'x2.0', i: '2.0-1.0E-5', j: 'x1.0E7' }]);
  });
});

describe('concat of what has no text', () => {
  it('refuses a struct or a map in concat, concat_ws and ||, as Spark\'s type check does; || of arrays is their elements', async () => {
    expect(failure("SELECT concat(s, named_struct('a', 1)) FROM src").message).toMatch(/not a struct or a map/);
    expect(failure("SELECT concat_ws(',', map('a', 1)) FROM src").message).toMatch(/not a struct or a map/);
    expect(failure("SELECT s || named_struct('a', 1) FROM src").message).toMatch(/not named_struct\('a', 1\), a struct/);
    expect(await run('SELECT array(1) || array(2, 3) AS a, s || id AS t FROM src', [row])).toEqual([{ a: [1, 2, 3], t: `${row.s as string}7` }]);
  });
});

describe('binary at the edges', () => {
  it('a source reads binary as base64 and the files sink writes it so', async () => {
    const { JsonLineParser } = await import('../operators/record-parser');
    const { encodeRows } = await import('../sinks/files-sink');
    const schema: Schema = [{ name: 'value', type: 'binary' }];
    const parsed = new JsonLineParser(schema).parse(JSON.stringify({ value: Buffer.from('héllo').toString('base64') }));
    expect(parsed).toMatchObject({ ok: true });
    const value = (parsed as { ok: true; row: Row }).row.value;
    expect(Buffer.from(value as Uint8Array).toString('utf8')).toBe('héllo');
    expect(encodeRows([{ value }], schema, 'json', false)).toBe(`{"value":"${Buffer.from('héllo').toString('base64')}"}\n`);
  });
});

describe('window as a name', () => {
  it('may be an alias and a table alias, read back as window', async () => {
    const rows = await runUpdate("SELECT window(ts, '10 minutes') AS window, count(*) AS n FROM src GROUP BY window(ts, '10 minutes')", [row]);
    expect(Object.keys(rows[0])).toEqual(['window', 'n']);
    const [r] = await run('SELECT window.id FROM src AS window', [row]);
    expect(r).toEqual({ id: 7 });
  });
});

describe('from_json with Spark types', () => {
  it('reads DECIMAL exactly, narrow integers and FLOAT as Weir keeps them, nested collections', async () => {
    const rows = await run(
      "SELECT p.price * 3 AS triple, typeof(p.price) AS t, p.n, p.f, p.tags[1] AS tag FROM (SELECT from_json(s, 'price DECIMAL(10,2), n INT, f FLOAT, tags ARRAY<SMALLINT>') p FROM src)",
      [{ s: '{"price": 0.1, "n": 7, "f": 1.5, "tags": [1, 2]}' }],
    );
    expect(rows).toEqual([{ triple: 30n, t: 'decimal(10,2)', n: 7, f: 1.5, tag: 2 }]);
  });

  it('takes a constant schema, folded once, as Spark\'s foldable schema: schema_of_json of a sample message', async () => {
    const rows = await run(
      "SELECT from_json(s, schema_of_json('{\"a\": 1, \"b\": [\"x\"]}')) AS j, from_json(s, concat('a ', 'INT')) AS k, from_csv('1,2', 'x ' || 'INT, y INT') AS c FROM src",
      [{ s: '{"a": 5, "b": ["p", "q"]}' }],
    );
    expect(rows).toEqual([{ j: { a: 5, b: ['p', 'q'] }, k: { a: 5 }, c: { x: 1, y: 2 } }]);
    expect(failure('SELECT from_json(s, s) FROM src').message).toMatch(/needs its schema as a string literal \(or schema_of_json/);
    // Analysis runs in the API's process: no other expression is evaluated there.
    expect(failure("SELECT from_json(s, repeat('a INT', 1)) FROM src").message).toMatch(/needs its schema as a string literal/);
  });
});

describe('IDENTIFIER(…), Spark\'s identifier clause', () => {
  // Spark's identifier-clause.sql: the string names a column, a table or a function.
  it('reads its string literals, joined by ||, as the name of a column, a function or a table', async () => {
    const rows = await run("SELECT IDENTIFIER('i' || 'd') AS a, IDENTIFIER('src.x') AS b, IDENTIFIER('abs')(-id) AS c, IDENTIFIER('`s`') AS d FROM IDENTIFIER('src')", [row]);
    expect(rows).toEqual([{ a: 7, b: 2.5, c: 7, d: json }]);
  });

  it('refuses what is no name, or no constant string, with Spark\'s classes', () => {
    expect(failure("SELECT IDENTIFIER('i d') FROM src").errorClass).toBe('PARSE_SYNTAX_ERROR');
    expect(failure("SELECT IDENTIFIER('') FROM src").errorClass).toBe('PARSE_EMPTY_STATEMENT');
    expect(failure('SELECT IDENTIFIER(1) FROM src').errorClass).toBe('NOT_A_CONSTANT_STRING.WRONG_TYPE');
    expect(failure('SELECT IDENTIFIER(CAST(NULL AS STRING)) FROM src').errorClass).toBe('NOT_A_CONSTANT_STRING.NULL');
    expect(failure('SELECT IDENTIFIER(s) FROM src').errorClass).toBe('NOT_A_CONSTANT_STRING.NOT_CONSTANT');
    expect(failure("SELECT IDENTIFIER('a.b.c.d')() FROM src").errorClass).toBe('IDENTIFIER_TOO_MANY_NAME_PARTS');
    // Where Spark's grammar has no identifier clause: a window's name, a field after a dot.
    expect(failure("SELECT count(*) OVER IDENTIFIER('w') FROM src WINDOW w AS (ORDER BY id)").errorClass).toBe('PARSE_SYNTAX_ERROR');
    expect(failure("SELECT named_struct('a', 1).IDENTIFIER('a') FROM src").errorClass).toBe('PARSE_SYNTAX_ERROR');
  });
});

describe('a map\'s .key and an item\'s own name as a lateral alias', () => {
  // Spark's alias-resolution-edge-cases.sql: m.field is m['field']; `s.field, field` reads the first item by its name.
  it('reads a map\'s value by the key written after the dot, and an earlier item by the name Spark gives it', async () => {
    const rows = await run("SELECT map('field', id).field, field + 1 AS next, map('k', 1).other AS none FROM src", [row]);
    expect(rows).toEqual([{ field: 7, next: 8, none: null }]);
  });
});
