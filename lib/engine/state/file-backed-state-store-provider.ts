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
 * - `maintenance()`, Spark's background maintenance task, is off the commit path (the engine
 *   starts it after commits/N and never awaits it in a batch): when `minDeltasForSnapshot`
 *   deltas have accumulated it writes `<V>.snapshot` of the last committed version V, then
 *   deletes files no retained version needs (keep the last `minVersionsToRetain` loadable). The
 *   snapshot is built from the files, not from the live map: a worker thread merges the last
 *   snapshot and the deltas up to V (state-snapshot-builder.ts), so the batches' thread does no
 *   O(keys) work for it and later batches change the map freely meanwhile (V's files never
 *   change; a reload, which may rewrite them, discards the snapshot in flight).
 * - Crash safety: a snapshot is written to a temp name and renamed (createAtomic), and carries
 *   an end marker and a checksum; a snapshot that fails them on load (a torn write on a store
 *   without atomic rename) is skipped for the next older snapshot plus its deltas.
 * - Memory: values are kept as byte strings (one char per byte): a one-byte string costs its
 *   length plus a 16-byte header, where a Uint8Array object per value cost about 100 bytes more.
 *
 * File bytes: see state-file-format.ts.
 */
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import type { Clock } from '../clock';
import { CorruptCheckpointError } from '../errors';
import { listStateFiles, loadableVersions, purgeStateFiles } from './state-checkpoint-files';
import { readStateFile, StateFileWriter, stateFileName, type StateFileKind } from './state-file-format';
import { buildSnapshot, type SnapshotSource } from './state-snapshot-builder';
import {
  stateStoreDir,
  type StateStore,
  type StateStoreConf,
  type StateStoreId,
  type StateStoreMetrics,
  type StateStoreProvider,
} from './state-store';

/**
 * Heap of one entry as memoryUsedBytes estimates it, calibrated against measured heap growth
 * (state-memory.test.ts): a V8 sequential string is a 16-byte header plus its chars, rounded up
 * to 8 bytes (keys are counted as one-byte strings, which ASCII keys are), and a Map entry
 * with its share of the hash table's spare capacity costs about MAP_ENTRY_BYTES.
 */
const MAP_ENTRY_BYTES = 40;
const stringBytes = (n: number) => (16 + n + 7) & ~7;
const entryBytes = (key: string, value: string) => stringBytes(key.length) + stringBytes(value.length) + MAP_ENTRY_BYTES;

