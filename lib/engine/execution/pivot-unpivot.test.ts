/**
 * What Spark does with PIVOT and UNPIVOT on a stream, through the engine: run where Spark runs
 * them (UNPIVOT stateless; PIVOT as the aggregation or the two its ResolvePivot plans), refused
 * with Spark's error class and message where Spark refuses them (ResolvePivot, ResolveUnpivot,
 * CheckAnalysis, AstBuilder.visitFromClause, the UnsupportedOperationChecker). The answers are
 * checked against DuckDB in pivot-unpivot.differential.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { withErrorClass } from '../errors';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { validateJob } from '../spec/validate-job';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const EVENTS = [
  { name: 'course', type: 'string' }, { name: 'y2012', type: 'int' }, { name: 'y2013', type: 'long' }, { name: 's', type: 'string' },
  { name: 'tags', type: 'map', keyType: { name: 'key', type: 'string' }, valueType: { name: 'value', type: 'string' } },
];
const ROWS = [
  { course: 'dotNET', y2012: 15000, y2013: 48000, s: 'a', tags: {} },
  { course: 'Java', y2012: 20000, y2013: null, s: 'b', tags: {} },
  { course: 'Java', y2012: 5, y2013: 30000, s: 'c', tags: {} },
];

let n = 0;
const specOf = (sql: string, outputMode = 'append', dir = '/nonexistent', name = `pivot-stream-${process.pid}-${n++}`) => ({
  name, source: { name: 'events', type: 'memory', options: { stream: name }, schema: EVENTS }, sql, outputMode,
  sink: { type: 'memory', options: { table: name } }, trigger: { type: 'available-now' }, checkpointLocation: path.join(dir, 'cp'),
});

/** The query's output over ROWS, a batch of each row: each batch's rows as `a:b:…` in column order. */
async function run(sql: string, outputMode = 'append'): Promise<string[][]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-pivot-'));
  roots.push(dir);
  const spec = specOf(sql, outputMode, dir);
  expect(validateJob(spec).errors).toEqual([]);
  const q = new MicroBatchExecution({ spec: mustParse(spec), clock: new ManualClock(0) });
  for (const r of ROWS) {
    MemoryStream.named(spec.name).addData(r);
    await q.processAllAvailable();
  }
  await q.stop();
  return MemorySinkTable.named(spec.name).batches.map((b) => b.rows.map((r) => Object.values(r).map(String).join(':')));
}

/** The validation's errors, each as the CLI prints it: `[<error class>] <message>`. */
const errorOf = (sql: string, outputMode = 'append') => validateJob(specOf(sql, outputMode)).errors.map((e) => withErrorClass(e.message, e.errorClass)).join('\n');

