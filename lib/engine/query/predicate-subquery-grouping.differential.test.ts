/**
 * A predicate subquery in GROUP BY (Spark's RewritePredicateSubquery makes it an existence join,
 * and the Aggregate groups by the join's column): a correlated EXISTS, grouped by as written or
 * inside an expression that a select item repeats, checked against DuckDB over the same rows
 * (the two agree on EXISTS, which is never NULL).
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

async function agree(query: string, empRows: (number | null)[][], deptRows: (number | null)[][]): Promise<void> {
  const weir = await selectStatic(query, [`emp AS (${table(['dept_id', 'salary'], empRows)})`, `dept AS (${table(['dept_id'], deptRows)})`]);
  const want = (await duckConn().runAndReadAll(`WITH emp AS (${duckTable(['dept_id', 'salary'], empRows)}), dept AS (${duckTable(['dept_id'], deptRows)}) ${query}`)).getRowObjectsJS();
  expect(canon(weir.rows)).toEqual(canon(want));
}

const EXISTS = 'EXISTS (SELECT 1 FROM dept WHERE emp.dept_id = dept.dept_id)';

describe('a correlated EXISTS in GROUP BY', () => {
  it('groups by the existence of each row\'s matches, as DuckDB does', async () => {
    await fc.assert(
      fc.asyncProperty(emp, dept, async (e, d) => {
        await agree(`SELECT count(*) AS n, sum(salary) AS s FROM emp GROUP BY ${EXISTS}`, e, d);
        await agree(`SELECT count(DISTINCT salary) AS n FROM emp GROUP BY ${EXISTS}`, e, d);
      }),
      { numRuns: propertyRuns(15, 200) },
    );
  });

  it('is the select item that repeats the grouping expression', async () => {
    await fc.assert(
      fc.asyncProperty(emp, dept, async (e, d) => {
        await agree(`SELECT cast(${EXISTS} AS int) AS e, count(*) AS n FROM emp GROUP BY cast(${EXISTS} AS int)`, e, d);
      }),
      { numRuns: propertyRuns(15, 200) },
    );
  });

  it('groups a stream\'s rows by a static table\'s matches', async () => {
    const rel: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema: [{ name: 'k', type: 'long', nullable: true }], watermarkDelayMs: 0 };
    // A file, as the uncorrelated subquery of the count over no rows loads the table itself.
    const path = join(mkdtempSync(join(tmpdir(), 'weir-exists-')), 'dept.json');
    writeFileSync(path, '{"k": 1}\n{"k": 1}\n{"k": 3}\n');
    const spec = { name: 'dept', type: 'file' as const, path, schema: [{ name: 'k', type: 'long' as const, nullable: true }] };
    const sql = 'SELECT EXISTS (SELECT 1 FROM dept d WHERE d.k = events.k) AS e, count(*) AS n FROM events GROUP BY EXISTS (SELECT 1 FROM dept d WHERE d.k = events.k)';
    const runner = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'update', {}, { staticTables: [spec] });
    const { output } = await runner.runBatch([{ k: 1 }, { k: 2 }, { k: 3 }, { k: null }]);
    expect(canon(output)).toEqual(canon([{ e: true, n: 2 }, { e: false, n: 2 }]));
  });
});
