/**
 * How ORDER BY and HAVING read a name that is both a select alias and an input column, as
 * Spark's ResolveReferencesInSort and its HAVING resolution do: ORDER BY reads the select list's
 * output first (an expression over an alias too, not only the alias alone), HAVING the input
 * first; where that reading cannot extract a field (`col1.a` of a STRING), the name reads the
 * other. Spark's own cases: sql-tests having-and-order-by-recursive-type-name-resolution.
 */
import { describe, expect, it } from 'vitest';
import { selectStatic } from './testing/spark-printed';

const column = async (sql: string) => (await selectStatic(sql, [])).rows.map((r) => Object.values(r)[0]);
const errorClassOf = (p: Promise<unknown>) => p.then(() => 'answered', (e: unknown) => (e as { errorClass?: string }).errorClass);

describe('ORDER BY an expression of a name that is a select alias and an input column', () => {
  it('reads the alias, over a select list', async () => {
    await expect(column('SELECT b AS a FROM VALUES (1, 10), (2, 5) t(a, b) ORDER BY a + 0')).resolves.toEqual([5, 10]);
  });

  it('reads the alias, over an aggregation', async () => {
    await expect(column('SELECT b AS a FROM VALUES (1, 10), (2, 5) t(a, b) GROUP BY a, b ORDER BY a + 0')).resolves.toEqual([5, 10]);
  });

  it('reads the alias of an aggregate where the input column is not grouped by', async () => {
    await expect(column('SELECT max(a) AS b FROM VALUES (1, 2, 2), (2, 1, 1) t(a, b, k) GROUP BY k ORDER BY -b')).resolves.toEqual([2, 1]);
  });

  it("reads the input column where the alias has no such field (col1.a of a STRING alias)", async () => {
    await expect(column("SELECT 'a' AS col1 FROM VALUES (NAMED_STRUCT('a', 1)) t (col1) GROUP BY col1 ORDER BY col1.a")).resolves.toEqual(['a']);
  });

  it('reads the alias where the input column has no such field', async () => {
    const rows = await column("SELECT NAMED_STRUCT('a', 1) AS col1 FROM VALUES ('a') t (col1) GROUP BY col1 ORDER BY col1.a");
    expect(rows).toEqual([{ a: 1 }]);
  });

  it('subscripts the input column where the alias is no array', async () => {
    await expect(column("SELECT 'a' AS col1 FROM VALUES (ARRAY(1)) t (col1) GROUP BY col1 ORDER BY col1[0]")).resolves.toEqual(['a']);
  });
});

describe('HAVING a name that is a select alias and an input column', () => {
  it('reads the input column first', async () => {
    await expect(column("SELECT NAMED_STRUCT('a', 1) AS col1 FROM VALUES (NAMED_STRUCT('a', 0)) t (col1) GROUP BY col1 HAVING col1.a > 0")).resolves.toEqual([]);
  });

  it("reads the alias's field where the input column has none", async () => {
    await expect(column("SELECT NAMED_STRUCT('a', 1) AS col1 FROM VALUES ('a') t (col1) GROUP BY col1 HAVING col1.a > 0")).resolves.toEqual([{ a: 1 }]);
  });

  it('refuses to subscript an input column that is no array, as Spark does (INVALID_EXTRACT_BASE_FIELD_TYPE)', async () => {
    await expect(errorClassOf(selectStatic("SELECT ARRAY(1) AS col1 FROM VALUES ('a') t (col1) GROUP BY col1 HAVING col1[0] > 0", []))).resolves.toBe('INVALID_EXTRACT_BASE_FIELD_TYPE');
  });
});

describe('ORDER BY over a select list', () => {
  it('sorts on an unaliased item by the name Spark gives it, its strings unquoted', async () => {
    await expect(column("SELECT concat_ws(' ', a, b) FROM VALUES ('y', 'z'), ('x', 'w') t(a, b) ORDER BY `concat_ws( , a, b)`")).resolves.toEqual(['x w', 'y z']);
  });

  it('refuses an IN or EXISTS subquery as Spark refuses one in a Sort', async () => {
    for (const key of ['b IN (SELECT 1)', 'EXISTS (SELECT a FROM VALUES (1) s(a) WHERE a > 0)']) {
      await expect(errorClassOf(selectStatic(`SELECT a, b FROM VALUES (1, 2), (3, 4) t(a, b) ORDER BY a, ${key}`, []))).resolves.toBe('UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_IN_EXISTS_SUBQUERY');
    }
  });
});
