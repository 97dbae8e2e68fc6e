/**
 * from_csv and to_csv (Spark's csv_funcs) on the examples of Spark's function reference and its
 * sql-tests csv-functions.sql, with the options sep, quote, escape and nullValue.
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { selectRefusal } from './testing/select-refusal';

const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'id', type: 'long' as const }, { name: 'line', type: 'string' as const }] };

async function value(expr: string, row: Row = { id: 1, line: null }): Promise<unknown> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  let out: Row[] = [row];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out[0].v;
}

const refusal = (expr: string) => selectRefusal(expr, rel);

describe('from_csv and to_csv', () => {
  it("> SELECT from_csv('1, 0.8', 'a INT, b DOUBLE'); {\"a\":1,\"b\":0.8}", async () => {
    expect(await value("from_csv('1, 0.8', 'a INT, b DOUBLE')")).toEqual({ a: 1, b: 0.8 });
    const q = compileStreamingQuery("SELECT from_csv(line, 'a INT, b DOUBLE') AS v FROM src", rel);
    expect(q.outputSchema[0]).toMatchObject({ type: 'struct', fields: [{ name: 'a', type: 'long', integral: 32 }, { name: 'b', type: 'double' }] });
  });

  it("> SELECT to_csv(named_struct('a', 1, 'b', 2)); 1,2", async () => {
    expect(await value("to_csv(named_struct('a', 1, 'b', 2))")).toBe('1,2');
  });

  it("writes a DOUBLE as Java's Double.toString, as Spark's CSV writer; reads NaN, Inf and -Inf back", async () => {
    expect(await value("to_csv(named_struct('a', 2.0D, 'b', 1E21, 'c', 1E-7, 'n', CAST('NaN' AS DOUBLE), 'i', CAST('-Infinity' AS DOUBLE)))")).toBe('2.0,1.0E21,1.0E-7,NaN,-Infinity');
    expect(await value("to_csv(named_struct('f', CAST(1.1 AS FLOAT), 'g', CAST(3 AS FLOAT)))")).toBe('1.1,3.0');
    expect(await value("to_json(from_csv('NaN,Inf,-Inf,Infinity', 'a DOUBLE, b DOUBLE, c DOUBLE, d DOUBLE'))")).toBe('{"a":"NaN","b":"Infinity","c":"-Infinity","d":"Infinity"}');
  });

  it("writes a BINARY as Spark 4's CSV writer does with no binary style set: its bytes in hex", async () => {
    expect(await value("to_csv(named_struct('n', 1, 'b', X'4561736F6E', 'e', X'', 'z', CAST(NULL AS BINARY)))")).toBe('1,[45 61 73 6F 6E],[],');
  });

  it('reads a field that is not of its type, or missing, as NULL (PERMISSIVE); a NULL line is NULL', async () => {
    expect(await value("from_csv(line, 'a INT, b STRING, c DATE')", { id: 1, line: 'x,"q,r"' })).toEqual({ a: null, b: 'q,r', c: null });
    expect(await value("from_csv(line, 'a INT')", { id: 1, line: null })).toBeNull();
  });

  it('takes sep, quote, escape and nullValue, writing and reading each other back', async () => {
    const opts = "map('sep', ';', 'nullValue', '-')";
    const line = await value(`to_csv(named_struct('a', 1, 's', 'a;b', 'n', CAST(NULL AS STRING), 'd', DATE'2020-01-02', 'q', 'say "hi"'), ${opts})`);
    // Spark's writer quotes a field holding the separator or a quote, its quotes escaped by `\`.
    expect(line).toBe('1;"a;b";-;2020-01-02;"say \\"hi\\""');
    expect(await value(`from_csv(line, 'a INT, s STRING, n STRING, d DATE, q STRING', ${opts})`, { id: 1, line: line as string })).toEqual({ a: 1, s: 'a;b', n: null, d: 18263, q: 'say "hi"' });
    expect(await value("from_csv(line, 'a STRING, b STRING', map('quote', '\\'', 'sep', '\\t'))", { id: 1, line: "'x\ty'\tz" })).toEqual({ a: 'x\ty', b: 'z' });
  });

  it('reads a DATE by dateFormat and a TIMESTAMP by timestampFormat', async () => {
    const opts = "map('dateFormat', 'dd/MM/yyyy', 'timestampFormat', 'dd/MM/yyyy HH:mm')";
    expect(await value(`from_csv(line, 'd DATE, t TIMESTAMP', ${opts})`, { id: 1, line: '02/01/2020,02/01/2020 10:30' })).toEqual({ d: 18263, t: Date.UTC(2020, 0, 2, 10, 30) });
    expect(await value(`from_csv(line, 'd DATE, t TIMESTAMP', ${opts})`, { id: 1, line: '2020-01-02,2020-01-02 10:30' })).toEqual({ d: null, t: null });
    // to_csv writes them by the same options.
    expect(await value(`to_csv(named_struct('d', DATE'2020-01-02', 't', TIMESTAMP'2020-01-02 10:30:00'), ${opts})`)).toBe('02/01/2020,02/01/2020 10:30');
    // A pattern Spark 2 took and Spark 3+ does not recognize is Spark's cross-version error.
    expect(refusal("from_csv(line, 'd DATE', map('dateFormat', 'dd/MMMMM/yyyy'))").errorClass).toBe('INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION');
  });

  it('refuses what Spark refuses', () => {
    expect(refusal("to_csv(named_struct('a', array(1)))").message).toMatch(/UNSUPPORTED_INPUT_TYPE/);
    expect(refusal("from_csv(line, 'a ARRAY<INT>')").message).toMatch(/UNSUPPORTED_INPUT_TYPE/);
    expect(refusal('from_csv(line, line)').message).toMatch(/schema as a string literal/);
    expect(refusal("from_csv(line, 'a INT', map('sep', ';;'))").message).toMatch(/one character/);
    expect(refusal('to_csv(1)').message).toMatch(/takes a struct/);
    // Spark's ExprUtils: options are map(…) of strings, a schema a string literal.
    expect(refusal("to_csv(named_struct('a', 1), named_struct('mode', 'PERMISSIVE'))").errorClass).toBe('INVALID_OPTIONS.NON_MAP_FUNCTION');
    expect(refusal("from_csv(line, 'a INT', map('mode', 1))").errorClass).toBe('INVALID_OPTIONS.NON_STRING_TYPE');
    expect(refusal("from_json(line, 'a INT', map('mode', 1))").errorClass).toBe('INVALID_OPTIONS.NON_STRING_TYPE');
    expect(refusal('from_csv(line, 1)').errorClass).toBe('INVALID_SCHEMA.NON_STRING_LITERAL');
    expect(refusal("from_csv(line, 'ARRAY<INT>')").errorClass).toBe('INVALID_SCHEMA.NON_STRUCT_TYPE');
  });
});

describe("schema_of_csv (Spark's SchemaOfCsv over CSVInferSchema)", () => {
  it.each([
    // Spark's function reference and sql-tests csv-functions.sql.out.
    ["schema_of_csv('1,abc')", 'STRUCT<_c0: INT, _c1: STRING>'],
    ["schema_of_csv('1|abc', map('delimiter', '|'))", 'STRUCT<_c0: INT, _c1: STRING>'],
    // CSVInferSchema's order: INT, BIGINT, a whole number past BIGINT a DECIMAL, then DOUBLE.
    ["schema_of_csv('2147483647,2147483648,-9223372036854775808,9223372036854775808,1.5')", 'STRUCT<_c0: INT, _c1: BIGINT, _c2: BIGINT, _c3: DECIMAL(19,0), _c4: DOUBLE>'],
    // A DECIMAL holds no fraction, no negative scale (1E10) and at most 38 digits: DOUBLE else.
    [`schema_of_csv('1E10,1.0,1.,${'9'.repeat(39)},${'9'.repeat(38)}')`, 'STRUCT<_c0: DOUBLE, _c1: DOUBLE, _c2: DECIMAL(1,0), _c3: DOUBLE, _c4: DECIMAL(38,0)>'],
    // Java's parseDouble trims and takes a type suffix; Integer.parseInt does neither.
    ["schema_of_csv(' 1,2d,NaN,Inf,-Inf,Infinity,0x1p3')", 'STRUCT<_c0: DOUBLE, _c1: DOUBLE, _c2: DOUBLE, _c3: DOUBLE, _c4: DOUBLE, _c5: DOUBLE, _c6: DOUBLE>'],
    // preferDate (on by default) reads yyyy-MM-dd strictly; other date-times by CAST's lenient parser.
    ["schema_of_csv('2020-01-31,2020-01-31 10:11:12,2020-01-31T10:11:12.5Z,2020-02-30')", 'STRUCT<_c0: DATE, _c1: TIMESTAMP, _c2: TIMESTAMP, _c3: STRING>'],
    ["schema_of_csv('2020-01-31', map('preferDate', 'false'))", 'STRUCT<_c0: TIMESTAMP>'],
    ["schema_of_csv('31/01/2020,31/01/2020 10:11', map('dateFormat', 'dd/MM/yyyy', 'timestampFormat', 'dd/MM/yyyy HH:mm'))", 'STRUCT<_c0: DATE, _c1: TIMESTAMP>'],
    ["schema_of_csv('true,FALSE,yes')", 'STRUCT<_c0: BOOLEAN, _c1: BOOLEAN, _c2: STRING>'],
    // No value (empty, or nullValue) says nothing: STRING, as a NullType column becomes.
    ["schema_of_csv('1,,-', map('nullValue', '-'))", 'STRUCT<_c0: INT, _c1: STRING, _c2: STRING>'],
    ["schema_of_csv('\"1,5\",\"2\"')", 'STRUCT<_c0: STRING, _c1: INT>'],
  ])('%s = %s', async (expr, ddl) => {
    expect(await value(expr)).toBe(ddl);
  });

  it("feeds from_csv's schema, as Spark's `from_csv('1,abc', schema_of_csv('1,abc'))`", async () => {
    expect(await value("from_csv('1,abc', schema_of_csv('1,abc'))")).toEqual({ _c0: 1, _c1: 'abc' });
  });

  it('refuses a NULL or a non-constant sample, as Spark does', () => {
    expect(refusal('schema_of_csv(NULL)').message).toMatch(/UNEXPECTED_NULL/);
    expect(refusal('schema_of_csv(line)').message).toMatch(/NON_FOLDABLE_INPUT/);
  });
});
