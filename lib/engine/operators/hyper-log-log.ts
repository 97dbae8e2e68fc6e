/**
 * HyperLogLog for approx_count_distinct (Spark's HyperLogLogPlusPlus without the sparse form
 * and bias tables): 2^p one-byte registers, a deterministic 53-bit hash (cyrb53) of a value's
 * canonical bytes, and the standard estimator with linear counting for small cardinalities.
 * p follows Spark's relativeSD (default 0.05 → p = 9, 512 bytes per group), so the state per
 * group stays small and the same input gives the same estimate on every run and restart.
 */
import { encodeValue } from '../state/state-value-codec';

export function precisionFor(relativeSD = 0.05): number {
  // Spark: p = ceil(2 * log2(1.106 / relativeSD)), at least 4.
  return Math.min(16, Math.max(4, Math.ceil(2 * Math.log2(1.106 / relativeSD))));
}

function cyrb53(bytes: Uint8Array, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed, h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < bytes.length; i++) {
    const ch = bytes[i];
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const HASH_BITS = 53;

export function hllCreate(p: number): Uint8Array {
  return new Uint8Array(1 << p);
}

/** Adds a value (NULL is ignored, as count(col) ignores it). */
export function hllAdd(registers: Uint8Array, value: unknown): void {
  if (value === null || value === undefined) return;
  const p = Math.log2(registers.length);
  const h = cyrb53(encodeValue(value));
  const idx = Math.floor(h / 2 ** (HASH_BITS - p));
  const rest = h % 2 ** (HASH_BITS - p);
  // Rank: position of the leftmost 1 in the remaining (53 - p) bits, 1-based.
  const restBits = HASH_BITS - p;
  const rank = rest === 0 ? restBits + 1 : restBits - Math.floor(Math.log2(rest));
  if (rank > registers[idx]) registers[idx] = rank;
}

export function hllEstimate(registers: Uint8Array): number {
  const m = registers.length;
  const alpha = m === 16 ? 0.673 : m === 32 ? 0.697 : m === 64 ? 0.709 : 0.7213 / (1 + 1.079 / m);
  let sum = 0, zeros = 0;
  for (let i = 0; i < m; i++) {
    sum += 2 ** -registers[i];
    if (registers[i] === 0) zeros++;
  }
  const raw = (alpha * m * m) / sum;
  if (raw <= 2.5 * m && zeros > 0) return Math.round(m * Math.log(m / zeros));
  return Math.round(raw);
}
