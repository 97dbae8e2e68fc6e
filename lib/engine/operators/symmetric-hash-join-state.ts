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
 */
import type { StateStore } from '../state/state-store';
import { decodeValue, encodeValue } from '../state/state-value-codec';
import type { Row } from '../types';

export type JoinSide = 'left' | 'right';

/** Spark's store names under `state/<operator>/<partition>/`. */
export const JOIN_STORE_NAMES = ['left-keyToNumValues', 'left-keyWithIndexToValue', 'right-keyToNumValues', 'right-keyWithIndexToValue'] as const;

export interface BufferedRow {
  /**
   * The row by column name: the input row itself when this process buffered it (no copy), else
   * built from the values the stores hold. Never changed.
   */
  row: Row;
  matched: boolean;
}

/**
 * The times of buffered rows with the keys they are under, earliest first (a binary heap): which
 * keys a value state watermark evicts from, so an eviction visits those keys rather than every
 * key of the side.
 */
class TimeQueue {
  private readonly times: number[] = [];
  private readonly keys: string[] = [];

  push(t: number, k: string): void {
    const { times, keys } = this;
    let i = times.length;
    times.push(t);
    keys.push(k);
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (times[up] <= t) break;
      times[i] = times[up];
      keys[i] = keys[up];
      i = up;
    }
    times[i] = t;
    keys[i] = k;
  }

  /** Removes the entries with a time ≤ `t`, adding their keys to `out`. */
  popUpTo(t: number, out: Set<string>): void {
    const { times, keys } = this;
    while (times.length > 0 && times[0] <= t) {
      out.add(keys[0]);
      const lastT = times.pop()!;
      const lastK = keys.pop()!;
      const n = times.length;
      if (n === 0) break;
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && times[c + 1] < times[c]) c++;
        if (times[c] >= lastT) break;
        times[i] = times[c];
        keys[i] = keys[c];
        i = c;
      }
      times[i] = lastT;
      keys[i] = lastK;
    }
  }
}

/**
 * Decoded rows per encoded key, as the stores held them at some version: what saves a probe from
 * reading and decoding the stores. The operator keeps it from batch to batch while it is valid
 * for the version the next batch loads (see StreamingSymmetricHashJoinExec).
 */
export class JoinStateCache {
  readonly rows = new Map<string, BufferedRow[]>();
  /**
   * Every buffered row's time by a value state watermark, once an eviction has scanned every key
   * (and so loaded every row into `rows`); null before that.
   */
  byTime: TimeQueue | null = null;
}

const NO_ROWS: BufferedRow[] = [];

/** keyToNumValues' values for the small counts nearly every key has, encoded once (stores copy what they are given). */
const COUNTS = Array.from({ length: 64 }, (_, n) => encodeValue(n));
const encodeCount = (n: number) => (n < COUNTS.length ? COUNTS[n] : encodeValue(n));

