/**
 * LmdbStateStoreProvider: Spark's RocksDBStateStoreProvider with changelog checkpointing, on
 * LMDB. The rows live in a local LMDB environment (memory-mapped pages the OS caches, not the
 * JavaScript heap), so a store may hold far more keys than the run's heap; the checkpoint holds
 * what any worker needs to rebuild it.
 *
 * Protocol:
 * - Checkpoint, under `state/<op>/<partition>/`: per version `<v>.changelog` (the batch's puts
 *   and removes) and, every `minDeltasForSnapshot` versions, `<v>.snapshot` (every row). Both are
 *   state-file-format.ts files (header, checksum), written through the CheckpointFileManager, so
 *   local disk and s3:// work alike.
 * - Local cache: one LMDB environment per store under `localDir/state/<op>/<partition>/`, with a
 *   meta record saying which version it holds, of which checkpoint, and the checksum of the file
 *   that version was last written from. Load version V reuses it when it holds V of this
 *   checkpoint and that file in the checkpoint still has the recorded checksum (a re-run
 *   elsewhere rewrites versions; then it no longer matches); otherwise it is cleared and rebuilt
 *   from the newest snapshot ≤ V that verifies plus the changelogs after it. Commits do not wait
 *   for the local disk; the environment is trusted for the machine's current boot only
 *   (lmdb-environment.ts).
 * - A batch's changes stay in an in-heap overlay (the batch's changed keys only); reads see the
 *   overlay first. `abort()` drops the overlay; the environment never held the changes.
 *   `commit()` writes `<V+1>.changelog` to the checkpoint first and then applies the overlay and
 *   the new meta record in one LMDB transaction: a crash between the two leaves the environment
 *   at V, which is what the re-run of the batch loads.
 * - `maintenance()` (off the batch path, as the file-backed provider's): the snapshot of the
 *   environment's version is read by the snapshot worker thread, which opens the same
 *   environment, in an LMDB read transaction (a consistent view while later batches commit); this
 *   thread writes it as `<v>.snapshot`. Then retention deletes what no retained version needs
 *   (state-checkpoint-files.ts).
 *
 * Values are the bytes the operators encoded (state-value-codec.ts), stored as given.
 */
import path from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import type { Clock } from '../clock';
import { CorruptCheckpointError } from '../errors';
import { listStateFiles, loadableVersions, purgeStateFiles } from './state-checkpoint-files';
import { checkStateFile, scanStateFile, StateFileWriter, stateFileName, type StateFileKind } from './state-file-format';
import { keyInValue, lmdbKey, lmdbSnapshot, lmdbValue, keyOf, openLocalCache, storedValue, valueOf, type LocalVersion } from './lmdb-environment';
import { localCacheMatches } from './lmdb-local-cache';
import { buildLmdbSnapshot } from './state-snapshot-builder';
import { encodeValueByteString, writeValue, type ValueEncoder } from './state-value-codec';
import {
  indexedKey,
  stateStoreDir,
  type StateStore,
  type StateStoreConf,
  type StateStoreId,
  type StateStoreMetrics,
  type StateStoreProvider,
} from './state-store';

export interface LmdbStateStoreOptions {
  /**
   * Directory on this machine for the local LMDB environments of one query (a worker's data
   * directory). A cache: deleting it costs a rebuild from the checkpoint, nothing else.
   */
  localDir: string;
}

const APPEND = { append: true };

export class LmdbStateStoreProvider implements StateStoreProvider {
  readonly dir: string;
  readonly localPath: string;
  private readonly minDeltasForSnapshot: number;
  private readonly minVersionsToRetain: number;
  private env: RootDatabase | null = null;
  rows!: Database<Buffer, Buffer>;
  private meta!: Database<LocalVersion, string>;
  /** Rows at `loadedVersion` (the environment's version). */
  rowCount = 0;
  loadedVersion = -1;
  /** Whether the last load rebuilt the environment from the checkpoint (0 or 1, a metric). */
  rebuilt = 0;
  lastSnapshotVersion = 0;
  /** Snapshots newer than the loaded version, left by an attempt that crashed before commits/: deleted at the re-run's commit. */
  futureSnapshots: number[] = [];
  readonly fileSizes = new Map<string, number>();
  open: LmdbStateStore | null = null;
  private generation = 0;
  private maintaining: Promise<void> | null = null;

