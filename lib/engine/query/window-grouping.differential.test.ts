/**
 * Window functions over an aggregation grouped by a position (`SELECT k, sum(v), rank() OVER
 * (ORDER BY sum(v)) FROM t GROUP BY 1`, inside ROLLUP and CUBE too) or a select alias
 * (`SELECT k AS g … GROUP BY g`), checked against DuckDB over the same rows: the position is the
 * select item there (Spark's groupByOrdinal), the alias that item (groupByAliases), as DuckDB
 * reads them. And the GROUP BY that Spark refuses: a window function grouped by, written or by
 * its position (UNSUPPORTED_EXPR_FOR_OPERATOR, postgreSQL/window_part3's `SELECT rank() OVER
 * (ORDER BY 1), count(*) FROM empsalary GROUP BY 1`), which Weir answered as grouped by the
 * literal 1.
 */
import { describe, expect, it } from 'vitest';
import { useDuckDB } from './testing/duckdb';
import { weirAnswer } from './testing/spark-golden-file';

const duck = useDuckDB();

/** 40 rows, seeded: a few keys (and NULL), values with NULLs. */
function rows(): [number | null, number | null][] {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: 40 }, (_, i) => [i % 7 === 0 ? null : i % 5, next() < 0.2 ? null : Math.floor(next() * 100) - 30]);
}
const values = rows().map(([k, v]) => `(${k ?? 'NULL'}, ${v ?? 'NULL'})`).join(', ');
const VIEW = { name: 't', sql: `SELECT CAST(k AS INT) AS k, CAST(v AS INT) AS v FROM VALUES ${values} AS t(k, v)` };

async function duckdb(sql: string): Promise<string> {
  const c = duck();
  await c.run('DROP TABLE IF EXISTS t');
  await c.run(`CREATE TABLE t AS SELECT * FROM (VALUES ${values}) AS t(k, v)`);
  const reader = await c.runAndReadAll(sql);
  const text = (v: unknown) => (v === null ? 'NULL' : String(v));
  return (reader.getRowsJson() as unknown[][]).map((r) => r.map(text).join('\t')).sort().join('\n');
}

describe('window functions over an aggregation grouped by a position', () => {
  for (const sql of [
    'SELECT k, sum(v), rank() OVER (ORDER BY sum(v) NULLS FIRST) FROM t GROUP BY 1',
    'SELECT k, count(*), row_number() OVER (ORDER BY k NULLS FIRST) FROM t GROUP BY 1',
    'SELECT k % 3, max(v), dense_rank() OVER (ORDER BY max(v) DESC NULLS LAST) FROM t GROUP BY 1',
    'SELECT k, v % 2, count(v), sum(count(v)) OVER (PARTITION BY k) FROM t GROUP BY 1, 2',
    'SELECT k, v % 2, count(v), sum(count(v)) OVER (PARTITION BY k) FROM t GROUP BY v % 2, 1',
    'SELECT k, sum(v), rank() OVER (ORDER BY sum(v) NULLS FIRST) FROM t GROUP BY ROLLUP(1)',
    'SELECT k, v % 2, count(*), rank() OVER (PARTITION BY k ORDER BY count(*)) FROM t GROUP BY CUBE(1, 2)',
  ]) {
    it(sql, async () => {
      expect((await weirAnswer(sql, [VIEW])).output).toBe(await duckdb(sql));
    });
  }
});

describe('window functions over an aggregation grouped by a select alias', () => {
  for (const sql of [
    'SELECT k AS g, sum(v), rank() OVER (ORDER BY sum(v) NULLS FIRST) FROM t GROUP BY g',
    'SELECT k % 3 AS g, count(*), row_number() OVER (ORDER BY k % 3 DESC NULLS LAST) FROM t GROUP BY g',
    'SELECT k AS g, v % 2 AS h, count(v), sum(count(v)) OVER (PARTITION BY k) FROM t GROUP BY g, h',
  ]) {
    it(sql, async () => {
      expect((await weirAnswer(sql, [VIEW])).output).toBe(await duckdb(sql));
    });
  }
});

describe("the GROUP BY Spark refuses, with Spark's error class", () => {
  for (const [sql, errorClass] of [
    ['SELECT rank() OVER (ORDER BY 1), count(*) FROM t GROUP BY 1', 'UNSUPPORTED_EXPR_FOR_OPERATOR'],
    ['SELECT count(*) FROM t GROUP BY rank() OVER (ORDER BY v)', 'UNSUPPORTED_EXPR_FOR_OPERATOR'],
    ['SELECT rank() OVER (ORDER BY v), count(*) FROM t GROUP BY rank() OVER (ORDER BY v)', 'UNSUPPORTED_EXPR_FOR_OPERATOR'],
    // Spark's groupByOrdinal looks inside the window expression for an aggregate.
    ['SELECT count(*) OVER (), count(*) FROM t GROUP BY 1', 'GROUP_BY_POS_AGGREGATE'],
    ['SELECT k, sum(v), rank() OVER (ORDER BY sum(v)) FROM t GROUP BY 3', 'GROUP_BY_POS_AGGREGATE'],
    ['SELECT k, sum(v), rank() OVER (ORDER BY sum(v)) FROM t GROUP BY 4', 'GROUP_BY_POS_OUT_OF_RANGE'],
    // GROUP BY a name of an input column groups by the column, not the alias: k is not grouped.
    ['SELECT k AS v, sum(v), rank() OVER (ORDER BY sum(v)) FROM t GROUP BY v', 'MISSING_AGGREGATION'],
  ]) {
    it(sql, async () => {
      expect((await weirAnswer(sql, [VIEW])).output).toBe(`error ${errorClass}`);
    });
  }
});

describe('OVER applied to what is no window or aggregate function', () => {
  it('is UNRESOLVED_ROUTINE for a name Spark has no function of (range is table-valued), as Spark resolves the call first', async () => {
    expect((await weirAnswer('SELECT range(1, 100) OVER () FROM t', [VIEW])).output).toBe('error UNRESOLVED_ROUTINE');
    expect((await weirAnswer('SELECT nosuchfn(v) OVER () FROM t', [VIEW])).output).toBe('error UNRESOLVED_ROUTINE');
  });
  it('is UNSUPPORTED_EXPR_FOR_WINDOW for a scalar function', async () => {
    expect((await weirAnswer('SELECT upper(k) OVER () FROM t', [VIEW])).output).toBe('error UNSUPPORTED_EXPR_FOR_WINDOW');
  });
});
