/**
 * GROUP BY CUBE, ROLLUP and GROUPING SETS over a stream: Spark 3.5 analyzes them into an
 * Aggregate over an Expand (ResolveGroupingAnalytics), which UnsupportedOperationChecker lets
 * through, and its streaming aggregation keys each grouping set's groups by spark_grouping_id.
 * The expected answers are Spark's own (sql-tests group-analytics.sql.out), here as the final
 * Complete-mode result of the same rows arriving over two batches and a restart.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { OutputMode, Row } from '../types';
import type { StreamingRelation } from './logical-plan';
import { compileStreamingQuery } from './streaming-query';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const int = { type: 'long' as const, integral: 32 as const };
const testData: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'testData', schema: [{ name: 'a', ...int }, { name: 'b', ...int }] };
const TEST_DATA = [[1, 1], [1, 2], [2, 1], [2, 2], [3, 1], [3, 2]].map(([a, b]) => ({ a, b }));
const courseSales: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'courseSales', schema: [{ name: 'course', type: 'string' }, { name: 'year', ...int }, { name: 'earnings', ...int }] };
const COURSE_SALES = ([['dotNET', 2012, 10000], ['Java', 2012, 20000], ['dotNET', 2012, 5000], ['dotNET', 2013, 48000], ['Java', 2013, 30000]] as const).map(([course, year, earnings]) => ({ course, year, earnings }));

/** Spark's printed rows (tab-separated, NULL) as rows of `columns`. */
const spark = (columns: string[], text: string): Row[] =>
  text.trim().split('\n').map((line) => Object.fromEntries(line.trim().split('\t').map((v, i) => [columns[i], v === 'NULL' ? null : /^-?\d+$/.test(v) ? Number(v) : v])));
const sorted = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).sort();

/** The Complete-mode answer after the rows arrive in two batches, the query restarted between them. */
async function complete(sql: string, rel: StreamingRelation, rows: Row[]): Promise<Row[]> {
  const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'complete');
  await q.runBatch(rows.slice(0, 2));
  q.restart();
  return (await q.runBatch(rows.slice(2))).output;
}

