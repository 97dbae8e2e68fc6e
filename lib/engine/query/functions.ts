/**
 * Built-in scalar functions for the stateless subset: strings, numbers, null handling and
 * dates on timestamps (UTC). Each declares its arity, its result type from its argument types
 * (a string result is an error message), and whether NULL in means NULL out (most do).
 *
 * A function whose result can be longer than its inputs checks the result's length before
 * building it (value-limits.ts: 1 MiB a value); regular expressions run on RE2 (regex.ts).
 */
import { getJsonObject, jsonTuple } from './json-functions';
import { recordRegex, regexLiterals } from './regex';
import { isNumeric, type ExprType } from './sql-values';
import { str } from './function-args';
import type { FunctionDef } from './function-types';
import { toLong } from './long';


const num = (t: ExprType): boolean => isNumeric(t);


/** Spark's round: HALF_UP, i.e. halves away from zero. */
function roundHalfUp(v: number, scale: number): number {
  const f = 10 ** scale;
  // Spark rounds a double through its decimal text: 15 significant digits take the binary noise out.
  const r = Math.round(Number((Math.abs(v) * f).toPrecision(15))) / f;
  return v < 0 ? -r : r;
}

const rlike: FunctionDef = {
  min: 2, max: 2, type: (a) => str(a) ?? 'boolean',
  impl: ([s, p]) => recordRegex('rlike()', p as string).test(s as string),
  checkLiterals: regexLiterals('rlike()'),
};

/** The first functions Weir had; the registry (function-registry.ts) files each under its Spark group. */
export const CORE_FUNCTIONS: Record<string, FunctionDef> = {
  // Spark's rlike/regexp/regexp_like: whether the pattern matches anywhere in the string.
  rlike,
  regexp: rlike,
  regexp_like: rlike,
  abs: {
    min: 1, max: 1, exactLongs: true, type: (a) => (num(a[0]) ? (a[0] === 'null' ? 'long' : a[0]) : 'expects a number'),
    // abs(-9223372036854775808) wraps to itself, as Java's Math.abs does.
    impl: ([v]) => (typeof v === 'bigint' ? toLong(v < 0n ? -v : v) : Math.abs(v as number)),
  },
  round: {
    min: 1, max: 2, type: (a) => (a.every(num) ? (a[0] === 'long' ? 'long' : 'double') : 'expects numbers'),
    impl: ([v, s]) => roundHalfUp(v as number, (s as number | undefined) ?? 0),
  },
  coalesce: { min: 1, max: 64, nullIntolerant: false, type: () => 'null', impl: (args) => args.find((v) => v !== null && v !== undefined) ?? null },
  nullif: { min: 2, max: 2, nullIntolerant: false, type: () => 'null', impl: ([a, b]) => (a !== null && b !== null && a === b ? null : a) },
  // JSON (json-functions.ts); from_json and to_json carry struct types: compiled in expression-compiler.ts.
  from_json: { min: 2, max: 3, type: () => 'struct', impl: () => { throw new Error('compiled in the expression compiler'); } },
  to_json: { min: 1, max: 2, type: () => 'string', impl: () => { throw new Error('compiled in the expression compiler'); } },
  // Avro (avro-functions.ts): typed by their schema literals, compiled in expression-compiler.ts.
  from_avro: { min: 2, max: 3, type: () => 'struct', impl: () => { throw new Error('compiled in the expression compiler'); } },
  to_avro: { min: 1, max: 2, type: () => 'binary', impl: () => { throw new Error('compiled in the expression compiler'); } },
  // One key of json_tuple (the planner expands json_tuple(j, k1, k2) into c0, c1 of these).
  json_tuple_item: { min: 2, max: 2, type: (a) => str(a) ?? 'string', impl: ([j, k]) => jsonTuple(j as string, [k as string])[0] },
  get_json_object: { min: 2, max: 2, type: (a) => str(a) ?? 'string', impl: ([j, p]) => getJsonObject(j as string, p as string) },
};

