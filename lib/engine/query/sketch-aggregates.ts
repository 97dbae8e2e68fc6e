/**
 * Spark's aggregates whose result is a sketch's bytes, with those bytes as the buffer, so that
 * the state store keeps a group's sketch as Spark serializes it and a restart continues it:
 * - bitmap_construct_agg(position) (3.5): a 4096-byte bitmap with bit `position` set for each
 *   row (bitmap-functions.ts tells a value's position); a position outside 0 to 32767 fails the
 *   row with Spark's INVALID_BITMAP_POSITION.
 * - bitmap_or_agg(bitmap) (3.5): the OR of the bitmaps, each over its first 4096 bytes (a
 *   shorter one over its own length), as Spark's BitmapExpressionUtils.bitmapMerge.
 *   Both are all zeros for a group with no non-NULL value, never NULL.
 * - count_min_sketch(col, eps, confidence, seed) (2.2): Spark's CountMinSketchImpl in its
 *   serialized form (version 1; all big-endian): the version (INT 1), the total count (BIGINT),
 *   depth and width (INTs), depth hash coefficients (BIGINTs, from java.util.Random(seed)), then
 *   depth rows of width counts (BIGINTs). An integer is placed by (a * x) mod 2^31-1 in each
 *   row, a STRING (its UTF-8 bytes) or a BINARY by Spark's Murmur3 of its bytes, so that the
 *   bytes equal Spark's for the same rows in any order.
 * Every update is exact and commutative: partial buffers merge (OR, and the sum of counts).
 */
import { RecordExpressionError } from '../errors';
import { BITMAP_NUM_BYTES } from './bitmap-functions';
import type { AggregateFunction } from './function-types';
import { murmur3Bytes } from './hash-functions';
import { bigOf, type Long } from './long';

const BITMAP_CONSTRUCT = 300, BITMAP_OR = 301, COUNT_MIN_LONG = 302, COUNT_MIN_BYTES = 303;
export type SketchOp = typeof BITMAP_CONSTRUCT | typeof BITMAP_OR | typeof COUNT_MIN_LONG | typeof COUNT_MIN_BYTES;

/** Spark's BitmapExpressionUtils.bitmapMerge: `from` ORed into `into`, over the shorter's length. */
function bitmapMerge(into: Uint8Array, from: Uint8Array): void {
  const n = Math.min(into.length, from.length);
  for (let i = 0; i < n; i++) into[i] |= from[i];
}

/** Where a sketch's parts start: the header is version, total count, depth and width. */
const TOTAL_AT = 4, DEPTH_AT = 12, WIDTH_AT = 16, HASH_A_AT = 20;
const PRIME_MODULUS = (1n << 31n) - 1n;

const viewOf = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** Adds one to the counter of `row`, `col`, and to the total. */
function bump(v: DataView, depth: number, width: number, row: number, col: number): void {
  const at = HASH_A_AT + 8 * depth + 8 * (row * width + col);
  v.setBigInt64(at, v.getBigInt64(at) + 1n);
}

/** CountMinSketchImpl.addLong: row i's counter at (hashA[i] * x) mod 2^31-1, mod width. */
function addLong(b: Uint8Array, x: bigint): void {
  const v = viewOf(b);
  const depth = v.getInt32(DEPTH_AT), width = v.getInt32(WIDTH_AT);
  for (let i = 0; i < depth; i++) {
    let h = BigInt.asIntN(64, v.getBigInt64(HASH_A_AT + 8 * i) * x);
    h = BigInt.asIntN(64, h + (h >> 32n)) & PRIME_MODULUS;
    bump(v, depth, width, i, Number(h) % width);
  }
  v.setBigInt64(TOTAL_AT, v.getBigInt64(TOTAL_AT) + 1n);
}

/** CountMinSketchImpl.addBinary: row i's counter at |(h1 + i * h2) % width| of two Murmur3 hashes, in Java's int arithmetic. */
function addBytes(b: Uint8Array, item: Uint8Array): void {
  const v = viewOf(b);
  const depth = v.getInt32(DEPTH_AT), width = v.getInt32(WIDTH_AT);
  const h1 = murmur3Bytes(item, 0);
  const h2 = murmur3Bytes(item, h1);
  for (let i = 0; i < depth; i++) bump(v, depth, width, i, Math.abs(((h1 + Math.imul(i, h2)) | 0) % width));
  v.setBigInt64(TOTAL_AT, v.getBigInt64(TOTAL_AT) + 1n);
}

