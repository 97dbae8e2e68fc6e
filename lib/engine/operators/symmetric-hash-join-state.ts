/**
 * One side's buffered rows of a stream-stream join, as Spark's SymmetricHashJoinStateManager
 * keeps them: two stores per side,
 *
 *   keyToNumValues      join key → how many rows the key holds (n)
 *   keyWithIndexToValue (join key, i) → [row values, matched], for i in 0..n-1
 *
 * so that the rows of one key are found by n point reads, without a scan, and a row can be
 * removed by moving the key's last row into its slot (the indexes stay dense). `matched` says
 * whether the row has joined with a row of the other side yet: an outer join emits a row that
 * never matched, null-padded, when the watermark evicts it; a left semi join emits a left row
 * once.
 *
 * The rows are kept decoded in memory (JoinStateCache, per key, from batch to batch), and the
 * stores are written once per batch, by `flush`, with what changed: a key's slot is written
 * only when the row it holds is not the one the store has there (a new row, a row moved into a
 * freed slot, a row newly matched), its freed slots at the end are removed, and its count is
 * written only when it changed. A row appended and a row evicted under one key in the same batch
 * then cost one write (the new row into the old one's slot) instead of an append, a move, a
 * removal and two count writes. What the stores hold after a flush is exactly what writing row by
 * row would leave (dense indexes, the count), so the files are Spark's layout either way.
 */
import { indexedKey, type StateStore } from '../state/state-store';
import { decodeKey, decodeValue, encodeKey, encodeValueByteString, writeRowValue, type ValueEncoder } from '../state/state-value-codec';
import type { Row } from '../types';
import { JoinKeyTable, type CacheKey } from './join-key-table';
import { FIRST_BLOCK, KeyRows, MATCHED, RowSlab, STORED } from './join-key-rows';

export type JoinSide = 'left' | 'right';

/** The encoded join key a key of the store `storeName` belongs to: itself, or a slot's key (indexedKey inverted). */
export function joinKeyOfStoreKey(storeName: string, key: string): string {
  return storeName.endsWith('keyWithIndexToValue') ? key.slice(0, key.lastIndexOf('#')) : key;
}

/** A join key's CacheKey. */
export function cacheKeyOf(key: readonly unknown[]): CacheKey {
  return key.length === 1 && typeof key[0] === 'number' ? key[0] : encodeKey(key);
}

/** The stores' key (encodeKey) of a cache key. */
function storeKeyOf(k: CacheKey): string {
  return typeof k === 'number' ? encodeKey([k]) : k;
}

/** The cache key of a stores' key. */
function cacheKeyOfStoreKey(k: string): CacheKey {
  const key = decodeKey(k);
  const ck = cacheKeyOf(key);
  return typeof ck === 'number' && encodeKey(key) === k ? ck : k;
}

/** Spark's store names under `state/<operator>/<partition>/`. */
export const JOIN_STORE_NAMES = ['left-keyToNumValues', 'left-keyWithIndexToValue', 'right-keyToNumValues', 'right-keyWithIndexToValue'] as const;

/** What a TimeQueue run's freed places hold. */
const SPENT = new KeyRows(new RowSlab(FIRST_BLOCK), '', '');

/** How many emptied keys' entries a side keeps for new keys (JoinStateCache.spare). */
const SPARE_KEYS = 4096;

/** Told of each removed row and whether it ever matched (an outer join pads those that did not). */
export type OnRemoved = (row: Row, matched: boolean) => void;

/** How many entries a TimeQueue run holds before the next begins. */
const RUN_ENTRIES = 4096;

/** A TimeQueue's run: entries in arrival order, the first `n` live, with their least time. */
interface TimeRun {
  readonly times: Float64Array;
  readonly keys: KeyRows[];
  n: number;
  min: number;
}

