/**
 * The files source over Parquet: files DuckDB writes are read as the schema declares; a file
 * whose column cannot be read as declared, a file that lacks a column, and a file that is not
 * whole Parquet (truncated, no footer) each come out as a bad record naming the file (and the
 * column and both types), never as a crash or silently; a run with onBadRecord "fail" stops
 * with that message; the preview reads the last row groups of the newest files.
 */
import { mkdir, mkdtemp, readdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { BadRecordError } from '../errors';
import { MicroBatchExecution } from '../execution/micro-batch-execution';
import { mustParse } from '../execution/testing/test-fixtures';
import { encodeParquet } from '../parquet/parquet-writer';
import { useDuckDB } from '../query/testing/duckdb';
import type { Schema } from '../types';
import { FilesSource } from './files-source';

const duck = useDuckDB();
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const schema: Schema = [
  { name: 'id', type: 'long' },
  { name: 'name', type: 'string' },
  { name: 'ts', type: 'timestamp' },
];

async function fresh(): Promise<{ dir: string; source: FilesSource }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-parquet-src-'));
  dirs.push(dir);
  const source = new FilesSource({ path: dir, format: 'parquet', header: true }, { name: 'src', schema, checkpoint: new InMemoryCheckpointFileManager(), metadataPath: 'sources/0', clock: new ManualClock() });
  await source.open();
  return { dir, source };
}

/** DuckDB writes `select` as `name` in `dir`, atomically (hidden name, then rename), as a producer must. */
async function duckWrites(dir: string, name: string, select: string, options = ''): Promise<void> {
  const tmp = path.join(dir, `.${name}.tmp`);
  await duck().run(`COPY (${select}) TO '${tmp}' (FORMAT parquet, COMPRESSION snappy${options})`);
  await rename(tmp, path.join(dir, name));
}

async function batch(source: FilesSource) {
  const end = await source.latestOffset(null);
  return source.getBatch(null, end);
}

