import { mkdir, mkdtemp, rm, writeFile, appendFile, unlink, symlink, lstat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { DataLossError, PathNotFoundError } from '../errors';
import type { Schema } from '../types';
import { FilesSource } from './files-source';

const schema: Schema = [{ name: 'n', type: 'long' }];
const dirs: string[] = [];
afterEach(async () => {
  while (dirs.length) await rm(dirs.pop()!, { recursive: true, force: true });
});

async function setup(maxFilesPerTrigger?: number) {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-fsrc-'));
  dirs.push(dir);
  const checkpoint = new InMemoryCheckpointFileManager();
  const make = () =>
    new FilesSource({ path: dir, format: 'json', header: true, maxFilesPerTrigger }, { name: 'src', schema, checkpoint, metadataPath: 'sources/0', clock: new ManualClock() });
  const put = (name: string, ns: number[]) => writeFile(path.join(dir, name), ns.map((n) => JSON.stringify({ n })).join('\n') + '\n');
  return { dir, checkpoint, make, put };
}

describe('FilesSource', () => {
  it('fails to open on a folder that does not exist, as Spark does (PATH_NOT_FOUND), saying to create it; once made, it opens', async () => {
    const { dir } = await setup();
    const missing = path.join(dir, 'mistyped');
    const s = new FilesSource({ path: missing, format: 'json', header: true }, { name: 'src', schema, checkpoint: new InMemoryCheckpointFileManager(), metadataPath: 'sources/0', clock: new ManualClock() });
    const err = await s.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PathNotFoundError);
    expect(err).toMatchObject({ code: 'PATH_NOT_FOUND', errorClass: 'PATH_NOT_FOUND', details: { path: missing } });
    expect((err as Error).message).toContain(`create the folder (mkdir -p '${missing}')`);
    await mkdir(missing);
    await expect(s.open()).resolves.toBeUndefined();
  });

  it('never follows a symbolic link in its directory: a run skips it, and one swapped in after listing is refused', async () => {
    const { dir, make, put, checkpoint } = await setup();
    const outside = await mkdtemp(path.join(tmpdir(), 'weir-fsrc-outside-'));
    dirs.push(outside);
    await writeFile(path.join(outside, 'secret.json'), JSON.stringify({ n: 666 }) + '\n');
    await put('a.json', [1]);
    await symlink(path.join(outside, 'secret.json'), path.join(dir, 'p.json'));
    const s = make();
    await s.open();
    const o1 = await s.latestOffset(null);
    expect((await s.getBatch(null, o1!)).rows).toEqual([{ n: 1 }]);
    expect((await checkpoint.read('sources/0/0')).toString()).not.toContain('p.json');
    // a.json, listed and logged, is replaced by a link to the same content: the replay refuses it.
    await unlink(path.join(dir, 'a.json'));
    await symlink(path.join(outside, 'secret.json'), path.join(dir, 'a.json'));
    const err = await make().getBatch(null, o1!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataLossError);
    expect((err as Error).message).toMatch(/a\.json was replaced by a symbolic link .*never follows a symbolic link/);
  });

  it('plans one split per file (map tasks), each read alone by an unopened instance; together they read the range in order', async () => {
    const { make, put } = await setup();
    await put('a.json', [1, 2]);
    await put('b.json', [3]);
    const s = make();
    await s.open();
    const o1 = await s.latestOffset(null);
    await put('c.json', [4, 5]);
    const o2 = await s.latestOffset(o1);
    const splits = await s.planInputPartitions(null, o2!);
    expect(splits).toEqual([
      { start: null, end: { logOffset: 0, file: 0 } },
      { start: null, end: { logOffset: 0, file: 1 } },
      { start: { logOffset: 0 }, end: { logOffset: 1, file: 0 } },
    ]);
    const read = [];
    for (const split of splits) read.push(...(await make().getBatch(split.start, split.end)).rows);
    expect(read).toEqual((await s.getBatch(null, o2!)).rows);
    expect(read.map((r) => r.n)).toEqual([1, 2, 3, 4, 5]);
  });

  it('takes new files in name order, honours maxFilesPerTrigger, ignores hidden names, logs each batch', async () => {
    const { make, put, checkpoint, dir } = await setup(2);
    await put('b.json', [2]);
    await put('a.json', [1]);
    await put('c.json', [3]);
    await put('.d.json.tmp', [99]);
    await put('_SUCCESS', [98]);
    const s = make();
    await s.open();
    const o1 = await s.latestOffset(null);
    expect(o1).toEqual({ logOffset: 0 });
    expect((await s.getBatch(null, o1!)).rows).toEqual([{ n: 1 }, { n: 2 }]);
    const o2 = await s.latestOffset(o1);
    expect((await s.getBatch(o1, o2!)).rows).toEqual([{ n: 3 }]);
    expect(await s.latestOffset(o2)).toEqual(o2);
    // Spark's FileEntry: the path, and the modification time when listed (`timestamp`).
    const mtime = async (f: string) => Math.floor((await lstat(path.join(dir, f))).mtimeMs);
    expect((await checkpoint.read('sources/0/0')).toString()).toBe(`v1\n{"path":"a.json","size":8,"timestamp":${await mtime('a.json')}}\n{"path":"b.json","size":8,"timestamp":${await mtime('b.json')}}`);
    expect(s.offsetLag(o1, await s.reportLatestOffset())).toBe(1);
  });

  it('replays exactly the logged files after a restart, whatever arrived since', async () => {
    const { make, put } = await setup();
    await put('a.json', [1, 2]);
    const first = make();
    await first.open();
    const end = await first.latestOffset(null);
    await put('b.json', [3]);
    const again = make();
    await again.open();
    expect((await again.getBatch(null, end!)).rows).toEqual([{ n: 1 }, { n: 2 }]);
    const next = await again.latestOffset(end);
    expect((await again.getBatch(end, next!)).rows).toEqual([{ n: 3 }]);
  });

  it('plans an entry a dead run logged as the next batch by itself, within maxFilesPerTrigger', async () => {
    const { make, put } = await setup(1);
    await put('a.json', [1]);
    await put('b.json', [2]);
    const first = make();
    await first.open();
    const o0 = await first.latestOffset(null);
    // The run plans b.json as entry 1 and dies before its offsets/N: entry 1 is logged, no batch holds it.
    expect(await first.latestOffset(o0)).toEqual({ logOffset: 1 });
    await put('c.json', [3]);
    const again = make();
    await again.open();
    const o1 = await again.latestOffset(o0);
    expect(o1).toEqual({ logOffset: 1 });
    expect((await again.getBatch(o0, o1!)).rows).toEqual([{ n: 2 }]);
    const o2 = await again.latestOffset(o1);
    expect(o2).toEqual({ logOffset: 2 });
    expect((await again.getBatch(o1, o2!)).rows).toEqual([{ n: 3 }]);
    expect(await again.latestOffset(o2)).toEqual(o2);
    // Without a limit the entry and the new files make one batch, as in Spark.
    const { make: makeAll, put: putAll } = await setup();
    await putAll('a.json', [1]);
    const dead = makeAll();
    await dead.open();
    await dead.latestOffset(null);
    await putAll('b.json', [2]);
    const next = makeAll();
    await next.open();
    const end = await next.latestOffset(null);
    expect((await next.getBatch(null, end!)).rows).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('fails with DATA_LOSS when a logged file changed or vanished, instead of reading something else', async () => {
    const { make, put, dir } = await setup();
    await put('a.json', [1]);
    const s = make();
    await s.open();
    const end = await s.latestOffset(null);
    await appendFile(path.join(dir, 'a.json'), '{"n":2}\n');
    await expect(s.getBatch(null, end!)).rejects.toThrow(/changed size/);
    await unlink(path.join(dir, 'a.json'));
    const err = await s.getBatch(null, end!).catch((e) => e);
    expect(err).toBeInstanceOf(DataLossError);
    expect(err.message).toMatch(/was deleted but a batch recorded in the checkpoint needs it/);
  });

  it('reads a file as UTF-8 whether it holds ASCII only or not, a byte-order mark and invalid bytes included', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-fsrc-text-'));
    dirs.push(dir);
    const text: Schema = [{ name: 's', type: 'string' }];
    const lines = (ss: string[]) => ss.map((x) => JSON.stringify({ s: x })).join('\n') + '\n';
    await writeFile(path.join(dir, 'a.json'), lines(['plain', 'tab\there', '~']));
    await writeFile(path.join(dir, 'b.json'), lines(['café', '日本', '😀', 'ÿ']));
    await writeFile(path.join(dir, 'c.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines(['after a BOM']))]));
    // A byte that is not UTF-8 reads as U+FFFD, as Spark's reader (and TextDecoder) replace it.
    await writeFile(path.join(dir, 'd.json'), Buffer.concat([Buffer.from('{"s":"x'), Buffer.from([0xff]), Buffer.from('y"}\n')]));
    const json = new FilesSource({ path: dir, format: 'json', header: true }, { name: 'src', schema: text, checkpoint: new InMemoryCheckpointFileManager(), metadataPath: 'sources/0', clock: new ManualClock() });
    await json.open();
    const batch = await json.getBatch(null, (await json.latestOffset(null))!);
    expect(batch.badRecords).toEqual([]);
    expect(batch.rows.map((r) => r.s)).toEqual(['plain', 'tab\there', '~', 'café', '日本', '😀', 'ÿ', 'after a BOM', 'x\ufffdy']);

    // Files of several MB, ASCII and not: read in pieces, whose joins fall inside lines.
    const bigDir = await mkdtemp(path.join(tmpdir(), 'weir-fsrc-big-'));
    dirs.push(bigDir);
    const many = Array.from({ length: 40_000 }, (_, i) => `line ${i} ${'x'.repeat(i % 97)}`);
    await writeFile(path.join(bigDir, 'a.json'), lines(many));
    await writeFile(path.join(bigDir, 'b.json'), lines([...many, 'é']));
    const big = new FilesSource({ path: bigDir, format: 'json', header: true }, { name: 'src', schema: text, checkpoint: new InMemoryCheckpointFileManager(), metadataPath: 'sources/0', clock: new ManualClock() });
    await big.open();
    const read = await big.getBatch(null, (await big.latestOffset(null))!);
    expect(read.badRecords).toEqual([]);
    expect(read.rows.map((r) => r.s)).toEqual([...many, ...many, 'é']);

    // Lines longer than a read segment (64 KB), multi-byte characters across every offset, a
    // bad line and a last line without its newline: the same rows, and the bad line's number.
    const longDir = await mkdtemp(path.join(tmpdir(), 'weir-fsrc-long-'));
    dirs.push(longDir);
    const long = Array.from({ length: 60 }, (_, i) => `${'é'.repeat(i)}${'日x'.repeat((i * 7919) % 50_000)}😀`);
    await writeFile(path.join(longDir, 'a.json'), lines(long.slice(0, 30)) + '{"s": \n' + lines(long.slice(30)).slice(0, -1));
    const longSource = new FilesSource({ path: longDir, format: 'json', header: true }, { name: 'src', schema: text, checkpoint: new InMemoryCheckpointFileManager(), metadataPath: 'sources/0', clock: new ManualClock() });
    await longSource.open();
    const longRead = await longSource.getBatch(null, (await longSource.latestOffset(null))!);
    expect(longRead.rows.map((r) => r.s)).toEqual(long);
    expect(longRead.badRecords.map((b) => [b.location.line, b.raw])).toEqual([[31, '{"s": ']]);

    const csvDir = await mkdtemp(path.join(tmpdir(), 'weir-fsrc-csv-'));
    dirs.push(csvDir);
    await writeFile(path.join(csvDir, 'a.csv'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('s\nnaïve\nascii\n')]));
    const csv = new FilesSource({ path: csvDir, format: 'csv', header: true }, { name: 'src', schema: text, checkpoint: new InMemoryCheckpointFileManager(), metadataPath: 'sources/0', clock: new ManualClock() });
    await csv.open();
    expect((await csv.getBatch(null, (await csv.latestOffset(null))!)).rows).toEqual([{ s: 'naïve' }, { s: 'ascii' }]);
  });
});
