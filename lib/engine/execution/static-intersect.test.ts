/**
 * INTERSECT as Spark runs it: its UnsupportedOperationChecker refuses INTERSECT with a stream on
 * either side, and of two static queries (a join's static side, an IN subquery: a batch plan)
 * its optimizer makes it a Distinct over a LEFT SEMI join on each column pair, null-safe
 * (ReplaceIntersectWithSemiJoin). Checked against DuckDB's INTERSECT over one batch.
 * INTERSECT ALL and EXCEPT ALL (MINUS ALL) of two static queries, Spark's RewriteIntersectAll and
 * RewriteExceptAll, are checked against DuckDB's, which has the same bag semantics (a row kept
 * the lesser of its two counts of times, or its left count less its right count), over random
 * tables with repeated rows and NULLs.
 */
import { describe, expect, it } from 'vitest';
import { withErrorClass } from '../errors';
import { validateJob } from '../spec/validate-job';
import { seededRandom } from './testing/test-fixtures';
import { staticJoinDifferential, type DifferentialTable } from './testing/static-join-differential';

/** Pairs of random tables l<i>, r<i> (a INT, b STRING) of few distinct values, so that rows repeat, NULLs among them. */
const SEEDS = [1, 2, 3, 4, 5, 6];
const randomTables = (): DifferentialTable[] => SEEDS.flatMap((seed) => {
  const rnd = seededRandom(seed * 7919);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(rnd() * values.length)];
  const rows = (n: number) => Array.from({ length: n }, () => ({ a: pick([1, 2, 3, null]), b: pick(['x', 'y', null]) }));
  const schema: DifferentialTable['schema'] = [{ name: 'a', type: 'long', integral: 32 }, { name: 'b', type: 'string' }];
  return [{ name: `l${seed}`, schema, rows: rows(8 + Math.floor(rnd() * 12)) }, { name: `r${seed}`, schema, rows: rows(8 + Math.floor(rnd() * 12)) }];
});

const { same, weir } = staticJoinDifferential('intersect', randomTables());

/** A static query's every row, each joined once with the stream's row of id 1. */
const everyRow = (query: string) => `SELECT e.id, x.* FROM events e JOIN (SELECT 1 AS one, * FROM (${query})) x ON e.id = x.one`;

describe('INTERSECT of two static queries, as DuckDB runs it over one batch', () => {
  it('on a join\'s static side or in an IN subquery: the distinct rows of both, a NULL matching a NULL', async () => {
    await same("SELECT e.id, x.region FROM events e JOIN (SELECT region FROM regions INTERSECT SELECT region FROM blocked WHERE user <> 'bob') x ON e.region = x.region");
    await same('SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions INTERSECT SELECT region FROM blocked)');
    // Two columns, NULLs among them: (NULL, NULL) of one side matches (NULL, NULL) of the other.
    await same('SELECT e.id, x.r FROM events e JOIN (SELECT region AS r, CAST(NULL AS STRING) AS u FROM regions INTERSECT SELECT region, CAST(NULL AS STRING) FROM blocked) x ON e.region = x.r');
  });

  it('each column pair widened to one type (Spark\'s WidenSetOperationTypes), or refused with Spark\'s classes', async () => {
    await same('SELECT e.id FROM events e WHERE e.amount IN (SELECT weight FROM regions INTERSECT SELECT CAST(weight AS BIGINT) FROM regions WHERE weight > 1)');
    await expect(weir('SELECT e.id FROM events e JOIN (SELECT weight AS w FROM regions INTERSECT SELECT tags FROM regions) x ON e.amount = x.w')).rejects.toThrow(
      '[INCOMPATIBLE_COLUMN_TYPE] INTERSECT can only be performed on tables with compatible column types. The first column of the second table is "ARRAY<STRING>" type which is not compatible with "INT" at the same column of the first table..');
    await expect(weir('SELECT e.id FROM events e JOIN (SELECT weight AS w FROM regions INTERSECT SELECT weight, tags FROM regions) x ON e.amount = x.w')).rejects.toThrow(
      '[NUM_COLUMNS_MISMATCH] INTERSECT can only be performed on inputs with the same number of columns, but the first input has 1 columns and the second input has 2 columns. Select as many columns in each query (NULL AS <name> for one a query lacks).');
  });

  it('is refused where Spark refuses it: a stream on either side', () => {
    const errorOf = (sql: string) => validateJob({
      name: 'intersect', source: { name: 'events', type: 'memory', options: { stream: 'intersect' }, schema: [{ name: 'k', type: 'long' }] },
      staticTables: [{ name: 'known', path: '/tmp/weir-intersect-known.json', format: 'json', schema: [{ name: 'k', type: 'long' }] }],
      sql, outputMode: 'update', sink: { type: 'memory', options: { table: 'intersect' } }, checkpointLocation: 'memory://intersect',
    }).errors.map((e) => withErrorClass(e.message, e.errorClass)).join('\n');
    expect(errorOf('SELECT k FROM events INTERSECT SELECT k FROM known')).toBe('[_LEGACY_ERROR_TEMP_3102] Intersect of streaming DataFrames/Datasets is not supported');
    expect(errorOf('SELECT k FROM known INTERSECT SELECT k FROM events')).toBe('[_LEGACY_ERROR_TEMP_3102] Intersect of streaming DataFrames/Datasets is not supported');
    expect(errorOf('SELECT k FROM events INTERSECT ALL SELECT k FROM known')).toBe('[_LEGACY_ERROR_TEMP_3102] Intersect of streaming DataFrames/Datasets is not supported');
  });
});

