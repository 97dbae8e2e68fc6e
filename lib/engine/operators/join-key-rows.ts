/**
 * A join side's buffered rows as its cache keeps them (symmetric-hash-join-state.ts): every key's
 * rows, their times and their flags in one RowSlab, each key's in a block (KeyRows).
 */
import type { Row } from '../types';
import type { CacheKey } from './join-key-table';

/** A buffered row's flags (RowSlab.meta): it has joined with a row of the other side. */
export const MATCHED = 1;
/** The key's slot at the row's index holds this row as it is now (the flush need not write it). */
export const STORED = 2;

/** What a row place not holding a row has: no row kept alive by a freed place. */
const NO_ROW: Row = Object.freeze({});

/** The places a new key's block holds (most keys hold a row or two at a time). */
export const FIRST_BLOCK = 4;

/**
 * A side's buffered rows, their times and their flags, for all its keys, in blocks of places
 * (KeyRows.at, KeyRows.cap): a row's time at meta[2p], its flags (MATCHED, STORED) at
 * meta[2p + 1], the row at rows[p]. The probe, the append, the eviction and the flush read a
 * key's rows one after another, and with an array each of times and rows per key every visit
 * to a key followed two more pointers (the array, then its backing store), most often to memory
 * not touched since the last batch: a block here is one read away from its key's entry. A block
 * of 2^c places is handed out from `free[c]` or the end, and goes back there when its key grows
 * out of it or leaves the cache; the slab only grows (to the most rows a side has held).
 */
export class RowSlab {
  meta: Float64Array;
  /** Kept as long as `meta` holds places, NO_ROW where no row is. */
  readonly rows: Row[];
  /** Places handed out from the start. */
  private end = 0;
  /** Freed blocks' first places, by the base-2 log of their size. */
  private readonly free: number[][] = [];

  constructor(places = 256) {
    this.meta = new Float64Array(2 * places);
    this.rows = new Array<Row>(places).fill(NO_ROW);
  }

  /** The first place of a free block of `cap` places (a power of two). */
  alloc(cap: number): number {
    const c = 31 - Math.clz32(cap);
    const at = this.free[c]?.pop();
    if (at !== undefined) return at;
    const first = this.end;
    this.end += cap;
    if (this.end > this.rows.length) {
      let size = this.rows.length * 2;
      while (size < this.end) size *= 2;
      const meta = new Float64Array(2 * size);
      meta.set(this.meta);
      this.meta = meta;
      for (let i = this.rows.length; i < size; i++) this.rows.push(NO_ROW);
    }
    return first;
  }

  /** Gives back a block (its rows already NO_ROW). */
  release(at: number, cap: number): void {
    const c = 31 - Math.clz32(cap);
    (this.free[c] ??= []).push(at);
  }
}

/**
 * One join key's rows: `length` of them from place `at` of the side's RowSlab, in slot order
 * once flushed, in a block of `cap` places. A row is the input row itself when this process
 * buffered it (no copy), else built from the values the stores hold; never changed.
 */
export class KeyRows {
  /** The block's first place in the slab. */
  at: number;
  cap = FIRST_BLOCK;
  /** How many rows the key holds. */
  length = 0;
  /** The count keyToNumValues holds for the key (0: none). */
  stored = 0;
  /** Whether the key is in the manager's list of keys to flush. */
  dirty = false;
  /** The last eviction round that listed this key (so a round visits it once). */
  round = 0;

  constructor(
    readonly slab: RowSlab,
    /** The key as the stores hold it (encodeKey). */
    public key: string,
    public cacheKey: CacheKey,
  ) {
    this.at = slab.alloc(FIRST_BLOCK);
  }

  /** This (empty) entry made another key's, keeping its block (JoinStateCache.spare). */
  reuse(key: string, cacheKey: CacheKey): this {
    this.key = key;
    this.cacheKey = cacheKey;
    this.stored = 0;
    return this;
  }

  /** The `i`-th row. */
  row(i: number): Row {
    return this.slab.rows[this.at + i];
  }

  /** Whether the `i`-th row has joined with a row of the other side. */
  isMatched(i: number): boolean {
    return (this.slab.meta[2 * (this.at + i) + 1] & MATCHED) !== 0;
  }

  push(row: Row, flags: number, time: number): void {
    if (this.length === this.cap) this.grow();
    const slab = this.slab;
    const p = this.at + this.length++;
    slab.rows[p] = row;
    slab.meta[2 * p] = time;
    slab.meta[2 * p + 1] = flags;
  }

  /** Moves the rows into a block twice the size. */
  private grow(): void {
    const slab = this.slab;
    const cap = 2 * this.cap;
    const at = slab.alloc(cap);
    const from = this.at;
    // After alloc: it may have replaced slab.meta.
    slab.meta.copyWithin(2 * at, 2 * from, 2 * (from + this.length));
    const rows = slab.rows;
    for (let i = 0; i < this.length; i++) {
      rows[at + i] = rows[from + i];
      rows[from + i] = NO_ROW;
    }
    slab.release(from, this.cap);
    this.at = at;
    this.cap = cap;
  }

  /** Removes the `i`-th row: the key's last row takes its slot (the flush writes it there). */
  removeAt(i: number): void {
    const { rows, meta } = this.slab;
    const last = this.at + --this.length;
    const p = this.at + i;
    if (p < last) {
      rows[p] = rows[last];
      meta[2 * p] = meta[2 * last];
      meta[2 * p + 1] = meta[2 * last + 1] & ~STORED;
    }
    rows[last] = NO_ROW;
  }

  clear(): void {
    const rows = this.slab.rows;
    for (let i = 0; i < this.length; i++) rows[this.at + i] = NO_ROW;
    this.length = 0;
  }

  /** Gives the block back (an emptied entry the cache does not keep). */
  release(): void {
    this.slab.release(this.at, this.cap);
  }
}