/**
 * The times of buffered rows with their keys: which keys a value state watermark evicts from,
 * so an eviction visits those keys rather than every key of the side. The entries are kept in
 * runs of RUN_ENTRIES in the order the rows came, each run with its least time: rows come
 * nearly in event-time order, so a watermark passes whole runs at once and cuts through one or
 * two, and an eviction reads only those, front to back, where a heap ordered every row on push
 * and on pop (a sift through its depth for each, most of the eviction's time). A run that
 * disordered rows spread over a long time is scanned by each eviction until its last entry
 * goes: no worse than Spark's removeByValueCondition, which scans every buffered row. An entry
 * may name a key whose rows have since gone (an empty KeyRows): visiting it does nothing.
 */
class TimeQueue {
  private readonly runs: TimeRun[] = [];

  push(t: number, k: KeyRows): void {
    let run = this.runs[this.runs.length - 1];
    if (run === undefined || run.n === RUN_ENTRIES) this.runs.push((run = { times: new Float64Array(RUN_ENTRIES), keys: [], n: 0, min: Infinity }));
    const i = run.n++;
    run.times[i] = t;
    if (i < run.keys.length) run.keys[i] = k;
    else run.keys.push(k);
    if (t < run.min) run.min = t;
  }

  /**
   * Removes the entries with a time ≤ `t` and calls `visit` with each of their keys once for
   * this eviction `round` (KeyRows.round), as the entry comes, while the key is in the cache.
   */
  visitKeysUpTo(t: number, round: number, visit: (k: KeyRows) => void): void {
    let kept = 0;
    for (const run of this.runs) {
      if (run.min <= t) {
        const { times, keys } = run;
        let w = 0, min = Infinity;
        for (let r = 0; r < run.n; r++) {
          const time = times[r];
          const k = keys[r];
          if (time <= t) {
            if (k.round !== round) {
              k.round = round;
              visit(k);
            }
            continue;
          }
          times[w] = time;
          keys[w++] = k;
          if (time < min) min = time;
        }
        // The freed places hold no key: an emptied entry is not kept alive by a run.
        keys.fill(SPENT, w, run.n);
        run.n = w;
        run.min = min;
      }
      // A run emptied goes, but for the last, which takes the next pushes.
      if (run.n > 0 || run === this.runs[this.runs.length - 1]) this.runs[kept++] = run;
    }
    this.runs.length = kept;
  }
}

/**
 * Decoded rows per encoded key, as the stores held them at some version: what saves a probe from
 * reading and decoding the stores, and a batch from rewriting rows it did not change. The
 * operator keeps it from batch to batch while it is valid for the version the next batch loads
 * (see StreamingSymmetricHashJoinExec).
 */
export class JoinStateCache {
  readonly keys = new JoinKeyTable<KeyRows>();
  /** The keys' rows, times and flags. */
  readonly slab = new RowSlab();
  /**
   * Entries of keys whose rows all went, for new keys to take: most keys hold a row or two, so
   * keys empty and fill all the time, and an entry with its block cost more to allocate, and to
   * copy when a scavenge found it alive, than its rows. Kept up to SPARE_KEYS. An entry here may still be named in `byTime`: visiting it,
   * empty or another key's, removes only rows that are due anyway.
   */
  readonly spare: KeyRows[] = [];
  /**
   * Whether `keys` holds every key of the stores (a key it lacks has no rows): so since the
   * stores were empty, or since an eviction loaded them all.
   */
  complete = false;
  /** Every buffered row's time by a value state watermark, once `complete`; null before that. */
  byTime: TimeQueue | null = null;
  /** Eviction rounds so far (KeyRows.round). */
  rounds = 0;
}

/** keyToNumValues' values for the small counts nearly every key has, encoded once. */
const COUNTS = Array.from({ length: 64 }, (_, n) => encodeValueByteString(n));
const encodeCount = (n: number) => (n < COUNTS.length ? COUNTS[n] : encodeValueByteString(n));

/**
 * A row to write and whether it matched. keyWithIndexToValue holds it as encodeValue of [its
 * values in column order (absent: NULL), matched], which writeRowValue writes without that array.
 */
