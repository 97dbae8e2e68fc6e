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
 * - hll_sketch_agg(col[, lgConfigK]) (3.5): Apache DataSketches' HLL_8 sketch of the values (an
 *   INT or BIGINT by its 8 bytes, a STRING by its UTF-8 bytes, a BINARY as it is; NULLs, empty
 *   strings and empty binaries skipped), in its updatable serialized form (hll-sketch.ts); partial
 *   buffers merge as Spark's HllSketchAgg.merge does, through a DataSketches Union.
 * - hll_union_agg(sketch[, allowDifferentLgConfigK]) (3.5): the Union of the rows' sketches; its
 *   buffer is the union's gadget (NULL until the first sketch, whose lgConfigK bounds the union),
 *   HLL_UNION_DIFFERENT_LG_K where two differ and that is not allowed.
 * The bitmap and count-min updates are exact and commutative: partial buffers merge (OR, and the
 * sum of counts). A merged HLL sketch has the same slots as one fed every row, its estimate from
 * them (DataSketches' composite estimator) rather than the HIP accumulator of a single sketch.
 */
import { RecordExpressionError } from '../errors';
import { BITMAP_NUM_BYTES } from './bitmap-functions';
import type { AggregateFunction } from './function-types';
import { murmur3Bytes } from './hash-functions';
import {
  hllSketchMerge, hllUnionAggMerge, hllUnionAggResult, hllUnionAggUpdate, hllUpdateBytes, hllUpdateLong, lgConfigKOf, newHllSketch, readHllSketch,
} from './hll-sketch';
import { bigOf, type Long } from './long';

const BITMAP_CONSTRUCT = 300, BITMAP_OR = 301, COUNT_MIN_LONG = 302, COUNT_MIN_BYTES = 303;
const HLL_SKETCH_LONG = 304, HLL_SKETCH_BYTES = 305, HLL_UNION = 306, HLL_UNION_ANY_LG_K = 307;
export type SketchOp =
  | typeof BITMAP_CONSTRUCT | typeof BITMAP_OR | typeof COUNT_MIN_LONG | typeof COUNT_MIN_BYTES
  | typeof HLL_SKETCH_LONG | typeof HLL_SKETCH_BYTES | typeof HLL_UNION | typeof HLL_UNION_ANY_LG_K;

/** Spark's HLL_INVALID_INPUT_SKETCH_BUFFER, of the function `fn` (hll_union_agg, hll_union, hll_sketch_estimate). */
export function hllInvalidSketchBuffer(fn: string): RecordExpressionError {
  return new RecordExpressionError(
    `[HLL_INVALID_INPUT_SKETCH_BUFFER] Invalid call to \`${fn}\`; only valid HLL sketch buffers are supported as inputs (such as those produced by the \`hll_sketch_agg\` function).`,
    { function: `${fn}()`, errorClass: 'HLL_INVALID_INPUT_SKETCH_BUFFER' },
  );
}

/** Spark's HLL_UNION_DIFFERENT_LG_K of two sketches' lgConfigK. */
export function hllUnionDifferentLgK(left: number, right: number, fn: string): RecordExpressionError {
  return new RecordExpressionError(
    `[HLL_UNION_DIFFERENT_LG_K] Sketches have different \`lgConfigK\` values: ${left} and ${right}. Set the \`allowDifferentLgConfigK\` parameter to true to call \`${fn}\` with different \`lgConfigK\` values.`,
    { function: `${fn}()`, errorClass: 'HLL_UNION_DIFFERENT_LG_K' },
  );
}

const utf8 = new TextEncoder();

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
    case HLL_SKETCH_LONG:
      return hllUpdateLong(buf, v as Long);
    case HLL_SKETCH_BYTES:
      return hllUpdateBytes(buf, typeof v === 'string' ? utf8.encode(v) : (v as Uint8Array));
    case HLL_UNION:
    case HLL_UNION_ANY_LG_K: {
      // Spark's HllUnionAgg wraps the row's bytes; the union takes the first sketch's lgConfigK.
      const sketch = readHllSketch(v as Uint8Array);
      if (sketch === undefined) throw hllInvalidSketchBuffer('hll_union_agg');
      if (b !== null && op === HLL_UNION && lgConfigKOf(buf) !== lgConfigKOf(sketch)) throw hllUnionDifferentLgK(lgConfigKOf(buf), lgConfigKOf(sketch), 'hll_union_agg');
      return hllUnionAggUpdate(b as Uint8Array | null, sketch);
    }
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
  if (op === HLL_SKETCH_LONG || op === HLL_SKETCH_BYTES) return hllSketchMerge(into, from);
  if (op === HLL_UNION || op === HLL_UNION_ANY_LG_K) {
    if (b === null || p === null) return b ?? p;
    if (op === HLL_UNION && lgConfigKOf(into) !== lgConfigKOf(from)) throw hllUnionDifferentLgK(lgConfigKOf(into), lgConfigKOf(from), 'hll_union_agg');
    return hllUnionAggMerge(into, from);
  }
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

/**
 * Whether partial buffers of `op` merge exactly (aggregate-functions.ts, isMergeable): the bitmaps
 * and count-min sketches do; an HLL sketch's does not (a merged sketch estimates from its slots
 * where one fed every row has its HIP accumulator, and a SET's table may lay its coupons out in
 * another order), so its rows are shuffled and folded into one sketch per group.
 */
export const isMergeableSketch = (op: SketchOp): boolean => op < HLL_SKETCH_LONG;

/** hll_sketch_agg of integers (`bytes` false) or of STRINGs and BINARYs, at a checked lgConfigK. */
export function hllSketchAggregate(bytes: boolean, lgConfigK: number): AggregateFunction {
  return {
    name: 'hll_sketch_agg', resultType: 'binary', op: bytes ? HLL_SKETCH_BYTES : HLL_SKETCH_LONG,
    init: () => newHllSketch(lgConfigK),
    result: (b) => (b as Uint8Array).slice(),
  };
}

/** hll_union_agg, refusing sketches of different lgConfigK unless `allowDifferentLgConfigK`. */
export function hllUnionAggregate(allowDifferentLgConfigK: boolean): AggregateFunction {
  return {
    name: 'hll_union_agg', resultType: 'binary', op: allowDifferentLgConfigK ? HLL_UNION_ANY_LG_K : HLL_UNION,
    init: () => null,
    result: (b) => hllUnionAggResult(b as Uint8Array | null),
  };
}
