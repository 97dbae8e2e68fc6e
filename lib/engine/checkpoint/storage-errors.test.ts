/**
 * Storage that refuses a write (full, read-only, no permission, an I/O error) ends the run with
 * CHECKPOINT_WRITE_FAILED (checkpoint, state) or SINK_ERROR (files sink) naming the file, the
 * errno and what to do, and leaves no temporary file behind; once storage is fixed the job
 * resumes from its last commit with every row once.
 *
 * ENOSPC is real: a 256 KiB tmpfs mounted for this file (the tests run as root). Where mount is
 * not permitted, those tests are skipped and say so; the rest inject faults through the
 * manager's `fs` option, because EACCES cannot be produced by chmod for root, and EIO, EROFS
 * and EDQUOT cannot be produced on demand at all.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { CheckpointWriteFailedError, SinkError } from '../errors';
import { MicroBatchExecution } from '../execution/micro-batch-execution';
import { eventGenerator, filesJob, tempDir, writeInputFile } from '../execution/testing/test-fixtures';
import { FilesSink, readCommittedRows } from '../sinks/files-sink';
import { FileBackedStateStoreProvider } from '../state/file-backed-state-store-provider';
import type { Schema } from '../types';
import { LocalCheckpointFileManager, type LocalFs } from './local-checkpoint-file-manager';
import { OffsetSeqLog } from './offset-seq-log';

const T0 = Date.UTC(2024, 5, 1);
const roots: string[] = [];

const tmpfsDir = await tempDir('tmpfs');
roots.push(tmpfsDir);
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', tmpfsDir], { stdio: 'pipe' });
  mounted = true;
} catch (e) {
  console.warn(`storage-errors.test: cannot mount a tmpfs here (${(e as Error).message.split('\n')[0]}); the real-ENOSPC tests are skipped, the injected ones still run`);
}

afterAll(async () => {
  if (mounted) execFileSync('umount', [tmpfsDir]);
  for (const r of roots) await fs.rm(r, { recursive: true, force: true });
});

/** Fills the filesystem holding `dir` to its last byte; returns the filler to delete. */
async function fill(dir: string): Promise<string> {
  const filler = path.join(dir, 'filler');
  const fh = await fs.open(filler, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) await fh.write(chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    await fh.close();
  }
  return filler;
}

/** Every hidden temp file (`.<name>.<pid>.<n>.tmp`) under dir. */
async function tempFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && /^\..*\.tmp$/.test(e.name)) out.push(path.join(e.parentPath, e.name));
  }
  return out;
}

const OUT_SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 'name_upper', type: 'string' },
  { name: 'doubled', type: 'double' },
  { name: 'ts', type: 'timestamp' },
];

describe.runIf(mounted)('a real full filesystem (256 KiB tmpfs)', () => {
  it('checkpoint: CHECKPOINT_WRITE_FAILED naming the file and ENOSPC, no temp file; after freeing space the job resumes, every row once', async () => {
    const job = await filesJob('json', { spec: { checkpointLocation: path.join(tmpfsDir, 'cp') } });
    roots.push(job.root);
    const checkpoint = path.join(tmpfsDir, 'cp');
    const gen = eventGenerator(21);
    const rows = gen(20);
    await writeInputFile(job.input, 0, rows.slice(0, 10), 'json');
    const q0 = new MicroBatchExecution({ spec: job.spec, clock: new ManualClock(T0) });
    await q0.processAllAvailable();
    await q0.stop();

    const filler = await fill(tmpfsDir);
    await writeInputFile(job.input, 1, rows.slice(10), 'json');
    const q1 = new MicroBatchExecution({ spec: job.spec, clock: new ManualClock(T0) });
    const err = await q1.processAllAvailable().then(() => null, (e: unknown) => e);
    await q1.stop();
    expect(err).toBeInstanceOf(CheckpointWriteFailedError);
    const e = err as CheckpointWriteFailedError;
    expect(e.code).toBe('CHECKPOINT_WRITE_FAILED');
    const file = (e.details as { file: string }).file;
    expect(file.startsWith(checkpoint + path.sep)).toBe(true);
    expect(e.details).toMatchObject({ errno: 'ENOSPC' });
    expect(e.message).toContain(`Could not write ${file}: ENOSPC (no space left on device`);
    expect(e.message).toMatch(/The filesystem is full: free space on it/);
    expect(e.message).toMatch(/the job resumes from the last committed batch/);
    expect(await tempFiles(checkpoint)).toEqual([]);
    expect(await fs.stat(file).catch(() => null)).toBeNull();

    await fs.rm(filler);
    const q2 = new MicroBatchExecution({ spec: job.spec, clock: new ManualClock(T0) });
    await q2.processAllAvailable();
    await q2.stop();
    expect(await new OffsetSeqLog(new LocalCheckpointFileManager(checkpoint)).batchIds()).toEqual([0, 1]);
    const answer = (await readCommittedRows(job.output, 'json', { schema: OUT_SCHEMA })).flatMap((b) => b.rows);
    expect(answer).toEqual(job.harness.expected(rows));
  });

  it('files sink: SINK_ERROR naming the data file and ENOSPC, no temp file in the output', async () => {
    const out = path.join(tmpfsDir, 'out');
    await fs.mkdir(out);
    const filler = await fill(tmpfsDir);
    try {
      const sink = new FilesSink({ path: out, format: 'json', header: true }, new ManualClock(T0));
      const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, name: 'x'.repeat(100) }));
      const err = await sink.addBatch(0, rows, { outputMode: 'append', schema: [{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }], queryId: 'q' }).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(SinkError);
      const e = err as SinkError;
      expect(e.code).toBe('SINK_ERROR');
      expect(e.details).toMatchObject({ batchId: 0, errno: 'ENOSPC' });
      expect(e.message).toMatch(new RegExp(`The files sink could not write ${out}/part-00000-[^ ]+\\.json: ENOSPC \\(no space left on device`));
      expect(e.message).toMatch(/batch 0 is not committed and re-runs from the last commit/);
      expect(await tempFiles(out)).toEqual([]);
      expect(await fs.readdir(out)).toEqual([]);
    } finally {
      await fs.rm(filler);
    }
  });
});

