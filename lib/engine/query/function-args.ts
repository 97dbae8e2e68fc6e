/**
 * Checks of a scalar function's argument types, and the small helpers several function files
 * share: a leaf module, so that no function file imports another for them.
 */
import { isNumeric, unifyTypes, widerTypeForTwo, type ExprType } from './sql-values';
import { checkStringLength } from './value-limits';
import { exprChildren, type Expr } from './expression';
import type { CallCompiler } from './function-types';

export const isStr = (t: ExprType) => t === 'string' || t === 'null';
/** The first `n` arguments (all by default) are strings, or a message. */
export const str = (args: ExprType[], n = args.length): string | undefined => (args.slice(0, n).every(isStr) ? undefined : 'expects string arguments');
export const nums = (args: ExprType[]): string | undefined => (args.every(isNumeric) ? undefined : 'expects numbers');
/** A string's characters (code points), as SQL counts them. */
export const chars = (s: string) => [...s];

/**
 * Every argument's type unified (greatest, least, if, nvl …), or a message; with
 * `stringPromotion`, a string beside numbers, dates or timestamps makes a STRING (widerTypeForTwo).
 */
export function unified(args: ExprType[], fn: string, stringPromotion = false): ExprType | string {
  const wider = stringPromotion ? widerTypeForTwo : unifyTypes;
  let t: ExprType | undefined = 'null';
  for (const a of args) {
    t = wider(t, a);
    if (!t) return `${fn}() arguments have incompatible types (${args.join(', ')}): CAST them to one type (DATATYPE_MISMATCH.DATA_DIFF_TYPES)`;
  }
  return t === 'null' ? 'string' : t;
}

/** Joins parts after checking the total length (`sepLength` between each two). */
export function joinChecked(fn: string, parts: string[], sep: string): string {
  let total = parts.length > 1 ? sep.length * (parts.length - 1) : 0;
  for (const p of parts) total += p.length;
  checkStringLength(fn, total);
  return parts.join(sep);
}

/** The `impl` of a function its `compile` hook compiles whole: never run. */
export const compiledByHook = (): never => { throw new Error('compiled by its compile hook, never evaluated by impl'); };

/** Whether an expression is a constant: it reads no column and calls nothing (Spark's foldable, narrowed). */
export const constant = (e: Expr): boolean => e.kind !== 'column' && e.kind !== 'call' && e.kind !== 'lambdaVariable' && e.kind !== 'outerReference' && exprChildren(e).every(constant);

/**
 * A schema expression evaluated at analysis: literals, and the calls whose cost is bounded by the
 * query's own text (schema_of_json, schema_of_csv and schema_of_xml of a sample, concatenation). Analysis runs in the API's process
 * (validation), so no other user expression is evaluated there: Spark folds any constant, Weir
 * takes these.
 */
const foldable = (e: Expr): boolean =>
  e.kind === 'literal' ||
  (e.kind === 'binary' && e.op === '||' && foldable(e.left) && foldable(e.right)) ||
  (e.kind === 'call' && (e.name === 'schema_of_json' || e.name === 'schema_of_csv' || e.name === 'schema_of_xml' || e.name === 'concat') && exprChildren(e).every(foldable));

/**
 * A schema argument's text (from_json's, from_csv's): a string literal, or any foldable string
 * expression, evaluated once at analysis as Spark folds it (`schema_of_json('{"a": 1}')`);
 * undefined when it is neither.
 */
export function foldedText(arg: Expr, c: CallCompiler): string | undefined {
  if (arg.kind === 'literal') return typeof arg.value === 'string' ? arg.value : undefined;
  if (!foldable(arg)) return undefined;
  const compiled = c.compile(arg);
  if (compiled.type !== 'string') return undefined;
  const v = compiled.eval({}, { batchTimestampMs: 0 });
  return typeof v === 'string' ? v : undefined;
}
