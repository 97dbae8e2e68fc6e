/**
 * A predicate subquery in GROUP BY (Spark's RewritePredicateSubquery makes it an existence join,
 * and the Aggregate groups by the join's column): a correlated EXISTS, grouped by as written or
 * inside an expression that a select item repeats, and an IN over the table the query reads
 * (`GROUP BY a, b IN (SELECT a FROM testData)`, three-valued: NULL is a group of its own),
 * checked against DuckDB over the same rows (the two agree on EXISTS and on IN's NULLs); and a
 * correlated EXISTS over GROUP BY … HAVING, whose aggregation is per outer row (Spark's
 * DecorrelateInnerQuery groups by the correlated columns too).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../types';
import { propertyRuns } from '@/lib/testing/property-runs';
import { useDuckDB } from './testing/duckdb';
import { selectStatic } from './testing/spark-printed';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import type { StreamingRelation } from './logical-plan';

const duckConn = useDuckDB();

const int = (v: number | null) => (v === null ? 'CAST(NULL AS INT)' : `CAST(${v} AS INT)`);
/** A table of these rows (of one or two INT columns), empty where there are none. */
const table = (columns: string[], rows: (number | null)[][]) =>
  rows.length ? `SELECT * FROM VALUES ${rows.map((r) => `(${r.map(int).join(', ')})`).join(', ')} AS t(${columns.join(', ')})`
    : `SELECT * FROM VALUES (${columns.map(() => int(null)).join(', ')}) AS t(${columns.join(', ')}) WHERE false`;
const duckTable = (columns: string[], rows: (number | null)[][]) =>
  `SELECT * FROM (VALUES ${(rows.length ? rows : [columns.map(() => null)]).map((r) => `(${r.map((v) => (v === null ? 'NULL::INTEGER' : `${v}::INTEGER`)).join(', ')})`).join(', ')}) t(${columns.join(', ')})${rows.length ? '' : ' WHERE false'}`;
const canon = (rows: Row[]) => rows.map((r) => JSON.stringify(Object.values(r).map((v) => (typeof v === 'bigint' ? Number(v) : v)))).sort();

const key = fc.option(fc.integer({ min: 0, max: 4 }), { nil: null });
const emp = fc.array(fc.tuple(key, fc.integer({ min: 0, max: 100 })), { minLength: 1, maxLength: 10 });
const dept = fc.array(fc.tuple(key), { maxLength: 4 });

/** The query over these tables (each of INT columns) in Weir and DuckDB: the same rows. */
async function agree(query: string, tables: Record<string, { columns: string[]; rows: (number | null)[][] }>): Promise<void> {
  const named = Object.entries(tables);
  const weir = await selectStatic(query, named.map(([name, t]) => `${name} AS (${table(t.columns, t.rows)})`));
  const want = (await duckConn().runAndReadAll(`WITH ${named.map(([name, t]) => `${name} AS (${duckTable(t.columns, t.rows)})`).join(', ')} ${query}`)).getRowObjectsJS();
  expect(canon(weir.rows)).toEqual(canon(want));
}
const empDept = (e: (number | null)[][], d: (number | null)[][]) => ({ emp: { columns: ['dept_id', 'salary'], rows: e }, dept: { columns: ['dept_id'], rows: d } });

/** The query in Update mode over one batch of a stream `events` (k: 1, 2, 3, NULL) and a static table dept (k: 1, 1, 3): its rows. */
async function overStream(sql: string): Promise<string[]> {
  const rel: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema: [{ name: 'k', type: 'long', nullable: true }], watermarkDelayMs: 0 };
  // A file, as a subquery's own plan loads the table itself.
  const path = join(mkdtempSync(join(tmpdir(), 'weir-exists-')), 'dept.json');
  writeFileSync(path, '{"k": 1}\n{"k": 1}\n{"k": 3}\n');
  const spec = { name: 'dept', type: 'file' as const, path, schema: [{ name: 'k', type: 'long' as const, nullable: true }] };
  const runner = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'update', {}, { staticTables: [spec] });
  return canon((await runner.runBatch([{ k: 1 }, { k: 2 }, { k: 3 }, { k: null }])).output);
}

const EXISTS = 'EXISTS (SELECT 1 FROM dept WHERE emp.dept_id = dept.dept_id)';

