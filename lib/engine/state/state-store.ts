/**
 * The state store port (Spark's StateStore / StateStoreProvider).
 *
 * A stateful operator keeps one store per (operator id, partition id), under
 * `state/<operatorId>/<partitionId>/` of the checkpoint. Stores are versioned by batch:
 * batch N loads version N (version 0 is empty), changes it, and commits version N+1. A
 * re-run of batch N after a crash loads version N again, whatever N+1 files a half-finished
 * commit left behind, and commits N+1 again (overwriting them): state follows the write-ahead
 * log, never runs ahead of it.
 *
 * Contract (every implementation passes `state-store.contract.ts`):
 * - `provider.getStore(v)` returns a store whose contents are exactly what was committed as
 *   version v (by this process or an earlier one); v with no committed files throws
 *   CorruptCheckpointError (or is empty for v = 0).
 * - Keys are strings (see `encodeKey`), values are bytes (see `encodeValue`). Reads see this
 *   version's own writes.
 * - `commit()` makes the changes durable as version v+1 and returns v+1; after it returns a
 *   new provider on the same checkpoint loads the same contents at v+1.
 * - `abort()` discards every change since `getStore`; the provider can load v again.
 * - A store handle is used for one batch: after `commit()` or `abort()` it rejects writes.
 * - `maintenance()` (snapshots, retention) never changes what any retained version loads as.
 */
import type { ValueEncoder } from './state-value-codec';

export interface StateStoreId {
  operatorId: number;
  partitionId: number;
  /** Spark's store name; 'default' stores live directly in the partition directory. */
  storeName?: string;
}

export interface StateStoreConf {
  /** Write a snapshot once this many deltas have accumulated since the last (default 10). */
  minDeltasForSnapshot?: number;
  /** Versions that stay loadable; older files are deleted by maintenance (default 100). */
  minVersionsToRetain?: number;
}

/** Spark's StateStoreMetrics plus Weir's on-disk figures, for one committed version. */
export interface StateStoreMetrics {
  /** Rows in the store after this version's changes. */
  numRowsTotal: number;
  /** Distinct keys written (put) in this version. */
  numRowsUpdated: number;
  /** Distinct keys removed because the watermark passed them. */
  numRowsEvictedByWatermark: number;
  /** Distinct keys removed for any other reason. */
  numRowsRemoved: number;
  /**
   * Estimated heap held by the rows: key chars × 2 + value bytes + a fixed per-entry cost for
   * the Map entry and the byte array object. An estimate, as Spark's memoryUsedBytes is.
   */
  memoryUsedBytes: number;
  /** Bytes of this store's files in the checkpoint (deltas and snapshots still retained). */
  bytesOnDisk: number;
  /** Bytes of the delta file this version wrote. */
  deltaBytes: number;
  /** Time to encode and write the delta, by the injected clock (ms). */
  commitTimeMs: number;
  /** A provider's own figures (Spark's customMetrics), e.g. the LMDB provider's local bytes. */
  customMetrics?: Record<string, number>;
}

/**
 * The key of the `index`-th value held under `key` (the stream-stream join's keyWithIndexToValue
 * slots, Spark's (key, index)): the key, `#`, the index. The index has no `#`, so the keys of
 * distinct (key, index) pairs are distinct.
 */
export function indexedKey(key: string, index: number): string {
  return `${key}#${index}`;
}

/** indexedKey(key, index).length, without making it (`index` a non-negative integer). */
export function indexedKeyLength(key: string, index: number): number {
  return key.length + 1 + decimalDigits(index);
}

/** How many decimal digits a non-negative integer has (a slot's index: nearly always one). */
function decimalDigits(n: number): number {
  if (n < 10) return 1;
  let digits = 2;
  for (let d = Math.floor(n / 100); d > 0; d = Math.floor(d / 10)) digits++;
  return digits;
}

