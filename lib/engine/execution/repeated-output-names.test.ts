/**
 * A query whose output repeats a column name, as Spark's may: `SELECT *` over `a JOIN b ON a.id =
 * b.id` outputs both id columns (a USING or NATURAL join outputs it once), as do `a.*, b.*`, a
 * column list `t(x, x)` and `SELECT id, id`. The row holds each under a name of its own; the
 * output's columns, the preview and the console write both as `id`. A sink that writes a column
 * by its name refuses the query with Spark's COLUMN_ALREADY_EXISTS, at validation and at run
 * start, before any batch.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { writtenColumnName } from '../query/column-names';
import { compileStreamingQuery } from '../query/streaming-query';
import { ConsoleSink } from '../sinks/console-sink';
import { MemorySinkTable } from '../sinks/memory-sink';
import type { StaticTableSpec } from '../operators/stream-static-join';
import { MemoryStream } from '../sources/memory-source';
import { validateJob } from '../spec/validate-job';
import { schemaFilePath } from '../state/state-schema-compatibility-checker';
import type { Row, Schema } from '../types';
import { MicroBatchExecution } from './micro-batch-execution';
import { mustParse, tempDir } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const EVENTS: Schema = [{ name: 'id', type: 'long' }, { name: 'amount', type: 'long' }];
const USERS: Schema = [{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }];
const USER_ROWS: Row[] = [{ id: 1, name: 'ann' }, { id: 2, name: 'bob' }];
const EVENT_ROWS: Row[] = [{ id: 1, amount: 10 }, { id: 3, amount: 30 }];
/** The state schema the query's aggregation wrote before joins kept both key columns (its source's text aside). */
const STATE_SCHEMA_BEFORE = {
  formatVersion: 1, operatorId: 0, operatorName: 'aggregate',
  parts: { 'grouping keys': 'name, id', aggregates: 'count(*)', window: '(none)' },
  keySchema: [{ name: 'name', type: 'string' }, { name: 'id', type: 'long' }],
  valueSchema: [{ name: '__agg0', type: 'long' }],
  stateStoreProvider: 'hdfs', sparkTypes: true,
};
const users: StaticTableSpec = { name: 'users', type: 'file', path: 'memory:users', schema: USERS };

/** The query over one batch of EVENT_ROWS joined with USER_ROWS: its output's written names and its rows as those names print them. */
async function answer(sql: string, ordered = false): Promise<{ names: string[]; rows: string[] }> {
  const q = compileStreamingQuery(sql, { kind: 'StreamingRelation', sourceName: 'events', schema: EVENTS }, { staticTables: [users] });
  let out: Row[] = EVENT_ROWS;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0, loadStaticTable: async () => USER_ROWS });
  const rows = out.map((r) => q.outputSchema.map((f) => String(r[f.name])).join(','));
  return { names: q.outputSchema.map((f) => writtenColumnName(f.name)), rows: ordered ? rows : rows.sort() };
}

const spec = (sql: string, sink: Record<string, unknown>, checkpointLocation = '/tmp/weir-repeated-names-cp') => ({
  name: 'repeated-names',
  source: { name: 'events', type: 'memory', options: { stream: `repeated-${process.pid}` }, schema: EVENTS },
  staticTables: [{ name: 'users', path: '/tmp/weir-repeated-names-users.json', format: 'json', schema: USERS }],
  sql,
  sink,
  trigger: { type: 'available-now' },
  checkpointLocation,
});

