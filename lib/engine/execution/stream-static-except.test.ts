/**
 * `<stream query> EXCEPT <static query>` as Spark runs it: its UnsupportedOperationChecker refuses
 * EXCEPT only with a stream on the right, and its optimizer makes the rest a streaming aggregation
 * keyed by every column (ReplaceExceptWithAntiJoin's Distinct) over a LEFT ANTI join with the
 * static side on each column pair, null-safe. One batch is checked against DuckDB's EXCEPT, and
 * several batches against Spark's answers: in Update mode each batch emits its rows that the
 * table lacks, once each (the aggregation emits every key a batch updates, again in a later
 * batch); in Append mode a row is emitted once, when the watermark passes its event time.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withErrorClass } from '../errors';
import { validateJob } from '../spec/validate-job';
import { staticJoinDifferential } from './testing/static-join-differential';
import { AddData, CheckNewAnswer, sparkStreams } from './testing/spark-stream-test';

const { same, weir } = staticJoinDifferential('except');

describe('EXCEPT of a stream and a static table, as DuckDB runs it over one batch', () => {
  it('the stream\'s distinct rows the static query lacks, a NULL matching a NULL', async () => {
    await same('SELECT user FROM events EXCEPT SELECT user FROM blocked', undefined, 'update');
    await same('SELECT region FROM events EXCEPT SELECT region FROM regions', undefined, 'update');
    await same('SELECT region, user FROM events EXCEPT SELECT region, user FROM blocked', undefined, 'update');
    // MINUS is EXCEPT; the static side may be any batch query, its columns matched by position.
    await same('SELECT region, amount FROM events WHERE amount > 1 MINUS SELECT region, weight FROM regions WHERE weight > 2', 'SELECT region, amount FROM events WHERE amount > 1 EXCEPT SELECT region, weight FROM regions WHERE weight > 2', 'update');
    // A SELECT without FROM (Spark's OneRowRelation) is a batch query too: no stream on the right.
    await same("SELECT region FROM events EXCEPT SELECT 'eu'", undefined, 'update');
  });

  it('of two static queries, on a join\'s static side or in an IN subquery: Spark\'s batch plan of it', async () => {
    await same("SELECT e.id, x.region FROM events e JOIN (SELECT region FROM regions EXCEPT SELECT region FROM blocked WHERE user = 'bob') x ON e.region = x.region");
    await same("SELECT e.id FROM events e WHERE e.region IN (SELECT region FROM regions EXCEPT SELECT region FROM blocked WHERE user = 'bob')");
  });

  it('each column pair widened to one type (Spark\'s WidenSetOperationTypes), the output the left\'s columns of it', async () => {
    const w = await same('SELECT amount FROM events EXCEPT SELECT CAST(weight AS BIGINT) FROM regions', undefined, 'update');
    expect(w.schema).toEqual([{ name: 'amount', type: 'long', nullable: true }]);
    expect(w.explain).toContain('Project [CAST(amount AS BIGINT) AS amount]');
    await expect(weir('SELECT amount FROM events EXCEPT SELECT tags FROM regions', 'update')).rejects.toThrow(
      '[INCOMPATIBLE_COLUMN_TYPE] EXCEPT can only be performed on tables with compatible column types. The first column of the second table is "ARRAY<STRING>" type which is not compatible with "INT" at the same column of the first table..');
  });
});

describe('EXCEPT of a stream and a static table over several batches', () => {
  let dir: string;
  let table: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'weir-except-'));
    table = path.join(dir, 'known.json');
    await writeFile(table, ['{"k":2,"ts":"1970-01-01T00:00:02Z"}', '{"k":null,"ts":null}'].join('\n') + '\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const events = { schema: [{ name: 'k', type: 'long', integral: 32 }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '5 seconds' };
  const spec = () => ({ staticTables: [{ name: 'known', path: table, format: 'json', schema: [{ name: 'k', type: 'long', integral: 32 }, { name: 'ts', type: 'timestamp' }] }] });
  const at = (k: number | null, s: number) => ({ k, ts: s * 1000 });

  it('Update: each batch emits its distinct rows the table lacks, a row again in a later batch', async () => {
    const t = sparkStreams({ sql: 'SELECT k FROM events EXCEPT SELECT k FROM known', sources: { events }, outputMode: 'update', spec: spec() });
    await t.run(
      AddData('events', at(1, 1), at(2, 2), at(3, 3), at(1, 4), at(null, 5)),
      CheckNewAnswer([1], [3]),
      AddData('events', at(1, 6), at(4, 7), at(2, 8)),
      CheckNewAnswer([1], [4]),
    );
  });

  it('Append: with the event time among the columns, each row once, when the watermark passes it', async () => {
    const t = sparkStreams({ sql: 'SELECT k, CAST(ts AS LONG) AS s, ts FROM events EXCEPT SELECT k, CAST(ts AS LONG), ts FROM known', sources: { events }, spec: spec() });
    await t.run(
      AddData('events', at(1, 1), at(2, 2), at(1, 1), at(3, 9)),
      // Watermark 4: (1, 1) passed; (2, 2) is the table's.
      CheckNewAnswer([1, 1, 1000]),
      AddData('events', at(4, 20)),
      CheckNewAnswer([3, 9, 9000]),
    );
  });

  it('is refused as Spark refuses it: a stream on the right, Complete mode, unlike column counts', () => {
    const errorOf = (sql: string, outputMode = 'update') => validateJob({
      name: 'except', source: { name: 'events', type: 'memory', options: { stream: 'except' }, ...events }, ...spec(), sql, outputMode,
      sink: { type: 'memory', options: { table: 'except' } }, checkpointLocation: 'memory://except',
    }).errors.map((e) => withErrorClass(e.message, e.errorClass)).join('\n');
    expect(errorOf('SELECT k FROM known EXCEPT SELECT k FROM events')).toBe('[_LEGACY_ERROR_TEMP_3102] Except on a streaming DataFrame/Dataset on the right is not supported');
    expect(errorOf('SELECT k FROM known EXCEPT ALL SELECT k FROM events')).toBe('[_LEGACY_ERROR_TEMP_3102] Except on a streaming DataFrame/Dataset on the right is not supported');
    // Spark's checker reads the analyzed plan, where EXCEPT is no aggregation yet.
    expect(errorOf('SELECT k FROM events EXCEPT SELECT k FROM known', 'complete')).toBe(
      '[_LEGACY_ERROR_TEMP_3102] Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets');
    expect(errorOf('SELECT k FROM events EXCEPT SELECT k, ts FROM known')).toBe(
      '[NUM_COLUMNS_MISMATCH] EXCEPT can only be performed on inputs with the same number of columns, but the first input has 1 columns and the second input has 2 columns. Select as many columns in each query (NULL AS <name> for one a query lacks). (line 1, column 22)');
    // Without the event time among the columns nothing bounds the aggregation: Spark fails it at
    // the first batch, Weir before it.
    expect(errorOf('SELECT k FROM events EXCEPT SELECT k FROM known', 'append')).toBe(
      '[_LEGACY_ERROR_TEMP_3102] Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark');
    expect(errorOf('SELECT k FROM events EXCEPT ALL SELECT k FROM known')).toContain('EXCEPT ALL of a stream and a static table is not supported yet');
  });
});
