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

export class SymmetricHashJoinStateManager {
  constructor(
    private readonly keyToNumValues: StateStore,
    private readonly keyWithIndexToValue: StateStore,
  ) {}

  private count(k: string): number {
    const b = this.keyToNumValues.get(k);
    return b ? (decodeValue(b) as number) : 0;
  }

  private slot(key: readonly unknown[], i: number): string {
    return encodeKey([...key, i]);
  }

  /** Every row buffered under `key`, with its index (for markMatched). */
  *get(key: readonly unknown[]): IterableIterator<[number, BufferedRow]> {
    const n = this.count(encodeKey(key));
    for (let i = 0; i < n; i++) {
      const [values, matched] = decodeValue(this.keyWithIndexToValue.get(this.slot(key, i))!) as [unknown[], boolean];
      yield [i, { values, matched }];
    }
  }

  append(key: readonly unknown[], row: BufferedRow): void {
    const k = encodeKey(key);
    const n = this.count(k);
    this.keyWithIndexToValue.put(this.slot(key, n), encodeValue([row.values, row.matched]));
    this.keyToNumValues.put(k, encodeValue(n + 1));
  }

  markMatched(key: readonly unknown[], i: number, row: BufferedRow): void {
    if (row.matched) return;
    row.matched = true;
    this.keyWithIndexToValue.put(this.slot(key, i), encodeValue([row.values, true]));
  }

  /**
   * Removes every row for which `evict(key, values)` holds and returns them (Spark's
   * removeByKeyCondition / removeByValueCondition in one: the predicate sees both).
   */
  removeWhere(evict: (key: unknown[], values: unknown[]) => boolean): BufferedRow[] {
    const removed: BufferedRow[] = [];
    const keys = [...this.keyToNumValues.keys()];
    for (const k of keys) {
      const key = decodeKey(k);
      const before = this.count(k);
      let n = before;
      for (let i = 0; i < n; ) {
        const [values, matched] = decodeValue(this.keyWithIndexToValue.get(this.slot(key, i))!) as [unknown[], boolean];
        if (!evict(key, values)) {
          i++;
          continue;
        }
        removed.push({ values, matched });
        // The key's last row takes the freed slot; the last slot goes.
        if (i < n - 1) this.keyWithIndexToValue.put(this.slot(key, i), this.keyWithIndexToValue.get(this.slot(key, n - 1))!);
        this.keyWithIndexToValue.remove(this.slot(key, n - 1), 'watermark');
        n--;
      }
      if (n === before) continue;
      if (n === 0) this.keyToNumValues.remove(k, 'watermark');
      else this.keyToNumValues.put(k, encodeValue(n));
    }
    return removed;
  }

  /** Rows buffered (Spark counts each buffered row once: keyWithIndexToValue's rows). */
  get numRows(): number {
    return this.keyWithIndexToValue.size;
  }
}