describe('a stream-static join ON a key of one name on both sides', () => {
  it('outputs both key columns in SELECT *, the static one NULL where a LEFT join found no row', async () => {
    expect(await answer('SELECT * FROM events e JOIN users u ON e.id = u.id')).toEqual({ names: ['id', 'amount', 'id', 'name'], rows: ['1,10,1,ann'] });
    expect(await answer('SELECT * FROM events e LEFT JOIN users u ON e.id = u.id')).toEqual({ names: ['id', 'amount', 'id', 'name'], rows: ['1,10,1,ann', '3,30,null,null'] });
    expect(await answer('SELECT e.*, u.* FROM events e LEFT JOIN users u ON e.id = u.id')).toEqual({ names: ['id', 'amount', 'id', 'name'], rows: ['1,10,1,ann', '3,30,null,null'] });
  });

  it('reads each side qualified; unqualified the name is ambiguous (AMBIGUOUS_REFERENCE)', async () => {
    expect(await answer('SELECT e.id, u.id AS uid FROM events e LEFT JOIN users u ON e.id = u.id')).toEqual({ names: ['id', 'uid'], rows: ['1,1', '3,null'] });
    expect(() => compileStreamingQuery('SELECT id FROM events e JOIN users u ON e.id = u.id', { kind: 'StreamingRelation', sourceName: 'events', schema: EVENTS }, { staticTables: [users] }))
      .toThrow(expect.objectContaining({ errorClass: 'AMBIGUOUS_REFERENCE', message: expect.stringContaining('Reference `id` is ambiguous, could be: [`e`.`id`, `u`.`id`]') }));
  });

  it('outputs a USING key once, as Spark does', async () => {
    expect(await answer('SELECT * FROM events JOIN users USING (id)')).toEqual({ names: ['id', 'amount', 'name'], rows: ['1,10,ann'] });
  });

  it('refuses a USING column a side does not have with Spark\'s UNRESOLVED_USING_COLUMN_FOR_JOIN', () => {
    expect(() => compileStreamingQuery('SELECT * FROM events JOIN users USING (name)', { kind: 'StreamingRelation', sourceName: 'events', schema: EVENTS }, { staticTables: [users] }))
      .toThrow(expect.objectContaining({ errorClass: 'UNRESOLVED_USING_COLUMN_FOR_JOIN' }));
  });
});

describe('a select list or a column list that repeats a name', () => {
  it('outputs both columns, as Spark does', async () => {
    expect(await answer('SELECT id, amount AS id FROM events')).toEqual({ names: ['id', 'id'], rows: ['1,10', '3,30'] });
    expect(await answer('SELECT * FROM (SELECT id, amount FROM events) t(x, x)')).toEqual({ names: ['x', 'x'], rows: ['1,10', '3,30'] });
  });

  it('a subquery\'s repeated name is ambiguous in the join condition of a join with it, as in Spark', () => {
    // Spark refuses it (AMBIGUOUS_REFERENCE, [`j`.`name`, `j`.`name`]) rather than reading the first name.
    const compile = (sql: string) => compileStreamingQuery(sql, { kind: 'StreamingRelation', sourceName: 'events', schema: EVENTS }, { staticTables: [users] });
    expect(() => compile('SELECT * FROM events e JOIN (SELECT * FROM users a CROSS JOIN users b) j ON amount = name'))
      .toThrow(expect.objectContaining({ errorClass: 'AMBIGUOUS_REFERENCE', message: expect.stringContaining('[`j`.`name`, `j`.`name`]') }));
  });
});

describe('ORDER BY a qualified name the output repeats', () => {
  it('sorts by that side\'s column, as Spark does', async () => {
    const sql = 'SELECT q.* FROM events CROSS JOIN (SELECT a.*, b.* FROM users a CROSS JOIN users b ORDER BY a.id, b.id DESC) q WHERE events.id = 1';
    expect(await answer(sql, true)).toEqual({ names: ['id', 'name', 'id', 'name'], rows: ['1,ann,2,bob', '1,ann,1,ann', '2,bob,2,bob', '2,bob,1,ann'] });
  });
});