  constructor(
    readonly fm: CheckpointFileManager,
    readonly id: StateStoreId,
    conf: StateStoreConf,
    opts: LmdbStateStoreOptions,
    private readonly clock?: Clock,
  ) {
    this.dir = stateStoreDir(id);
    this.localPath = path.join(opts.localDir, ...this.dir.split('/'));
    this.minDeltasForSnapshot = Math.max(1, conf.minDeltasForSnapshot ?? 10);
    this.minVersionsToRetain = Math.max(1, conf.minVersionsToRetain ?? 100);
  }

  now(): number {
    return this.clock ? this.clock.now() : performance.now();
  }

  path(version: number, kind: StateFileKind): string {
    return `${this.dir}/${stateFileName(version, kind)}`;
  }

  private openEnv(): void {
    if (this.env) return;
    ({ env: this.env, rows: this.rows, meta: this.meta } = openLocalCache(this.localPath));
  }

  async getStore(version: number): Promise<StateStore> {
    if (!Number.isSafeInteger(version) || version < 0) throw new RangeError(`state version must be a non-negative integer, got ${version}`);
    if (this.open && !this.open.finished) this.open.abort();
    if (this.loadedVersion !== version) await this.load(version);
    this.open = new LmdbStateStore(this, version);
    return this.open;
  }

  private async readFile(p: string, version: number): Promise<Buffer> {
    const data = await this.fm.read(p).catch((e: { code?: string }) => {
      if (e?.code === 'FILE_NOT_FOUND') {
        throw new CorruptCheckpointError(p, `state version ${version} of ${this.dir} needs this file and it is missing ` +
          '(the version was never committed, or its files were deleted)');
      }
      throw e;
    });
    this.fileSizes.set(p.slice(this.dir.length + 1), data.length);
    return data;
  }

  private async load(version: number): Promise<void> {
    this.generation++;
    this.openEnv();
    const files = await listStateFiles(this.fm, this.dir);
    this.fileSizes.clear();
    const snapshots = files.filter((f) => f.kind === 'snapshot' && f.version <= version).map((f) => f.version).sort((a, b) => b - a);
    let start = snapshots.find((v) => v <= version) ?? 0;
    if (await localCacheMatches(this.fm, this.dir, this.meta.get('version'), version)) {
      this.rebuilt = 0;
    } else {
      // The newest snapshot that verifies; a damaged one falls back to the one before.
      let base: { version: number; data: Buffer } | null = null;
      let damaged: CorruptCheckpointError | undefined;
      for (const v of snapshots) {
        const p = this.path(v, 'snapshot');
        try {
          const data = await this.readFile(p, version);
          checkStateFile(p, data, { version: v, kind: 'snapshot' });
          base = { version: v, data };
          break;
        } catch (e) {
          if (!(e instanceof CorruptCheckpointError)) throw e;
          damaged ??= e;
        }
      }
      start = base?.version ?? 0;
      const changelogs: Buffer[] = [];
      for (let v = start + 1; v <= version; v++) {
        changelogs.push(await this.readFile(this.path(v, 'changelog'), version).catch((e: unknown) => {
          throw damaged ?? e;
        }));
      }
      const last = version === 0 ? null : version === start ? { file: stateFileName(start, 'snapshot'), data: base!.data } : { file: stateFileName(version, 'changelog'), data: changelogs.at(-1)! };
      // One write transaction: a crash part-way leaves the environment as it was (and not matching V).
      const rows = this.rows;
      const put = (key: string, data: Buffer, s: number, e: number) => {
        const lkey = lmdbKey(key);
        rows.putSync(lkey, lmdbValue(lkey, key, data.subarray(s, e)));
      };
      // A snapshot this provider wrote lists its keys in LMDB's order: each is appended to the
      // last page (MDB_APPEND, 40% less time for 1M keys) while they ascend. A snapshot in
      // another order (converted from the heap store's) takes the ordinary put.
      let highest: Buffer | null = null;
      const putSnapshotRow = (key: string, data: Buffer, s: number, e: number) => {
        const lkey = lmdbKey(key);
        const ascending = highest === null || Buffer.compare(lkey, highest) > 0;
        const value = lmdbValue(lkey, key, data.subarray(s, e));
        if (ascending) rows.putSync((highest = lkey), value, APPEND);
        else rows.putSync(lkey, value);
      };
      const remove = (key: string) => void rows.removeSync(lmdbKey(key));
      this.env!.transactionSync(() => {
        rows.clearSync();
        if (base) scanStateFile(this.path(start, 'snapshot'), base.data, { version: start, kind: 'snapshot' }, putSnapshotRow, remove);
        changelogs.forEach((data, i) => scanStateFile(this.path(start + 1 + i, 'changelog'), data, { version: start + 1 + i, kind: 'changelog' }, put, remove));
        this.meta.putSync('version', {
          version,
          checkpoint: this.fm.description,
          file: last?.file ?? null,
          crc: last ? last.data.readUInt32LE(last.data.length - 4) : 0,
        });
      });
      this.rebuilt = 1;
    }
    const size = this.fm.size?.bind(this.fm);
    if (size) {
      const unread = files.filter((f) => !this.fileSizes.has(f.name));
      const sizes = await Promise.all(unread.map((f) => size(`${this.dir}/${f.name}`)));
      unread.forEach((f, i) => this.fileSizes.set(f.name, sizes[i]));
    }
    this.rowCount = (this.rows.getStats() as { entryCount: number }).entryCount;
    this.loadedVersion = version;
    this.lastSnapshotVersion = start;
    this.futureSnapshots = files.filter((f) => f.kind === 'snapshot' && f.version > version).map((f) => f.version);
  }

