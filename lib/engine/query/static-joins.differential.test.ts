/**
 * Joins of static tables (PostgreSQL's join.sql over its own tables, as Spark's
 * postgreSQL/join.sql runs it: CROSS, INNER, NATURAL, USING, ON, LEFT, RIGHT and FULL joins,
 * multiway FULL joins with USING, joins of subqueries with constants), checked against DuckDB
 * over the same rows (each query's ORDER BY NULLS FIRST where it ties on NULLs: DuckDB's default
 * is NULLS LAST). DuckDB and Spark agree on these: a USING or NATURAL join's key is output
 * once, first (of a FULL join the coalesce of both sides', of a RIGHT join the right side's),
 * then the left side's other columns and the right side's.
 */
import { describe, expect, it } from 'vitest';
import { useDuckDB } from './testing/duckdb';
import { weirAnswer } from './testing/spark-golden-file';

const duck = useDuckDB();

const TABLES: { name: string; columns: [string, string, string][]; rows: string[] }[] = [
  {
    name: 'J1_TBL', columns: [['i', 'INT', 'INTEGER'], ['j', 'INT', 'INTEGER'], ['t', 'STRING', 'VARCHAR']],
    rows: ["(1, 4, 'one')", "(2, 3, 'two')", "(3, 2, 'three')", "(4, 1, 'four')", "(5, 0, 'five')", "(6, 6, 'six')", "(7, 7, 'seven')", "(8, 8, 'eight')", "(0, NULL, 'zero')", "(NULL, NULL, 'null')", "(NULL, 0, 'zero')"],
  },
  { name: 'J2_TBL', columns: [['i', 'INT', 'INTEGER'], ['k', 'INT', 'INTEGER']], rows: ['(1, -1)', '(2, 2)', '(3, -3)', '(2, 4)', '(5, -5)', '(5, -5)', '(0, NULL)', '(NULL, NULL)', '(NULL, 0)'] },
  { name: 't1', columns: [['name', 'STRING', 'VARCHAR'], ['n', 'INT', 'INTEGER']], rows: ["('bb', 11)"] },
  { name: 't2', columns: [['name', 'STRING', 'VARCHAR'], ['n', 'INT', 'INTEGER']], rows: ["('bb', 12)", "('cc', 22)", "('ee', 42)"] },
  { name: 't3', columns: [['name', 'STRING', 'VARCHAR'], ['n', 'INT', 'INTEGER']], rows: ["('bb', 13)", "('cc', 23)", "('dd', 33)"] },
  { name: 'x', columns: [['x1', 'INT', 'INTEGER'], ['x2', 'INT', 'INTEGER']], rows: ['(1, 11)', '(2, 22)', '(3, NULL)', '(4, 44)', '(5, NULL)'] },
  { name: 'y', columns: [['y1', 'INT', 'INTEGER'], ['y2', 'INT', 'INTEGER']], rows: ['(1, 111)', '(2, 222)', '(3, 333)', '(4, NULL)'] },
  { name: 'tt1', columns: [['tt1_id', 'INT', 'INTEGER'], ['joincol', 'INT', 'INTEGER']], rows: ['(1, 11)', '(2, NULL)'] },
  { name: 'tt2', columns: [['tt2_id', 'INT', 'INTEGER'], ['joincol', 'INT', 'INTEGER']], rows: ['(21, 11)', '(22, 11)'] },
];

const VIEWS = TABLES.map((t) => ({
  name: t.name,
  sql: `SELECT ${t.columns.map(([c, type], i) => `CAST(col${i + 1} AS ${type}) AS ${c}`).join(', ')} FROM VALUES ${t.rows.join(', ')}`,
}));

async function duckdb(sql: string): Promise<string> {
  const c = duck();
  for (const t of TABLES) {
    await c.run(`DROP TABLE IF EXISTS ${t.name}`);
    await c.run(`CREATE TABLE ${t.name} (${t.columns.map(([col, , type]) => `${col} ${type}`).join(', ')})`);
    await c.run(`INSERT INTO ${t.name} VALUES ${t.rows.join(', ')}`);
  }
  const reader = await c.runAndReadAll(sql);
  const text = (v: unknown) => (v === null ? 'NULL' : String(v));
  const lines = (reader.getRowsJson() as unknown[][]).map((r) => r.map(text).join('\t'));
  // Sorted unless the query orders its rows at its top level (an ORDER BY outside brackets), as the harness does.
  return (/\border\s+by\b[^)]*$/i.test(sql) ? lines : lines.sort()).join('\n');
}

