import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { listLocalStateCaches, predictCacheLoad, removeLocalStateCache } from './lmdb-local-cache';
import { LmdbStateStoreProvider } from './lmdb-state-store-provider';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

async function cacheDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'weir-local-cache-'));
  roots.push(d);
  return d;
}

/** Commits versions 1..n of one store, one key each, with its local cache under `<dir>/<queryId>`. */
async function commitVersions(fm: InMemoryCheckpointFileManager, dir: string, queryId: string, from: number, to: number, tag = 'a') {
  const p = new LmdbStateStoreProvider(fm, { operatorId: 0, partitionId: 1 }, {}, { localDir: path.join(dir, queryId) });
  for (let v = from; v < to; v++) {
    const s = await p.getStore(v);
    s.put(`${tag}${v}`, Buffer.alloc(100, v));
    await s.commit();
  }
  return p;
}

describe('the LMDB provider\'s local caches, seen from outside the run', () => {
  it('lists each query\'s store environments with their version and bytes, while the run holds them open', async () => {
    const fm = new InMemoryCheckpointFileManager(new Map(), 'lc');
    const dir = await cacheDir();
    const p = await commitVersions(fm, dir, 'q1', 0, 3);
    const [q] = await listLocalStateCaches(dir);
    expect(q).toMatchObject({ queryId: 'q1', path: path.join(dir, 'q1') });
    expect(q.stores).toHaveLength(1);
    expect(q.stores[0]).toMatchObject({ dir: 'state/0/1', fromThisBoot: true, local: { version: 3, checkpoint: 'memory://lc', file: '3.changelog' } });
    expect(q.stores[0].bytes).toBeGreaterThan(0);
    expect(q.bytes).toBeGreaterThanOrEqual(q.stores[0].bytes);
    expect(await predictCacheLoad(fm, q.stores[0], 3)).toMatchObject({ reuse: true });
    // The provider still works after the outside read.
    const s = await p.getStore(3);
    expect(s.get('a2')).toEqual(Buffer.alloc(100, 2));
    await p.close();
    expect(await listLocalStateCaches(path.join(dir, 'absent'))).toEqual([]);
  });

  it('predicts a rebuild when the version differs or the checkpoint rewrote it elsewhere, as the provider then does', async () => {
    const fm = new InMemoryCheckpointFileManager(new Map(), 'lc2');
    const dir = await cacheDir();
    await (await commitVersions(fm, dir, 'q', 0, 3)).close();
    let [store] = (await listLocalStateCaches(dir))[0].stores;
    expect(await predictCacheLoad(fm, store, 2)).toMatchObject({ reuse: false, reason: expect.stringContaining('Holds version 3, the next start loads 2') });
    expect(await predictCacheLoad(new InMemoryCheckpointFileManager(new Map(), 'other'), store, 3)).toMatchObject({ reuse: false, reason: expect.stringContaining('another checkpoint') });

    // Another worker re-ran batch 2 from version 2 and committed a different version 3.
    const elsewhere = await cacheDir();
    await (await commitVersions(fm, elsewhere, 'q', 2, 3, 'b')).close();
    [store] = (await listLocalStateCaches(dir))[0].stores;
    expect(await predictCacheLoad(fm, store, 3)).toMatchObject({ reuse: false, reason: expect.stringContaining('no longer the one') });

    // The provider agrees: loading version 3 here rebuilds.
    const p = new LmdbStateStoreProvider(fm, { operatorId: 0, partitionId: 1 }, {}, { localDir: path.join(dir, 'q') });
    const s = await p.getStore(3);
    expect(s.metrics().customMetrics).toMatchObject({ lmdbRebuiltFromCheckpoint: 1 });
    expect(s.get('b2')).toBeDefined();
    await p.close();
    [store] = (await listLocalStateCaches(dir))[0].stores;
    expect(await predictCacheLoad(fm, store, 3)).toMatchObject({ reuse: true });
  });

  it('removes one query\'s caches and refuses a name that is not a query id', async () => {
    const fm = new InMemoryCheckpointFileManager(new Map(), 'lc3');
    const dir = await cacheDir();
    await (await commitVersions(fm, dir, 'gone', 0, 2)).close();
    await (await commitVersions(fm, dir, 'kept', 0, 2)).close();
    await removeLocalStateCache(dir, 'gone');
    expect((await listLocalStateCaches(dir)).map((q) => q.queryId)).toEqual(['kept']);
    await expect(removeLocalStateCache(dir, '..')).rejects.toThrow(/not a query id/);
    await expect(removeLocalStateCache(dir, 'a/b')).rejects.toThrow(/not a query id/);
  });
});
