import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { FileBackedStateStoreProvider } from './file-backed-state-store-provider';
import { LmdbStateStoreProvider } from './lmdb-state-store-provider';
import type { StateStoreConf, StateStoreId } from './state-store';
import { describeStateStoreContract } from './testing/state-store.contract';

/** A checkpoint on local disk (fsync off: the contract is about content and atomic rename, and the property test writes thousands of small files) or in memory. */
async function checkpointOn(where: 'local' | 'memory'): Promise<{ fm: CheckpointFileManager; cleanup: () => Promise<void> }> {
  if (where === 'memory') return { fm: new InMemoryCheckpointFileManager(), cleanup: async () => {} };
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-state-'));
  return { fm: new LocalCheckpointFileManager(dir, { fsync: false }), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

for (const where of ['local', 'memory'] as const) {
  describeStateStoreContract(`file-backed provider, checkpoint ${where === 'local' ? 'on the local filesystem' : 'in memory'}`, {
    changeFile: 'delta',
    rowsInHeap: true,
    async newCheckpoint() {
      const { fm, cleanup } = await checkpointOn(where);
      return { fm, provider: (id, conf) => new FileBackedStateStoreProvider(fm, id, conf), cleanup };
    },
  });

  describeStateStoreContract(`LMDB provider, checkpoint ${where === 'local' ? 'on the local filesystem' : 'in memory'}`, {
    changeFile: 'changelog',
    rowsInHeap: false,
    async newCheckpoint() {
      const { fm, cleanup } = await checkpointOn(where);
      // The worker's local directory (its LMDB environments), and the other workers' ones.
      const locals = [await mkdtemp(path.join(tmpdir(), 'weir-lmdb-'))];
      const providers: LmdbStateStoreProvider[] = [];
      const make = (localDir: string) => (id: StateStoreId, conf: StateStoreConf = {}) => {
        const p = new LmdbStateStoreProvider(fm, id, conf, { localDir });
        providers.push(p);
        return p;
      };
      return {
        fm,
        provider: make(locals[0]),
        providerOnNewWorker: (id, conf) => {
          const dir = path.join(locals[0], `..`, `${path.basename(locals[0])}-w${locals.length}`);
          locals.push(dir);
          return make(dir)(id, conf);
        },
        cleanup: async () => {
          for (const p of providers) await p.close();
          for (const d of locals) await rm(d, { recursive: true, force: true });
          await cleanup();
        },
      };
    },
  });
}
