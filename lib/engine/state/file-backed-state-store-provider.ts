/**
 * FileBackedStateStoreProvider: Weir's HDFSBackedStateStoreProvider. One per (operator,
 * partition); files under `state/<op>/<partition>/` written through the CheckpointFileManager,
 * so the same code runs on local disk, in memory and on an object store.
 *
 * Protocol:
 * - Load version V: take the cached map if it is at V; else the latest `<S>.snapshot` with
 *   S ≤ V, then apply `<S+1>.delta` … `<V>.delta` in order (each must exist). Version 0 is empty.
 * - A batch mutates the cached map in place and keeps a journal of the keys it changes: each
 *   changed key once, with its value before the first change and its value now. The map then
 *   holds, for a changed key, the key's index in the journal instead of its value, so a write
 *   finds in its one map lookup both the old value and whether the key is journaled already (no
 *   second map for the undo log). `abort()` restores the journaled keys' values, costing the
 *   changed keys, not the whole map; the delta for V+1 is exactly the journal, in the order of
 *   first change; the commit puts the journal's values back into the map.
 * - A caller that knows whether a key is present (the stream-stream join) writes by `writeKnown`:
 *   such a write goes straight into the next delta's bytes, touching neither the map nor the
 *   journal; the commit writes that delta as it is (and defers applying it to the map, see
 *   `deferred`); `abort()` drops it. A read, a put or a remove before the commit moves them into
 *   the journal first (read back from those bytes).
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
import { mapEntryBytes, mergeToSnapshot, readStateFile, StateFileWriter, stateFileName, type StateFileBytes, type StateFileKind } from './state-file-format';
import { buildSnapshot, type SnapshotSource } from './state-snapshot-builder';
import { encodeValueByteString, writeValue, type ValueEncoder } from './state-value-codec';
import {
  indexedKey,
  indexedKeyLength,
  stateStoreDir,
  type StateStore,
  type StateStoreConf,
  type StateStoreId,
  type StateStoreMetrics,
  type StateStoreProvider,
} from './state-store';

/** Heap of one entry of the map as memoryUsedBytes estimates it. */
const entryBytes = (key: string, value: string) => mapEntryBytes(key.length, value.length);

/**
 * A provider folds its deferred deltas into `base` (see `deferred` and `compact`) once their
 * bytes pass DEFERRED_RATIO times the rows' estimated heap (memoryBytes), or DEFERRED_MIN_BYTES
 * for a small store: what they hold stays in proportion to the rows (an operator has a store per
 * partition, so a fixed large bound would multiply), and most rows a delta puts are removed by a
 * later one before they are folded. At 1M rows a side of bench/join.bench.ts a ratio of 4 cost
 * less CPU than 1 and than a fixed 16 MiB (when the bound applied the deltas to the map).
 */
const DEFERRED_RATIO = 4;
const DEFERRED_MIN_BYTES = 256 * 1024;