  /** Applies a committed batch to the environment as version `version` (commit's second step). */
  apply(changes: Map<string, Change>, version: number, changelog: Uint8Array): void {
    const rows = this.rows;
    const buf = Buffer.from(changelog.buffer, changelog.byteOffset, changelog.byteLength);
    this.env!.transactionSync(() => {
      for (const [key, c] of changes) {
        const lkey = lmdbKey(key);
        if (c.value !== null) rows.putSync(lkey, lmdbValue(lkey, key, c.value));
        else if (c.existed) rows.removeSync(lkey);
      }
      this.meta.putSync('version', { version, checkpoint: this.fm.description, file: stateFileName(version, 'changelog'), crc: buf.readUInt32LE(buf.length - 4) });
    });
    this.loadedVersion = version;
  }

  bytesOnDisk(): number {
    let n = 0;
    for (const size of this.fileSizes.values()) n += size;
    return n;
  }

  /** Bytes of the pages the local environment uses (what the OS page cache would hold for it). */
  localBytes(): number {
    if (!this.env) return 0;
    const s = this.rows.getStats() as { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
    return s.pageSize * (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages);
  }

  maintenance(): Promise<void> {
    this.maintaining ??= this.maintain().finally(() => (this.maintaining = null));
    return this.maintaining;
  }

  private async maintain(): Promise<void> {
    if (!this.env || this.loadedVersion <= 0) return;
    let latest = this.loadedVersion;
    if (latest - this.lastSnapshotVersion >= this.minDeltasForSnapshot) {
      const generation = this.generation;
      const snap = await this.snapshot(generation);
      if (!snap) return;
      latest = snap.version;
      await this.fm.createAtomic(this.path(snap.version, 'snapshot'), snap.data, { overwrite: true });
      this.fileSizes.set(stateFileName(snap.version, 'snapshot'), snap.data.length);
      if (generation !== this.generation) {
        // A load ran meanwhile and may not have listed it: a re-run that rewrites this version
        // deletes it at its commit, as it does any snapshot ahead of it.
        if (snap.version > this.loadedVersion && !this.futureSnapshots.includes(snap.version)) this.futureSnapshots.push(snap.version);
        return;
      }
      this.lastSnapshotVersion = Math.max(this.lastSnapshotVersion, snap.version);
    }
    for (const name of await purgeStateFiles(this.fm, this.dir, latest, this.minVersionsToRetain)) this.fileSizes.delete(name);
  }

  /**
   * The snapshot of the environment's committed version, built in the snapshot worker thread
   * (which opens the same environment), or here where no worker starts. Null when a load cleared
   * the environment meanwhile.
   */
  private async snapshot(generation: number): Promise<{ version: number; data: Uint8Array } | null> {
    const snap = await buildLmdbSnapshot(this.localPath, () => lmdbSnapshot({ env: this.env!, rows: this.rows, meta: this.meta }));
    return generation === this.generation ? snap : null;
  }

  async listVersions(): Promise<number[]> {
    return loadableVersions(await listStateFiles(this.fm, this.dir));
  }

  async close(): Promise<void> {
    await this.maintaining?.catch(() => undefined);
    if (this.open && !this.open.finished) this.open.abort();
    this.open = null;
    const env = this.env;
    this.env = null;
    this.loadedVersion = -1;
    await env?.close();
  }
}

/** A key's change in the open batch: its new value (null: removed) and whether it existed before. */
interface Change {
  value: Buffer | null;
  existed: boolean;
}

const NO_VALUE = Buffer.alloc(0);

/** Heap of one overlay entry as memoryUsedBytes counts it (key chars, value bytes, entry objects). */
const OVERLAY_ENTRY_BYTES = 120;

export class LmdbStateStore implements StateStore {
  readonly changes = new Map<string, Change>();
  /** Keys whose last removal was explicit (the others went by the watermark). */
  private readonly explicitRemovals = new Set<string>();
  private sizeDelta = 0;
  private overlayBytes = 0;
  committed = false;
  finished = false;
  private committedMetrics: StateStoreMetrics | null = null;
  /** Bytes of the changelog the commit wrote to the checkpoint (0 before it). */
  private changelogBytes = 0;