export class SymmetricHashJoinStateManager {
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
  ) {}

  /** Keys whose count changed since the last flush: written once per batch, not once per row. */
  private readonly dirty = new Set<string>();

  /** A row's slot: the key's own encoding, then its index after the last `#` (the index has none, so slots are distinct). */
  private slot(k: string, i: number): string {
    return `${k}#${i}`;
  }

  /**
   * The rows buffered under the encoded key `k` (encodeKey of the join key), in slot order: read
   * from the stores once and then kept decoded. An index is the row's slot (for markMatched). Do
   * not append while iterating, nor change the array.
   */
  rowsOf(k: string): readonly BufferedRow[] {
    return this.cache.rows.get(k) ?? this.load(k);
  }

  /**
   * Reads a key's rows from the stores into the cache. A key with none is not cached (a probe of
   * every new key would otherwise leave an entry for ever): NO_ROWS, until a row is appended.
   */
  private load(k: string): BufferedRow[] {
    const b = this.keyToNumValues.get(k);
    if (!b) return NO_ROWS;
    const n = decodeValue(b) as number;
    const rows: BufferedRow[] = [];
    for (let i = 0; i < n; i++) {
      const [values, matched] = decodeValue(this.keyWithIndexToValue.get(this.slot(k, i))!) as [unknown[], boolean];
      const row: Row = {};
      for (let c = 0; c < this.columns.length; c++) row[this.columns[c]] = values[c];
      rows.push({ row, matched });
    }
    this.cache.rows.set(k, rows);
    return rows;
  }

  append(k: string, row: BufferedRow): void {
    let rows = this.cache.rows.get(k) ?? this.load(k);
    if (rows === NO_ROWS) this.cache.rows.set(k, (rows = []));
    this.keyWithIndexToValue.put(this.slot(k, rows.length), this.encode(row));
    rows.push(row);
    this.dirty.add(k);
    if (this.cache.byTime && this.timeOf) {
      const t = this.timeOf(row.row);
      if (t !== undefined) this.cache.byTime.push(t, k);
    }
  }

  markMatched(k: string, i: number, row: BufferedRow): void {
    if (row.matched) return;
    row.matched = true;
    this.keyWithIndexToValue.put(this.slot(k, i), this.encode(row));
  }

  /** A row as keyWithIndexToValue holds it: [its values in column order (absent: NULL), matched]. */
  private encode(b: BufferedRow): Uint8Array {
    const values = new Array<unknown>(this.columns.length);
    for (let c = 0; c < values.length; c++) values[c] = b.row[this.columns[c]] ?? null;
    return encodeValue([values, b.matched]);
  }

  /**
   * Removes every row for which `evict(k, row)` holds and returns them (Spark's
   * removeByKeyCondition / removeByValueCondition in one: the predicate sees the encoded key, to
   * decode only when the condition is on the key, and the row).
   */
  removeWhere(evict: (k: string, row: Row) => boolean): BufferedRow[] {
    const removed: BufferedRow[] = [];
    this.flush();
    // Only keyWithIndexToValue changes in the loop (counts are written by the next flush), so
    // keyToNumValues' keys are iterated as they are.
    for (const k of this.keyToNumValues.keys()) this.removeFromKey(k, evict, removed);
    return removed;
  }

  /**
   * Removes every row whose `timeOf` is ≤ `t` (a value state watermark) and returns them: the
   * same rows as removeWhere with that condition, visiting only the keys that hold such rows once
   * a first eviction has scanned them all.
   */
  removeUpTo(t: number): BufferedRow[] {
    const timeOf = this.timeOf!;
    const evict = (_k: string, row: Row) => {
      const v = timeOf(row);
      return v !== undefined && v <= t;
    };
    if (!this.cache.byTime) {
      const removed = this.removeWhere(evict);
      // Every key is now in the cache: index the rows that stay.
      const queue = new TimeQueue();
      for (const [k, rows] of this.cache.rows) {
        for (const r of rows) {
          const v = timeOf(r.row);
          if (v !== undefined) queue.push(v, k);
        }
      }
      this.cache.byTime = queue;
      return removed;
    }
    const keys = new Set<string>();
    this.cache.byTime.popUpTo(t, keys);
    const removed: BufferedRow[] = [];
    for (const k of keys) this.removeFromKey(k, evict, removed);
    return removed;
  }

  private removeFromKey(k: string, evict: (k: string, row: Row) => boolean, removed: BufferedRow[]): void {
    const rows = this.cache.rows.get(k) ?? this.load(k);
    const before = rows.length;
    for (let i = 0; i < rows.length; ) {
      if (!evict(k, rows[i].row)) {
        i++;
        continue;
      }
      removed.push(rows[i]);
      // The key's last row takes the freed slot; the last slot goes.
      const last = rows.length - 1;
      if (i < last) {
        this.keyWithIndexToValue.put(this.slot(k, i), this.keyWithIndexToValue.get(this.slot(k, last))!);
        rows[i] = rows[last];
      }
      this.keyWithIndexToValue.remove(this.slot(k, last), 'watermark');
      rows.pop();
    }
    if (rows.length !== before) this.dirty.add(k);
  }

  /** Writes the changed keys' counts (keyToNumValues); a key left with no rows goes. Call before the stores commit. */
  flush(): void {
    for (const k of this.dirty) {
      const n = this.cache.rows.get(k)!.length;
      if (n > 0) this.keyToNumValues.put(k, encodeCount(n));
      else {
        if (this.keyToNumValues.has(k)) this.keyToNumValues.remove(k, 'watermark');
        this.cache.rows.delete(k);
      }
    }
    this.dirty.clear();
  }

  /** Rows buffered (Spark counts each buffered row once: keyWithIndexToValue's rows). */
  get numRows(): number {
    return this.keyWithIndexToValue.size;
  }
}
