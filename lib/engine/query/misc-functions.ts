/**
 * Spark's misc functions (group misc_funcs) that Weir registers here: from_avro and to_avro
 * (avro-functions.ts does the work), and the functions refused on a stream.
 */
import type { FunctionDef } from './function-types';

export const MISC_FUNCTIONS: Record<string, FunctionDef> = {
  // Avro (avro-functions.ts): typed by their schema literals, compiled in expression-compiler.ts.
  from_avro: { min: 2, max: 3, type: () => 'struct', impl: () => { throw new Error('compiled in the expression compiler'); } },
  to_avro: { min: 1, max: 2, type: () => 'binary', impl: () => { throw new Error('compiled in the expression compiler'); } },
};

/** Functions Spark refuses on streaming DataFrames, or that Weir refuses because a replay would differ. */
export const STREAMING_REFUSED: Record<string, { message: string; errorClass?: string }> = {
  monotonically_increasing_id: { message: 'Expression(s): monotonically_increasing_id() is not supported with streaming DataFrames/Datasets', errorClass: '_LEGACY_ERROR_TEMP_3102' },
  ...Object.fromEntries(['rand', 'random', 'randn', 'uuid', 'shuffle'].map((f) => [f, {
    message: `${f}() is not deterministic: a batch re-run after a crash would compute different rows than its first attempt, which breaks exactly-once, so Weir refuses it (Spark accepts it). Derive the value from the row instead, for example from hash(...) of its columns`,
  }])),
};
