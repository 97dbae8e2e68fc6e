/**
 * from_csv and to_csv (Spark's csv_funcs) on the examples of Spark's function reference and its
 * sql-tests csv-functions.sql, with the options sep, quote, escape and nullValue.
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../types';
import { SqlValidationError } from './sql-error';
import { compileStreamingQuery } from './streaming-query';

const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: [{ name: 'id', type: 'long' as const }, { name: 'line', type: 'string' as const }] };

async function value(expr: string, row: Row = { id: 1, line: null }): Promise<unknown> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  let out: Row[] = [row];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out[0].v;
}

function refusal(expr: string): SqlValidationError {
  try {
    compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  } catch (e) {
    if (e instanceof SqlValidationError) return e;
    throw e;
  }
  throw new Error(`expected ${expr} to fail`);
}

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

  it('refuses what Spark refuses', () => {
    expect(refusal("to_csv(named_struct('a', array(1)))").message).toMatch(/UNSUPPORTED_INPUT_TYPE/);
    expect(refusal("from_csv(line, 'a ARRAY<INT>')").message).toMatch(/UNSUPPORTED_INPUT_TYPE/);
    expect(refusal('from_csv(line, line)').message).toMatch(/schema as a string literal/);
    expect(refusal("from_csv(line, 'a INT', map('sep', ';;'))").message).toMatch(/one character/);
    expect(refusal('to_csv(1)').message).toMatch(/takes a struct/);
  });
});
