import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { SinkError } from '../errors';
import type { Schema } from '../types';
import { stringifyJson } from '../json-text';
import { DuckDBInstance } from '@duckdb/node-api';
import { encodeRows, FilesSink, readCommittedRows } from './files-sink';
import { jsonWriter, renderRow } from './row-rendering';
import { FileStreamSinkLog } from './file-stream-sink-log';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';

const schema: Schema = [{ name: 'n', type: 'long' }, { name: 'at', type: 'timestamp' }];
const dirs: string[] = [];
afterEach(async () => {
  while (dirs.length) await rm(dirs.pop()!, { recursive: true, force: true });
});

describe('FilesSink', () => {
  it.each(['json', 'csv', 'parquet'] as const)('refuses an interval column in %s, as Spark\'s file formats do (UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE)', async (format) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-fsink-'));
    dirs.push(dir);
    const sink = new FilesSink({ path: dir, format, header: true }, new ManualClock(1000));
    const nested: Schema = [{ name: 'n', type: 'long' }, { name: 'a', type: 'array', elementType: { name: 'element', type: 'calendar_interval' } }];
    const ctx = { outputMode: 'append' as const, schema: nested, queryId: 'q1', runId: 'run-a' };
    const err = await sink.addBatch(0, [{ n: 1, a: [{ months: 1, days: 0, micros: 0 }] }], ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ errorClass: 'UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE' });
    expect((err as Error).message).toContain('datasource doesn\'t support the column `a` of the type "ARRAY<INTERVAL>"');
    expect(await readdir(dir)).toEqual([]);
  });

  it('skips a replayed batch id, and readers through _weir_metadata never see stray files', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-fsink-'));
    dirs.push(dir);
    const clock = new ManualClock(1000);
    const ctx = { outputMode: 'append' as const, schema, queryId: 'q1', runId: 'run-a' };
    const sink = new FilesSink({ path: dir, format: 'json', header: true }, clock);
    await sink.addBatch(0, [{ n: 1, at: 0 }], ctx);
    await sink.addBatch(0, [{ n: 1, at: 0 }], ctx);
    await sink.addBatch(1, [], ctx);
    // A file from an attempt that died before logging its batch.
    await writeFile(path.join(dir, 'part-00002-dead.json'), '{"n":666}\n');
    const fresh = new FilesSink({ path: dir, format: 'json', header: true }, clock);
    await fresh.addBatch(1, [{ n: 2, at: 0 }], { ...ctx, runId: 'run-b' });
    await fresh.addBatch(2, [{ n: 3, at: 86_400_000 }], { ...ctx, runId: 'run-b' });
    expect(await readCommittedRows(dir, 'json')).toEqual([
      { batchId: 0, rows: [{ n: 1, at: '1970-01-01T00:00:00.000Z' }] },
      { batchId: 1, rows: [] },
      { batchId: 2, rows: [{ n: 3, at: '1970-01-02T00:00:00.000Z' }] },
    ]);
    expect((await readdir(dir)).filter((f) => f.startsWith('part-'))).toHaveLength(3);
  });

  it('commit protocol: each task attempt writes its own part file, the driver logs only the completed attempts\' in one entry, and a replay commits nothing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-fsink-'));
    dirs.push(dir);
    const ctx = { outputMode: 'append' as const, schema, queryId: 'q1', runId: 'run-a' };
    const sink = new FilesSink({ path: dir, format: 'json', header: true }, new ManualClock(1000));
    const task = (partitionId: number, attemptId: string) => ({ ...ctx, batchId: 0, partitionId, attemptId });
    // Partition 0's first attempt is a zombie (its task was retried elsewhere); partition 2 had no rows.
    await sink.commitProtocol.commitTask([{ n: 0, at: 0 }], task(0, 'zombie'));
    const done = [
      await sink.commitProtocol.commitTask([{ n: 1, at: 0 }], task(0, 'retry')),
      await sink.commitProtocol.commitTask([{ n: 2, at: 0 }, { n: 3, at: 0 }], task(1, 'first')),
      await sink.commitProtocol.commitTask([], task(2, 'first')),
    ];
    expect(done.map((m) => m.map((f) => f.path))).toEqual([['part-00000-00000-retry.json'], ['part-00000-00001-first.json'], []]);
    await sink.commitProtocol.commitJob(0, done, ctx);
    const rowsOf0 = [{ n: 1, at: '1970-01-01T00:00:00.000Z' }, { n: 2, at: '1970-01-01T00:00:00.000Z' }, { n: 3, at: '1970-01-01T00:00:00.000Z' }];
    expect(await readCommittedRows(dir, 'json')).toEqual([{ batchId: 0, rows: rowsOf0 }]);
    // A re-run of batch 0 after a crash before commits/0, by a new runner: its tasks' files are in
    // no entry and are deleted; the zombie's stays, listed nowhere.
    const rerun = new FilesSink({ path: dir, format: 'json', header: true }, new ManualClock(2000));
    const again = [await rerun.commitProtocol.commitTask([{ n: 1, at: 0 }], task(0, 'rerun'))];
    await rerun.commitProtocol.commitJob(0, again, { ...ctx, runId: 'run-b' });
    expect(await readCommittedRows(dir, 'json')).toEqual([{ batchId: 0, rows: rowsOf0 }]);
    expect((await readdir(dir)).filter((f) => f.startsWith('part-')).sort()).toEqual(['part-00000-00000-retry.json', 'part-00000-00000-zombie.json', 'part-00000-00001-first.json']);
    // Another query's batch 0 is refused, as addBatch refuses it.
    await expect(rerun.commitProtocol.commitJob(0, [], { ...ctx, queryId: 'q2' })).rejects.toBeInstanceOf(SinkError);
  });

  it('parquet: one zstd file per batch named and logged as the other formats, which DuckDB reads', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-fsink-'));
    dirs.push(dir);
    const ctx = { outputMode: 'append' as const, schema, queryId: 'q1', runId: 'run-a' };
    const sink = new FilesSink({ path: dir, format: 'parquet', header: true, compression: 'zstd' }, new ManualClock(1000));
    await sink.addBatch(0, [{ n: 1, at: 0 }, { n: 2, at: null }], ctx);
    await sink.addBatch(0, [{ n: 1, at: 0 }, { n: 2, at: null }], ctx);
    await sink.addBatch(1, [], ctx);
    const logged = await new FileStreamSinkLog(new LocalCheckpointFileManager(dir)).all();
    expect(logged.map((b) => b.entry.files.length)).toEqual([1, 0]);
    const [file] = logged[0].entry.files;
    expect(file.path).toMatch(/^part-00000-run-a-[0-9a-z]+\.parquet$/);
    expect((await readdir(dir)).filter((f) => f.startsWith('part-'))).toEqual([file.path]);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      const full = path.join(dir, file.path);
      const meta = (await c.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${full}')`)).getRowObjectsJson();
      expect(meta).toEqual([{ compression: 'ZSTD' }]);
      expect((await stat(full)).size).toBe(file.size);
      const rows = (await c.runAndReadAll(`SELECT n, epoch_ms("at") AS "at" FROM '${full}' ORDER BY n`)).getRowObjectsJson();
      expect(rows).toEqual([{ n: '1', at: '0' }, { n: '2', at: null }]);
    } finally {
      c.closeSync();
      db.closeSync();
    }
    expect(await readCommittedRows(dir, 'parquet')).toEqual([
      { batchId: 0, rows: [{ n: 1, at: '1970-01-01T00:00:00.000Z' }, { n: 2, at: null }] },
      { batchId: 1, rows: [] },
    ]);
  });

  it('refuses a batch id already written by another query', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-fsink-'));
    dirs.push(dir);
    const sink = new FilesSink({ path: dir, format: 'csv', header: true }, new ManualClock());
    await sink.addBatch(0, [{ n: 1, at: 0 }], { outputMode: 'append', schema, queryId: 'old' });
    const err = await sink.addBatch(0, [{ n: 1, at: 0 }], { outputMode: 'append', schema, queryId: 'new' }).catch((e) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(err.message).toMatch(/written by query old, but this is query new/);
    expect(await readCommittedRows(dir, 'csv', { schema })).toEqual([{ batchId: 0, rows: [{ n: 1, at: '1970-01-01T00:00:00.000Z' }] }]);
  });
});

