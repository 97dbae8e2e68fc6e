import * as nodeFs from 'node:fs/promises';
import { mkdir, mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointFileManagerContract } from './testing/checkpoint-file-manager.contract';
import { InMemoryCheckpointFileManager } from './in-memory-checkpoint-file-manager';
import { LocalCheckpointFileManager, type LocalFs } from './local-checkpoint-file-manager';
import { checkpointFileManagerFor } from './checkpoint-location';

checkpointFileManagerContract('local filesystem', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-cfm-'));
  return { fm: new LocalCheckpointFileManager(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

checkpointFileManagerContract('local filesystem without hard links (claims)', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-cfm-claim-'));
  return { fm: new LocalCheckpointFileManager(dir, { createIfAbsent: 'claim' }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

checkpointFileManagerContract('in memory', async () => ({ fm: new InMemoryCheckpointFileManager() }));

describe('LocalCheckpointFileManager specifics', () => {
  it('forces a write to disk (file and directory) unless it is asked not to (sync: false), which still publishes it whole', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-cfm-'));
    try {
      let syncs = 0;
      const counting: LocalFs = {
        ...nodeFs,
        open: (async (...args: Parameters<typeof nodeFs.open>) => {
          const fh = await nodeFs.open(...args);
          const sync = fh.sync.bind(fh);
          fh.sync = () => (syncs++, sync());
          return fh;
        }) as typeof nodeFs.open,
      };
      const fm = new LocalCheckpointFileManager(dir, { fs: counting });
      await fm.createAtomic('shuffle/0/a', 'block', { overwrite: true, sync: false });
      expect(syncs).toBe(0);
      expect((await fm.read('shuffle/0/a')).toString()).toBe('block');
      await fm.createAtomic('shuffle/0/b', 'block', { overwrite: true });
      expect(syncs).toBe(2);
      await fm.createAtomic('offsets/0', 'a');
      expect(syncs).toBe(4);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('leaves no temp files behind after a refused create', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-cfm-'));
    try {
      const fm = new LocalCheckpointFileManager(dir);
      await fm.createAtomic('offsets/0', 'a');
      await expect(fm.createAtomic('offsets/0', 'b')).rejects.toThrow(/already exists/);
      expect(await readdir(path.join(dir, 'offsets'))).toEqual(['0']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('claims: an orphaned claim is taken over after its TTL, a fresh one is respected, delete frees the name', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-cfm-claim-'));
    try {
      const fm = new LocalCheckpointFileManager(dir, { createIfAbsent: 'claim', claimTtlMs: 60_000 });
      await mkdir(path.join(dir, 'offsets', '.5.claim'), { recursive: true });
      // A claim just made by a (live) writer that has not published yet.
      await expect(fm.createAtomic('offsets/5', 'b')).rejects.toThrow(/already exists/);
      // The same claim, long dead.
      const old = new Date(2000, 0, 1);
      await utimes(path.join(dir, 'offsets', '.5.claim'), old, old);
      await fm.createAtomic('offsets/5', 'c');
      expect((await fm.read('offsets/5')).toString()).toBe('c');
      expect(await fm.list('offsets')).toEqual(['5']);
      await fm.delete('offsets/5');
      await fm.createAtomic('offsets/5', 'd');
      expect((await fm.read('offsets/5')).toString()).toBe('d');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses paths that escape the root', async () => {
    const fm = new LocalCheckpointFileManager('/tmp/weir-root-x');
    await expect(fm.read('../../etc/passwd')).rejects.toThrow(/escapes the checkpoint root/);
  });
});

describe('checkpointFileManagerFor', () => {
  it('maps paths, file:// and memory:// and rejects unknown schemes naming the field', () => {
    expect(checkpointFileManagerFor('/tmp/a/b').description).toBe('file:///tmp/a/b');
    expect(checkpointFileManagerFor('file:///tmp/c').description).toBe('file:///tmp/c');
    expect(checkpointFileManagerFor('memory://x').description).toBe('memory://x');
    expect(() => checkpointFileManagerFor('gopher://x/y')).toThrow(/checkpointLocation scheme "gopher:\/\/"/);
  });
});
