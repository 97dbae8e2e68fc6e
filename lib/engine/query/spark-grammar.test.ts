/**
 * Queries that only Spark's grammar reads as Spark does, run through the whole engine (parse,
 * plan, compile, execute): the forms a PostgreSQL grammar refused or misread. Expected values
 * are Spark's documented results (its SQL reference and its SQL test files).
 */
import { describe, expect, it } from 'vitest';
import { WeirError } from '../errors';
import type { Row, Schema } from '../types';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import { compileStreamingQuery } from './streaming-query';

const SCHEMA: Schema = [
  { name: 'key', type: 'string' },
  { name: 'value', type: 'string' },
  { name: 'topic', type: 'string' },
  { name: 'partition', type: 'long' },
  { name: 'offset', type: 'long' },
  { name: 'timestamp', type: 'timestamp' },
  { name: 'n', type: 'long' },
];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'events', schema: SCHEMA, eventTime: 'timestamp', watermarkDelayMs: 0 };
const T0 = Date.UTC(2024, 0, 2, 3, 4, 5);
const rows: Row[] = [
  { key: 'a', value: '{"id": 1, "tags": ["x", "y"]}', topic: 't', partition: 0, offset: 10, timestamp: T0, n: 1 },
  { key: 'b', value: '{"id": 2, "tags": []}', topic: 't', partition: 1, offset: 11, timestamp: T0, n: 5 },
  { key: 'a', value: '{"id": 3, "tags": ["z"]}', topic: 't', partition: 0, offset: 12, timestamp: T0, n: 7 },
];

async function run(sql: string, input: Row[] = rows): Promise<Row[]> {
  const q = compileStreamingQuery(sql, rel);
  let out = input;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: T0 });
  return out;
}

async function runComplete(sql: string, input: Row[] = rows): Promise<Row[]> {
  const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'complete');
  return (await q.runBatch(input)).output;
}

function failure(sql: string): WeirError {
  try {
    compileStreamingQuery(sql, rel);
  } catch (e) {
    if (e instanceof WeirError) return e;
    throw e;
  }
  throw new Error(`expected ${sql} to fail`);
}

const byKey = (a: Row, b: Row) => String(a.key).localeCompare(String(b.key));