export interface StateStore {
  readonly id: StateStoreId;
  /** The version this store was loaded at; `commit()` produces `version + 1`. */
  readonly version: number;
  get(key: string): Uint8Array | undefined;
  has(key: string): boolean;
  put(key: string, value: Uint8Array): void;
  /**
   * `put` of a value given as a byte string, one char per byte (encodeValueByteString): the form
   * the file-backed store keeps its values in, so a hot writer (the stream-stream join) makes no
   * byte array per value.
   */
  putByteString(key: string, value: string): void;
  /**
   * A write by a caller that knows whether `key` is present now (`present`: loaded or put, and
   * not removed since): a put of a byte string, or, with `value` undefined, a removal by the
   * watermark (a no-op when not present). Each key at most once per version, and not also
   * through put/remove in it (numRowsUpdated counts these writes). The store need not look the
   * key up: the file-backed store keeps these writes aside, writes its delta from them and
   * applies them to its map at the commit (a read before that applies them first; an abort
   * drops them), so the stream-stream join's changed slots cost one map operation each, where
   * `putByteString` costs three. A wrong `present` makes `size` wrong until the commit (and memoryUsedBytes an estimate off by the row).
   * With `index`, the key written is indexedKey(key, index), which the file-backed store writes
   * into its delta without making that string.
   */
  writeKnown(key: string, value: string | undefined, present: boolean, index?: number): void;
  /**
   * `writeKnown` of a put of encodeValue(`value`): the file-backed store encodes it straight into
   * its delta, making no byte string per value (the join's buffered rows, every batch). `encode`
   * writes the same bytes as encodeValue for a value of a fixed shape, faster (writeRowValue).
   * `index` as for writeKnown.
   */
  writeKnownValue<T>(key: string, value: T, present: boolean, encode?: ValueEncoder<T>, index?: number): void;
  /** Removes a key; `reason: 'watermark'` counts it in numRowsEvictedByWatermark. */
  remove(key: string, reason?: 'watermark' | 'explicit'): void;
  /** Number of rows visible now (including this version's uncommitted changes). */
  readonly size: number;
  /** Every (key, value) visible now. Do not put/remove while iterating; collect keys first. */
  entries(): IterableIterator<[string, Uint8Array]>;
  /**
   * Every key visible now, without its value (a scan that reads few values, such as the
   * watermark eviction's, then copies no bytes per row). Same rule as `entries` on changes.
   */
  keys(): IterableIterator<string>;
  /** Keys changed in this version so far (put or removed). */
  updatedKeys(): IterableIterator<string>;
  /** Makes the changes durable as `version + 1` and returns that version. */
  commit(): Promise<number>;
  /** Discards the changes made since the store was loaded. */
  abort(): void;
  readonly committed: boolean;
  /** Metrics of the committed version (after `commit()`), or of the changes so far. */
  metrics(): StateStoreMetrics;
}

export interface StateStoreProvider {
  readonly id: StateStoreId;
  /** Loads version `version` (0 = empty). Only one store handle is open at a time. */
  getStore(version: number): Promise<StateStore>;
  /** Snapshot if due, delete files older than the retained versions. Safe to call any time. */
  maintenance(): Promise<void>;
  /** Versions loadable from the checkpoint now, ascending (for `weir checkpoint inspect`). */
  listVersions(): Promise<number[]>;
  close(): Promise<void>;
}

/** The providers' own figures of an operator's stores, summed per name (for its progress customMetrics). */
export function providerMetrics(metrics: (StateStoreMetrics | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of metrics) for (const [k, v] of Object.entries(m?.customMetrics ?? {})) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** How a batch's store is handed to its operator (OperatorContext.stateStores). */
export function storeKey(id: StateStoreId): string {
  const base = `${id.operatorId}/${id.partitionId}`;
  return id.storeName && id.storeName !== 'default' ? `${base}/${id.storeName}` : base;
}

/** Directory of a store inside the checkpoint. */
export function stateStoreDir(id: StateStoreId): string {
  const base = `state/${id.operatorId}/${id.partitionId}`;
  return id.storeName && id.storeName !== 'default' ? `${base}/${id.storeName}` : base;
}

/**
 * Spreads keys over partitions (a stable FNV-1a hash of the key string), the role Spark's
 * shuffle plays: the same key always lands in the same partition's store.
 */
export function partitionForKey(key: string, numPartitions: number): number {
  if (numPartitions <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % numPartitions;
}
