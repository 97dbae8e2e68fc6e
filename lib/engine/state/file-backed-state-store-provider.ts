/**
 * FileBackedStateStoreProvider: Weir's HDFSBackedStateStoreProvider. One per (operator,
 * partition); files under `state/<op>/<partition>/` written through the CheckpointFileManager,
 * so the same code runs on local disk, in memory and on an object store.
 *
 * Protocol:
 * - Load version V: take the cached map if it is at V; else the latest `<S>.snapshot` with
 *   S ≤ V, then apply `<S+1>.delta` … `<V>.delta` in order (each must exist). Version 0 is empty.
 * - A batch mutates the cached map in place and keeps an undo log (each key's value before its
 *   first change), so `abort()` costs the changed keys, not the whole map, and the delta for
 *   V+1 is exactly the changed keys: the commit cost follows the changes, not the state size.
 * - `commit()` writes `<V+1>.delta` atomically with overwrite allowed: a re-run of a batch whose
 *   earlier commit crashed half-way must be able to replace what it left. (Two runners on one
 *   checkpoint are stopped earlier, by the offsets log's create-if-absent.)
 * - `maintenance()`, Spark's background maintenance task, is off the commit path: when
 *   `minDeltasForSnapshot` deltas have accumulated it writes `<V>.snapshot` of the last committed
 *   version (reading through the undo log if the next batch has already started), then deletes
 *   files no retained version needs: keep the last `minVersionsToRetain` versions loadable.
 *
 * File bytes: see state-file-format.ts.
 */
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import type { Clock } from '../clock';
import { CorruptCheckpointError } from '../errors';
import { parseStateFileName, readStateFile, StateFileWriter, stateFileName, type StateFileKind } from './state-file-format';
import {
  stateStoreDir,
  type StateStore,
  type StateStoreConf,
  type StateStoreId,
  type StateStoreMetrics,
  type StateStoreProvider,
} from './state-store';

/** Per-entry heap cost assumed by memoryUsedBytes: a Map entry plus a Uint8Array object. */
const ENTRY_OVERHEAD_BYTES = 80;
const entryBytes = (key: string, value: Uint8Array) => key.length * 2 + value.byteLength + ENTRY_OVERHEAD_BYTES;

type Op = 'put' | 'remove' | 'evict';

export class FileBackedStateStoreProvider implements StateStoreProvider {
  readonly dir: string;
  private readonly minDeltasForSnapshot: number;
  private readonly minVersionsToRetain: number;
  /** The rows at `loadedVersion`, plus the open store's uncommitted changes. */
  map = new Map<string, Uint8Array>();
  memoryBytes = 0;
  loadedVersion = -1;
  lastSnapshotVersion = 0;
  /**
   * Snapshots newer than the loaded version: left by an attempt that crashed before its batch
   * was committed in commits/. The re-run rewrites those versions, so they go at its commit.
   */
  futureSnapshots: number[] = [];
  /** Known file sizes by name, for bytesOnDisk. */
  readonly fileSizes = new Map<string, number>();
  open: FileBackedStateStore | null = null;

  constructor(
    readonly fm: CheckpointFileManager,
    readonly id: StateStoreId,
    conf: StateStoreConf = {},
    private readonly clock?: Clock,
  ) {
    this.dir = stateStoreDir(id);
    this.minDeltasForSnapshot = Math.max(1, conf.minDeltasForSnapshot ?? 10);
    this.minVersionsToRetain = Math.max(1, conf.minVersionsToRetain ?? 100);
  }

  now(): number {
    return this.clock ? this.clock.now() : performance.now();
  }

  path(version: number, kind: StateFileKind): string {
    return `${this.dir}/${stateFileName(version, kind)}`;
  }

  async getStore(version: number): Promise<StateStore> {
    if (!Number.isSafeInteger(version) || version < 0) throw new RangeError(`state version must be a non-negative integer, got ${version}`);
    if (this.open && !this.open.finished) this.open.abort();
    if (this.loadedVersion !== version) await this.load(version);
    this.open = new FileBackedStateStore(this, version);
    return this.open;
  }

  private async listFiles(): Promise<{ version: number; kind: StateFileKind; name: string }[]> {
    const out: { version: number; kind: StateFileKind; name: string }[] = [];
    for (const name of await this.fm.list(this.dir)) {
      const parsed = parseStateFileName(name);
      if (parsed) out.push({ ...parsed, name });
    }
    return out;
  }