  constructor(private readonly p: LmdbStateStoreProvider, readonly version: number) {}

  get id(): StateStoreId {
    return this.p.id;
  }

  get size(): number {
    return this.p.rowCount + this.sizeDelta;
  }

  private writable(): void {
    if (this.finished) {
      throw new Error(`state store ${this.p.dir} version ${this.version} was already ${this.committed ? 'committed' : 'aborted'}; load a new version`);
    }
  }

  private stored(key: string): Buffer | undefined {
    const lkey = lmdbKey(key);
    return storedValue(key, lkey, this.p.rows.get(lkey));
  }

  get(key: string): Uint8Array | undefined {
    const c = this.changes.get(key);
    if (c) return c.value === null ? undefined : Buffer.from(c.value);
    return this.stored(key);
  }

  has(key: string): boolean {
    const c = this.changes.get(key);
    if (c) return c.value !== null;
    return this.stored(key) !== undefined;
  }

  /** A new change record (the key's first change in this batch). */
  private record(key: string, existed: boolean): Change {
    const c: Change = { value: null, existed };
    this.changes.set(key, c);
    this.overlayBytes += OVERLAY_ENTRY_BYTES + key.length * 2;
    return c;
  }

  put(key: string, value: Uint8Array): void {
    // A copy: the caller may reuse its array, and `get` hands out copies of this one.
    this.set(key, Buffer.from(value));
  }

  putByteString(key: string, value: string): void {
    this.set(key, Buffer.from(value, 'latin1'));
  }

  /** The overlay looks the key up anyway (its change record): `present` saves nothing here. */
  writeKnown(key: string, value: string | undefined, _present: boolean, index?: number): void {
    const k = index === undefined ? key : indexedKey(key, index);
    if (value === undefined) this.remove(k, 'watermark');
    else this.putByteString(k, value);
  }

  writeKnownValue<T>(key: string, value: T, _present: boolean, encode: ValueEncoder<T> = writeValue, index?: number): void {
    this.putByteString(index === undefined ? key : indexedKey(key, index), encodeValueByteString(value, encode));
  }

  /** Puts a value this store now owns. */
  private set(key: string, value: Buffer): void {
    this.writable();
    let c = this.changes.get(key);
    let visible: boolean;
    if (c) visible = c.value !== null;
    else c = this.record(key, (visible = this.stored(key) !== undefined));
    if (!visible) this.sizeDelta++;
    if (c.value) this.overlayBytes -= c.value.length;
    c.value = value;
    this.overlayBytes += value.length;
  }

  remove(key: string, reason: 'watermark' | 'explicit' = 'explicit'): void {
    this.writable();
    const c = this.changes.get(key);
    if (c) {
      if (c.value === null) return;
      this.overlayBytes -= c.value.length;
      c.value = null;
    } else {
      if (this.stored(key) === undefined) return;
      this.record(key, true);
    }
    this.sizeDelta--;
    if (reason !== 'watermark') this.explicitRemovals.add(key);
    else if (this.explicitRemovals.size > 0) this.explicitRemovals.delete(key);
  }

