/**
 * An operator with named stores (a stream-stream join keeps four per partition, each in its own
 * directory `state/<op>/<partition>/<store>/`) through everything that reads or rewrites state
 * files by path: `weir checkpoint inspect`, the conversion between state store providers, and the
 * checkpoint layout that decides which files a reset deletes and a savepoint copies.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { inspectCheckpoint } from '../checkpoint/checkpoint-inspector';
import { isCheckpointDirectory, isCheckpointEntry } from '../checkpoint/checkpoint-layout';
import { JOIN_STORE_NAMES } from '../operators/symmetric-hash-join-state';
import { FileBackedStateStoreProvider } from './file-backed-state-store-provider';
import { LmdbStateStoreProvider } from './lmdb-state-store-provider';
import { convertStateProvider } from './state-provider-conversion';
import { StateSchemaCompatibilityChecker } from './state-schema-compatibility-checker';
import type { StateStoreProvider } from './state-store';

const VERSIONS = 5;

/** A join's four stores in partition 0 of operator 0, each committed VERSIONS times, with its schema file. */
async function joinState() {
  const fm = new InMemoryCheckpointFileManager();
  await new StateSchemaCompatibilityChecker(fm).check(
    [{ operatorId: 0, operatorName: 'symmetricHashJoin', parts: { 'join type': 'inner' }, keySchema: [{ name: 'k', type: 'long' }], valueSchema: [] }],
    'memory://x', false,
  );
  for (const storeName of JOIN_STORE_NAMES) {
    const p = new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0, storeName }, { minDeltasForSnapshot: 3 });
    for (let v = 0; v < VERSIONS; v++) {
      const s = await p.getStore(v);
      s.put(`${storeName}-${v}`, Uint8Array.of(v));
      await s.commit();
      await p.maintenance();
    }
    await p.close();
  }
  return fm;
}

async function contents(p: StateStoreProvider, version: number): Promise<string[]> {
  const s = await p.getStore(version);
  const out = [...s.entries()].map(([k, v]) => `${k}=${[...v].join(',')}`).sort();
  s.abort();
  return out;
}

describe('named stores (a stream-stream join\'s four)', () => {
  it('weir checkpoint inspect reports the partition over its stores, and each store', async () => {
    const fm = await joinState();
    const [op] = (await inspectCheckpoint(fm)).state;
    expect(op.operatorName).toBe('symmetricHashJoin');
    const [part] = op.partitions;
    expect(part).toMatchObject({ partitionId: 0, latestVersion: VERSIONS, latestSnapshot: 3 });
    expect(part.stores?.map((s) => s.storeName).sort()).toEqual([...JOIN_STORE_NAMES].sort());
    for (const s of part.stores!) expect(s).toMatchObject({ latestVersion: VERSIONS, files: VERSIONS + 1 });
    expect(part.files).toBe(4 * (VERSIONS + 1));
    expect(op.bytesOnDisk).toBe(await fm.size('state/0/0'));
  });

  it('the partition loads only the versions every store can: a store behind holds it back', async () => {
    const fm = await joinState();
    await fm.delete(`state/0/0/${JOIN_STORE_NAMES[2]}/${VERSIONS}.delta`);
    const [part] = (await inspectCheckpoint(fm)).state[0].partitions;
    expect(part.latestVersion).toBe(VERSIONS - 1);
    expect(part.stores!.find((s) => s.storeName === JOIN_STORE_NAMES[0])!.latestVersion).toBe(VERSIONS);
  });

  it('converts every store to LMDB and back, each loading the same rows', async () => {
    const fm = await joinState();
    const before = new Map<string, string[]>();
    for (const storeName of JOIN_STORE_NAMES) before.set(storeName, await contents(new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0, storeName }), VERSIONS));
    // Snapshot at 3, so the change files of versions 4 and 5 (and 1–3, kept by retention) of each store.
    const toLmdb = await convertStateProvider(fm, 'lmdb');
    expect(toLmdb).toEqual({ operators: [0], files: 4 * VERSIONS });
    for (const storeName of JOIN_STORE_NAMES) expect((await fm.list(`state/0/0/${storeName}`)).filter((n) => n.endsWith('.delta'))).toEqual([]);
    const local = await mkdtemp(path.join(tmpdir(), 'weir-named-lmdb-'));
    try {
      for (const storeName of JOIN_STORE_NAMES) {
        const p = new LmdbStateStoreProvider(fm, { operatorId: 0, partitionId: 0, storeName }, {}, { localDir: path.join(local, storeName) });
        expect(await contents(p, VERSIONS)).toEqual(before.get(storeName));
        await p.close();
      }
    } finally {
      await rm(local, { recursive: true, force: true });
    }
    expect((await convertStateProvider(fm, 'hdfs')).files).toBe(4 * VERSIONS);
    for (const storeName of JOIN_STORE_NAMES) expect(await contents(new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0, storeName }), VERSIONS)).toEqual(before.get(storeName));
  });

  it('the checkpoint layout counts a named store\'s files and directory as the engine\'s (a reset deletes them, a savepoint copies them)', async () => {
    const fm = await joinState();
    for (const storeName of JOIN_STORE_NAMES) {
      expect(isCheckpointDirectory(`state/0/0/${storeName}`)).toBe(true);
      for (const name of await fm.list(`state/0/0/${storeName}`)) expect(isCheckpointEntry(`state/0/0/${storeName}/${name}`), name).toBe(true);
    }
    // Still nothing else: a deeper directory, or a name that is not a store's, is not the engine's.
    expect(isCheckpointEntry('state/0/0/left-keyToNumValues/x/1.delta')).toBe(false);
    expect(isCheckpointEntry('state/0/0/_x/1.delta')).toBe(false);
    expect(isCheckpointDirectory('state/0/0/left-keyToNumValues/x')).toBe(false);
  });
});