describe('files source, format parquet', () => {
  it('reads files DuckDB writes, pruned to the columns the query needs', async () => {
    const { dir, source } = await fresh();
    await duckWrites(dir, 'a.parquet', `SELECT i::BIGINT AS id, 'n' || i AS name, TIMESTAMP '2024-01-01' + to_seconds(i) AS ts, 1.5 AS extra FROM range(3) t(i)`);
    await duckWrites(dir, 'b.parquet', `SELECT 3::BIGINT AS id, NULL::VARCHAR AS name, NULL::TIMESTAMP AS ts`);
    const got = await batch(source);
    expect(got.badRecords).toEqual([]);
    expect(got.rows).toEqual([
      ...[0, 1, 2].map((i) => ({ id: i, name: `n${i}`, ts: Date.UTC(2024, 0, 1, 0, 0, i) })),
      { id: 3, name: null, ts: null },
    ]);

    const pruned = new FilesSource({ path: dir, format: 'parquet', header: true }, { name: 'src', schema, checkpoint: new InMemoryCheckpointFileManager(), metadataPath: 'sources/0', clock: new ManualClock(), requiredColumns: ['id'] });
    await pruned.open();
    expect((await batch(pruned)).rows).toEqual([{ id: 0 }, { id: 1 }, { id: 2 }, { id: 3 }]);
  });

  it('a column of another type is a bad record naming the file, the column and both types', async () => {
    const { dir, source } = await fresh();
    await duckWrites(dir, 'a.parquet', `SELECT 'x' AS id, 'n' AS name, TIMESTAMP '2024-01-01' AS ts`);
    await duckWrites(dir, 'b.parquet', `SELECT 7::BIGINT AS id, 'ok' AS name, TIMESTAMP '2024-01-01' AS ts`);
    const got = await batch(source);
    expect(got.rows).toEqual([{ id: 7, name: 'ok', ts: Date.UTC(2024, 0, 1) }]);
    expect(got.badRecords).toHaveLength(1);
    expect(got.badRecords[0].location.source).toBe(path.join(dir, 'a.parquet'));
    expect(got.badRecords[0].reason).toMatch(/a\.parquet: column id is Utf8 in the file, which cannot be read as long \(declared long in source\.schema\)/);
  });

  it('a file that lacks a declared column reads it as NULL and says so', async () => {
    const { dir, source } = await fresh();
    await duckWrites(dir, 'a.parquet', `SELECT 1::BIGINT AS id`);
    const got = await batch(source);
    expect(got.rows).toEqual([{ id: 1, name: null, ts: null }]);
    expect(got.badRecords.map((b) => b.reason)).toEqual([expect.stringMatching(/a\.parquet lacks column\(s\) name, ts; the file's columns are read as NULL/)]);
  });

  it('a truncated file, a file without a footer and a foreign file are bad records, and the next file still reads', async () => {
    const { dir, source } = await fresh();
    const whole = await encodeParquet([{ id: 1, name: 'a', ts: 0 }], schema, 'snappy');
    await writeFile(path.join(dir, 'a-truncated.parquet'), whole.subarray(0, whole.length - 9));
    await writeFile(path.join(dir, 'b-headless.parquet'), whole.subarray(4));
    await writeFile(path.join(dir, 'c-json.parquet'), '{"id":1}\n');
    await writeFile(path.join(dir, 'd-empty.parquet'), '');
    await writeFile(path.join(dir, 'e-good.parquet'), whole);
    const got = await batch(source);
    expect(got.rows).toEqual([{ id: 1, name: 'a', ts: 0 }]);
    expect(got.badRecords.map((b) => path.basename(b.location.source))).toEqual(['a-truncated.parquet', 'b-headless.parquet', 'c-json.parquet', 'd-empty.parquet']);
    for (const b of got.badRecords) expect(b.reason).toMatch(/is not a readable Parquet file \(.+\); a file must be complete when it appears/);
  });

  it('a run with onBadRecord "fail" stops on a corrupt file with that message, and commits nothing', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'weir-parquet-run-'));
    dirs.push(root);
    const input = path.join(root, 'in');
    await mkdir(input);
    await writeFile(path.join(input, 'a.parquet'), 'PAR1 not really');
    const spec = mustParse({
      name: 'parquet-fail',
      source: { name: 'events', type: 'files', options: { path: input, format: 'parquet' }, schema },
      sql: 'SELECT id FROM events',
      sink: { type: 'files', options: { path: path.join(root, 'out'), format: 'parquet' } },
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(root, 'checkpoint'),
    });
    const run = new MicroBatchExecution({ spec, clock: new ManualClock(0) });
    const err = await run.processAllAvailable().catch((e: unknown) => e);
    await run.stop().catch(() => undefined);
    expect(err).toBeInstanceOf(BadRecordError);
    expect((err as Error).message).toMatch(/a\.parquet is not a readable Parquet file/);
    expect(await readdir(path.join(root, 'checkpoint', 'commits')).catch(() => [])).toEqual([]);
  });

  it('the preview reads the newest Parquet files, oldest first, within its record bound', async () => {
    const { dir, source } = await fresh();
    const rows = (from: number) => [0, 1, 2].map((i) => ({ id: from + i, name: `r${from + i}`, ts: 0 }));
    for (const [i, name] of ['old.parquet', 'new.parquet'].entries()) {
      await writeFile(path.join(dir, name), await encodeParquet(rows(i * 10), schema, 'zstd'));
      await utimes(path.join(dir, name), 1_790_000_000 + i, 1_790_000_000 + i);
    }
    const four = await source.sampleRecent({ records: 4, bytes: 1 << 20, timeoutMs: 5_000, signal: new AbortController().signal });
    expect(four.rows.map((r) => r.id)).toEqual([2, 10, 11, 12]);
    expect(four.stoppedAtBytes).toBe(false);
  });

  it('the preview reads only the last row groups it needs, counting their uncompressed bytes against its bound', async () => {
    const { dir, source } = await fresh();
    await duckWrites(dir, 'big.parquet', `SELECT i::BIGINT AS id, 'n' || i AS name, TIMESTAMP '2024-01-01' AS ts FROM range(6144) t(i) ORDER BY i`, ', ROW_GROUP_SIZE 2048');
    const full = path.join(dir, 'big.parquet');
    const groups = (await duck().runAndReadAll(`SELECT DISTINCT row_group_id, row_group_bytes FROM parquet_metadata('${full}') ORDER BY row_group_id`)).getRowObjectsJson();
    expect(groups.length).toBeGreaterThan(1);
    const last = Number(groups.at(-1)!.row_group_bytes);
    const signal = new AbortController().signal;
    const five = await source.sampleRecent({ records: 5, bytes: 1 << 20, timeoutMs: 5_000, signal });
    expect(five.rows.map((r) => r.id)).toEqual([6139, 6140, 6141, 6142, 6143]);
    expect(five.bytesRead).toBe(last);
    const none = await source.sampleRecent({ records: 5, bytes: last - 1, timeoutMs: 5_000, signal });
    expect(none).toMatchObject({ rows: [], badRecords: [], bytesRead: 0, stoppedAtBytes: true });
  });
});