  private async load(version: number): Promise<void> {
    const files = await this.listFiles();
    const map = new Map<string, Uint8Array>();
    this.fileSizes.clear();
    let start = 0;
    for (const f of files) if (f.kind === 'snapshot' && f.version <= version && f.version > start) start = f.version;
    const onPut = (k: string, v: Uint8Array) => void map.set(k, v);
    const onRemove = (k: string) => void map.delete(k);
    const readInto = async (v: number, kind: StateFileKind) => {
      const p = this.path(v, kind);
      const data = await this.fm.read(p).catch((e: { code?: string }) => {
        if (e?.code === 'FILE_NOT_FOUND') {
          throw new CorruptCheckpointError(p, `state version ${version} of ${this.dir} needs this file and it is missing ` +
            '(the version was never committed, or its files were deleted)');
        }
        throw e;
      });
      this.fileSizes.set(stateFileName(v, kind), data.length);
      readStateFile(p, data, { version: v, kind }, onPut, onRemove);
    };
    if (start > 0) await readInto(start, 'snapshot');
    for (let v = start + 1; v <= version; v++) await readInto(v, 'delta');
    for (const f of files) {
      if (!this.fileSizes.has(f.name) && this.fm.size) this.fileSizes.set(f.name, await this.fm.size(`${this.dir}/${f.name}`));
    }
    let mem = 0;
    for (const [k, v] of map) mem += entryBytes(k, v);
    this.map = map;
    this.memoryBytes = mem;
    this.loadedVersion = version;
    let snap = 0;
    for (const f of files) if (f.kind === 'snapshot' && f.version <= version && f.version > snap) snap = f.version;
    this.lastSnapshotVersion = snap;
    this.futureSnapshots = files.filter((f) => f.kind === 'snapshot' && f.version > version).map((f) => f.version);
  }

  bytesOnDisk(): number {
    let n = 0;
    for (const size of this.fileSizes.values()) n += size;
    return n;
  }

  async maintenance(): Promise<void> {
    const committed = this.open && !this.open.finished ? this.open.version : this.loadedVersion;
    if (committed <= 0) return;
    if (committed - this.lastSnapshotVersion >= this.minDeltasForSnapshot) {
      const data = this.encodeSnapshot(committed);
      await this.fm.createAtomic(this.path(committed, 'snapshot'), data, { overwrite: true });
      this.fileSizes.set(stateFileName(committed, 'snapshot'), data.length);
      this.lastSnapshotVersion = Math.max(this.lastSnapshotVersion, committed);
    }
    await this.purge(committed);
  }

  /** The rows of the last committed version, even while the next batch is changing the map. */
  private encodeSnapshot(version: number): Uint8Array {
    const undo = this.open && !this.open.finished ? this.open.undo : null;
    const w = new StateFileWriter(version, 'snapshot', Math.ceil(this.memoryBytes * 0.6) + 64);
    for (const [k, v] of this.map) {
      if (undo?.has(k)) {
        const orig = undo.get(k);
        if (orig !== undefined) w.put(k, orig);
      } else {
        w.put(k, v);
      }
    }
    if (undo) for (const [k, orig] of undo) if (orig !== undefined && !this.map.has(k)) w.put(k, orig);
    return w.finish();
  }

  /** Deletes files older than the newest snapshot that the oldest retained version needs. */
  private async purge(latest: number): Promise<void> {
    const oldestRetained = latest - this.minVersionsToRetain + 1;
    if (oldestRetained <= 1) return;
    const files = await this.listFiles();
    let base = 0;
    for (const f of files) if (f.kind === 'snapshot' && f.version <= oldestRetained && f.version > base) base = f.version;
    if (base === 0) return;
    for (const f of files) {
      if (f.version < base) {
        await this.fm.delete(`${this.dir}/${f.name}`);
        this.fileSizes.delete(f.name);
      }
    }
  }

  async listVersions(): Promise<number[]> {
    const files = await this.listFiles();
    const deltas = new Set(files.filter((f) => f.kind === 'delta').map((f) => f.version));
    const snaps = new Set(files.filter((f) => f.kind === 'snapshot').map((f) => f.version));
    const max = files.reduce((m, f) => Math.max(m, f.version), 0);
    const out: number[] = [];
    let loadable = true; // version 0 is always loadable
    for (let v = 0; v <= max; v++) {
      if (v > 0) loadable = snaps.has(v) || (loadable && deltas.has(v));
      if (loadable) out.push(v);
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.open && !this.open.finished) this.open.abort();
    this.open = null;
  }
}

export class FileBackedStateStore implements StateStore {
  /** Each changed key's value before this version's first change to it (undefined: absent). */
  readonly undo = new Map<string, Uint8Array | undefined>();
  /** Why each removed key went (puts need no entry: a changed key with a value was put). */
  private readonly removals = new Map<string, Exclude<Op, 'put'>>();
  committed = false;
  finished = false;
  private committedMetrics: StateStoreMetrics | null = null;

