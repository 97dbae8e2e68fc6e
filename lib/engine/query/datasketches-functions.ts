/**
 * Spark's scalar functions of Apache DataSketches HLL sketches (3.5, group misc_funcs), over the
 * BINARY sketches hll_sketch_agg and hll_union_agg make (hll-sketch.ts reads and writes them):
 * - hll_sketch_estimate(sketch): the sketch's estimate of its distinct values, rounded to a BIGINT.
 * - hll_union(first, second[, allowDifferentLgConfigK]): the two sketches' union, of the smaller
 *   lgConfigK, HLL_UNION_DIFFERENT_LG_K where they differ and that is not allowed (default).
 * A BINARY that is no sketch fails the row with HLL_INVALID_INPUT_SKETCH_BUFFER. Both are Spark's
 * ExpectsInputTypes, which casts no argument: another type (a STRING too) is refused with
 * DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE.
 */
import type { FunctionDef } from './function-types';
import { hllEstimate, hllUnionOf, lgConfigKOf, readHllSketch } from './hll-sketch';
import { hllInvalidSketchBuffer, hllUnionDifferentLgK } from './sketch-aggregates';

const isBinary = (t: string) => t === 'binary' || t === 'null';

function sketchOf(bytes: unknown, fn: string): Uint8Array {
  const sketch = readHllSketch(bytes as Uint8Array);
  if (sketch === undefined) throw hllInvalidSketchBuffer(fn);
  return sketch;
}

export const DATASKETCHES_FUNCTIONS: Record<string, FunctionDef> = {
  hll_sketch_estimate: {
    min: 1, max: 1,
    type: (a) => (isBinary(a[0]) ? 'long' : 'requires the "BINARY" type (a sketch from hll_sketch_agg or hll_union_agg) (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)'),
    // Java's Math.round of a non-negative double: half up.
    impl: ([bytes]) => Math.round(hllEstimate(sketchOf(bytes, 'hll_sketch_estimate'))),
  },
  hll_union: {
    min: 2, max: 3,
    type: (a) => {
      if (!isBinary(a[0]) || !isBinary(a[1])) return 'requires the "BINARY" type for its first two arguments (sketches from hll_sketch_agg or hll_union_agg) (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)';
      if (a.length === 3 && a[2] !== 'boolean' && a[2] !== 'null') return 'requires the "BOOLEAN" type for allowDifferentLgConfigK (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)';
      return 'binary';
    },
    impl: ([first, second, allow]) => {
      const a = sketchOf(first, 'hll_union'), b = sketchOf(second, 'hll_union');
      if (allow !== true && lgConfigKOf(a) !== lgConfigKOf(b)) throw hllUnionDifferentLgK(lgConfigKOf(a), lgConfigKOf(b), 'hll_union');
      return hllUnionOf(a, b);
    },
  },
};
