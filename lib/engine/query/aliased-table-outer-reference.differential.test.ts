/**
 * A table aliased inside a subquery (`FROM t1 t2`) answers to its alias only, as Spark's
 * SubqueryAlias qualifies its columns: there `t1.c1` is the column of the query around the
 * subquery that reads t1 (an outer reference), not the aliased table's own. Checked against
 * DuckDB, which resolves the name so too, over static data (the golden harness's views) in each
 * kind of subquery: LATERAL, [NOT] EXISTS, [NOT] IN and a correlated scalar subquery.
 */
import { describe, expect, it } from 'vitest';
import { useDuckDB } from './testing/duckdb';
import { weirAnswer } from './testing/spark-golden-file';

const T1 = [[0, 1], [0, 2], [1, 3], [2, null]];
const T2 = [[0, 2], [0, 3]];
const values = (rows: (number | null)[][]) => rows.map((r) => `(${r.map((v) => v ?? 'NULL').join(', ')})`).join(', ');
const VIEWS = [
  { name: 't1', sql: `SELECT * FROM VALUES ${values(T1)} AS t1(c1, c2)` },
  { name: 't2', sql: `SELECT * FROM VALUES ${values(T2)} AS t2(c1, c2)` },
];

describe('a table\'s name an alias hides, read in a subquery (Spark\'s SubqueryAlias)', () => {
  const duck = useDuckDB();
  const same = async (sql: string) => {
    await duck().run(`CREATE TABLE IF NOT EXISTS t1 AS SELECT * FROM (VALUES ${values(T1)}) AS t(c1, c2)`);
    await duck().run(`CREATE TABLE IF NOT EXISTS t2 AS SELECT * FROM (VALUES ${values(T2)}) AS t(c1, c2)`);
    const rows = (await duck().runAndReadAll(sql)).getRows().map((r) => r.map((v) => (v === null ? 'NULL' : String(v))).join('\t')).sort().join('\n');
    const weir = (await weirAnswer(sql, VIEWS)).output;
    expect(weir).toBe(rows);
    return weir;
  };

  it('LATERAL (… FROM t1 t2 WHERE t1.c1 = t2.c1): t1.c1 is the outer row\'s', async () => {
    expect(await same('SELECT * FROM t1, LATERAL (SELECT COUNT(*) cnt FROM t1 t2 WHERE t1.c1 = t2.c1)')).toBe('0\t1\t2\n0\t2\t2\n1\t3\t1\n2\tNULL\t1');
    await same('SELECT t1.c1, s.c2 FROM t1 JOIN LATERAL (SELECT t2.c2 FROM t1 t2 WHERE t2.c2 > t1.c2) s ON true');
  });

  it('a correlated scalar subquery in the select list and in WHERE', async () => {
    expect(await same('SELECT c1, c2, (SELECT count(*) FROM t1 t2 WHERE t1.c1 = t2.c1 AND t2.c2 > t1.c2) AS n FROM t1')).toBe('0\t1\t1\n0\t2\t0\n1\t3\t0\n2\tNULL\t0');
    await same('SELECT c1, c2 FROM t1 WHERE c2 < (SELECT max(t2.c2) FROM t1 t2 WHERE t1.c1 = t2.c1)');
  });

  it('[NOT] EXISTS and [NOT] IN', async () => {
    await same('SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t1 t2 WHERE t1.c1 = t2.c1 AND t2.c2 > t1.c2)');
    await same('SELECT * FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t1 t2 WHERE t1.c1 = t2.c1 AND t2.c2 > t1.c2)');
    expect(await same('SELECT * FROM t1 WHERE c2 IN (SELECT t2.c2 - 1 FROM t1 t2 WHERE t1.c1 = t2.c1)')).toBe('0\t1');
    await same('SELECT * FROM t1 WHERE c2 NOT IN (SELECT t2.c2 - 1 FROM t1 t2 WHERE t1.c1 = t2.c1)');
    // In the select list: the counts that decide it.
    await same('SELECT c1, c2, EXISTS (SELECT 1 FROM t1 t2 WHERE t1.c1 = t2.c1 AND t2.c2 > t1.c2) AS e FROM t1');
  });

  it('the table\'s name, where no query around the subquery reads one by it, is unresolved', async () => {
    expect((await weirAnswer('SELECT * FROM t2 WHERE EXISTS (SELECT 1 FROM t1 x WHERE t1.c2 = t2.c2)', VIEWS)).output).toBe('error UNRESOLVED_COLUMN.WITH_SUGGESTION');
  });
});