describe("Spark's grammar, end to end", () => {
  it("reads a Kafka source's columns by their names: key, value, topic, partition, offset, timestamp", async () => {
    const out = await run('SELECT key, value, topic, partition, offset, timestamp FROM events WHERE partition = 0');
    expect(out.map((r) => [r.key, r.partition, r.offset, r.timestamp])).toEqual([['a', 0, 10, T0], ['a', 0, 12, T0]]);
  });

  it('reads a double-quoted text as a string literal, as Spark does', async () => {
    const [r] = await run('SELECT format_string("Hello %s", "x") AS h, left("abcd", 2) AS l, "days" AS d FROM events', rows.slice(0, 1));
    expect(r).toEqual({ h: 'Hello x', l: 'ab', d: 'days' });
  });

  it("reads Spark's typed literals", async () => {
    const [r] = await run("SELECT 1Y AS y, 2S AS s, 3L AS l, 2D AS d, 1.5F AS f, CAST(1.50BD AS STRING) AS bd, X'4869' AS b, CAST(DATE '2024-03-01' AS STRING) AS dt, TIMESTAMP '2024-01-02 03:04:05' AS t, TIMESTAMP_NTZ '2024-01-02 03:04:05' AS tn, TRUE AS yes FROM events", rows.slice(0, 1));
    expect(r).toMatchObject({ y: 1, s: 2, l: 3, d: 2, f: 1.5, bd: '1.50', dt: '2024-03-01', t: T0, tn: T0, yes: true });
    expect(Buffer.from(r.b as Uint8Array).toString('utf8')).toBe('Hi');
  });

  it('casts with :: (chained) and CAST', async () => {
    const [r] = await run("SELECT '12' :: long + 1 AS a, 12.7 :: string :: double AS b, CAST('7' AS INT) AS c FROM events", rows.slice(0, 1));
    expect(r).toEqual({ a: 13, b: 12.7, c: 7 });
  });

  it("casts with TRY_CAST: NULL wherever Spark's ANSI cast fails (try_cast.sql.out)", async () => {
    const cases: [string, unknown][] = [
      // Spark's own queries and answers.
      ["TRY_CAST('1.23' AS int)", null], ["TRY_CAST('-4.56' AS long)", null], ["TRY_CAST('abc' AS int)", null], ["TRY_CAST('' AS long)", null],
      ['TRY_CAST(NULL AS int)', null], ["TRY_CAST('123.a' AS long)", null], ["TRY_CAST('-2147483648' AS int)", -2147483648],
      ["TRY_CAST('-2147483649' AS int)", null], ["TRY_CAST('2147483647' AS int)", 2147483647], ["TRY_CAST('2147483648' AS int)", null],
      ["TRY_CAST('-9223372036854775808' AS long)", -(2n ** 63n)], ["TRY_CAST('-9223372036854775809' AS long)", null],
      ["TRY_CAST('9223372036854775807' AS long)", 2n ** 63n - 1n], ["TRY_CAST('9223372036854775808' AS long)", null],
      ["TRY_CAST('true' AS boolean)", true], ["TRY_CAST('abc' AS boolean)", null], ["TRY_CAST('2021-101-01' AS date)", null],
      // Numbers that do not fit the integer type: CAST wraps or saturates them, the ANSI cast fails.
      ['TRY_CAST(2147483648 AS INT)', null], ['TRY_CAST(1e10 AS INT)', null], ["TRY_CAST(CAST('NaN' AS DOUBLE) AS BIGINT)", null],
      ['TRY_CAST(9.2233720368547758E18 AS BIGINT)', null], ['TRY_CAST(128.5BD AS TINYINT)', null], ['TRY_CAST(127.9BD AS TINYINT)', 127],
      ['TRY_CAST(-32768 AS SMALLINT)', -32768], ['TRY_CAST(-7.9D AS INT)', -7], ["TRY_CAST(' 12 ' AS SMALLINT)", 12],
    ];
    const [r] = await run(`SELECT ${cases.map(([sql], i) => `${sql} AS c${i}`).join(', ')} FROM events`, rows.slice(0, 1));
    cases.forEach(([sql, expected], i) => expect(r[`c${i}`], sql).toEqual(expected));
    // The same cast without TRY_: Spark's values with ANSI off.
    const [plain] = await run("SELECT CAST(2147483648 AS INT) AS a, CAST('1.23' AS INT) AS b, CAST(1e10 AS INT) AS c FROM events", rows.slice(0, 1));
    expect(plain).toEqual({ a: -2147483648, b: 1, c: 2147483647 });
    expect(compileStreamingQuery("SELECT TRY_CAST(key AS INT) FROM events", rel).outputSchema).toEqual([{ name: 'TRY_CAST(key AS INT)', type: 'long', integral: 32, nullable: true }]);
  });

  it('takes the SQL keyword forms of substr, trim, position, overlay and extract', async () => {
    const [r] = await run(
      "SELECT substr('Spark SQL' FROM 5) AS a, substring('Spark SQL' FROM 5 FOR 1) AS b, trim(BOTH 'S' FROM 'SSparkSQLS') AS c, position('bar' IN 'foobarbar') AS d, overlay('Spark SQL' PLACING '_' FROM 6) AS e, EXTRACT(HOUR FROM timestamp) AS f FROM events",
      rows.slice(0, 1),
    );
    expect(r).toEqual({ a: 'k SQL', b: 'k', c: 'parkSQL', d: 4, e: 'Spark_SQL', f: 3 });
  });

  it('reads a field of any struct expression and an element of any array expression', async () => {
    const [r] = await run("SELECT from_json(value, 'id BIGINT, tags ARRAY<STRING>').id AS id, from_json(value, 'id BIGINT, tags ARRAY<STRING>').tags[1] AS t1 FROM events", rows.slice(0, 1));
    expect(r).toEqual({ id: 1, t1: 'y' });
  });

  it('groups by a select item position (GROUP BY 1)', async () => {
    const out = await runComplete('SELECT key, count(*) AS c FROM events GROUP BY 1');
    expect(out.sort(byKey)).toEqual([{ key: 'a', c: 2 }, { key: 'b', c: 1 }]);
    expect(failure('SELECT key, count(*) AS c FROM events GROUP BY 3').errorClass).toBe('GROUP_BY_POS_OUT_OF_RANGE');
    expect(failure('SELECT key, count(*) AS c FROM events GROUP BY 2').errorClass).toBe('GROUP_BY_POS_AGGREGATE');
    // A star beside a position (Spark's STAR_GROUP_BY_POS); count(*) is count(1), no star.
    expect(failure('SELECT * FROM events GROUP BY key, 1').errorClass).toBe('STAR_GROUP_BY_POS');
    expect(failure('SELECT key, struct(*) AS s FROM events GROUP BY 1').errorClass).toBe('STAR_GROUP_BY_POS');
  });

  it('refuses an ORDER BY position outside the select list as Spark does (ORDER_BY_POS_OUT_OF_RANGE)', () => {
    for (const sql of ['SELECT key, count(*) AS c FROM events GROUP BY key ORDER BY 3', 'SELECT key, count(*) AS c FROM events GROUP BY key ORDER BY 0', 'SELECT key, count(*) AS c FROM events GROUP BY key ORDER BY -1']) {
      expect(failure(sql)).toMatchObject({ errorClass: 'ORDER_BY_POS_OUT_OF_RANGE', message: expect.stringMatching(/ORDER BY position -?\d is not in select list \(valid range is \[1, 2\]\)/) });
    }
    expect(failure('SELECT key FROM events ORDER BY 2').errorClass).toBe('ORDER_BY_POS_OUT_OF_RANGE');
  });

  it('refuses a LIMIT as Spark checks a limit-like expression (INVALID_LIMIT_LIKE_EXPRESSION)', () => {
    const limitOf = (n: string) => failure(`SELECT key, count(*) AS c FROM events GROUP BY key LIMIT ${n}`);
    expect(limitOf('-1')).toMatchObject({ errorClass: 'INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE', message: expect.stringContaining('The limit like expression "-1" is invalid. The limit expression must be equal to or greater than 0, but got -1.') });
    expect(limitOf('true')).toMatchObject({ errorClass: 'INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE', message: expect.stringContaining('The limit expression must be integer type, but got "BOOLEAN".') });
    expect(limitOf("'a'").errorClass).toBe('INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE');
    expect(limitOf('10000000000').message).toContain('but got "BIGINT"');
    expect(limitOf('key').errorClass).toBe('INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE');
    // A random function is no constant either (PostgreSQL's limit test: a CASE over random()).
    expect(limitOf('(CASE WHEN random() < 0.5 THEN bigint(NULL) END)').errorClass).toBe('INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE');
  });

  it('refuses an OFFSET as Spark checks a limit-like expression, the message naming offset', () => {
    const offsetOf = (n: string) => failure(`SELECT key, count(*) AS c FROM events GROUP BY key LIMIT 1 OFFSET ${n}`);
    expect(offsetOf('-1')).toMatchObject({ errorClass: 'INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE', message: expect.stringContaining('The limit like expression "-1" is invalid. The offset expression must be equal to or greater than 0, but got -1.') });
    expect(offsetOf('2 - 3')).toMatchObject({ errorClass: 'INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE', message: expect.stringContaining('but got -1.') });
    expect(offsetOf('CAST(NULL AS INT)')).toMatchObject({ errorClass: 'INVALID_LIMIT_LIKE_EXPRESSION.IS_NULL', message: expect.stringContaining('The evaluated offset expression must not be null.') });
    expect(offsetOf('true')).toMatchObject({ errorClass: 'INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE', message: expect.stringContaining('The offset expression must be integer type, but got "BOOLEAN".') });
    expect(offsetOf('rand()').errorClass).toBe('INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE');
    expect(offsetOf('n')).toMatchObject({ errorClass: 'INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE', message: expect.stringContaining('The offset expression must evaluate to a constant value.') });
  });

  it('groups by every select item that holds no aggregate (GROUP BY ALL)', async () => {
    const out = await runComplete('SELECT key, upper(topic) AS t, count(*) AS c, sum(n) + 1 AS s FROM events GROUP BY ALL');
    expect(out.sort(byKey)).toEqual([{ key: 'a', t: 'T', c: 2, s: 9 }, { key: 'b', t: 'T', c: 1, s: 6 }]);
    // The explain shows the keys it inferred, and each output by the expression it holds.
    const q = compileStreamingQuery('SELECT key, upper(topic) AS t, count(*) AS c, sum(n) + 1 AS s FROM events GROUP BY all', rel, { outputMode: 'complete' });
    expect(q.explain).toContain('Aggregate [key, upper(topic)], [count(*), sum(n)]');
    expect(q.explain).toContain('Project [key, upper(topic) AS t, count(*) AS c, (sum(n) + 1) AS s]');
    // Only aggregates: one global group, as Spark's.
    expect(await runComplete('SELECT count(*) AS c FROM events GROUP BY ALL')).toEqual([{ c: 3 }]);
    // A column read inside an aggregate's argument is no key either (ResolveGroupByAll's global aggregate).
    expect(await runComplete('SELECT count(n) * 3 AS c FROM events GROUP BY ALL')).toEqual([{ c: 9 }]);
    // A column named all is grouped by, as Spark resolves the name first.
    const withAll = { ...rel, schema: [...SCHEMA, { name: 'all', type: 'long' as const }] };
    expect(compileStreamingQuery('SELECT `all`, count(*) AS c FROM events GROUP BY all', withAll, { outputMode: 'complete' }).explain).toContain('Aggregate [all], [count(*)]');
    expect(() => compileStreamingQuery('SELECT key, count(*) AS c FROM events GROUP BY all', withAll, { outputMode: 'complete' })).toThrow(/'key' in the select list is neither present in the group by/);
    // An item that reads a column beside an aggregate leaves nothing to group by.
    const e = failure('SELECT n + count(*) FROM events GROUP BY ALL');
    expect(e.errorClass).toBe('UNRESOLVED_ALL_IN_GROUP_BY');
    expect(e.message).toContain('Cannot infer grouping columns for GROUP BY ALL based on the select clause. Please explicitly specify the grouping columns.');
    // HAVING and ORDER BY read the select list's columns: an input column it leaves out is unresolved there, as in Spark.
    for (const q of ['SELECT sum(n) AS s FROM events GROUP BY ALL HAVING n > 2', 'SELECT key, sum(n) AS s FROM events GROUP BY ALL ORDER BY n']) {
      const unresolved = failure(q);
      expect(unresolved.errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
      expect(unresolved.message).toContain('with name `n` cannot be resolved. Did you mean one of the following? [`s`');
    }
    // Beside an explicit grouping too: Spark's resolveColWithAgg undoes a HAVING column that is
    // neither grouped nor an aggregate's input, so it is unresolved there as well.
    expect(failure('SELECT key, sum(n) AS s FROM events GROUP BY key HAVING n > 2').errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
  });

  it('sorts by every output column with ORDER BY ALL (Complete mode, over an aggregation)', async () => {
    const out = await runComplete('SELECT key, count(*) AS c FROM events GROUP BY ALL ORDER BY ALL DESC');
    expect(out).toEqual([{ key: 'b', c: 1 }, { key: 'a', c: 2 }]);
    const q = compileStreamingQuery('SELECT count(*) AS c, key FROM events GROUP BY key ORDER BY all', rel, { outputMode: 'complete' });
    expect(q.explain).toContain('Sort [c ASC, key ASC]');
    // A column named all is sorted on, as Spark resolves the name first.
    const withAll = { ...rel, schema: [...SCHEMA, { name: 'all', type: 'long' as const }] };
    expect(compileStreamingQuery('SELECT `all`, count(*) AS c FROM events GROUP BY `all` ORDER BY all', withAll, { outputMode: 'complete' }).explain).toContain('Sort [all ASC]');
    // Spark's streaming rule stands: no sort without an aggregation in Complete mode.
    expect(() => compileStreamingQuery('SELECT key FROM events ORDER BY ALL', rel)).toThrow(/Sorting is not supported on streaming DataFrames\/Datasets, unless it is on aggregated DataFrame\/Dataset in Complete output mode/);
  });

  it('filters what an aggregate reads with FILTER (WHERE …)', async () => {
    const out = await runComplete('SELECT key, count(*) FILTER (WHERE n > 1) AS big, sum(n) FILTER (WHERE n < 6) AS small, count(*) AS all_rows FROM events GROUP BY key');
    expect(out.sort(byKey)).toEqual([{ key: 'a', big: 1, small: 1, all_rows: 2 }, { key: 'b', big: 1, small: 5, all_rows: 1 }]);
  });

  it('names an unaliased FILTER aggregate as Spark does', () => {
    const q = compileStreamingQuery('SELECT key, count(*) FILTER (WHERE n > 1) FROM events GROUP BY key', rel, { outputMode: 'complete' });
    expect(q.outputSchema.map((f) => f.name)).toEqual(['key', 'count(1) FILTER (WHERE (n > 1))']);
  });

  it('explodes with LATERAL VIEW [OUTER], the generated column readable in WHERE and the select list', async () => {
    const sql = "SELECT key, tag FROM events LATERAL VIEW explode(from_json(value, 'tags ARRAY<STRING>').tags) t AS tag WHERE tag <> 'y'";
    expect(await run(sql)).toEqual([{ key: 'a', tag: 'x' }, { key: 'a', tag: 'z' }]);
    const outer = "SELECT key, tag FROM events LATERAL VIEW OUTER explode(from_json(value, 'tags ARRAY<STRING>').tags) t AS tag";
    expect(await run(outer)).toEqual([{ key: 'a', tag: 'x' }, { key: 'a', tag: 'y' }, { key: 'b', tag: null }, { key: 'a', tag: 'z' }]);
    const pos = "SELECT key, p, tag FROM events LATERAL VIEW posexplode(from_json(value, 'tags ARRAY<STRING>').tags) t AS p, tag";
    expect(await run(pos)).toEqual([{ key: 'a', p: 0, tag: 'x' }, { key: 'a', p: 1, tag: 'y' }, { key: 'a', p: 0, tag: 'z' }]);
  });

  it('takes AND/OR with SQL precedence after IN, BETWEEN and NOT', async () => {
    const out = await run("SELECT offset FROM events WHERE key = 'b' AND n IN (1) OR n BETWEEN 6 AND 8 OR NOT key = 'a' AND n = 5");
    expect(out.map((r) => r.offset)).toEqual([11, 12]);
  });

  it("names the token of a syntax error, as Spark's parser does", () => {
    // ORDER is a name to Spark here (non-reserved with ANSI off): `1 + ORDER`, then BY is the error.
    const e = failure('SELECT key FROM events WHERE n > 1 +\n  ORDER BY key');
    expect(e.errorClass).toBe('PARSE_SYNTAX_ERROR');
    expect(e.message).toMatch(/^\[PARSE_SYNTAX_ERROR\] Syntax error at or near 'BY'\..* \(line 2, column 9\)$/);
  });

  it("names an unknown column with Spark's UNRESOLVED_COLUMN.WITH_SUGGESTION, the closest names first", () => {
    const e = failure('SELECT keys FROM events');
    expect(e.errorClass).toBe('UNRESOLVED_COLUMN.WITH_SUGGESTION');
    expect(e.message).toMatch(/^A column, variable, or function parameter with name `keys` cannot be resolved\. Did you mean one of the following\? \[`key`, (`[a-z]+`, ){3}`[a-z]+`\]\. Column "keys" does not exist; available columns: key, value, topic, partition, offset, timestamp, n \(line 1, column 8\)$/);
  });

  it('refuses what it parses but cannot run (yet), naming it where it is', () => {
    expect(failure('SELECT upper(x -> x) AS a FROM events').message).toMatch(/^Invalid lambda function call\. A lambda function should only be used in a higher order function.*\(line 1, column 14\)$/);
    expect(failure("SELECT timestamp + INTERVAL '1' MONTH 1 DAY AS t FROM events").message).toMatch(/INTERVAL/);
    expect(failure('SELECT key FROM events WHERE n IN (SELECT n FROM events)').message).toMatch(/A subquery in an expression is not supported yet/);
  });
});
