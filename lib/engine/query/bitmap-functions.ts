/**
 * Spark's bitmap functions (3.5, group misc_funcs), Spark's BitmapExpressionUtils: a value's
 * bucket (bitmap_bucket_number) and its bit in that bucket's bitmap (bitmap_bit_position), and the
 * bits set in a bitmap (bitmap_count). A bitmap is a BINARY of 4096 bytes, 32768 bits, bit k
 * being bit k % 8 of byte k / 8; bitmap_construct_agg and bitmap_or_agg (sketch-aggregates.ts)
 * build them. Values 1 to 32768 are bucket 1, positions 0 to 32767; 0 and the negatives count
 * down from bucket 0 (-1 is bucket 0, position 1), with Java's truncating division.
 */
import type { TypeInfo } from './data-types';
import type { FunctionDef } from './function-types';
import { bigOf, toLong, type Long } from './long';

/** Bytes in a bitmap (Spark's BitmapExpressionUtils.NUM_BYTES). */
export const BITMAP_NUM_BYTES = 4096;
const NUM_BITS = BigInt(8 * BITMAP_NUM_BYTES);

/** Spark's ImplicitCastInputTypes of LongType: any other argument is cast to a BIGINT (a DOUBLE truncated). */
const BIGINT: TypeInfo = { type: 'long' };
const asBigint: FunctionDef['inputTypes'] = ([a]) => [a !== undefined && a.type === 'long' && a.integral === undefined ? undefined : BIGINT];

const bitmapOfValue = (impl: (v: bigint) => bigint): FunctionDef => ({
  min: 1, max: 1, exactLongs: true, inputTypes: asBigint,
  type: (a) => (a[0] === 'long' || a[0] === 'null' ? 'long' : 'takes a BIGINT'),
  impl: ([v]) => toLong(impl(bigOf(v as Long))),
});

/** The set bits of the bytes. */
function bitCount(bytes: Uint8Array): number {
  let n = 0;
  for (let b of bytes) {
    for (; b !== 0; b &= b - 1) n++;
  }
  return n;
}

export const BITMAP_FUNCTIONS: Record<string, FunctionDef> = {
  // BigInt division truncates toward zero, as Java's long division; -Long.MIN_VALUE stays in
  // range here, and is a multiple of the bitmap's bits, as Java's overflowed one is.
  bitmap_bucket_number: bitmapOfValue((v) => (v > 0n ? 1n + (v - 1n) / NUM_BITS : v / NUM_BITS)),
  bitmap_bit_position: bitmapOfValue((v) => (v > 0n ? (v - 1n) % NUM_BITS : -v % NUM_BITS)),
  // Spark's BitmapCount takes a BINARY only (no implicit cast): a STRING is a type mismatch.
  bitmap_count: {
    min: 1, max: 1,
    type: (a) => (a[0] === 'binary' || a[0] === 'null' ? 'long' : 'requires the "BINARY" type (a bitmap from bitmap_construct_agg)'),
    impl: ([v]) => bitCount(v as Uint8Array),
  },
};
