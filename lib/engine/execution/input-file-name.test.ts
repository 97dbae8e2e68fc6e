/**
 * input_file_name() and the `_metadata` column: the URI of the file each row of a files source was read from (Spark's
 * InputFileName) and its name, size and modification time (Spark's `_metadata`); '' for
 * another source's rows, whose queries have no `_metadata`; the same on a replay, and in map tasks run on
 * other executors. A query that does not call it reads rows without the hidden column.
 */
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { FILE_METADATA_COLUMN, type FileMetadata } from '../types';
import { Executor } from './executor';
import { MicroBatchExecution } from './micro-batch-execution';
import { compileQuery, createSource } from './query-runtime';
import { ExecutorsTaskScheduler } from './testing/executors-task-scheduler';
import { mustParse, tempDir } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function filesJob(format: 'json' | 'csv', sql: string, o: { outputMode?: string; parallelism?: number; schema?: string } = {}) {
  const root = await tempDir('input-file-name');
  roots.push(root);
  // A space in the directory's name: the URI encodes it, as Spark's does.
  const input = path.join(root, 'in put');
  await mkdir(input);
  const table = path.basename(root);
  const spec = mustParse({
    name: 'input-file-name',
    source: { name: 'events', type: 'files', options: { path: input, format, ...(format === 'csv' ? { header: false } : {}) }, schema: o.schema ?? 'id BIGINT, k STRING' },
    sql,
    sink: { type: 'memory', options: { table } },
    outputMode: o.outputMode ?? 'append',
    parallelism: o.parallelism ?? 1,
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(root, 'checkpoint'),
  });
  return { input, spec, rows: () => MemorySinkTable.named(table).rows, uri: (f: string) => pathToFileURL(path.join(input, f)).href };
}