  constructor(private readonly p: FileBackedStateStoreProvider, readonly version: number) {}

  get id(): StateStoreId {
    return this.p.id;
  }

  get size(): number {
    return this.p.map.size;
  }

  private writable(): void {
    if (this.finished) {
      throw new Error(`state store ${this.p.dir} version ${this.version} was already ${this.committed ? 'committed' : 'aborted'}; load a new version`);
    }
  }

  get(key: string): Uint8Array | undefined {
    return this.p.map.get(key);
  }

  has(key: string): boolean {
    return this.p.map.has(key);
  }

  put(key: string, value: Uint8Array): void {
    this.writable();
    const map = this.p.map;
    const old = map.get(key);
    if (!this.undo.has(key)) this.undo.set(key, old);
    if (old !== undefined) this.p.memoryBytes -= entryBytes(key, old);
    this.p.memoryBytes += entryBytes(key, value);
    map.set(key, value);
  }

  remove(key: string, reason: 'watermark' | 'explicit' = 'explicit'): void {
    this.writable();
    const map = this.p.map;
    const old = map.get(key);
    if (old === undefined) return;
    if (!this.undo.has(key)) this.undo.set(key, old);
    this.p.memoryBytes -= entryBytes(key, old);
    map.delete(key);
    this.removals.set(key, reason === 'watermark' ? 'evict' : 'remove');
  }

  entries(): IterableIterator<[string, Uint8Array]> {
    return this.p.map.entries();
  }

  updatedKeys(): IterableIterator<string> {
    return this.undo.keys();
  }

  async commit(): Promise<number> {
    this.writable();
    const started = this.p.now();
    const next = this.version + 1;
    const w = new StateFileWriter(next, 'delta', 64 + this.undo.size * 48);
    // One pass writes the delta and counts what changed (the metrics of this version).
    let updated = 0, evicted = 0, removed = 0;
    const map = this.p.map;
    for (const [key, orig] of this.undo) {
      const cur = map.get(key);
      if (cur !== undefined) {
        w.put(key, cur);
        updated++;
      } else if (orig !== undefined) {
        w.remove(key);
        if (this.removals.get(key) === 'evict') evicted++;
        else removed++;
      }
    }
    const data = w.finish();
    await this.p.fm.createAtomic(this.p.path(next, 'delta'), data, { overwrite: true });
    for (const v of this.p.futureSnapshots) {
      await this.p.fm.delete(this.p.path(v, 'snapshot'));
      this.p.fileSizes.delete(stateFileName(v, 'snapshot'));
    }
    this.p.futureSnapshots = [];
    this.p.fileSizes.set(stateFileName(next, 'delta'), data.length);
    this.committed = true;
    this.finished = true;
    this.p.loadedVersion = next;
    this.committedMetrics = {
      numRowsTotal: map.size,
      numRowsUpdated: updated,
      numRowsEvictedByWatermark: evicted,
      numRowsRemoved: removed,
      memoryUsedBytes: this.p.memoryBytes,
      bytesOnDisk: this.p.bytesOnDisk(),
      deltaBytes: data.length,
      commitTimeMs: this.p.now() - started,
    };
    return next;
  }

  abort(): void {
    if (this.finished) return;
    const map = this.p.map;
    for (const [key, orig] of this.undo) {
      const cur = map.get(key);
      if (cur !== undefined) this.p.memoryBytes -= entryBytes(key, cur);
      if (orig === undefined) map.delete(key);
      else {
        map.set(key, orig);
        this.p.memoryBytes += entryBytes(key, orig);
      }
    }
    this.undo.clear();
    this.removals.clear();
    this.finished = true;
  }

  private liveMetrics(): StateStoreMetrics {
    let updated = 0, evicted = 0, removed = 0;
    const map = this.p.map;
    for (const [key, orig] of this.undo) {
      if (map.has(key)) updated++;
      else if (orig === undefined) continue; // put then removed: never existed
      else if (this.removals.get(key) === 'evict') evicted++;
      else removed++;
    }
    return {
      numRowsTotal: this.p.map.size,
      numRowsUpdated: updated,
      numRowsEvictedByWatermark: evicted,
      numRowsRemoved: removed,
      memoryUsedBytes: this.p.memoryBytes,
      bytesOnDisk: this.p.bytesOnDisk(),
      deltaBytes: 0,
      commitTimeMs: 0,
    };
  }

  metrics(): StateStoreMetrics {
    return this.committedMetrics ?? this.liveMetrics();
  }
}
