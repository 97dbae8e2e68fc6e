/**
 * Spark's misc functions (group misc_funcs) that Weir registers here: from_avro and to_avro
 * (avro-functions.ts does the work), and the functions refused on a stream.
 */
import { compileFromAvro, compileToAvro } from './avro-functions';
import { simpleTypeString } from './data-types';
import { compiledByHook } from './function-args';
import type { FunctionDef, SpecialFormDef } from './function-types';

export const MISC_FUNCTIONS: Record<string, FunctionDef> = {
  // Avro (avro-functions.ts): typed by their schema literals.
  from_avro: { min: 2, max: 3, type: () => 'struct', impl: compiledByHook, compile: compileFromAvro },
  to_avro: { min: 1, max: 2, type: () => 'binary', impl: compiledByHook, compile: compileToAvro },
};

/** typeof(x): the text of x's type, known at analysis (Spark's TypeOf). */
export const MISC_SPECIAL_FORMS: Record<string, SpecialFormDef> = {
  typeof: {
    min: 1, max: 1,
    compile: (e, c) => {
      if (e.args.length !== 1) c.fail(e, `typeof() takes one argument, got ${e.args.length}`);
      const text = simpleTypeString(c.compile(e.args[0]));
      return { type: 'string', eval: () => text };
    },
  },
};

/** Functions Spark refuses on streaming DataFrames, or that Weir refuses because a replay would differ. */
export const STREAMING_REFUSED: Record<string, { message: string; errorClass?: string }> = {
  monotonically_increasing_id: { message: 'Expression(s): monotonically_increasing_id() is not supported with streaming DataFrames/Datasets', errorClass: '_LEGACY_ERROR_TEMP_3102' },
  ...Object.fromEntries(['rand', 'random', 'randn', 'uuid', 'shuffle'].map((f) => [f, {
    message: `${f}() is not deterministic: a batch re-run after a crash would compute different rows than its first attempt, which breaks exactly-once, so Weir refuses it (Spark accepts it). Derive the value from the row instead, for example from hash(...) of its columns`,
  }])),
};