describe('input_file_name()', () => {
  for (const format of ['json', 'csv'] as const) {
    it(`is the URI of each row's file (${format})`, async () => {
      const j = await filesJob(format, "SELECT id, input_file_name() AS f FROM events WHERE input_file_name() LIKE '%b.%' OR id = 1");
      const line = (id: number, k: string) => (format === 'json' ? JSON.stringify({ id, k }) : `${id},${k}`);
      await writeFile(path.join(j.input, `a.${format}`), `${line(1, 'x')}\n${line(2, 'y')}\n`);
      await writeFile(path.join(j.input, `b.${format}`), `${line(3, 'z')}\n`);
      const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
      await q.processAllAvailable();
      await q.stop();
      expect(j.uri(`a.${format}`)).toContain('/in%20put/a.');
      expect(j.rows()).toEqual([{ id: 1, f: j.uri(`a.${format}`) }, { id: 3, f: j.uri(`b.${format}`) }]);
    });
  }

  it('groups by file, in map tasks on other executors too (each task a structured clone)', async () => {
    const j = await filesJob('json', 'SELECT input_file_name() AS f, count(*) AS n FROM events GROUP BY input_file_name()', { outputMode: 'complete', parallelism: 2 });
    await writeFile(path.join(j.input, 'a.json'), '{"id": 1}\n{"id": 2}\n');
    await writeFile(path.join(j.input, 'b.json'), '{"id": 3}\n');
    const clock = new ManualClock(0);
    const checkpoint = new InMemoryCheckpointFileManager();
    let picked = 0;
    const taskScheduler = new ExecutorsTaskScheduler({
      executors: [new Executor({ clock }), new Executor({ clock })], spec: j.spec, checkpoint, queryId: () => q.id, pick: () => picked++, mapTasks: true,
    });
    const q: MicroBatchExecution = new MicroBatchExecution({ spec: j.spec, clock, checkpoint, taskScheduler });
    await q.processAllAvailable();
    await q.stop();
    expect(j.rows().sort((x, y) => String(x.f).localeCompare(String(y.f)))).toEqual([{ f: j.uri('a.json'), n: 2 }, { f: j.uri('b.json'), n: 1 }]);
  });

  it("is '' for another source's rows", async () => {
    const name = `ifn-${process.pid}`;
    MemoryStream.named(name).addData({ value: 1 }, { value: 2 });
    const spec = mustParse({
      name, source: { name: 'events', type: 'memory', options: { stream: name }, schema: 'value BIGINT' },
      sql: 'SELECT value, input_file_name() AS f FROM events', sink: { type: 'memory', options: { table: name } }, trigger: { type: 'available-now' }, checkpointLocation: `memory://${name}`,
    });
    const q = new MicroBatchExecution({ spec, clock: new ManualClock(0) });
    await q.processAllAvailable();
    await q.stop();
    expect(MemorySinkTable.named(name).rows).toEqual([{ value: 1, f: '' }, { value: 2, f: '' }]);
  });

  // Spark's is the file of the row its scan is reading, wherever the call sits in the stage.
  const runOn = async (sql: string, o: { outputMode?: string; schema?: string } = {}, text = '{"id": 1, "k": "x"}\n') => {
    const j = await filesJob('json', sql, o);
    await writeFile(path.join(j.input, 'a.json'), text);
    const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q.processAllAvailable();
    await q.stop();
    return { rows: j.rows(), uri: j.uri('a.json') };
  };

  it('is the row\'s file above projections that drop the file\'s columns: a subquery, a view over it, a filter between', async () => {
    const nested = await runOn('SELECT id, input_file_name() AS f FROM (SELECT id + 1 AS id FROM events)');
    expect(nested.rows).toEqual([{ id: 2, f: nested.uri }]);
    const deeper = await runOn("WITH v AS (SELECT k FROM (SELECT k, id FROM events) WHERE id > 0) SELECT upper(k) AS k, input_file_name() AS f FROM v WHERE input_file_name() <> ''");
    expect(deeper.rows).toEqual([{ k: 'X', f: deeper.uri }]);
    // The output rows never hold the hidden column, a filter reading it on top included.
    expect(Object.keys(nested.rows[0])).toEqual(['id', 'f']);
    const filtered = await runOn("SELECT * FROM (SELECT id FROM events) WHERE input_file_name() LIKE '%a.json'");
    expect(filtered.rows).toEqual([{ id: 1 }]);
    expect(Object.keys(filtered.rows[0])).toEqual(['id']);
  });

  it('is the row\'s file above explode and in a UNION branch', async () => {
    const exploded = await runOn('SELECT x, input_file_name() AS f FROM (SELECT explode(xs) AS x FROM events)', { schema: 'xs ARRAY<BIGINT>' }, '{"xs": [1, 2]}\n');
    expect(exploded.rows).toEqual([{ x: 1, f: exploded.uri }, { x: 2, f: exploded.uri }]);
    const union = await runOn('SELECT id, input_file_name() AS f FROM (SELECT id FROM events UNION ALL SELECT id * 10 AS id FROM events)');
    expect(union.rows).toEqual([{ id: 1, f: union.uri }, { id: 10, f: union.uri }]);
  });

  it('input_file_block_start() and input_file_block_length() are the split read, the whole file: 0 and its size', async () => {
    const text = '{"id": 1, "k": "x"}\n{"id": 2, "k": "y"}\n';
    const got = await runOn('SELECT id, input_file_block_start() AS s, input_file_block_length() AS l FROM events', {}, text);
    expect(got.rows).toEqual([{ id: 1, s: 0, l: text.length }, { id: 2, s: 0, l: text.length }]);
    // -1 past an aggregation, as Spark's where no file is being read.
    const agg = await runOn('SELECT n, input_file_block_start() AS s, input_file_block_length() AS l FROM (SELECT count(*) AS n FROM events)', { outputMode: 'complete' });
    expect(agg.rows).toEqual([{ n: 1, s: -1, l: -1 }]);
  });

  it("is '' above an aggregation, as Spark's past a shuffle", async () => {
    const agg = await runOn('SELECT k, n, input_file_name() AS f FROM (SELECT k, count(*) AS n FROM events GROUP BY k)', { outputMode: 'complete' });
    expect(agg.rows).toEqual([{ k: 'x', n: 1, f: '' }]);
  });

  it('stays out of the output: SELECT * writes only the columns', async () => {
    const j = await filesJob('json', "SELECT * FROM events WHERE input_file_name() <> ''");
    await writeFile(path.join(j.input, 'a.json'), '{"id": 1, "k": "x"}\n');
    const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q.processAllAvailable();
    await q.stop();
    expect(j.rows()).toEqual([{ id: 1, k: 'x' }]);
    expect(Object.keys(j.rows()[0])).toEqual(['id', 'k']);
  });

  it('is read by the source only for a query that calls it', async () => {
    const j = await filesJob('json', 'SELECT id FROM events');
    await writeFile(path.join(j.input, 'a.json'), '{"id": 1}\n');
    const read = async (spec: typeof j.spec) => {
      const query = compileQuery(spec, 1);
      const source = createSource(spec, 0, query, { checkpoint: new InMemoryCheckpointFileManager(), clock: new ManualClock(0), queryId: 'q' });
      await source.open?.();
      const end = await source.latestOffset(null);
      return (await source.getBatch(null, end)).rows;
    };
    expect(await read(j.spec)).toEqual([{ id: 1 }]);
    const calls = { ...j.spec, sql: 'SELECT id, input_file_name() AS f FROM events' };
    expect(((await read(calls))[0][FILE_METADATA_COLUMN] as FileMetadata).file_path).toBe(j.uri('a.json'));
  });
});