/** java.util.Random(seed): its first `n` values of nextInt(Integer.MAX_VALUE). */
function javaRandomInts(seed: number, n: number): bigint[] {
  const MULT = 0x5deece66dn, MASK = (1n << 48n) - 1n, BOUND = 2 ** 31 - 1;
  let s = (BigInt(seed) ^ MULT) & MASK;
  const next31 = () => {
    s = (s * MULT + 0xbn) & MASK;
    return Number(s >> 17n);
  };
  const out: bigint[] = [];
  for (let k = 0; k < n; k++) {
    let u = next31();
    let r = u % BOUND;
    // Java's rejection test `u - r + (bound - 1) < 0`, in int arithmetic.
    while (((u - r + (BOUND - 1)) | 0) < 0) {
      u = next31();
      r = u % BOUND;
    }
    out.push(BigInt(r));
  }
  return out;
}

/** An empty sketch, as CountMinSketchImpl(eps, confidence, seed) serializes it. */
function emptySketch(eps: number, confidence: number, seed: number): Uint8Array {
  const width = Math.ceil(2 / eps);
  const depth = Math.ceil(-Math.log(1 - confidence) / Math.log(2));
  const b = new Uint8Array(HASH_A_AT + 8 * depth + 8 * depth * width);
  const v = viewOf(b);
  v.setInt32(0, 1);
  v.setInt32(DEPTH_AT, depth);
  v.setInt32(WIDTH_AT, width);
  javaRandomInts(seed, depth).forEach((a, i) => v.setBigInt64(HASH_A_AT + 8 * i, a));
  return b;
}

/** Folds `v` into buffer `b` (changed in place). */
export function updateSketch(op: SketchOp, b: unknown, v: unknown): unknown {
  if (v === null || v === undefined) return b;
  const buf = b as Uint8Array;
  switch (op) {
    case BITMAP_CONSTRUCT: {
      const pos = bigOf(v as Long);
      if (pos < 0n || pos >= BigInt(8 * buf.length)) {
        throw new RecordExpressionError(
          `[INVALID_BITMAP_POSITION] The 0-indexed bitmap position ${pos} is out of bounds. The bitmap has ${8 * buf.length} bits (${buf.length} bytes).`,
          { function: 'bitmap_construct_agg()', errorClass: 'INVALID_BITMAP_POSITION' },
        );
      }
      const p = Number(pos);
      buf[p >> 3] |= 1 << (p & 7);
      return b;
    }
    case BITMAP_OR:
      bitmapMerge(buf, v as Uint8Array);
      return b;
    case COUNT_MIN_LONG:
      addLong(buf, bigOf(v as Long));
      return b;
    case COUNT_MIN_BYTES:
      addBytes(buf, typeof v === 'string' ? Buffer.from(v, 'utf8') : (v as Uint8Array));
      return b;
  }
}

/** Buffer `p` merged into `b`: bitmaps ORed, sketches' counters (and totals) added. */
export function mergeSketch(op: SketchOp, b: unknown, p: unknown): unknown {
  const into = b as Uint8Array, from = p as Uint8Array;
  if (op === BITMAP_CONSTRUCT || op === BITMAP_OR) {
    bitmapMerge(into, from);
    return b;
  }
  const vi = viewOf(into), vf = viewOf(from);
  vi.setBigInt64(TOTAL_AT, vi.getBigInt64(TOTAL_AT) + vf.getBigInt64(TOTAL_AT));
  for (let at = HASH_A_AT + 8 * vi.getInt32(DEPTH_AT); at < into.length; at += 8) vi.setBigInt64(at, vi.getBigInt64(at) + vf.getBigInt64(at));
  return b;
}

export function bitmapAggregate(name: 'bitmap_construct_agg' | 'bitmap_or_agg'): AggregateFunction {
  return {
    name, resultType: 'binary', op: name === 'bitmap_construct_agg' ? BITMAP_CONSTRUCT : BITMAP_OR,
    init: () => new Uint8Array(BITMAP_NUM_BYTES),
    result: (b) => (b as Uint8Array).slice(),
  };
}

/** count_min_sketch of integers (`bytes` false) or of STRINGs and BINARYs, with its checked literals. */
export function countMinSketch(bytes: boolean, eps: number, confidence: number, seed: number): AggregateFunction {
  return {
    name: 'count_min_sketch', resultType: 'binary', op: bytes ? COUNT_MIN_BYTES : COUNT_MIN_LONG,
    init: () => emptySketch(eps, confidence, seed),
    result: (b) => (b as Uint8Array).slice(),
  };
}
