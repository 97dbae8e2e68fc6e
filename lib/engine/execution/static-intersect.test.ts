/**
 * INTERSECT as Spark runs it: its UnsupportedOperationChecker refuses INTERSECT with a stream on
 * either side, and of two static queries (a join's static side, an IN subquery: a batch plan)
 * its optimizer makes it a Distinct over a LEFT SEMI join on each column pair, null-safe
 * (ReplaceIntersectWithSemiJoin). Checked against DuckDB's INTERSECT over one batch.
 */
import { describe, expect, it } from 'vitest';
import { withErrorClass } from '../errors';
import { validateJob } from '../spec/validate-job';
import { staticJoinDifferential } from './testing/static-join-differential';

const { same, weir } = staticJoinDifferential('intersect');

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
      '[NUM_COLUMNS_MISMATCH] INTERSECT can only be performed on inputs with the same number of columns, but the first input has 1 columns and the second input has 2 columns.');
  });

  it('is refused where Spark refuses it: a stream on either side; INTERSECT ALL is not run yet', () => {
    const errorOf = (sql: string) => validateJob({
      name: 'intersect', source: { name: 'events', type: 'memory', options: { stream: 'intersect' }, schema: [{ name: 'k', type: 'long' }] },
      staticTables: [{ name: 'known', path: '/tmp/weir-intersect-known.json', format: 'json', schema: [{ name: 'k', type: 'long' }] }],
      sql, outputMode: 'update', sink: { type: 'memory', options: { table: 'intersect' } }, checkpointLocation: 'memory://intersect',
    }).errors.map((e) => withErrorClass(e.message, e.errorClass)).join('\n');
    expect(errorOf('SELECT k FROM events INTERSECT SELECT k FROM known')).toBe('[_LEGACY_ERROR_TEMP_3102] Intersect of streaming DataFrames/Datasets is not supported');
    expect(errorOf('SELECT k FROM known INTERSECT SELECT k FROM events')).toBe('[_LEGACY_ERROR_TEMP_3102] Intersect of streaming DataFrames/Datasets is not supported');
    expect(errorOf('SELECT e.k FROM events e JOIN (SELECT k FROM known INTERSECT ALL SELECT k FROM known) x ON e.k = x.k')).toContain('INTERSECT ALL of two static queries is not supported yet');
  });
});