  /** Rows visible now: the environment's, without those this batch changed, then this batch's. */
  private *rows(): IterableIterator<[string, Uint8Array]> {
    const changes = this.changes;
    for (const { key: lkey, value: raw } of this.p.rows.getRange({})) {
      const key = keyOf(lkey, raw);
      if (changes.size === 0 || !changes.has(key)) yield [key, valueOf(lkey, raw)];
    }
    for (const [key, c] of changes) if (c.value !== null) yield [key, c.value];
  }

  *entries(): IterableIterator<[string, Uint8Array]> {
    for (const [k, v] of this.rows()) yield [k, Buffer.from(v)];
  }

  /**
   * The visible keys, read without the values (watermark eviction scans every key each time the
   * watermark moves): 200k keys in a median 157–272 ms against 365–655 through `rows()` (a
   * shared 2-core machine). Only a hashed key's value is read, since it holds the key.
   */
  *keys(): IterableIterator<string> {
    const changes = this.changes;
    const rows = this.p.rows;
    for (const lkey of rows.getKeys({}) as Iterable<Buffer>) {
      const key = keyOf(lkey, keyInValue(lkey) ? rows.get(lkey)! : NO_VALUE);
      if (changes.size === 0 || !changes.has(key)) yield key;
    }
    for (const [key, c] of changes) if (c.value !== null) yield key;
  }

  updatedKeys(): IterableIterator<string> {
    return this.changes.keys();
  }

  private counts(): Pick<StateStoreMetrics, 'numRowsUpdated' | 'numRowsEvictedByWatermark' | 'numRowsRemoved'> {
    let updated = 0, evicted = 0, removed = 0;
    for (const [key, c] of this.changes) {
      if (c.value !== null) updated++;
      else if (!c.existed) continue; // put then removed: never existed
      else if (this.explicitRemovals.size > 0 && this.explicitRemovals.has(key)) removed++;
      else evicted++;
    }
    return { numRowsUpdated: updated, numRowsEvictedByWatermark: evicted, numRowsRemoved: removed };
  }

  async commit(): Promise<number> {
    this.writable();
    const started = this.p.now();
    const next = this.version + 1;
    const w = new StateFileWriter(next, 'changelog', 64 + this.changes.size * 48);
    for (const [key, c] of this.changes) {
      if (c.value !== null) w.putBytes(key, c.value);
      else if (c.existed) w.remove(key);
    }
    const data = w.finish();
    await this.p.fm.createAtomic(this.p.path(next, 'changelog'), data, { overwrite: true });
    for (const v of this.p.futureSnapshots) {
      await this.p.fm.delete(this.p.path(v, 'snapshot'));
      this.p.fileSizes.delete(stateFileName(v, 'snapshot'));
    }
    this.p.futureSnapshots = [];
    this.p.fileSizes.set(stateFileName(next, 'changelog'), data.length);
    this.p.apply(this.changes, next, data);
    this.p.rowCount += this.sizeDelta;
    this.committed = true;
    this.finished = true;
    this.changelogBytes = data.length;
    this.committedMetrics = {
      ...this.counts(),
      ...this.common(),
      deltaBytes: data.length,
      commitTimeMs: this.p.now() - started,
    };
    return next;
  }

  abort(): void {
    if (this.finished) return;
    this.changes.clear();
    this.explicitRemovals.clear();
    this.sizeDelta = 0;
    this.overlayBytes = 0;
    this.finished = true;
  }

  private common(): Pick<StateStoreMetrics, 'numRowsTotal' | 'memoryUsedBytes' | 'bytesOnDisk' | 'customMetrics'> {
    return {
      numRowsTotal: this.p.rowCount + (this.committed ? 0 : this.sizeDelta),
      // The JavaScript heap this store holds: the batch's changes (the rows are in LMDB's pages).
      memoryUsedBytes: this.committed ? 0 : this.overlayBytes,
      bytesOnDisk: this.p.bytesOnDisk(),
      customMetrics: { lmdbLocalBytes: this.p.localBytes(), lmdbChangelogBytes: this.changelogBytes, lmdbRebuiltFromCheckpoint: this.p.rebuilt },
    };
  }

  metrics(): StateStoreMetrics {
    if (this.committedMetrics) return this.committedMetrics;
    return {
      ...this.counts(),
      ...this.common(),
      deltaBytes: 0,
      commitTimeMs: 0,
    };
  }
}