/** A value's bytes as a byte string, the form the map keeps (one char per byte). */
function byteString(b: Uint8Array): string {
  // encodeValue's Buffers (every put of every batch) need no second view over their bytes.
  return (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('latin1');
}

/** The bytes of a byte string, as `get` returns them (a fresh array the caller may keep). */
function bytesOf(s: string): Uint8Array {
  return Buffer.from(s, 'latin1');
}

export class FileBackedStateStoreProvider implements StateStoreProvider {
  readonly dir: string;
  private readonly minDeltasForSnapshot: number;
  private readonly minVersionsToRetain: number;
  /** The rows at `loadedVersion` (values as byte strings), plus the open store's uncommitted changes. */
  map = new Map<string, string>();
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
  /** Bumped by every load: a snapshot started before it may describe files since rewritten. */
  private generation = 0;
  private maintaining: Promise<void> | null = null;

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

  /** Sets a key (value as a byte string), keeping memoryBytes right. */
  set(key: string, value: string): void {
    this.replace(key, this.map.get(key), value);
  }

  /** `set` when the caller has just read the key's current value `old` (one lookup fewer). */
  replace(key: string, old: string | undefined, value: string): void {
    if (old !== undefined) this.memoryBytes -= entryBytes(key, old);
    this.memoryBytes += entryBytes(key, value);
    this.map.set(key, value);
  }

  delete(key: string): void {
    const old = this.map.get(key);
    if (old !== undefined) this.deleteKnown(key, old);
  }

  /** `delete` of a key the caller has just read with its value `old` (one lookup fewer). */
  deleteKnown(key: string, old: string): void {
    this.memoryBytes -= entryBytes(key, old);
    this.map.delete(key);
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

  private async load(version: number): Promise<void> {
    // A snapshot in flight was built from files this load's version may rewrite: drop it.
    this.generation++;
    const files = await listStateFiles(this.fm, this.dir);
    this.fileSizes.clear();
    const snapshots = files.filter((f) => f.kind === 'snapshot' && f.version <= version).map((f) => f.version).sort((a, b) => b - a);
    const read = async (v: number, kind: StateFileKind): Promise<Buffer> => {
      const p = this.path(v, kind);
      const data = await this.fm.read(p).catch((e: { code?: string }) => {
        if (e?.code === 'FILE_NOT_FOUND') {
          throw new CorruptCheckpointError(p, `state version ${version} of ${this.dir} needs this file and it is missing ` +
            '(the version was never committed, or its files were deleted)');
        }
        throw e;
      });
      this.fileSizes.set(stateFileName(v, kind), data.length);
      return data;
    };
    let map = new Map<string, string>();
    // memoryBytes is summed as the rows arrive (a second pass over a million entries cost more):
    // a snapshot's keys are distinct, a delta's may replace or remove a row already there.
    let mem = 0;
    const onSnapshotPut = (k: string, v: string) => {
      mem += entryBytes(k, v);
      map.set(k, v);
    };
    const onPut = (k: string, v: string) => {
      const old = map.get(k);
      if (old !== undefined) mem -= entryBytes(k, old);
      mem += entryBytes(k, v);
      map.set(k, v);
    };
    const onRemove = (k: string) => {
      const old = map.get(k);
      if (old === undefined) return;
      mem -= entryBytes(k, old);
      map.delete(k);
    };
    // The newest snapshot that verifies; a damaged one falls back to the one before (or to the deltas).
    let start = 0;
    let damaged: CorruptCheckpointError | undefined;
    for (const v of snapshots) {
      try {
        readStateFile(this.path(v, 'snapshot'), await read(v, 'snapshot'), { version: v, kind: 'snapshot' }, onSnapshotPut, onRemove);
        start = v;
        break;
      } catch (e) {
        if (!(e instanceof CorruptCheckpointError)) throw e;
        damaged ??= e;
        map = new Map();
        mem = 0;
      }
    }
    // Deltas are read ahead (I/O overlaps decoding) and applied in order. When a damaged snapshot
    // sent us back to deltas that retention already deleted, the damage is the error to report.
    const deltas: Promise<Buffer>[] = [];
    for (let v = start + 1; v <= version; v++) deltas.push(read(v, 'delta'));
    for (const d of deltas) d.catch(() => undefined);
    for (let v = start + 1; v <= version; v++) {
      const data = await deltas[v - start - 1].catch((e: unknown) => {
        throw damaged ?? e;
      });
      readStateFile(this.path(v, 'delta'), data, { version: v, kind: 'delta' }, onPut, onRemove);
    }
    const size = this.fm.size?.bind(this.fm);
    if (size) {
      const unread = files.filter((f) => !this.fileSizes.has(f.name));
      const sizes = await Promise.all(unread.map((f) => size(`${this.dir}/${f.name}`)));
      unread.forEach((f, i) => this.fileSizes.set(f.name, sizes[i]));
    }
    this.map = map;
    this.memoryBytes = mem;
    this.loadedVersion = version;
    this.lastSnapshotVersion = start;
    this.futureSnapshots = files.filter((f) => f.kind === 'snapshot' && f.version > version).map((f) => f.version);
  }

  bytesOnDisk(): number {
    let n = 0;
    for (const size of this.fileSizes.values()) n += size;
    return n;
  }

  /** One round at a time: a call while a round runs waits for that round. */
  maintenance(): Promise<void> {
    this.maintaining ??= this.maintain().finally(() => (this.maintaining = null));
    return this.maintaining;
  }

  private async maintain(): Promise<void> {
    const committed = this.open && !this.open.finished ? this.open.version : this.loadedVersion;
    if (committed <= 0) return;
    const base = this.lastSnapshotVersion;
    if (committed - base >= this.minDeltasForSnapshot) {
      const generation = this.generation;
      const source = (version: number, kind: StateFileKind): SnapshotSource => {
        const p = this.path(version, kind);
        return { path: p, version, localFile: this.fm.localPath?.(p) };
      };
      const deltas: SnapshotSource[] = [];
      for (let v = base + 1; v <= committed; v++) deltas.push(source(v, 'delta'));
      const data = await buildSnapshot(committed, base > 0 ? source(base, 'snapshot') : null, deltas, (p) => this.fm.read(p));
      if (generation !== this.generation) return;
      await this.fm.createAtomic(this.path(committed, 'snapshot'), data, { overwrite: true });
      this.fileSizes.set(stateFileName(committed, 'snapshot'), data.length);
      if (generation !== this.generation) {
        // A load ran while the file was being written and may not have listed it: a re-run that
        // rewrites this version deletes it at its commit, as it does any snapshot ahead of it.
        if (committed > this.loadedVersion && !this.futureSnapshots.includes(committed)) this.futureSnapshots.push(committed);
        return;
      }
      this.lastSnapshotVersion = Math.max(this.lastSnapshotVersion, committed);
    }
    await this.purge(committed);
  }

  /** Deletes files older than the newest snapshot that the oldest retained version needs. */
  private async purge(latest: number): Promise<void> {
    for (const name of await purgeStateFiles(this.fm, this.dir, latest, this.minVersionsToRetain)) this.fileSizes.delete(name);
  }

  async listVersions(): Promise<number[]> {
    return loadableVersions(await listStateFiles(this.fm, this.dir));
  }

  async close(): Promise<void> {
    await this.maintaining?.catch(() => undefined);
    if (this.open && !this.open.finished) this.open.abort();
    this.open = null;
  }
}

export class FileBackedStateStore implements StateStore {
  /** Each changed key's value before this version's first change to it (undefined: absent). */
  readonly undo = new Map<string, string | undefined>();
  /**
   * Keys whose last removal was explicit; any other removed key went by the watermark. Only the
   * rare explicit removals are recorded: the eviction of every expired group, every batch, then
   * writes nothing here, and commit looks nothing up while none were made.
   */
  private readonly explicitRemovals = new Set<string>();
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
    const v = this.p.map.get(key);
    return v === undefined ? undefined : bytesOf(v);
  }

  has(key: string): boolean {
    return this.p.map.has(key);
  }

  put(key: string, value: Uint8Array): void {
    this.putByteString(key, byteString(value));
  }

  putByteString(key: string, value: string): void {
    this.writable();
    // Every changed group of every batch comes through here: one lookup in the map serves the
    // undo log and the memory estimate.
    const old = this.p.map.get(key);
    if (!this.undo.has(key)) this.undo.set(key, old);
    this.p.replace(key, old, value);
  }

  remove(key: string, reason: 'watermark' | 'explicit' = 'explicit'): void {
    this.writable();
    const old = this.p.map.get(key);
    if (old === undefined) return;
    if (!this.undo.has(key)) this.undo.set(key, old);
    this.p.deleteKnown(key, old);
    if (reason !== 'watermark') this.explicitRemovals.add(key);
    else if (this.explicitRemovals.size > 0) this.explicitRemovals.delete(key);
  }

  *entries(): IterableIterator<[string, Uint8Array]> {
    for (const [k, v] of this.p.map) yield [k, bytesOf(v)];
  }

  keys(): IterableIterator<string> {
    return this.p.map.keys();
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
    // forEach, not for-of: for-of allocated an entry array per changed key (the most allocated
    // object of a join's commit).
    this.undo.forEach((orig, key) => {
      const cur = map.get(key);
      if (cur !== undefined) {
        w.put(key, cur);
        updated++;
      } else if (orig !== undefined) {
        w.remove(key);
        if (this.explicitRemovals.size > 0 && this.explicitRemovals.has(key)) removed++;
        else evicted++;
      }
    });
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
    this.undo.forEach((orig, key) => {
      if (orig === undefined) this.p.delete(key);
      else this.p.set(key, orig);
    });
    this.undo.clear();
    this.explicitRemovals.clear();
    this.finished = true;
  }

  private liveMetrics(): StateStoreMetrics {
    let updated = 0, evicted = 0, removed = 0;
    const map = this.p.map;
    for (const [key, orig] of this.undo) {
      if (map.has(key)) updated++;
      else if (orig === undefined) continue; // put then removed: never existed
      else if (this.explicitRemovals.size > 0 && this.explicitRemovals.has(key)) removed++;
      else evicted++;
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