interface PendingRow {
  row: Row;
  matched: boolean;
}

export class SymmetricHashJoinStateManager {
  /** Keys changed since the last flush. */
  private readonly dirty: KeyRows[] = [];
  /** The row being written and whether it matched, reused: encodeRow writes them as keyWithIndexToValue holds a row. */
  private readonly pending: PendingRow = { row: {}, matched: false };
  private readonly encodeRow: ValueEncoder<PendingRow>;

  /**
   * `columns`: the side's columns, in the order of the values the stores hold. `timeOf`: a
   * buffered row's time as the side's value state watermark compares it (undefined:
   * never evicted by it); unset when the side has no value state watermark.
   */
  constructor(
    private readonly keyToNumValues: StateStore,
    private readonly keyWithIndexToValue: StateStore,
    private readonly cache: JoinStateCache,
    private readonly columns: readonly string[],
    private readonly timeOf?: (row: Row) => number | undefined,
  ) {
    this.encodeRow = (w, v) => writeRowValue(w, v.row, columns, v.matched);
    // Empty stores: every key is known (none), so a probe of a new key reads no store.
    if (!cache.complete && cache.keys.size === 0 && keyToNumValues.size === 0) this.completeCache();
  }

  /**
   * The rows buffered under the join key `k` (cacheKeyOf), in slot order, or undefined when it
   * has none: read from the stores once and then kept decoded. Do not append while iterating,
   * nor change the array.
   */
  rowsOf(k: CacheKey): KeyRows | undefined {
    const rows = this.cache.keys.get(k);
    if (rows !== undefined || this.cache.complete) return rows;
    return this.load(k);
  }

  /**
   * Reads a key's rows from the stores into the cache. A key with none is not cached (a probe of
   * every new key would otherwise leave an entry for ever).
   */
  private load(ck: CacheKey): KeyRows | undefined {
    const k = storeKeyOf(ck);
    const b = this.keyToNumValues.get(k);
    if (!b) return undefined;
    const n = decodeValue(b) as number;
    const entry = new KeyRows(this.cache.slab, k, ck);
    for (let i = 0; i < n; i++) {
      const [values, matched] = decodeValue(this.keyWithIndexToValue.get(indexedKey(k, i))!) as [unknown[], boolean];
      const row: Row = {};
      for (let c = 0; c < this.columns.length; c++) row[this.columns[c]] = values[c];
      entry.push(row, matched ? MATCHED | STORED : STORED, this.timeOf?.(row) ?? NaN);
    }
    entry.stored = n;
    this.cache.keys.add(entry);
    return entry;
  }

  /** Loads every key of the stores into the cache (an eviction that visits every key). */
  private completeCache(): void {
    if (!this.cache.complete) {
      // Only reads: keyToNumValues is not changed while its keys are iterated.
      for (const k of this.keyToNumValues.keys()) {
        const ck = cacheKeyOfStoreKey(k);
        if (!this.cache.keys.has(ck)) this.load(ck);
      }
      this.cache.complete = true;
    }
    if (this.timeOf && !this.cache.byTime) {
      const queue = new TimeQueue();
      for (const entry of this.cache.keys.values()) {
        const meta = this.cache.slab.meta;
        for (let p = entry.at; p < entry.at + entry.length; p++) if (!Number.isNaN(meta[2 * p])) queue.push(meta[2 * p], entry);
      }
      this.cache.byTime = queue;
    }
  }

  append(k: CacheKey, row: Row, matched: boolean): void {
    let entry = this.rowsOf(k);
    if (entry === undefined) {
      const spare = this.cache.spare.pop();
      entry = spare !== undefined ? spare.reuse(storeKeyOf(k), k) : new KeyRows(this.cache.slab, storeKeyOf(k), k);
      this.cache.keys.add(entry);
    }
    const time = this.timeOf?.(row);
    entry.push(row, matched ? MATCHED : 0, time ?? NaN);
    this.touch(entry);
    if (time !== undefined && this.cache.byTime) this.cache.byTime.push(time, entry);
  }