describe('a correlated EXISTS in GROUP BY', () => {
  it('groups by the existence of each row\'s matches, as DuckDB does', async () => {
    await fc.assert(
      fc.asyncProperty(emp, dept, async (e, d) => {
        await agree(`SELECT count(*) AS n, sum(salary) AS s FROM emp GROUP BY ${EXISTS}`, empDept(e, d));
        await agree(`SELECT count(DISTINCT salary) AS n FROM emp GROUP BY ${EXISTS}`, empDept(e, d));
        // A LIMIT of some rows changes no row's existence, in GROUP BY as in the select list.
        const limited = EXISTS.replace(')', ' LIMIT 1)');
        await agree(`SELECT ${limited} AS e, count(*) AS n FROM emp GROUP BY ${limited}`, empDept(e, d));
      }),
      { numRuns: propertyRuns(15, 200) },
    );
  });

  it('is the select item that repeats the grouping expression', async () => {
    await fc.assert(
      fc.asyncProperty(emp, dept, async (e, d) => {
        await agree(`SELECT cast(${EXISTS} AS int) AS e, count(*) AS n FROM emp GROUP BY cast(${EXISTS} AS int)`, empDept(e, d));
      }),
      { numRuns: propertyRuns(15, 200) },
    );
  });

  it('groups a stream\'s rows by a static table\'s matches', async () => {
    const sql = 'SELECT EXISTS (SELECT 1 FROM dept d WHERE d.k = events.k) AS e, count(*) AS n FROM events GROUP BY EXISTS (SELECT 1 FROM dept d WHERE d.k = events.k)';
    expect(await overStream(sql)).toEqual(canon([{ e: true, n: 2 }, { e: false, n: 2 }]));
  });
});

describe('an IN subquery over the same table in GROUP BY', () => {
  const testData = fc.array(fc.tuple(key, key), { maxLength: 8 });
  it('groups by its three-valued answer, as DuckDB does', async () => {
    await fc.assert(
      fc.asyncProperty(testData, async (rows) => {
        const tables = { testData: { columns: ['a', 'b'], rows } };
        await agree('SELECT a, count(*) AS n FROM testData GROUP BY a, b IN (SELECT a FROM testData)', tables);
        await agree('SELECT a, count(*) AS n FROM testData GROUP BY a, a IN (SELECT b FROM testData)', tables);
        await agree('SELECT b IN (SELECT a FROM testData) AS i, count(*) AS n FROM testData GROUP BY b IN (SELECT a FROM testData)', tables);
        await agree('SELECT DISTINCT b IN (SELECT a FROM testData) AS i FROM testData', tables);
        // ORDER BY the grouping expression reads it.
        await agree('SELECT a, count(*) AS n FROM testData GROUP BY a, b IN (SELECT a FROM testData) ORDER BY b IN (SELECT a FROM testData), a', tables);
      }),
      { numRuns: propertyRuns(15, 200) },
    );
  });

  it('groups a stream\'s rows by an IN over a static table\'s rows', async () => {
    const IN = 'k IN (SELECT k FROM dept d ORDER BY k LIMIT 2)';
    expect(await overStream(`SELECT ${IN} AS i, count(*) AS n FROM events GROUP BY ${IN}`)).toEqual(canon([{ i: true, n: 1 }, { i: false, n: 2 }, { i: null, n: 1 }]));
  });
});

describe('a correlated EXISTS over GROUP BY … HAVING', () => {
  it('keeps the rows whose own groups the HAVING keeps, as DuckDB does', async () => {
    await fc.assert(
      fc.asyncProperty(emp, dept, async (e, d) => {
        const tables = empDept(e, d);
        for (const not of ['', 'NOT ']) {
          await agree(`SELECT * FROM dept WHERE ${not}EXISTS (SELECT dept_id, count(*) FROM emp WHERE emp.dept_id = dept.dept_id GROUP BY dept_id HAVING count(*) > 1)`, tables);
          await agree(`SELECT * FROM dept WHERE ${not}EXISTS (SELECT salary FROM emp WHERE dept.dept_id = dept_id AND salary > 10 GROUP BY salary HAVING count(*) > 1 ORDER BY salary)`, tables);
        }
      }),
      { numRuns: propertyRuns(15, 200) },
    );
  });

  it('joins a stream with a static table\'s groups', async () => {
    expect(await overStream('SELECT k FROM events WHERE EXISTS (SELECT d.k FROM dept d WHERE d.k = events.k GROUP BY d.k HAVING count(*) > 1)')).toEqual(canon([{ k: 1 }]));
  });
});

describe('a correlated IN over an aggregation without GROUP BY, with HAVING', () => {
  it('has the one row where HAVING holds (over no rows too) and none else, as DuckDB does', async () => {
    await fc.assert(
      fc.asyncProperty(emp, dept, async (e, d) => {
        const tables = empDept(e, d);
        for (const not of ['', 'NOT ']) {
          await agree(`SELECT * FROM dept WHERE dept_id ${not}IN (SELECT 1 FROM emp WHERE emp.dept_id = dept.dept_id HAVING count(*) = 0)`, tables);
          await agree(`SELECT * FROM dept WHERE dept_id ${not}IN (SELECT count(*) + 1 AS n FROM emp WHERE emp.dept_id = dept.dept_id HAVING n < 3)`, tables);
          await agree(`SELECT * FROM dept WHERE dept_id ${not}IN (SELECT max(salary) FROM emp WHERE emp.dept_id = dept.dept_id HAVING max(salary) > 50)`, tables);
        }
      }),
      { numRuns: propertyRuns(15, 200) },
    );
  });
});