describe('arrays and maps in the JSON outputs', () => {
  const colls: Schema = [
    { name: 'words', type: 'array', elementType: { name: 'element', type: 'string', nullable: true } },
    { name: 'at', type: 'array', elementType: { name: 'element', type: 'timestamp' } },
    { name: 'm', type: 'map', keyType: { name: 'key', type: 'string' }, valueType: { name: 'value', type: 'decimal', precision: 5, scale: 2 } },
  ];
  const rows = [{ words: ['a', null], at: [0], m: { k: 150n } }, { words: null, at: [], m: {} }];

  it('writes them as JSON arrays and objects in JSON lines, as JSON text in CSV, and renders them for the console and webhooks', () => {
    expect(encodeRows(rows, colls, 'json', false)).toBe(
      '{"words":["a",null],"at":["1970-01-01T00:00:00.000Z"],"m":{"k":1.50}}\n{"words":null,"at":[],"m":{}}\n',
    );
    expect(encodeRows(rows, colls, 'csv', true)).toBe('words,at,m\n"[""a"",null]","[""1970-01-01T00:00:00.000Z""]","{""k"":1.50}"\n,[],{}\n');
    expect(stringifyJson(renderRow(rows[0], colls))).toBe('{"words":["a",null],"at":["1970-01-01T00:00:00.000Z"],"m":{"k":1.50}}');
    const w = jsonWriter(colls);
    expect(w.stringify(w.row(rows[0]))).toBe('{"words":["a",null],"at":["1970-01-01T00:00:00.000Z"],"m":{"k":1.50}}');
  });
});