const QUERIES = [
  "SELECT '' AS xxx, * FROM J1_TBL t1 (a, b, c), J2_TBL t2 (d, e)",
  "SELECT '' AS xxx, t1.i, k, t FROM J1_TBL t1 CROSS JOIN J2_TBL t2",
  "SELECT '' AS xxx, ii, tt, kk FROM (J1_TBL CROSS JOIN J2_TBL) AS tx (ii, jj, tt, ii2, kk)",
  "SELECT '' AS xxx, * FROM J1_TBL INNER JOIN J2_TBL USING (i)",
  "SELECT '' AS xxx, * FROM J1_TBL t1 (a, b, c) JOIN J2_TBL t2 (a, d) USING (a) ORDER BY a, d",
  "SELECT '' AS xxx, * FROM J1_TBL NATURAL JOIN J2_TBL",
  "SELECT '' AS xxx, * FROM J1_TBL t1 (a, b, c) NATURAL JOIN J2_TBL t2 (a, d)",
  "SELECT '' AS xxx, * FROM J1_TBL t1 (a, b, c) NATURAL JOIN J2_TBL t2 (d, a)",
  "SELECT '' AS xxx, * FROM J1_TBL JOIN J2_TBL ON (J1_TBL.i = J2_TBL.i)",
  "SELECT '' AS xxx, * FROM J1_TBL JOIN J2_TBL ON (J1_TBL.i = J2_TBL.k)",
  "SELECT '' AS xxx, * FROM J1_TBL JOIN J2_TBL ON (J1_TBL.i <= J2_TBL.k)",
  "SELECT '' AS xxx, * FROM J1_TBL LEFT OUTER JOIN J2_TBL USING (i) ORDER BY i NULLS FIRST, k NULLS FIRST, t NULLS FIRST",
  "SELECT '' AS xxx, * FROM J1_TBL RIGHT OUTER JOIN J2_TBL USING (i)",
  "SELECT '' AS xxx, * FROM J1_TBL FULL OUTER JOIN J2_TBL USING (i) ORDER BY i NULLS FIRST, k NULLS FIRST, t NULLS FIRST",
  "SELECT '' AS xxx, * FROM J1_TBL LEFT JOIN J2_TBL USING (i) WHERE (k = 1)",
  "SELECT '' AS xxx, * FROM J1_TBL LEFT JOIN J2_TBL USING (i) WHERE (i = 1)",
  'SELECT * FROM t1 FULL JOIN t2 USING (name) FULL JOIN t3 USING (name)',
  'SELECT * FROM (SELECT * FROM t2) as s2 INNER JOIN (SELECT * FROM t3) s3 USING (name)',
  'SELECT * FROM (SELECT * FROM t2) as s2 LEFT JOIN (SELECT * FROM t3) s3 USING (name)',
  'SELECT * FROM (SELECT * FROM t2) as s2 FULL JOIN (SELECT * FROM t3) s3 USING (name)',
  'SELECT * FROM (SELECT name, n as s2_n, 2 as s2_2 FROM t2) as s2 NATURAL INNER JOIN (SELECT name, n as s3_n, 3 as s3_2 FROM t3) s3',
  'SELECT * FROM (SELECT name, n as s2_n, 2 as s2_2 FROM t2) as s2 NATURAL LEFT JOIN (SELECT name, n as s3_n, 3 as s3_2 FROM t3) s3',
  'SELECT * FROM (SELECT name, n as s2_n, 2 as s2_2 FROM t2) as s2 NATURAL FULL JOIN (SELECT name, n as s3_n, 3 as s3_2 FROM t3) s3',
  'SELECT * FROM (SELECT name, n as s1_n, 1 as s1_1 FROM t1) as s1 NATURAL INNER JOIN (SELECT name, n as s2_n, 2 as s2_2 FROM t2) as s2 NATURAL INNER JOIN (SELECT name, n as s3_n, 3 as s3_2 FROM t3) s3',
  'SELECT * FROM (SELECT name, n as s1_n, 1 as s1_1 FROM t1) as s1 NATURAL FULL JOIN (SELECT name, n as s2_n, 2 as s2_2 FROM t2) as s2 NATURAL FULL JOIN (SELECT name, n as s3_n, 3 as s3_2 FROM t3) s3',
  'SELECT * FROM (SELECT name, n as s1_n FROM t1) as s1 NATURAL FULL JOIN (SELECT * FROM (SELECT name, n as s2_n FROM t2) as s2 NATURAL FULL JOIN (SELECT name, n as s3_n FROM t3) as s3) ss2',
  'SELECT * FROM (SELECT name, n as s1_n FROM t1) as s1 NATURAL FULL JOIN (SELECT * FROM (SELECT name, n as s2_n, 2 as s2_2 FROM t2) as s2 NATURAL FULL JOIN (SELECT name, n as s3_n FROM t3) as s3) ss2',
  'SELECT * FROM (SELECT name, n as s1_n FROM t1) as s1 FULL JOIN (SELECT name, 2 as s2_n FROM t2) as s2 ON (s1_n = s2_n)',
  'select * from x left join y on (x1 = y1 and x2 is not null)',
  'select * from x left join y on (x1 = y1 and y2 is not null)',
  'select * from (x left join y on (x1 = y1)) left join x xx(xx1,xx2) on (x1 = xx1)',
  'select * from (x left join y on (x1 = y1)) left join x xx(xx1,xx2) on (x1 = xx1 and x2 is not null)',
  'select * from (x left join y on (x1 = y1)) left join x xx(xx1,xx2) on (x1 = xx1 and y2 is not null)',
  'select * from (x left join y on (x1 = y1)) left join x xx(xx1,xx2) on (x1 = xx1 and xx2 is not null)',
  'select * from (x left join y on (x1 = y1)) left join x xx(xx1,xx2) on (x1 = xx1) where (x2 is not null)',
  'select * from (x left join y on (x1 = y1)) left join x xx(xx1,xx2) on (x1 = xx1) where (y2 is not null)',
  'select * from (x left join y on (x1 = y1)) left join x xx(xx1,xx2) on (x1 = xx1) where (xx2 is not null)',
  'select * from j1_tbl full join (select * from j2_tbl order by j2_tbl.i desc, j2_tbl.k asc) j2_tbl on j1_tbl.i = j2_tbl.i and j1_tbl.i = j2_tbl.k',
  'select tt1.*, tt2.* from tt1 left join tt2 on tt1.joincol = tt2.joincol',
  'select tt1.*, tt2.* from tt2 right join tt1 on tt1.joincol = tt2.joincol',
];

describe('joins of static tables agree with DuckDB', () => {
  for (const sql of QUERIES) {
    it(sql, async () => {
      expect((await weirAnswer(sql, VIEWS)).output).toBe(await duckdb(sql));
    });
  }
});