describe('INTERSECT ALL and EXCEPT ALL of two static queries, as DuckDB runs them over one batch', () => {
  it('keep each row as many times as Spark\'s bag semantics say, NULLs counted as equal (random tables)', async () => {
    for (const seed of SEEDS) {
      const [l, r] = [`l${seed}`, `r${seed}`];
      for (const op of ['INTERSECT ALL', 'EXCEPT ALL']) {
        await same(everyRow(`SELECT a, b FROM ${l} ${op} SELECT a, b FROM ${r}`));
        await same(everyRow(`SELECT b FROM ${r} ${op} SELECT b FROM ${l}`));
      }
      // MINUS is Spark's other spelling of EXCEPT.
      await same(everyRow(`SELECT a, b FROM ${l} MINUS ALL SELECT a, b FROM ${r}`), everyRow(`SELECT a, b FROM ${l} EXCEPT ALL SELECT a, b FROM ${r}`));
    }
  });

  it('on a join\'s static side, in an IN subquery and in a CTE, chained with the DISTINCT forms', async () => {
    const w = await same("SELECT e.id, x.region FROM events e JOIN (SELECT region FROM blocked INTERSECT ALL SELECT region FROM regions WHERE weight <> 5) x ON e.region = x.region");
    expect(w.explain).toMatch(/Generate explode\(array_repeat\(true, CAST\(__intersect_all_count AS INT\)\)\)/);
    await same("SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions EXCEPT ALL SELECT region FROM blocked WHERE user = 'ann')");
    await same('WITH x AS (SELECT region FROM blocked EXCEPT ALL SELECT region FROM regions WHERE weight > 2) SELECT e.id, x.region FROM events e JOIN x ON e.region = x.region');
    await same(everyRow('SELECT a, b FROM l1 EXCEPT ALL SELECT a, b FROM r1 INTERSECT SELECT a, b FROM l1'));
    await same(everyRow('(SELECT a, b FROM l2 EXCEPT SELECT a, b FROM r2) UNION ALL (SELECT a, b FROM l2 INTERSECT ALL SELECT a, b FROM r3)'));
  });

  it('each column pair widened to one type (Spark\'s WidenSetOperationTypes), or refused with Spark\'s classes', async () => {
    const w = await same(everyRow('SELECT a, b FROM l4 INTERSECT ALL SELECT CAST(a AS BIGINT), b FROM r4'));
    expect(w.schema.find((f) => f.name === 'a')).toMatchObject({ type: 'long' });
    expect(w.schema.find((f) => f.name === 'a')?.integral).toBeUndefined();
    await same(everyRow('SELECT a FROM l5 EXCEPT ALL SELECT NULL FROM r5'));
    await same(everyRow('SELECT a FROM l6 EXCEPT ALL SELECT 2'));
    await expect(weir('SELECT e.id FROM events e JOIN (SELECT weight AS w FROM regions EXCEPT ALL SELECT tags FROM regions) x ON e.amount = x.w')).rejects.toThrow(
      '[INCOMPATIBLE_COLUMN_TYPE] EXCEPT ALL can only be performed on tables with compatible column types. The first column of the second table is "ARRAY<STRING>" type which is not compatible with "INT" at the same column of the first table..');
    await expect(weir('SELECT e.id FROM events e JOIN (SELECT weight AS w FROM regions INTERSECT ALL SELECT weight, tags FROM regions) x ON e.amount = x.w')).rejects.toThrow(
      '[NUM_COLUMNS_MISMATCH] INTERSECT ALL can only be performed on inputs with the same number of columns, but the first input has 1 columns and the second input has 2 columns. Select as many columns in each query (NULL AS <name> for one a query lacks).');
    // A map has no equality (Spark's CheckAnalysis), in the ALL forms and the DISTINCT ones.
    for (const op of ['INTERSECT ALL', 'EXCEPT ALL', 'INTERSECT', 'EXCEPT']) {
      await expect(weir(`SELECT e.id FROM events e JOIN (SELECT region, map(region, weight) AS m FROM regions ${op} SELECT region, map(region, weight) FROM regions) x ON e.region = x.region`)).rejects.toThrow(
        '[UNSUPPORTED_FEATURE.SET_OPERATION_ON_MAP_TYPE] The feature is not supported: Cannot have MAP type columns in DataFrame which calls set operations (INTERSECT, EXCEPT, etc.), but the type of column `m` is "MAP<STRING, INT>".');
    }
  });
});