/** A fault-injecting `fs`: `fault(op, path)` returns the errno to fail that call with, or undefined. */
function faultyFs(fault: (op: 'open' | 'write' | 'fsync' | 'link' | 'rename' | 'rm', p: string) => string | undefined): LocalFs {
  const fail = (op: Parameters<typeof fault>[0], p: string) => {
    const code = fault(op, p);
    if (code) throw Object.assign(new Error(`${code}: injected fault, ${op} '${p}'`), { code, syscall: op, path: p });
  };
  return {
    mkdir: fs.mkdir,
    stat: fs.stat,
    readFile: fs.readFile,
    readdir: fs.readdir,
    unlink: fs.unlink,
    async open(p: string, flags?: string) {
      fail('open', p);
      const fh = await fs.open(p, flags);
      return new Proxy(fh, {
        get(target, key) {
          // The bytes reach the temp file, then the write reports the error: the temp file exists and must go.
          if (key === 'writeFile') return async (d: Uint8Array | string) => { await target.writeFile(d); fail('write', p); };
          if (key === 'sync') return async () => { fail('fsync', p); await target.sync(); };
          const v = Reflect.get(target, key);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    },
    async link(a: string, b: string) {
      fail('link', b);
      await fs.link(a, b);
    },
    async rename(a: string, b: string) {
      fail('rename', b);
      await fs.rename(a, b);
    },
    async rm(p: string, o?: Parameters<typeof fs.rm>[1]) {
      if (!path.basename(p).endsWith('.tmp')) fail('rm', p);
      await fs.rm(p, o);
    },
  } as LocalFs;
}

describe('injected storage faults', () => {
  async function root() {
    const r = await tempDir('faults');
    roots.push(r);
    return r;
  }

  it.each([
    ['ENOSPC', 'write', /The filesystem is full/],
    ['EDQUOT', 'fsync', /disk quota of the user Weir runs as is used up/],
    ['EIO', 'link', /I\/O error: check the device and the kernel log/],
    ['EACCES', 'open', /fix the owner or mode of the directory holding/],
    ['EROFS', 'write', /mounted read-only: remount it read-write/],
  ] as const)('offsets/N: %s at %s → CHECKPOINT_WRITE_FAILED naming offsets/3, no temp file, nothing published', async (errno, op, advice) => {
    const r = await root();
    const fm = new LocalCheckpointFileManager(r, { fs: faultyFs((o, p) => (o === op && p.includes(`${path.sep}offsets${path.sep}`) ? errno : undefined)) });
    const err = await new OffsetSeqLog(fm).add(3, { metadata: { batchWatermarkMs: 0, batchTimestampMs: 0, conf: {} }, offsets: [null] }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointWriteFailedError);
    expect((err as Error).message).toContain(`Could not write ${r}/offsets/3: ${errno} (injected fault, ${op} `);
    expect((err as Error).message).toMatch(advice);
    expect((err as CheckpointWriteFailedError).details).toMatchObject({ file: `${r}/offsets/3`, errno });
    expect(await tempFiles(r)).toEqual([]);
    expect(await fm.exists('offsets/3')).toBe(false);
  });

  it('a state delta refused with EACCES: CHECKPOINT_WRITE_FAILED naming state/0/0/1.delta, no temp file; the store commits once storage is fixed', async () => {
    const r = await root();
    let broken = true;
    const fm = new LocalCheckpointFileManager(r, { fs: faultyFs((o, p) => (broken && o === 'write' && p.includes('1.delta') ? 'EACCES' : undefined)) });
    const provider = new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0 });
    const store = await provider.getStore(0);
    store.put('k', new Uint8Array([1, 2, 3]));
    const err = await store.commit().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointWriteFailedError);
    expect((err as Error).message).toContain(`Could not write ${r}/state/0/0/1.delta: EACCES`);
    expect(await tempFiles(r)).toEqual([]);
    expect(await fm.list('state/0/0')).toEqual([]);
    broken = false;
    expect(await store.commit()).toBe(1);
    const reloaded = await new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }).getStore(1);
    expect([...reloaded.get('k')!]).toEqual([1, 2, 3]);
  });

  it('a state snapshot refused with EROFS at rename: CHECKPOINT_WRITE_FAILED naming it, no temp file, the committed delta still loads', async () => {
    const r = await root();
    const fm = new LocalCheckpointFileManager(r, { fs: faultyFs((o, p) => (o === 'rename' && p.endsWith('.snapshot') ? 'EROFS' : undefined)) });
    const provider = new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }, { minDeltasForSnapshot: 1 });
    const store = await provider.getStore(0);
    store.put('k', new Uint8Array([7]));
    await store.commit();
    const err = await provider.maintenance().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointWriteFailedError);
    expect((err as Error).message).toContain(`Could not write ${r}/state/0/0/1.snapshot: EROFS`);
    expect(await tempFiles(r)).toEqual([]);
    expect(await fm.list('state/0/0')).toEqual(['1.delta']);
    expect((await new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }).getStore(1)).get('k')).toEqual(Buffer.from([7]));
  });

  it('a purge refused with EACCES names the file too', async () => {
    const r = await root();
    const plain = new LocalCheckpointFileManager(r);
    await plain.createAtomic('commits/0', 'v1\n{}');
    const fm = new LocalCheckpointFileManager(r, { fs: faultyFs((o) => (o === 'rm' ? 'EACCES' : undefined)) });
    const err = await fm.delete('commits/0').then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointWriteFailedError);
    expect((err as Error).message).toContain(`Could not write ${r}/commits/0: EACCES`);
  });

  it('files sink: EACCES on the data file and EIO on _weir_metadata are SINK_ERROR naming the file, no temp file, nothing logged', async () => {
    const out = await root();
    const schema: Schema = [{ name: 'id', type: 'long' }];
    const ctx = { outputMode: 'append' as const, schema, queryId: 'q' };
    const data = new FilesSink({ path: out, format: 'json', header: true }, new ManualClock(T0), undefined, {
      fs: faultyFs((o, p) => (o === 'open' && /part-00000/.test(p) ? 'EACCES' : undefined)),
    });
    const e1 = await data.addBatch(0, [{ id: 1 }], ctx).then(() => null, (e: unknown) => e);
    expect(e1).toBeInstanceOf(SinkError);
    expect((e1 as Error).message).toMatch(new RegExp(`could not write ${out}/part-00000-[^ ]+\\.json: EACCES .*fix the owner or mode`));
    expect((e1 as SinkError).details).toMatchObject({ batchId: 0, errno: 'EACCES' });

    const log = new FilesSink({ path: out, format: 'json', header: true }, new ManualClock(T0), undefined, {
      fs: faultyFs((o, p) => (o === 'write' && p.includes(`_weir_metadata${path.sep}`) ? 'EIO' : undefined)),
    });
    const e2 = await log.addBatch(0, [{ id: 1 }], ctx).then(() => null, (e: unknown) => e);
    expect(e2).toBeInstanceOf(SinkError);
    expect((e2 as Error).message).toContain(`could not write ${out}/_weir_metadata/0: EIO`);
    expect(await tempFiles(out)).toEqual([]);
    expect(await readCommittedRows(out, 'json')).toEqual([]);
  });
});
