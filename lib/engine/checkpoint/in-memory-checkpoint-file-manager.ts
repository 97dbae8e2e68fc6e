/**
 * CheckpointFileManager in memory, for tests and `validateJob`. Same contract as the local one
 * (it passes checkpoint-file-manager.contract.ts): create-if-absent is a check-and-set inside
 * one synchronous step, so concurrent writers in the same process see exactly one winner.
 * Instances can share a `store` map to model two runners on one checkpoint.
 */
import { FileAlreadyExistsError, FileNotFoundError, type CheckpointFileManager } from './checkpoint-file-manager';

export class InMemoryCheckpointFileManager implements CheckpointFileManager {
  readonly description: string;
  readonly outlivesMachine = false;

  constructor(
    readonly store: Map<string, Buffer> = new Map(),
    name = 'memory',
  ) {
    this.description = `memory://${name}`;
  }

  private static norm(p: string): string {
    return p.split('/').filter((s) => s !== '' && s !== '.').join('/');
  }

  async createAtomic(p: string, data: Uint8Array | string, opts: { overwrite?: boolean } = {}): Promise<void> {
    const key = InMemoryCheckpointFileManager.norm(p);
    if (!opts.overwrite && this.store.has(key)) throw new FileAlreadyExistsError(p);
    // Copy, so a caller mutating its buffer later cannot change a "written" file.
    this.store.set(key, Buffer.from(typeof data === 'string' ? Buffer.from(data, 'utf8') : data));
  }

  async read(p: string): Promise<Buffer> {
    const v = this.store.get(InMemoryCheckpointFileManager.norm(p));
    if (!v) throw new FileNotFoundError(p);
    return Buffer.from(v);
  }

  async exists(p: string): Promise<boolean> {
    const key = InMemoryCheckpointFileManager.norm(p);
    if (this.store.has(key)) return true;
    for (const k of this.store.keys()) if (k.startsWith(key + '/')) return true;
    return false;
  }

  async list(dir: string): Promise<string[]> {
    const prefix = InMemoryCheckpointFileManager.norm(dir);
    const names = new Set<string>();
    for (const k of this.store.keys()) {
      if (prefix && !k.startsWith(prefix + '/')) continue;
      const rest = prefix ? k.slice(prefix.length + 1) : k;
      names.add(rest.split('/')[0]);
    }
    return [...names].sort();
  }

  async delete(p: string): Promise<void> {
    const key = InMemoryCheckpointFileManager.norm(p);
    this.store.delete(key);
    for (const k of [...this.store.keys()]) if (k.startsWith(key + '/')) this.store.delete(k);
  }

  async size(p: string): Promise<number> {
    const key = InMemoryCheckpointFileManager.norm(p);
    let total = 0;
    for (const [k, v] of this.store) if (k === key || k.startsWith(key + '/')) total += v.length;
    return total;
  }
}