describe('_metadata', () => {
  const MTIME = Date.UTC(2026, 0, 2, 3, 4, 5);
  const run = async (j: Awaited<ReturnType<typeof filesJob>>) => {
    const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(0) });
    await q.processAllAvailable();
    await q.stop();
    return j.rows();
  };

  it("is Spark's struct of the row's file: path, name, size, block, modification time", async () => {
    const j = await filesJob('json', 'SELECT id, _metadata.file_name, _metadata.file_size AS size, _metadata.file_path, _metadata.file_modification_time AS mtime, events._metadata.file_block_length AS len FROM events');
    const text = '{"id": 1}\n{"id": 2}\n';
    await writeFile(path.join(j.input, 'a.json'), text);
    await utimes(path.join(j.input, 'a.json'), MTIME / 1000, MTIME / 1000);
    const meta = { file_name: 'a.json', size: text.length, file_path: j.uri('a.json'), mtime: MTIME, len: text.length };
    expect(await run(j)).toEqual([{ id: 1, ...meta }, { id: 2, ...meta }]);
  });

  it('selected whole is a struct column named _metadata; SELECT * leaves it out', async () => {
    const j = await filesJob('json', 'SELECT *, _metadata FROM events', { schema: 'id BIGINT' });
    await writeFile(path.join(j.input, 'a.json'), '{"id": 1}\n');
    await utimes(path.join(j.input, 'a.json'), MTIME / 1000, MTIME / 1000);
    expect(await run(j)).toEqual([{ id: 1, _metadata: { file_path: j.uri('a.json'), file_name: 'a.json', file_size: 10, file_block_start: 0, file_block_length: 10, file_modification_time: MTIME } }]);
  });

  it('is the column of that name when the schema has one (Spark: user data wins)', async () => {
    const j = await filesJob('json', 'SELECT _metadata FROM events', { schema: '_metadata STRING' });
    await writeFile(path.join(j.input, 'a.json'), '{"_metadata": "mine"}\n');
    expect(await run(j)).toEqual([{ _metadata: 'mine' }]);
  });

  it('is no column above a subquery, a CTE or an aggregation, as Spark refuses it there (UNRESOLVED_COLUMN)', async () => {
    // Spark's SubqueryAlias propagates metadata columns only from a relation (or an alias of one).
    for (const sql of [
      'SELECT _metadata.file_name AS n FROM (SELECT id FROM events)',
      'SELECT _metadata FROM (SELECT id FROM events) t',
      'WITH v AS (SELECT id FROM events) SELECT id, _metadata.file_name AS n FROM v',
      'SELECT k, _metadata.file_name AS n FROM (SELECT k, count(*) AS c FROM events GROUP BY k)',
    ]) {
      const j = await filesJob('json', sql);
      expect(() => compileQuery(j.spec, 1), sql).toThrow(expect.objectContaining({
        errorClass: 'UNRESOLVED_COLUMN.WITH_SUGGESTION',
        message: expect.stringMatching(/name `_metadata` cannot be resolved/),
      }));
    }
    // Through an alias of the relation, and selected below the subquery, it is the row's file.
    const j = await filesJob('json', 'SELECT n FROM (SELECT e._metadata.file_name AS n FROM events AS e)');
    await writeFile(path.join(j.input, 'a.json'), '{"id": 1}\n');
    expect(await run(j)).toEqual([{ n: 'a.json' }]);
  });

  it('in an aggregation is a column like any other: refused unless grouped, as Spark refuses an attribute not in GROUP BY (MISSING_AGGREGATION)', async () => {
    for (const sql of [
      'SELECT k, _metadata, count(*) AS c FROM events GROUP BY k',
      'SELECT k, _metadata.file_path AS p FROM events GROUP BY k',
      'SELECT _metadata.file_name AS n, count(*) AS c FROM events GROUP BY _metadata.file_path',
      'SELECT k FROM events GROUP BY k HAVING _metadata.file_size > 0',
    ]) {
      const j = await filesJob('json', sql, { outputMode: 'update' });
      expect(() => compileQuery(j.spec, 1), sql).toThrow(/expression '_metadata' in (the select list|HAVING) is neither present in the group by, nor is it an aggregate function/);
    }
    // Grouped by it, or by the field read, it is the key.
    const j = await filesJob('json', 'SELECT _metadata.file_name AS n, count(*) AS c FROM events GROUP BY _metadata', { outputMode: 'update' });
    await writeFile(path.join(j.input, 'a.json'), '{"id": 1}\n{"id": 2}\n');
    expect(await run(j)).toEqual([{ n: 'a.json', c: 2 }]);
    const f = await filesJob('json', 'SELECT _metadata.file_name AS n, count(*) AS c FROM events GROUP BY _metadata.file_name', { outputMode: 'update' });
    await writeFile(path.join(f.input, 'b.json'), '{"id": 1}\n');
    expect(await run(f)).toEqual([{ n: 'b.json', c: 1 }]);
  });

  it('is no column on another source, as Spark refuses the name there (UNRESOLVED_COLUMN)', () => {
    const name = `meta-${process.pid}`;
    const spec = mustParse({
      name, source: { name: 'events', type: 'memory', options: { stream: name }, schema: 'value BIGINT' },
      sql: 'SELECT value, _metadata.file_name AS f FROM events', sink: { type: 'memory', options: { table: name } }, trigger: { type: 'available-now' }, checkpointLocation: `memory://${name}`,
    });
    expect(() => compileQuery(spec, 1)).toThrow(expect.objectContaining({
      errorClass: 'UNRESOLVED_COLUMN.WITH_SUGGESTION',
      message: expect.stringMatching(/name `_metadata` cannot be resolved/),
    }));
  });
});
