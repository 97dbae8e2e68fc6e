import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { inspectCheckpoint } from '../checkpoint/checkpoint-inspector';
import { FileBackedStateStoreProvider } from './file-backed-state-store-provider';
import { LmdbStateStoreProvider } from './lmdb-state-store-provider';
import { StateSchemaCompatibilityChecker } from './state-schema-compatibility-checker';

describe('inspectState (weir checkpoint inspect)', () => {
  it('reports each operator, its descriptor, loadable versions, snapshots and bytes on disk', async () => {
    const fm = new InMemoryCheckpointFileManager();
    await new StateSchemaCompatibilityChecker(fm).check(
      [{ operatorId: 0, operatorName: 'aggregate', parts: { 'grouping keys': 'region' }, keySchema: [{ name: 'region', type: 'string' }], valueSchema: [] }],
      'memory://x', false,
    );
    const p = new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }, { minDeltasForSnapshot: 2, minVersionsToRetain: 3 });
    for (let v = 0; v < 7; v++) {
      const s = await p.getStore(v);
      s.put(`k${v}`, Uint8Array.of(v));
      await s.commit();
      await p.maintenance();
    }
    const info = await inspectCheckpoint(fm);
    expect(info.state).toHaveLength(1);
    const [op] = info.state;
    expect(op).toMatchObject({ operatorId: 0, operatorName: 'aggregate', parts: { 'grouping keys': 'region' }, stateStoreProvider: 'hdfs' });
    expect(op.partitions[0]).toMatchObject({ partitionId: 0, latestVersion: 7, latestSnapshot: 6 });
    expect(op.partitions[0].oldestLoadableVersion).toBeLessThanOrEqual(5);
    expect(op.bytesOnDisk).toBe(await fm.size('state/0/0'));
  });

  it('reads an LMDB store\'s changelogs and names its provider', async () => {
    const fm = new InMemoryCheckpointFileManager();
    await new StateSchemaCompatibilityChecker(fm).check(
      [{ operatorId: 0, operatorName: 'aggregate', parts: { 'grouping keys': 'region' }, keySchema: [{ name: 'region', type: 'string' }], valueSchema: [] }],
      'memory://x', false, true, false, 'lmdb',
    );
    const local = await mkdtemp(path.join(tmpdir(), 'weir-inspect-lmdb-'));
    try {
      const p = new LmdbStateStoreProvider(fm, { operatorId: 0, partitionId: 0 }, { minDeltasForSnapshot: 2, minVersionsToRetain: 3 }, { localDir: local });
      for (let v = 0; v < 7; v++) {
        const s = await p.getStore(v);
        s.put(`k${v}`, Uint8Array.of(v));
        await s.commit();
        await p.maintenance();
      }
      await p.close();
      const [op] = (await inspectCheckpoint(fm)).state;
      expect(op).toMatchObject({ operatorId: 0, stateStoreProvider: 'lmdb' });
      expect(op.partitions[0]).toMatchObject({ partitionId: 0, latestVersion: 7, latestSnapshot: 6 });
      expect(op.partitions[0].oldestLoadableVersion).toBeLessThanOrEqual(5);
    } finally {
      await rm(local, { recursive: true, force: true });
    }
  });
});
