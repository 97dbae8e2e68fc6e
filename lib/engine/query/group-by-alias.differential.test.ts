/**
 * GROUP BY with a select alias inside a grouping expression (Spark 3.4+'s resolveGroupByAlias:
 * `SELECT max(c), 3 AS m … GROUP BY c % m` groups by c % 3), against DuckDB grouping by the
 * aliased expression written out (DuckDB reads an alias only as a whole GROUP BY item); and the
 * alias of an aggregate, there or inside an expression, refused as Spark refuses it
 * (GROUP_BY_AGGREGATE).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../types';
import { propertyRuns } from '@/lib/testing/property-runs';
import { useDuckDB } from './testing/duckdb';
import { selectStatic } from './testing/spark-printed';

const duckConn = useDuckDB();

const values = (cs: (number | null)[]) => cs.map((c) => `(${c === null ? 'CAST(NULL AS INT)' : c})`).join(', ');
const canon = (rows: Row[]) => rows.map((r) => JSON.stringify(Object.values(r).map((v) => (typeof v === 'bigint' ? Number(v) : v)))).sort();

async function duck(sql: string): Promise<Row[]> {
  return (await duckConn().runAndReadAll(sql)).getRowObjectsJS();
}

const errorClassOf = (p: Promise<unknown>) => p.then(() => 'answered', (e: unknown) => (e as { errorClass?: string }).errorClass);

describe('a select alias inside a grouping expression', () => {
  it('groups by the aliased expression, as DuckDB does with it written out', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.integer({ min: -20, max: 20 }), { nil: null }), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 5 }), async (cs, m) => {
        const from = `FROM VALUES ${values(cs)} AS t(c)`;
        const weir = await selectStatic(`SELECT max(c) AS mx, count(*) AS n, ${m} AS m ${from} GROUP BY c % m`, []);
        const want = await duck(`SELECT max(c) AS mx, count(*) AS n, ${m} AS m FROM (VALUES ${values(cs)}) t(c) GROUP BY c % ${m}`);
        expect(canon(weir.rows)).toEqual(canon(want));
      }),
      { numRuns: propertyRuns(15, 200) },
    );
  });

  it('reads an input column of the name before the alias', async () => {
    const { rows } = await selectStatic('SELECT max(c) AS mx, 1 AS c FROM VALUES (1), (2), (3) AS t(c) GROUP BY c + 0', []);
    expect(canon(rows)).toEqual(canon([{ mx: 1, c: 1 }, { mx: 2, c: 1 }, { mx: 3, c: 1 }]));
  });
});

describe('the alias of an aggregate grouped by', () => {
  for (const groupBy of ['k', 'k + 1', 'ROLLUP (k)']) {
    it(`is refused with GROUP_BY_AGGREGATE: GROUP BY ${groupBy}`, async () => {
      await expect(errorClassOf(selectStatic(`SELECT count(c) AS k FROM VALUES (1), (2) AS t(c) GROUP BY ${groupBy}`, []))).resolves.toBe('GROUP_BY_AGGREGATE');
    });
  }

  it('is refused with GROUP_BY_AGGREGATE written in GROUP BY', async () => {
    await expect(errorClassOf(selectStatic('SELECT c FROM VALUES (1), (2) AS t(c) GROUP BY max(c)', []))).resolves.toBe('GROUP_BY_AGGREGATE');
  });
});