/** A value's bytes as a byte string, the form the map keeps (one char per byte). */
function byteString(b: Uint8Array): string {
  // encodeValue's Buffers (every put of every batch) need no second view over their bytes.
  return (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('latin1');
}

/** The bytes of a byte string, as `get` returns them (a fresh array the caller may keep). */
function bytesOf(s: string): Uint8Array {
  return Buffer.from(s, 'latin1');
}

/**
 * The rows of a version built from its files, as a load and a catch-up apply them: a map and
 * memoryBytes' estimate of it, summed as the rows arrive (a second pass over a million entries
 * cost more). A snapshot's keys are distinct and it is read into an empty map, so its rows need
 * no lookup; a delta's may replace or remove a row already there.
 */
class MapBuilder {
  constructor(
    readonly map: Map<string, string | number>,
    public memory: number,
  ) {}

  private readonly onSnapshotPut = (k: string, v: string) => {
    this.memory += entryBytes(k, v);
    this.map.set(k, v);
  };

  private readonly onPut = (k: string, v: string) => {
    const old = this.map.get(k) as string | undefined;
    if (old !== undefined) this.memory -= entryBytes(k, old);
    this.memory += entryBytes(k, v);
    this.map.set(k, v);
  };

  private readonly onRemove = (k: string) => {
    const old = this.map.get(k) as string | undefined;
    if (old === undefined) return;
    this.memory -= entryBytes(k, old);
    this.map.delete(k);
  };

  apply(path: string, data: Buffer, expect: { version: number; kind: StateFileKind }): void {
    readStateFile(path, data, expect, expect.kind === 'snapshot' ? this.onSnapshotPut : this.onPut, this.onRemove);
  }
}

export class FileBackedStateStoreProvider implements StateStoreProvider {
  readonly dir: string;
  private readonly minDeltasForSnapshot: number;
  private readonly minVersionsToRetain: number;
  /**
   * The rows at `loadedVersion` (values as byte strings), plus the open store's uncommitted
   * changes: a key the open store changed maps to its index in that store's journal (a number).
   */
  map = new Map<string, string | number>();
  /** memoryUsedBytes' estimate of the rows of `map`, or of `base` in its place. */
  memoryBytes = 0;
  /**
   * Committed versions whose changes were all writeKnown's and are not in `map` yet: their delta
   * files' bytes, in order, each with the rows it adds less those it removes and memoryBytes'
   * estimate of its change. A store applies them (catchUp) before it reads or changes the map;
   * the commit folds them into `base` when they pass a bound (DEFERRED_RATIO, `compact`); until
   * then `map` (or `base`) is the rows at an older version. So a writer that never reads its store back (the stream-stream join, whose
   * rows are decoded in its own cache) keeps no string per row in the map, nor makes a map
   * operation per write.
   */
  private deferred: { version: number; data: Buffer; sizeDelta: number; memory: number }[] = [];
  /**
   * A snapshot that maintenance wrote while the map was waiting for deferred deltas (its version
   * among theirs), or the deferred deltas folded together (`compact`): its bytes, rows and
   * memoryBytes' estimate stand for the rows at that version, the map is dropped and the
   * deferred deltas it covers with it (see `rebase`). A catch-up
   * builds the map from it and the deltas after it, as a load would; a writer that never reads
   * its store back then never applies a delta to a map at all.
   */
  private base: { version: number; data: Buffer; rows: number; memory: number } | null = null;
  private deferredBytes = 0;
  /** Rows the deferred deltas add less those they remove. */
  deferredSizeDelta = 0;
  /** The last delta of known writes' size: where the next one's buffer starts, so it rarely grows. */
  knownBytesHint = 4096;
  /** memoryBytes' estimate of the deferred changes (a removed or replaced value's length is not known until applied). */
  deferredMemory = 0;
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
    let rows = new MapBuilder(new Map(), 0);
    // The newest snapshot that verifies; a damaged one falls back to the one before (or to the deltas).
    let start = 0;
    let damaged: CorruptCheckpointError | undefined;
    for (const v of snapshots) {
      try {
        rows.apply(this.path(v, 'snapshot'), await read(v, 'snapshot'), { version: v, kind: 'snapshot' });
        start = v;
        break;
      } catch (e) {
        if (!(e instanceof CorruptCheckpointError)) throw e;
        damaged ??= e;
        rows = new MapBuilder(new Map(), 0);
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
      rows.apply(this.path(v, 'delta'), data, { version: v, kind: 'delta' });
    }
    const size = this.fm.size?.bind(this.fm);
    if (size) {
      const unread = files.filter((f) => !this.fileSizes.has(f.name));
      const sizes = await Promise.all(unread.map((f) => size(`${this.dir}/${f.name}`)));
      unread.forEach((f, i) => this.fileSizes.set(f.name, sizes[i]));
    }
    this.map = rows.map;
    this.memoryBytes = rows.memory;
    this.base = null;
    this.deferred = [];
    this.deferredBytes = this.deferredSizeDelta = this.deferredMemory = 0;
    this.loadedVersion = version;
    this.lastSnapshotVersion = start;
    this.futureSnapshots = files.filter((f) => f.kind === 'snapshot' && f.version > version).map((f) => f.version);
  }

  /** Holds a committed version's delta unapplied (see `deferred`); folds all into `base` past the bound (DEFERRED_RATIO). */
  defer(version: number, data: Buffer, sizeDelta: number, memory: number): void {
    this.deferred.push({ version, data, sizeDelta, memory });
    this.deferredBytes += data.length;
    this.deferredSizeDelta += sizeDelta;
    this.deferredMemory += memory;
    if (this.deferredBytes > Math.max(DEFERRED_MIN_BYTES, DEFERRED_RATIO * (this.memoryBytes + this.deferredMemory))) this.compact();
  }

  /**
   * Folds the deferred deltas into `base` by merging their bytes (mergeToSnapshot, as the
   * snapshot worker does) instead of applying them to the map: the rows a catch-up would build,
   * as bytes, with the map dropped until a store reads it. The merge hashes each record's key
   * bytes where a catch-up decodes every key and value into strings and makes a map operation
   * of each, and a writer that never reads its store back (the join) never needs the map. A map
   * that holds rows (a load, or a read since) is written out as the base's first file; it holds
   * no journal indexes here (a commit put them back before deferring).
   */
  private compact(): void {
    const deferred = this.deferred;
    const last = deferred[deferred.length - 1].version;
    let base: StateFileBytes | null = null;
    if (this.base !== null) base = { path: this.path(this.base.version, 'snapshot'), version: this.base.version, data: this.base.data };
    else if (this.map.size > 0) {
      const version = deferred[0].version - 1;
      const w = new StateFileWriter(version, 'snapshot', 64 + this.memoryBytes);
      for (const [k, v] of this.map) w.put(k, v as string);
      const data = w.finish();
      base = { path: this.path(version, 'snapshot'), version, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
    }
    const merged = mergeToSnapshot(last, base, deferred.map((d) => ({ path: this.path(d.version, 'delta'), version: d.version, data: d.data })));
    // A copy of the merged bytes alone: the merge's buffer was sized for all the files it read.
    this.base = { version: last, data: Buffer.from(merged.data), rows: merged.rows, memory: merged.memory };
    this.map = new Map();
    this.memoryBytes = merged.memory;
    this.deferred = [];
    this.deferredBytes = this.deferredSizeDelta = this.deferredMemory = 0;
  }

  /** Brings `map` to the loaded version: `base` if any, then the deferred deltas in order, as a load applies them. */
  catchUp(): void {
    const base = this.base;
    if (base === null && this.deferred.length === 0) return;
    const rows = base === null ? new MapBuilder(this.map, this.memoryBytes) : new MapBuilder(new Map(), 0);
    if (base !== null) rows.apply(this.path(base.version, 'snapshot'), base.data, { version: base.version, kind: 'snapshot' });
    for (const { version, data } of this.deferred) rows.apply(this.path(version, 'delta'), data, { version, kind: 'delta' });
    this.map = rows.map;
    this.memoryBytes = rows.memory;
    this.base = null;
    this.deferred = [];
    this.deferredBytes = this.deferredSizeDelta = this.deferredMemory = 0;
  }

  /**
   * Takes the snapshot of `version` that maintenance just wrote (its bytes, rows and their
   * estimated heap) as `base` in place of the map, when the map is waiting for deferred deltas
   * that reach back to that version or before: the deltas up to it go, the map is dropped, and
   * nothing is applied until a store is read. A map that is current (read or changed through the
   * journal since, which applies the deferred deltas first) is kept: it may hold an open store's
   * journal indexes.
   */
  private rebase(version: number, data: Uint8Array, rows: number, memory: number): void {
    if (this.deferred.length === 0 || this.deferred[0].version > version + 1 || version > this.loadedVersion) return;
    this.base = { version, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength), rows, memory };
    this.map = new Map();
    this.memoryBytes = memory;
    this.deferred = this.deferred.filter((d) => d.version > version);
    this.deferredBytes = this.deferredSizeDelta = this.deferredMemory = 0;
    for (const d of this.deferred) {
      this.deferredBytes += d.data.length;
      this.deferredSizeDelta += d.sizeDelta;
      this.deferredMemory += d.memory;
    }
  }

  /** Rows at the loaded version (the map's, or the base's, and the deferred deltas'). */
  get rows(): number {
    return (this.base === null ? this.map.size : this.base.rows) + this.deferredSizeDelta;
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
      const { data, rows, memory } = await buildSnapshot(committed, base > 0 ? source(base, 'snapshot') : null, deltas, (p) => this.fm.read(p));
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
      this.rebase(committed, data, rows, memory);
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
  /**
   * The journal: each key changed in this version once, in the order of its first change, with
   * its value before that change (`orig`) and now (`cur`); undefined is absent. The provider's map
   * holds the key's index here while this store is open.
   */
  private readonly journalKeys: string[] = [];
  private readonly orig: (string | undefined)[] = [];
  private readonly cur: (string | undefined)[] = [];
  /** Journaled keys now absent (still in the map, by their index), so `size` is the map's less these. */
  private removedInMap = 0;
  /**
   * Keys whose last removal was explicit; any other removed key went by the watermark. Only the
   * rare explicit removals are recorded: the eviction of every expired group, every batch, then
   * writes nothing here, and commit looks nothing up while none were made.
   */
  private readonly explicitRemovals = new Set<string>();
  /**
   * writeKnown's writes, in order, not in the map nor the journal: the records of this version's
   * delta, written as they come (no key, value or flag is kept per write), while the journal is
   * empty; null when there are none. Any other use of the store first moves them into the
   * journal (settle), so reads see them.
   */
  private known: StateFileWriter | null = null;
  /** Rows the known writes add less those they remove (by their `present`). */
  private knownSizeDelta = 0;
  /** The known writes' puts and removals (this version's metrics), and memoryBytes' estimate of them (see `defer`). */
  private knownPuts = 0;
  private knownRemovals = 0;
  private knownMemory = 0;
  committed = false;
  finished = false;
  private committedMetrics: StateStoreMetrics | null = null;

  constructor(private readonly p: FileBackedStateStoreProvider, readonly version: number) {}

  get id(): StateStoreId {
    return this.p.id;
  }

  get size(): number {
    return this.p.rows - this.removedInMap + this.knownSizeDelta;
  }

  private writable(): void {
    if (this.finished) {
      throw new Error(`state store ${this.p.dir} version ${this.version} was already ${this.committed ? 'committed' : 'aborted'}; load a new version`);
    }
  }

  /** A map entry's value: a byte string, or a journal index for a changed key. */
  private valueOf(v: string | number | undefined): string | undefined {
    return typeof v === 'number' ? this.cur[v] : v;
  }

  get(key: string): Uint8Array | undefined {
    this.settle();
    const v = this.valueOf(this.p.map.get(key));
    return v === undefined ? undefined : bytesOf(v);
  }

  has(key: string): boolean {
    this.settle();
    return this.valueOf(this.p.map.get(key)) !== undefined;
  }

  put(key: string, value: Uint8Array): void {
    this.putByteString(key, byteString(value));
  }

  putByteString(key: string, value: string): void {
    this.writable();
    this.settle();
    // Every changed row of every batch comes through here: one map lookup says whether the key is
    // journaled already and what its value was.
    const map = this.p.map;
    const v = map.get(key);
    let old: string | undefined;
    if (typeof v === 'number') {
      old = this.cur[v];
      this.cur[v] = value;
      if (old === undefined) this.removedInMap--;
    } else {
      old = v;
      map.set(key, this.journal(key, v, value));
    }
    this.p.memoryBytes += entryBytes(key, value) - (old === undefined ? 0 : entryBytes(key, old));
  }

  remove(key: string, reason: 'watermark' | 'explicit' = 'explicit'): void {
    this.writable();
    this.settle();
    const map = this.p.map;
    const v = map.get(key);
    let old: string | undefined;
    if (typeof v === 'number') {
      old = this.cur[v];
      if (old === undefined) return;
      this.cur[v] = undefined;
    } else {
      if (v === undefined) return;
      old = v;
      // The key stays in the map, by its index, until the commit: a put after this finds it journaled.
      map.set(key, this.journal(key, v, undefined));
    }
    this.removedInMap++;
    this.p.memoryBytes -= entryBytes(key, old);
    if (reason !== 'watermark') this.explicitRemovals.add(key);
    else if (this.explicitRemovals.size > 0) this.explicitRemovals.delete(key);
  }

  writeKnown(key: string, value: string | undefined, present: boolean, index?: number): void {
    this.writable();
    if (value === undefined && !present) return;
    if (this.journalKeys.length > 0) {
      // The journal's records go first in the delta: after it, a known write is an ordinary one.
      const k = index === undefined ? key : indexedKey(key, index);
      if (value === undefined) this.remove(k, 'watermark');
      else this.putByteString(k, value);
      return;
    }
    const w = this.knownWriter();
    if (value === undefined) {
      w.remove(key, index);
      this.knownRemovals++;
      this.knownSizeDelta--;
      this.knownMemory -= mapEntryBytes(index === undefined ? key.length : indexedKeyLength(key, index), 0);
    } else {
      w.put(key, value, index);
      this.knownPuts++;
      if (!present) {
        this.knownSizeDelta++;
        this.knownMemory += mapEntryBytes(index === undefined ? key.length : indexedKeyLength(key, index), value.length);
      }
    }
  }

  writeKnownValue<T>(key: string, value: T, present: boolean, encode: ValueEncoder<T> = writeValue, index?: number): void {
    this.writable();
    if (this.journalKeys.length > 0) return this.putByteString(index === undefined ? key : indexedKey(key, index), encodeValueByteString(value, encode));
    const n = this.knownWriter().putValue(key, value, encode, index);
    this.knownPuts++;
    if (!present) {
      this.knownSizeDelta++;
      this.knownMemory += mapEntryBytes(index === undefined ? key.length : indexedKeyLength(key, index), n);
    }
  }

  private knownWriter(): StateFileWriter {
    return (this.known ??= new StateFileWriter(this.version + 1, 'delta', this.p.knownBytesHint));
  }

  /**
   * Brings the map up to date (the deferred versions), then moves the known writes into the
   * journal through put/remove, so that the store can be read or changed.
   */
  private settle(): void {
    this.p.catchUp();
    const known = this.known;
    if (known === null) return;
    this.dropKnown();
    const data = known.finish();
    const version = this.version + 1;
    readStateFile(this.p.path(version, 'delta'), Buffer.from(data.buffer, data.byteOffset, data.byteLength), { version, kind: 'delta' },
      (k, v) => this.putByteString(k, v), (k) => this.remove(k, 'watermark'));
  }

  private dropKnown(): void {
    this.known = null;
    this.knownSizeDelta = this.knownPuts = this.knownRemovals = this.knownMemory = 0;
  }

  /** Journals a key's first change; returns its index. */
  private journal(key: string, orig: string | undefined, cur: string | undefined): number {
    this.orig.push(orig);
    this.cur.push(cur);
    return this.journalKeys.push(key) - 1;
  }

  *entries(): IterableIterator<[string, Uint8Array]> {
    this.settle();
    for (const [k, v] of this.p.map) {
      const value = this.valueOf(v);
      if (value !== undefined) yield [k, bytesOf(value)];
    }
  }

  keys(): IterableIterator<string> {
    this.settle();
    return this.removedInMap === 0 ? this.p.map.keys() : this.presentKeys();
  }

  private *presentKeys(): IterableIterator<string> {
    for (const [k, v] of this.p.map) if (this.valueOf(v) !== undefined) yield k;
  }

  updatedKeys(): IterableIterator<string> {
    this.settle();
    return this.journalKeys.values();
  }

  async commit(): Promise<number> {
    this.writable();
    const started = this.p.now();
    const next = this.version + 1;
    const { journalKeys, orig, cur, known } = this;
    // Known writes are made only while the journal is empty (writeKnown): then they are the delta.
    const w = known ?? new StateFileWriter(next, 'delta', 64 + journalKeys.length * 48);
    // One pass over the journal writes the delta and counts what changed (the metrics of this version).
    let updated = this.knownPuts, evicted = this.knownRemovals, removed = 0;
    for (let i = 0; i < journalKeys.length; i++) {
      const key = journalKeys[i], value = cur[i];
      if (value !== undefined) {
        w.put(key, value);
        updated++;
      } else if (orig[i] !== undefined) {
        w.remove(key);
        if (this.explicitRemovals.size > 0 && this.explicitRemovals.has(key)) removed++;
        else evicted++;
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
    // The version is durable: the journaled keys take their values in the map again.
    const map = this.p.map;
    for (let i = 0; i < journalKeys.length; i++) {
      const value = cur[i];
      if (value !== undefined) map.set(journalKeys[i], value);
      else map.delete(journalKeys[i]);
    }
    if (known !== null) {
      // Only known writes: the map need not have them until it is read (see `deferred`).
      this.p.knownBytesHint = data.length + (data.length >> 3) + 64;
      this.p.defer(next, Buffer.from(data.buffer, data.byteOffset, data.byteLength), this.knownSizeDelta, this.knownMemory);
    }
    this.dropKnown();
    this.removedInMap = 0;
    this.committed = true;
    this.finished = true;
    this.p.loadedVersion = next;
    this.committedMetrics = {
      numRowsTotal: this.p.rows,
      numRowsUpdated: updated,
      numRowsEvictedByWatermark: evicted,
      numRowsRemoved: removed,
      memoryUsedBytes: this.p.memoryBytes + this.p.deferredMemory,
      bytesOnDisk: this.p.bytesOnDisk(),
      deltaBytes: data.length,
      commitTimeMs: this.p.now() - started,
    };
    return next;
  }

  abort(): void {
    if (this.finished) return;
    const { journalKeys, orig, cur } = this;
    const map = this.p.map;
    for (let i = 0; i < journalKeys.length; i++) {
      const key = journalKeys[i], before = orig[i], now = cur[i];
      if (before === undefined) map.delete(key);
      else map.set(key, before);
      this.p.memoryBytes += (before === undefined ? 0 : entryBytes(key, before)) - (now === undefined ? 0 : entryBytes(key, now));
    }
    journalKeys.length = orig.length = cur.length = 0;
    this.dropKnown();
    this.removedInMap = 0;
    this.explicitRemovals.clear();
    this.finished = true;
  }

  private liveMetrics(): StateStoreMetrics {
    this.settle();
    let updated = 0, evicted = 0, removed = 0;
    for (let i = 0; i < this.journalKeys.length; i++) {
      if (this.cur[i] !== undefined) updated++;
      else if (this.orig[i] === undefined) continue; // put then removed: never existed
      else if (this.explicitRemovals.size > 0 && this.explicitRemovals.has(this.journalKeys[i])) removed++;
      else evicted++;
    }
    return {
      numRowsTotal: this.size,
      numRowsUpdated: updated,
      numRowsEvictedByWatermark: evicted,
      numRowsRemoved: removed,
      memoryUsedBytes: this.p.memoryBytes + this.p.deferredMemory,
      bytesOnDisk: this.p.bytesOnDisk(),
      deltaBytes: 0,
      commitTimeMs: 0,
    };
  }

  metrics(): StateStoreMetrics {
    return this.committedMetrics ?? this.liveMetrics();
  }
}
