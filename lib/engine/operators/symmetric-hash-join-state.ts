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
import { decodeKey, decodeValue, encodeKey, encodeValue } from '../state/state-value-codec';

export type JoinSide = 'left' | 'right';

/** Spark's store names under `state/<operator>/<partition>/`. */
export const JOIN_STORE_NAMES = ['left-keyToNumValues', 'left-keyWithIndexToValue', 'right-keyToNumValues', 'right-keyWithIndexToValue'] as const;

export interface BufferedRow {
  /** The row's column values, in the side's schema order. */
  values: unknown[];
  matched: boolean;
}

/**
 * Decoded rows per encoded key, as the stores held them at some version: what saves a probe from
 * reading and decoding the stores. The operator keeps it from batch to batch while it is valid
 * for the version the next batch loads (see StreamingSymmetricHashJoinExec).
 */
export type JoinStateCache = Map<string, BufferedRow[]>;

export class SymmetricHashJoinStateManager {
  constructor(
    private readonly keyToNumValues: StateStore,
    private readonly keyWithIndexToValue: StateStore,
    private readonly cache: JoinStateCache,
  ) {}

  /** Keys whose count changed since the last flush: written once per batch, not once per row. */
  private readonly dirty = new Set<string>();

  /** A row's slot: the key's own encoding, then its index after the last `#` (the index has none, so slots are distinct). */
  private slot(k: string, i: number): string {
    return `${k}#${i}`;
  }

  /** The key's rows in slot order, read from the stores once and then kept decoded. */
  private rowsOf(k: string): BufferedRow[] {
    let rows = this.cache.get(k);
    if (rows) return rows;
    const b = this.keyToNumValues.get(k);
    const n = b ? (decodeValue(b) as number) : 0;
    rows = [];
    for (let i = 0; i < n; i++) {
      const [values, matched] = decodeValue(this.keyWithIndexToValue.get(this.slot(k, i))!) as [unknown[], boolean];
      rows.push({ values, matched });
    }
    this.cache.set(k, rows);
    return rows;
  }

  /** Every row buffered under `key`, with its index (for markMatched). Do not append while iterating. */
  *get(key: readonly unknown[]): IterableIterator<[number, BufferedRow]> {
    const k = encodeKey(key);
    const rows = this.rowsOf(k);
    for (let i = 0; i < rows.length; i++) yield [i, rows[i]];
  }

  append(key: readonly unknown[], row: BufferedRow): void {
    const k = encodeKey(key);
    const rows = this.rowsOf(k);
    this.keyWithIndexToValue.put(this.slot(k, rows.length), encodeValue([row.values, row.matched]));
    rows.push(row);
    this.dirty.add(k);
  }

  markMatched(key: readonly unknown[], i: number, row: BufferedRow): void {
    if (row.matched) return;
    row.matched = true;
    this.keyWithIndexToValue.put(this.slot(encodeKey(key), i), encodeValue([row.values, true]));
  }

  /**
   * Removes every row for which `evict(key, values)` holds and returns them (Spark's
   * removeByKeyCondition / removeByValueCondition in one: the predicate sees both).
   */
  removeWhere(evict: (key: unknown[], values: unknown[]) => boolean): BufferedRow[] {
    const removed: BufferedRow[] = [];
    this.flush();
    const keys = [...this.keyToNumValues.keys()];
    for (const k of keys) {
      const key = decodeKey(k);
      const rows = this.rowsOf(k);
      const before = rows.length;
      for (let i = 0; i < rows.length; ) {
        if (!evict(key, rows[i].values)) {
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
    return removed;
  }

  /** Writes the changed keys' counts (keyToNumValues); a key left with no rows goes. Call before the stores commit. */
  flush(): void {
    for (const k of this.dirty) {
      const n = this.cache.get(k)!.length;
      if (n > 0) this.keyToNumValues.put(k, encodeValue(n));
      else {
        if (this.keyToNumValues.has(k)) this.keyToNumValues.remove(k, 'watermark');
        this.cache.delete(k);
      }
    }
    this.dirty.clear();
  }

  /** Rows buffered (Spark counts each buffered row once: keyWithIndexToValue's rows). */
  get numRows(): number {
    return this.keyWithIndexToValue.size;
  }
}
