/**
 * What Spark does with PIVOT and UNPIVOT on a stream, through the engine: run where Spark runs
 * them (UNPIVOT stateless; PIVOT as the aggregation or the two its ResolvePivot plans), refused
 * with Spark's error class and message where Spark refuses them (ResolvePivot, ResolveUnpivot,
 * CheckAnalysis, AstBuilder.visitFromClause, the UnsupportedOperationChecker). The answers are
 * checked against DuckDB in pivot-unpivot.differential.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { courseEvents } from './testing/course-events';
import { AddData, assertNumRowsDroppedByWatermark, CheckNewAnswer, sparkStreams } from './testing/spark-stream-test';

const { run, errorOf } = courseEvents('pivot-stream');

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

  it('over a window column a subquery selects, Append runs: the aliased window keeps its watermark through each Project', async () => {
    // Spark's TimeWindowing gives the window column its time column's metadata, an Alias keeps
    // it, and the first aggregation's grouping attribute is that column: each aggregation is
    // bounded by it. The PIVOT and the two aggregations ResolvePivot makes of it, written by hand.
    const windowed = "SELECT window(ts, '10 seconds') AS w, k, v FROM events";
    const pivot = `SELECT CAST(w.start AS LONG) AS start, one, two FROM (SELECT * FROM (${windowed}) PIVOT (sum(v) FOR k IN (1 AS one, 2 AS two)))`;
    const byHand = `SELECT CAST(w.start AS LONG) AS start, first(CASE WHEN k = 1 THEN s END, true) AS one, first(CASE WHEN k = 2 THEN s END, true) AS two
      FROM (SELECT w, k, sum(v) AS s FROM (${windowed}) GROUP BY w, k) GROUP BY w`;
    for (const sql of [pivot, byHand]) {
      const t = sparkStreams({
        sql,
        sources: { events: { schema: [{ name: 'k', type: 'long', integral: 32 }, { name: 'v', type: 'long' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '5 seconds' } },
      });
      const at = (k: number, v: number, s: number) => ({ k, v, ts: s * 1000 });
      await t.run(
        AddData('events', at(1, 10, 1), at(2, 20, 2), at(1, 11, 4)),
        CheckNewAnswer(),
        // Watermark 7: [0, 10) stays open.
        AddData('events', at(2, 5, 12)),
        CheckNewAnswer(),
        // Watermark 11 closes [0, 10) in the first aggregation, and then in the second.
        AddData('events', at(1, 3, 16)),
        CheckNewAnswer([0, 21, 20]),
        // A row of the closed window is late to the first aggregation; watermark 25 closes [10, 20).
        AddData('events', at(2, 100, 3), at(2, 1, 30)),
        CheckNewAnswer([10, 3, 5]),
        assertNumRowsDroppedByWatermark([0, 1]),
      );
    }
  });

  it('one aggregate of another type makes it one aggregation, each aggregate reading its value\'s rows only', async () => {
    const batches = await run("SELECT * FROM (SELECT course, s FROM events) PIVOT (count(*) AS n, max(s) AS m FOR course IN ('Java', 'dotNET'))", 'complete');
    expect(batches.at(-1)).toEqual(['2:c:1:a']);
  });

  it('on several columns, the values structs of theirs', async () => {
    const batches = await run("SELECT * FROM (SELECT course, s, y2013 IS NULL AS missing FROM events) PIVOT (max(s) FOR (course, missing) IN (('Java', false) AS jf, ('Java', true) AS jt, ('dotNET', true) AS dt))", 'complete');
    expect(batches.at(-1)).toEqual(['c:b:null']);
  });

  it('a struct value without an alias names its columns by its text; a value computed otherwise needs an alias, and is not evaluated to find one', async () => {
    // The columns are read by the names Spark gives them, CAST(value AS STRING).
    const batches = await run("SELECT `{Java, false}` AS jf, `{dotNET, true}` AS dt FROM (SELECT course, s, y2013 IS NULL AS missing FROM events) PIVOT (max(s) FOR (course, missing) IN (('Java', false), ('dotNET', true)))", 'complete');
    expect(batches.at(-1)).toEqual(['c:null']);
    expect(errorOf("SELECT * FROM events PIVOT (max(s) FOR course IN (repeat('Java', 1)))", 'update')).toContain("A pivot value that is not a literal (repeat('Java', 1)) without an alias is not supported yet");
  });

  it('Spark\'s analysis errors', () => {
    expect(errorOf("SELECT * FROM events PIVOT (y2012 FOR course IN ('Java'))", 'update')).toMatch(/^\[_LEGACY_ERROR_TEMP_1006\] Aggregate expression required for pivot, but 'y2012' did not appear in any aggregate function\./);
    expect(errorOf('SELECT * FROM events PIVOT (max(s) FOR course IN (s))', 'update')).toMatch(/^\[NON_LITERAL_PIVOT_VALUES\] Literal expressions required for pivot values, found "s"\./);
    expect(errorOf("SELECT * FROM events PIVOT (max(s) FOR y2012 IN (DATE '2020-01-01'))", 'update')).toMatch(/^\[PIVOT_VALUE_DATA_TYPE_MISMATCH\] Invalid pivot value 'DATE '2020-01-01'': value data type DATE does not match pivot column data type INT\./);
    // A value is resolved before ResolvePivot checks it is a literal: a name that is no column is UNRESOLVED_COLUMN.
    expect(errorOf('SELECT * FROM events PIVOT (max(s) FOR course IN (nope))', 'update')).toMatch(/`nope` cannot be resolved/);
    // Cast.canCast of the whole type: a STRING is no STRUCT of the pivot columns.
    expect(errorOf("SELECT * FROM events PIVOT (max(s) FOR (course, y2012) IN ('Java'))", 'update')).toMatch(/^\[PIVOT_VALUE_DATA_TYPE_MISMATCH\] Invalid pivot value ''Java'': value data type STRING does not match pivot column data type STRUCT<course: STRING, y2012: INT>\./);
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
    // An array of numbers beside an array of strings widens only by promoting to STRING, which
    // findWiderTypeWithoutStringPromotion does not, at any depth.
    expect(errorOf('SELECT * FROM (SELECT array(y2012) AS a, array(s) AS b FROM events) UNPIVOT (v FOR k IN (a, b))')).toMatch(/^\[UNPIVOT_VALUE_DATA_TYPE_MISMATCH\]/);
    expect(errorOf('SELECT * FROM (SELECT array(y2012) AS a, array(y2013) AS b FROM events) UNPIVOT (v FOR k IN (a, b))')).toBe('');
    expect(errorOf('SELECT * FROM events UNPIVOT ((a, b, c) FOR year IN ((y2012, y2013), (y2012, y2013)))')).toMatch(
      /^\[UNPIVOT_VALUE_SIZE_MISMATCH\] All unpivot value columns must have the same size as there are value column names \(3\)\./);
    expect(errorOf('SELECT * FROM events UNPIVOT (v FOR year IN (y2012, nope))')).toMatch(/^\[UNRESOLVED_COLUMN.WITH_SUGGESTION\]/);
    expect(errorOf('SELECT * FROM events LATERAL VIEW explode(tags) t AS k, v UNPIVOT (x FOR year IN (y2012, y2013))')).toContain('[NOT_ALLOWED_IN_FROM.LATERAL_WITH_UNPIVOT] Not allowed in the FROM clause: LATERAL together with UNPIVOT.');
  });
});
