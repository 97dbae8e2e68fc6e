/**
 * A subquery without FROM that reads the outer row (`EXISTS (SELECT t1.c1)`, `c2 IN (SELECT
 * t1.c2 WHERE t1.c1 > 0)`): Spark's reads its one-row relation, so EXISTS is true (or its WHERE),
 * IN compares with the outer row's value. Checked against DuckDB, which answers so too, over
 * static data, and through the stream's operators.
 */
import { describe, expect, it } from 'vitest';
import { eventsQuery } from './testing/events-query';
import { useDuckDB } from './testing/duckdb';
import { weirAnswer } from './testing/spark-golden-file';

const T1 = [[0, 1], [0, 2], [1, 3], [2, null]];
const values = (rows: (number | null)[][]) => rows.map((r) => `(${r.map((v) => v ?? 'NULL').join(', ')})`).join(', ');
const VIEWS = [{ name: 't1', sql: `SELECT * FROM VALUES ${values(T1)} AS t1(c1, c2)` }];

describe('a subquery without FROM over the outer row (Spark\'s OneRowRelation)', () => {
  const duck = useDuckDB();
  const same = async (sql: string) => {
    await duck().run(`CREATE TABLE IF NOT EXISTS t1 AS SELECT * FROM (VALUES ${values(T1)}) AS t(c1, c2)`);
    const rows = (await duck().runAndReadAll(sql)).getRows().map((r) => r.map((v) => (v === null ? 'NULL' : String(v))).join('\t')).sort().join('\n');
    const weir = (await weirAnswer(sql, VIEWS)).output;
    expect(weir).toBe(rows);
    return weir;
  };

  it('[NOT] EXISTS (SELECT <outer column>): its one row, whatever the value', async () => {
    expect(await same('SELECT * FROM t1 WHERE EXISTS (SELECT t1.c2)')).toBe('0\t1\n0\t2\n1\t3\n2\tNULL');
    expect(await same('SELECT * FROM t1 WHERE NOT EXISTS (SELECT c2, c1)')).toBe('');
    await same('SELECT c1, c2, EXISTS (SELECT t1.c2) AS e FROM t1');
    await same('SELECT c1 FROM t1 GROUP BY c1 HAVING EXISTS (SELECT c1)');
    // Grouped, one group of the one row.
    await same('SELECT * FROM t1 WHERE EXISTS (SELECT c1, count(*) GROUP BY c1)');
  });

  it('EXISTS with a WHERE of the outer row, and IN', async () => {
    expect(await same('SELECT * FROM t1 WHERE EXISTS (SELECT 1 WHERE t1.c2 > 1)')).toBe('0\t2\n1\t3');
    await same('SELECT * FROM t1 WHERE NOT EXISTS (SELECT t1.c1 WHERE t1.c2 > 1)');
    expect(await same('SELECT * FROM t1 WHERE c2 IN (SELECT t1.c1 + 1)')).toBe('0\t1');
    await same('SELECT * FROM t1 WHERE c2 NOT IN (SELECT t1.c1 + 1)');
    await same('SELECT c1, c2 IN (SELECT t1.c2 WHERE t1.c1 > 0) AS i FROM t1');
  });
});

describe('a subquery without FROM over a stream\'s row', () => {
  const { run } = eventsQuery([{ name: 'id', type: 'long' as const }, { name: 'k', type: 'long' as const }]);
  const ROWS = [{ id: 1, k: 2 }, { id: 2, k: null }];

  it('EXISTS (SELECT e.k) keeps each row; its WHERE decides', async () => {
    expect(await run('SELECT id FROM events e WHERE EXISTS (SELECT e.k)', ROWS)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await run('SELECT id FROM events e WHERE NOT EXISTS (SELECT e.k)', ROWS)).toEqual([]);
    expect(await run('SELECT id, EXISTS (SELECT 1 WHERE e.k > 1) AS x FROM events e', ROWS)).toEqual([{ id: 1, x: true }, { id: 2, x: false }]);
  });
});