describe('a sink and a repeated output name', () => {
  const sql = 'SELECT * FROM events e JOIN users u ON e.id = u.id';

  it('a sink that writes columns by name refuses it at validation with COLUMN_ALREADY_EXISTS', () => {
    const v = validateJob(spec(sql, { type: 'memory', options: { table: 't' } }));
    expect(v.ok).toBe(false);
    expect(v.errors).toEqual([expect.objectContaining({ path: 'sql', errorClass: 'COLUMN_ALREADY_EXISTS', message: expect.stringContaining('[COLUMN_ALREADY_EXISTS] The column `id` already exists.') })]);
    expect(validateJob(spec('SELECT * FROM events JOIN users USING (id)', { type: 'memory', options: { table: 't' } })).ok).toBe(true);
  });

  it('the console shows both, and validation lists both columns by their name', () => {
    const v = validateJob(spec(sql, { type: 'console', options: {} }));
    expect(v.errors).toEqual([]);
    expect(v.outputColumns?.map((c) => c.name)).toEqual(['id', 'amount', 'id', 'name']);
  });

  it('the console prints both columns under their name', async () => {
    const printed: string[] = [];
    const q = compileStreamingQuery(sql, { kind: 'StreamingRelation', sourceName: 'events', schema: EVENTS }, { staticTables: [users] });
    let out: Row[] = EVENT_ROWS;
    for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0, loadStaticTable: async () => USER_ROWS });
    await new ConsoleSink({ numRows: 20, truncate: true, stream: 'stdout' }, (s) => printed.push(s)).addBatch(0, out, { outputMode: 'append', schema: q.outputSchema, queryId: 'q' });
    expect(printed.join('')).toContain('| id|amount| id|name|\n+---+------+---+----+\n|  1|    10|  1| ann|');
  });

  it('a stored job whose sink cannot hold it fails at run start, before its first batch writes an offset', async () => {
    const root = await tempDir('repeated-names');
    roots.push(root);
    const cp = path.join(root, 'cp');
    const q = new MicroBatchExecution({ spec: mustParse(spec(sql, { type: 'memory', options: { table: path.basename(root) } }, cp)), clock: new ManualClock(0) });
    MemoryStream.named(`repeated-${process.pid}`).addData(...EVENT_ROWS);
    await expect(q.processAllAvailable()).rejects.toMatchObject({ errorClass: 'COLUMN_ALREADY_EXISTS' });
    await q.stop().catch(() => {});
  });
});

describe('a stateful query over a join ON a key of one name, whose output repeats no name', () => {
  it('writes the state schema it wrote before joins kept both key columns, and restarts on that checkpoint', async () => {
    const root = await tempDir('repeated-names-restart');
    roots.push(root);
    const usersFile = path.join(root, 'users.json');
    await writeFile(usersFile, USER_ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const stream = `repeated-restart-${process.pid}`;
    const table = path.basename(root);
    const job = mustParse({
      name: 'repeated-names-restart',
      source: { name: 'events', type: 'memory', options: { stream }, schema: EVENTS },
      staticTables: [{ name: 'users', path: usersFile, format: 'json', schema: USERS }],
      sql: 'SELECT u.name, e.id, count(*) AS n FROM events e JOIN users u ON e.id = u.id GROUP BY u.name, e.id',
      outputMode: 'complete',
      sink: { type: 'memory', options: { table } },
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(root, 'cp'),
    });
    const run = async (rows: Row[]) => {
      const q = new MicroBatchExecution({ spec: job, clock: new ManualClock(0) });
      MemoryStream.named(stream).addData(...rows);
      await q.processAllAvailable();
      await q.stop();
    };
    await run([{ id: 1, amount: 10 }, { id: 2, amount: 5 }]);
    // The file the engine wrote before joins kept both key columns: a restart compares it.
    const { parts: { source: _source, ...parts }, ...written } = JSON.parse(await readFile(path.join(root, 'cp', schemaFilePath(0)), 'utf8')) as { parts: Record<string, string> };
    expect({ ...written, parts }).toEqual(STATE_SCHEMA_BEFORE);
    await run([{ id: 1, amount: 7 }]);
    expect(MemorySinkTable.named(table).rows.map((r) => `${String(r.name)}:${String(r.n)}`).sort()).toEqual(['ann:2', 'bob:1']);
  });
});