  /** Marks the `i`-th row of a key as matched (its slot is written again at the flush). */
  markMatched(entry: KeyRows, i: number): void {
    const meta = this.cache.slab.meta;
    const p = 2 * (entry.at + i) + 1;
    if ((meta[p] & MATCHED) !== 0) return;
    // Not STORED any more: the slot holds the row unmatched.
    meta[p] = MATCHED;
    this.touch(entry);
  }

  private touch(entry: KeyRows): void {
    if (entry.dirty) return;
    entry.dirty = true;
    this.dirty.push(entry);
  }

  /**
   * Removes the rows of every key for which `evict(k)` holds (Spark's removeByKeyCondition: the
   * predicate sees the encoded key, to decode it only when needed) and returns how many; each is
   * told to `removed` when it is given (an outer join pads them; an inner join needs no list).
   */
  removeKeysWhere(evict: (k: string) => boolean, removed?: OnRemoved): number {
    this.completeCache();
    let n = 0;
    for (const entry of this.cache.keys.values()) {
      const length = entry.length;
      if (length === 0 || !evict(entry.key)) continue;
      if (removed) for (let i = 0; i < length; i++) removed(entry.row(i), entry.isMatched(i));
      n += length;
      entry.clear();
      this.touch(entry);
    }
    return n;
  }

  /**
   * Removes every row whose time is ≤ `t` (a value state watermark), visiting only the keys that
   * hold such rows (Spark's removeByValueCondition); returns and tells `removed` as
   * removeKeysWhere.
   */
  removeUpTo(t: number, removed?: OnRemoved): number {
    this.completeCache();
    const queue = this.cache.byTime!;
    const round = ++this.cache.rounds;
    let n = 0;
    queue.visitKeysUpTo(t, round, (entry) => {
      const { rows, meta } = entry.slab;
      const before = entry.length;
      for (let i = 0; i < entry.length; ) {
        // NaN (no time) is never ≤ t: kept.
        if (!(meta[2 * (entry.at + i)] <= t)) {
          i++;
          continue;
        }
        removed?.(rows[entry.at + i], entry.isMatched(i));
        n++;
        entry.removeAt(i);
      }
      if (entry.length !== before) this.touch(entry);
    });
    return n;
  }

  /**
   * Writes what the changed keys' rows and counts differ by from the stores (see the top of this
   * file); a key left with no rows goes. Call before the stores commit.
   */
  flush(): void {
    for (const entry of this.dirty) {
      const { key, at } = entry;
      const { rows, meta } = this.cache.slab;
      const n = entry.length;
      // The stores hold the key's count and its slots below it, no others: each write says
      // whether its key is there, so the store need not look it up (writeKnown), and names the
      // slot by the key and its index, so no slot string is made.
      const stored = entry.stored;
      for (let i = 0; i < n; i++) {
        const f = meta[2 * (at + i) + 1];
        if ((f & STORED) !== 0) continue;
        this.pending.row = rows[at + i];
        this.pending.matched = (f & MATCHED) !== 0;
        this.keyWithIndexToValue.writeKnownValue(key, this.pending, i < stored, this.encodeRow, i);
        meta[2 * (at + i) + 1] = f | STORED;
      }
      for (let i = n; i < stored; i++) this.keyWithIndexToValue.writeKnown(key, undefined, true, i);
      if (n !== stored) {
        this.keyToNumValues.writeKnown(key, n > 0 ? encodeCount(n) : undefined, stored > 0);
        entry.stored = n;
      }
      entry.dirty = false;
      if (n === 0) {
        this.cache.keys.delete(entry.cacheKey);
        if (this.cache.spare.length < SPARE_KEYS) this.cache.spare.push(entry);
        else entry.release();
      }
    }
    this.dirty.length = 0;
  }

  /** Rows buffered (Spark counts each buffered row once: keyWithIndexToValue's rows); right after a flush. */
  get numRows(): number {
    return this.keyWithIndexToValue.size;
  }
}
