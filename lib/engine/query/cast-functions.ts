/**
 * Spark's cast functions: `timestamp(x)` is `CAST(x AS TIMESTAMP)`, `date(x)` is `CAST(x AS
 * DATE)`, and so on for each type Spark registers one for; the compiler builds the cast.
 */
import type { SqlType } from './expression';

/** Spark's cast functions (Cast aliases in its FunctionRegistry) and the type each casts to. */
export const CAST_FUNCTIONS: Record<string, SqlType> = {
  timestamp: 'timestamp', date: 'date', string: 'string', bigint: 'long', int: 'long', smallint: 'long', tinyint: 'long',
  double: 'double', float: 'double', boolean: 'boolean', binary: 'binary',
};
/** The cast functions to FLOAT: a `double` of single precision (float.ts). */
export const CAST_FLOAT = new Set(['float']);
/** The integral width each integral cast function keeps (CAST(x AS INT) wraps at 32 bits). */
export const CAST_INTEGRAL: Record<string, 8 | 16 | 32> = { int: 32, smallint: 16, tinyint: 8 };
