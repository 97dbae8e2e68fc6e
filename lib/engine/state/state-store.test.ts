import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { FileBackedStateStoreProvider } from './file-backed-state-store-provider';
import { describeStateStoreContract } from './testing/state-store.contract';

describeStateStoreContract('file-backed provider on the local filesystem', {
  async newCheckpoint() {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-state-'));
    // fsync off: the contract is about content and atomic rename, not power-cut durability,
    // and the property test writes thousands of small files on a shared 2-core machine.
    const fm = new LocalCheckpointFileManager(dir, { fsync: false });
    return {
      fm,
      provider: (id, conf) => new FileBackedStateStoreProvider(fm, id, conf),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
});

describeStateStoreContract('file-backed provider in memory', {
  async newCheckpoint() {
    const fm = new InMemoryCheckpointFileManager();
    return { fm, provider: (id, conf) => new FileBackedStateStoreProvider(fm, id, conf), cleanup: async () => {} };
  },
});
