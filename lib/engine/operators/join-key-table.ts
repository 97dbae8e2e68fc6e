/**
 * A join side's cache entries by their key (CacheKey): a number key in an open-addressed table
 * of the entries themselves, any other key in a Map. Every input row looks up its key on both
 * sides, and a Map lookup read its hash bucket, then the entry it names elsewhere in the table,
 * then the value: most often memory not touched since the last batch. Here a lookup reads the
 * slot, which is the entry (whose key it compares, and which the caller reads next anyway).
 * Linear probing, at most half full; a removal shifts the entries after it back, so no slot is
 * ever a tombstone.
 */
/**
 * A join key as the cache holds it: a single number as itself (compared as encodeKey's strings
 * compare: -0 as 0, NaN as NaN), so that a probe builds and hashes no key string; any other key
 * by encodeKey (a string, so never equal to a number).
 */
export type CacheKey = number | string;

/** What the table holds: an entry that knows its key (never changed while the entry is in the table). */
interface Keyed {
  readonly cacheKey: CacheKey;
}

const bits = new Float64Array(1);
const words = new Int32Array(bits.buffer);

/** A number's hash, equal for numbers a Map takes as the same key (-0 and 0; every NaN). */
function hashNumber(k: number): number {
  let h: number;
  if ((k | 0) === k) h = k;
  else if (k !== k) h = 0x7ff80000;
  else {
    bits[0] = k;
    h = words[0] ^ Math.imul(words[1], 0x85ebca6b);
  }
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  return h ^ (h >>> 15);
}

/** Whether two numbers are one key (as a Map compares them). */
const sameNumber = (a: number, b: number): boolean => a === b || (a !== a && b !== b);

export class JoinKeyTable<E extends Keyed> {
  private slots: (E | undefined)[] = new Array<E | undefined>(1024).fill(undefined);
  private mask = 1023;
  private numbers = 0;
  private readonly others = new Map<string, E>();

  get size(): number {
    return this.numbers + this.others.size;
  }

  get(k: CacheKey): E | undefined {
    if (typeof k !== 'number') return this.others.get(k);
    const { slots, mask } = this;
    for (let i = hashNumber(k) & mask; ; i = (i + 1) & mask) {
      const e = slots[i];
      if (e === undefined || sameNumber(e.cacheKey as number, k)) return e;
    }
  }

  has(k: CacheKey): boolean {
    return this.get(k) !== undefined;
  }

  /** Adds an entry whose key the table does not hold. */
  add(e: E): void {
    const k = e.cacheKey;
    if (typeof k !== 'number') {
      this.others.set(k, e);
      return;
    }
    if (2 * (this.numbers + 1) > this.slots.length) this.resize(2 * this.slots.length);
    this.place(e, k);
    this.numbers++;
  }

  private place(e: E, k: number): void {
    const { slots, mask } = this;
    let i = hashNumber(k) & mask;
    while (slots[i] !== undefined) i = (i + 1) & mask;
    slots[i] = e;
  }

  private resize(size: number): void {
    const old = this.slots;
    this.slots = new Array<E | undefined>(size).fill(undefined);
    this.mask = size - 1;
    for (const e of old) if (e !== undefined) this.place(e, e.cacheKey as number);
  }

  delete(k: CacheKey): void {
    if (typeof k !== 'number') {
      this.others.delete(k);
      return;
    }
    const { slots, mask } = this;
    let i = hashNumber(k) & mask;
    for (;;) {
      const e = slots[i];
      if (e === undefined) return;
      if (sameNumber(e.cacheKey as number, k)) break;
      i = (i + 1) & mask;
    }
    slots[i] = undefined;
    this.numbers--;
    // The entries after the hole, up to the next empty slot, move back into it unless their own
    // slot lies after it (cyclically): a lookup stops at an empty slot.
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const e = slots[j];
      if (e === undefined) return;
      const h = hashNumber(e.cacheKey as number) & mask;
      if (i <= j ? i < h && h <= j : i < h || h <= j) continue;
      slots[i] = e;
      slots[j] = undefined;
      i = j;
    }
  }

  /** Every entry (the table must not change meanwhile). */
  *values(): IterableIterator<E> {
    for (const e of this.slots) if (e !== undefined) yield e;
    yield* this.others.values();
  }
}