describe("GROUP BY CUBE / ROLLUP / GROUPING SETS on a stream (Spark's Expand below the aggregation)", () => {
  it.each([
    ['SELECT a + b, b, SUM(a - b) FROM testData GROUP BY a + b, b WITH CUBE', ['(a + b)', 'b', 'sum((a - b))'], `
2	1	0
2	NULL	0
3	1	1
3	2	-1
3	NULL	0
4	1	2
4	2	0
4	NULL	2
5	2	1
5	NULL	1
NULL	1	3
NULL	2	0
NULL	NULL	3`],
    ['SELECT a, b, SUM(b) FROM testData GROUP BY a, b WITH ROLLUP', ['a', 'b', 'sum(b)'], `
1	1	1
1	2	2
1	NULL	3
2	1	1
2	2	2
2	NULL	3
3	1	1
3	2	2
3	NULL	3
NULL	NULL	9`],
    // An alias or a position inside ROLLUP is the select item, as in a plain GROUP BY.
    ['SELECT a + b AS k, b, SUM(a - b) FROM testData GROUP BY ROLLUP(k, 2)', ['k', 'b', 'sum((a - b))'], `
2	1	0
2	NULL	0
3	1	1
3	2	-1
3	NULL	0
4	1	2
4	2	0
4	NULL	2
5	2	1
5	NULL	1
NULL	NULL	3`],
    ['SELECT a, b, count(1) FROM testData GROUP BY a, GROUPING SETS((a, b), (a), ())', ['a', 'b', 'count(1)'], `
1	1	1
1	2	1
1	NULL	2
1	NULL	2
2	1	1
2	2	1
2	NULL	2
2	NULL	2
3	1	1
3	2	1
3	NULL	2
3	NULL	2`],
  ] as const)('%s', async (sql, columns, expected) => {
    expect(sorted(await complete(sql, testData, TEST_DATA))).toEqual(sorted(spark([...columns], expected)));
  });

  it.each([
    ['SELECT course, year, SUM(earnings) FROM courseSales GROUP BY ROLLUP(course, year)', ['course', 'year', 'sum(earnings)'], `
NULL	NULL	113000
Java	NULL	50000
Java	2012	20000
Java	2013	30000
dotNET	NULL	63000
dotNET	2012	15000
dotNET	2013	48000`],
    ['SELECT course, year, GROUPING(course), GROUPING(year), GROUPING_ID(course, year) FROM courseSales GROUP BY CUBE(course, year)', ['course', 'year', 'grouping(course)', 'grouping(year)', 'grouping_id(course, year)'], `
Java	2012	0	0	0
Java	2013	0	0	0
Java	NULL	0	1	1
NULL	2012	1	0	2
NULL	2013	1	0	2
NULL	NULL	1	1	3
dotNET	2012	0	0	0
dotNET	2013	0	0	0
dotNET	NULL	0	1	1`],
    ['SELECT course, year, SUM(earnings) FROM courseSales GROUP BY course, year GROUPING SETS(course, year)', ['course', 'year', 'sum(earnings)'], `
Java	NULL	50000
NULL	2012	35000
NULL	2013	78000
dotNET	NULL	63000`],
    ['SELECT course, year, SUM(earnings) FROM courseSales GROUP BY course, CUBE(course, year)', ['course', 'year', 'sum(earnings)'], `
Java	NULL	50000
Java	NULL	50000
Java	2012	20000
Java	2012	20000
Java	2013	30000
Java	2013	30000
dotNET	NULL	63000
dotNET	NULL	63000
dotNET	2012	15000
dotNET	2012	15000
dotNET	2013	48000
dotNET	2013	48000`],
    ['SELECT course, year FROM courseSales GROUP BY CUBE(course, year) HAVING GROUPING(year) = 1 AND GROUPING_ID(course, year) > 0', ['course', 'year'], `
NULL	NULL
Java	NULL
dotNET	NULL`],
    ['SELECT course, SUM(earnings) AS sum, GROUPING_ID(course, earnings) FROM courseSales GROUP BY course, earnings GROUPING SETS((), (course), (course, earnings))', ['course', 'sum', 'grouping_id(course, earnings)'], `
NULL	113000	3
Java	20000	0
Java	30000	0
Java	50000	1
dotNET	5000	0
dotNET	10000	0
dotNET	48000	0
dotNET	63000	1`],
  ] as const)('%s', async (sql, columns, expected) => {
    expect(sorted(await complete(sql, courseSales, COURSE_SALES))).toEqual(sorted(spark([...columns], expected)));
  });

  // ORDER BY over the aggregation may sort on what the select list leaves out or never names:
  // grouping(k), grouping_id() (Spark's ResolveMissingReferences on the Sort). Sorting a stream
  // needs Complete mode, so the order is the Complete answer's, compared as Spark printed it.
  it.each([
    ['SELECT course, year, GROUPING(course), GROUPING(year) FROM courseSales GROUP BY CUBE(course, year) ORDER BY GROUPING(course), GROUPING(year), course, year', ['course', 'year', 'grouping(course)', 'grouping(year)'], `
Java	2012	0	0
Java	2013	0	0
dotNET	2012	0	0
dotNET	2013	0	0
Java	NULL	0	1
dotNET	NULL	0	1
NULL	2012	1	0
NULL	2013	1	0
NULL	NULL	1	1`],
    ['SELECT course, year, GROUPING_ID(course, year) FROM courseSales GROUP BY CUBE(course, year) ORDER BY GROUPING(course), GROUPING(year), course, year', ['course', 'year', 'grouping_id(course, year)'], `
Java	2012	0
Java	2013	0
dotNET	2012	0
dotNET	2013	0
Java	NULL	1
dotNET	NULL	1
NULL	2012	2
NULL	2013	2
NULL	NULL	3`],
    ['SELECT course, year FROM courseSales GROUP BY CUBE(course, year) HAVING GROUPING(year) = 1 AND GROUPING_ID(course, year) > 0 ORDER BY course, year', ['course', 'year'], `
NULL	NULL
Java	NULL
dotNET	NULL`],
    ['SELECT course, SUM(earnings) AS sum FROM courseSales GROUP BY course, earnings GROUPING SETS((), (course), (course, earnings)) ORDER BY course, sum', ['course', 'sum'], `
NULL	113000
Java	20000
Java	30000
Java	50000
dotNET	5000
dotNET	10000
dotNET	48000
dotNET	63000`],
    // Weir's own: the hidden sort columns read aggregates and the select's aliases, and stay hidden.
    ['SELECT course, year FROM courseSales GROUP BY ROLLUP(course, year) ORDER BY GROUPING_ID(course, year) DESC, SUM(earnings) DESC, year', ['course', 'year'], `
NULL	NULL
dotNET	NULL
Java	NULL
dotNET	2013
Java	2013
Java	2012
dotNET	2012`],
  ] as const)('%s (in order)', async (sql, columns, expected) => {
    expect(await complete(sql, courseSales, COURSE_SALES)).toEqual(spark([...columns], expected));
  });

  it("types grouping() a TINYINT and grouping_id() a BIGINT, as Spark's", () => {
    const q = compileStreamingQuery('SELECT course, GROUPING(course) AS g, GROUPING_ID() AS i, SUM(earnings) FROM courseSales GROUP BY ROLLUP(course)', courseSales, { outputMode: 'update' });
    expect(q.outputSchema.map((f) => [f.name, f.type, f.integral])).toEqual([['course', 'string', undefined], ['g', 'long', 8], ['i', 'long', undefined], ['sum(earnings)', 'long', undefined]]);
    expect(q.explain).toMatch(/Expand \[course AS __key0, spark_grouping_id\], grouping sets \[\(course\), \(\)\]/);
    // The select list and the aggregation read as the grouping expressions, not the Expand's columns.
    expect(q.explain).toMatch(/Project \[course, .*\]/);
    expect(q.explain).toContain('[stateful: one row per group of (course, spark_grouping_id);');
  });

  it("reads Hive's grouping__id as grouping_id(), named grouping__id, in the select list, HAVING and ORDER BY (sql-tests grouping_set.sql.out)", async () => {
    const sql = 'SELECT course, year, grouping__id, SUM(earnings) FROM courseSales GROUP BY GROUPING SETS ((course), (year)) HAVING GROUPING__ID > 1 ORDER BY grouping__id, year';
    expect(compileStreamingQuery(sql, courseSales, { outputMode: 'complete' }).outputSchema.map((f) => [f.name, f.type])).toEqual([['course', 'string'], ['year', 'long'], ['grouping__id', 'long'], ['sum(earnings)', 'long']]);
    expect(await complete(sql, courseSales, COURSE_SALES)).toEqual(spark(['course', 'year', 'grouping__id', 'sum(earnings)'], `
NULL	2012	2	35000
NULL	2013	2	78000`));
    // An input column of the name is that column, as Spark resolves the child's attributes first.
    const own: StreamingRelation = { ...courseSales, schema: [...courseSales.schema, { name: 'grouping__id', type: 'string' }] };
    expect(compileStreamingQuery('SELECT grouping__id, count(*) FROM courseSales GROUP BY grouping__id', own, { outputMode: 'complete' }).outputSchema[0]).toMatchObject({ name: 'grouping__id', type: 'string' });
  });

  it("tells grouping expressions apart as Spark's semanticEquals does: b + a is a + b (Canonicalize)", async () => {
    // The set (b + a) is the set (a + b) again, so each of its groups comes twice (sql-tests grouping_set.sql.out).
    expect(await complete('SELECT a + b, b, sum(a) FROM testData GROUP BY GROUPING SETS ((a + b), (b + a), (b)) ORDER BY 1, 2', testData, TEST_DATA)).toEqual(spark(['(a + b)', 'b', 'sum(a)'], `
NULL	1	6
NULL	2	6
2	NULL	1
2	NULL	1
3	NULL	3
3	NULL	3
4	NULL	5
4	NULL	5
5	NULL	3
5	NULL	3`));
    // A select item reads the grouping expression it is up to the order of + and AND's operands.
    expect(await complete('SELECT b + a AS s, (b > 1 AND a > 1) AS both, count(*) AS n FROM testData GROUP BY a + b, a > 1 AND b > 1 ORDER BY s, both', testData, TEST_DATA)).toEqual([
      { s: 2, both: false, n: 1 }, { s: 3, both: false, n: 2 }, { s: 4, both: false, n: 1 }, { s: 4, both: true, n: 1 }, { s: 5, both: true, n: 1 },
    ]);
  });

  it('refuses grouping() and grouping_id() as Spark does', () => {
    const error = (sql: string) => {
      try {
        compileStreamingQuery(sql, courseSales, { outputMode: 'update' });
      } catch (e) {
        return e as { errorClass?: string; message: string };
      }
      throw new Error(`${sql} compiled`);
    };
    expect(error('SELECT course, year, GROUPING(course) FROM courseSales GROUP BY course, year')).toMatchObject({ errorClass: 'UNSUPPORTED_GROUPING_EXPRESSION', message: expect.stringContaining('grouping()/grouping_id() can only be used with GroupingSets/Cube/Rollup') });
    expect(error('SELECT course FROM courseSales GROUP BY course, year HAVING GROUPING_ID(course) > 0')).toMatchObject({ errorClass: 'UNSUPPORTED_GROUPING_EXPRESSION' });
    expect(error('SELECT course, year FROM courseSales GROUP BY course, year ORDER BY GROUPING(course)')).toMatchObject({ errorClass: 'UNSUPPORTED_GROUPING_EXPRESSION' });
    expect(error('SELECT course, year FROM courseSales GROUP BY course, year ORDER BY GROUPING_ID(course)')).toMatchObject({ errorClass: 'UNSUPPORTED_GROUPING_EXPRESSION' });
    expect(error('SELECT course, grouping__id FROM courseSales GROUP BY course')).toMatchObject({ errorClass: 'UNSUPPORTED_GROUPING_EXPRESSION' });
    expect(error('SELECT course, GROUPING_ID(year) FROM courseSales GROUP BY CUBE(course, year)')).toMatchObject({ errorClass: 'GROUPING_ID_COLUMN_MISMATCH', message: expect.stringContaining('Columns of grouping_id (year) does not match grouping columns (course,year)') });
    expect(error('SELECT course, GROUPING(earnings) FROM courseSales GROUP BY CUBE(course, year)')).toMatchObject({ errorClass: 'GROUPING_COLUMN_MISMATCH' });
    const columns = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
    const wide: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'w', schema: columns(65).map((name) => ({ name, type: 'long' })) };
    const refused = (sql: string) => {
      try {
        compileStreamingQuery(sql, wide, { outputMode: 'update' });
      } catch (e) {
        return e as { errorClass?: string; message: string };
      }
      throw new Error(`${sql} compiled`);
    };
    expect(refused(`SELECT count(*) FROM w GROUP BY GROUPING SETS((${columns(65).join(', ')}))`)).toMatchObject({ errorClass: 'GROUPING_SIZE_LIMIT_EXCEEDED', message: expect.stringContaining('Grouping sets size cannot be greater than 64.') });
    // Weir's own bound on the sets (every row is copied once per set): a CUBE of 11 columns is 2,048.
    expect(refused(`SELECT count(*) FROM w GROUP BY CUBE(${columns(11).join(', ')})`).message).toMatch(/has 2048 grouping sets; Weir takes at most 1024/);
    expect(refused('SELECT c0, count(*) FROM w GROUP BY ROLLUP(c0, ())')).toMatchObject({ errorClass: '_LEGACY_ERROR_TEMP_0051', message: expect.stringContaining('Empty set in ROLLUP grouping sets is not supported.') });
    // A grouped column stays a key: a column in no grouping expression is refused as ever.
    expect(error('SELECT course, earnings FROM courseSales GROUP BY ROLLUP(course, year)').message).toMatch(/expression 'earnings' in the select list is neither present in the group by/);
  });

  describe('output modes: Spark requires a watermarked key among the grouping columns in Append', () => {
    const MIN = 60_000;
    const events: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema: [{ name: 'r', type: 'string' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelayMs: 0 };
    const runner = (sql: string, mode: OutputMode) => new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, events, mode);

    it("Append: ROLLUP(window, r) emits a closed window's sets; the grand total's key has no window, so it is never emitted (Spark keeps it in state)", async () => {
      const q = runner("SELECT window.start AS start, r, count(*) AS n, grouping(r) AS g FROM events GROUP BY ROLLUP(window(ts, '10 minutes'), r)", 'append');
      expect((await q.runBatch([{ r: 'eu', ts: 0 }, { r: 'eu', ts: MIN }, { r: 'us', ts: 2 * MIN }])).output).toEqual([]);
      await q.runBatch([{ r: 'eu', ts: 60 * MIN }]);
      const closed = await q.runBatch([]);
      expect(sorted(closed.output)).toEqual(sorted([{ start: 0, r: 'eu', n: 2, g: 0 }, { start: 0, r: 'us', n: 1, g: 0 }, { start: 0, r: null, n: 3, g: 1 }]));
      // Left in state: the open window's two sets, and the grand total (NULL window, never evicted).
      expect(closed.progress[0].numRowsTotal).toBe(3);
    });

    it('Append without a watermarked grouping column is refused with Spark\'s message', () => {
      expect(() => compileStreamingQuery('SELECT r, count(*) FROM events GROUP BY CUBE(r)', { ...events, eventTime: undefined }, { outputMode: 'append' }))
        .toThrow('Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark');
    });

    it('Update: each batch emits the groups of every set it changed', async () => {
      const q = runner('SELECT r, count(*) AS n FROM events GROUP BY ROLLUP(r)', 'update');
      expect(sorted((await q.runBatch([{ r: 'eu', ts: 0 }, { r: 'us', ts: 0 }])).output)).toEqual(sorted([{ r: 'eu', n: 1 }, { r: 'us', n: 1 }, { r: null, n: 2 }]));
      expect(sorted((await q.runBatch([{ r: 'eu', ts: 0 }])).output)).toEqual(sorted([{ r: 'eu', n: 2 }, { r: null, n: 3 }]));
    });
  });
});