describe('PIVOT on a stream', () => {
  it('aggregates of strings are one streaming aggregation: Update emits each batch\'s updated groups', async () => {
    const batches = await run("SELECT * FROM (SELECT course, s, y2013 IS NULL AS missing FROM events) PIVOT (max(s) FOR course IN ('Java', 'dotNET' AS dn))", 'update');
    expect(batches).toEqual([['false:null:a'], ['true:b:null'], ['false:c:a']]);
  });

  it('aggregates of numbers are Spark\'s two aggregations (PivotFirst): refused in Update and Complete, Append needs a watermark', () => {
    // An aggregation feeding another outside Append: Spark 3.5+'s global watermark limit.
    const chained = (mode: string) => `[_LEGACY_ERROR_TEMP_3102] Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, which are "late rows" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details. (${mode} output mode)`;
    expect(errorOf("SELECT * FROM (SELECT course, s, y2012 FROM events) PIVOT (sum(y2012) FOR course IN ('Java', 'dotNET'))", 'update')).toBe(chained('Update'));
    expect(errorOf("SELECT * FROM (SELECT course, s, y2012 FROM events) PIVOT (count(*) AS n, avg(y2012) FOR course IN ('Java'))", 'complete')).toBe(chained('Complete'));
    expect(errorOf("SELECT * FROM (SELECT course, s, y2012 FROM events) PIVOT (sum(y2012) FOR course IN ('Java', 'dotNET'))")).toBe(
      '[_LEGACY_ERROR_TEMP_3102] Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark');
  });

  it('one aggregate of another type makes it one aggregation, each aggregate reading its value\'s rows only', async () => {
    const batches = await run("SELECT * FROM (SELECT course, s FROM events) PIVOT (count(*) AS n, max(s) AS m FOR course IN ('Java', 'dotNET'))", 'complete');
    expect(batches.at(-1)).toEqual(['2:c:1:a']);
  });

  it('on several columns, the values structs of theirs', async () => {
    const batches = await run("SELECT * FROM (SELECT course, s, y2013 IS NULL AS missing FROM events) PIVOT (max(s) FOR (course, missing) IN (('Java', false) AS jf, ('Java', true) AS jt, ('dotNET', true) AS dt))", 'complete');
    expect(batches.at(-1)).toEqual(['c:b:null']);
  });

  it('Spark\'s analysis errors', () => {
    expect(errorOf("SELECT * FROM events PIVOT (y2012 FOR course IN ('Java'))", 'update')).toMatch(/^\[_LEGACY_ERROR_TEMP_1006\] Aggregate expression required for pivot, but 'y2012' did not appear in any aggregate function\./);
    expect(errorOf('SELECT * FROM events PIVOT (max(s) FOR course IN (s))', 'update')).toMatch(/^\[NON_LITERAL_PIVOT_VALUES\] Literal expressions required for pivot values, found "s"\./);
    expect(errorOf("SELECT * FROM events PIVOT (max(s) FOR y2012 IN (DATE '2020-01-01'))", 'update')).toMatch(/^\[PIVOT_VALUE_DATA_TYPE_MISMATCH\] Invalid pivot value 'DATE '2020-01-01'': value data type DATE does not match pivot column data type INT\./);
    expect(errorOf("SELECT * FROM events PIVOT (max(s) FOR tags IN ('x'))", 'update')).toMatch(/^\[INCOMPARABLE_PIVOT_COLUMN\] Invalid pivot column `tags`\. Pivot columns must be comparable\./);
    expect(errorOf("SELECT * FROM events LATERAL VIEW explode(tags) t AS k, v PIVOT (max(s) FOR course IN ('Java'))", 'update')).toContain('[NOT_ALLOWED_IN_FROM.LATERAL_WITH_PIVOT] Not allowed in the FROM clause: LATERAL together with PIVOT.');
  });
});

describe('UNPIVOT on a stream', () => {
  it('is stateless: each batch\'s rows unpivoted as they come', async () => {
    const batches = await run('SELECT course, s, year, v FROM events UNPIVOT (v FOR year IN (y2012 AS `2012`, y2013 AS `2013`))');
    expect(batches).toEqual([['dotNET:a:2012:15000', 'dotNET:a:2013:48000'], ['Java:b:2012:20000'], ['Java:c:2012:5', 'Java:c:2013:30000']]);
  });

  it('Spark\'s analysis errors', () => {
    expect(errorOf('SELECT * FROM events UNPIVOT (v FOR year IN (y2012, s, y2013, course))')).toMatch(
      /^\[UNPIVOT_VALUE_DATA_TYPE_MISMATCH\] Unpivot value columns must share a least common type, some types do not: \["BIGINT" \(`y2013`\), "INT" \(`y2012`\), "STRING" \(`course`, `s`\)\]\./);
    expect(errorOf('SELECT * FROM events UNPIVOT ((a, b, c) FOR year IN ((y2012, y2013), (y2012, y2013)))')).toMatch(
      /^\[UNPIVOT_VALUE_SIZE_MISMATCH\] All unpivot value columns must have the same size as there are value column names \(3\)\./);
    expect(errorOf('SELECT * FROM events UNPIVOT (v FOR year IN (y2012, nope))')).toMatch(/^\[UNRESOLVED_COLUMN.WITH_SUGGESTION\]/);
    expect(errorOf('SELECT * FROM events LATERAL VIEW explode(tags) t AS k, v UNPIVOT (x FOR year IN (y2012, y2013))')).toContain('[NOT_ALLOWED_IN_FROM.LATERAL_WITH_UNPIVOT] Not allowed in the FROM clause: LATERAL together with UNPIVOT.');
  });
});
