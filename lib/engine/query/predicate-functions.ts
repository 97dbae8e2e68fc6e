/**
 * Spark's predicates that are functions (group predicate_funcs): rlike and its aliases, isnull,
 * isnotnull and equal_null. The operators (=, <, IN, LIKE …) are the compiler's.
 */
import { str } from './function-args';
import type { FunctionDef, SpecialFormDef } from './function-types';
import { recordRegex, regexLiterals } from './regex';
import { isNumeric } from './sql-values';

const rlike: FunctionDef = {
  min: 2, max: 2, type: (a) => str(a) ?? 'boolean',
  impl: ([s, p]) => recordRegex('rlike()', p as string).test(s as string),
  checkLiterals: regexLiterals('rlike()'),
};

export const PREDICATE_FUNCTIONS: Record<string, FunctionDef> = {
  // Spark's rlike/regexp/regexp_like: whether the pattern matches anywhere in the string.
  rlike,
  regexp: rlike,
  regexp_like: rlike,
  isnull: { min: 1, max: 1, nullIntolerant: false, takesVariant: true, type: () => 'boolean', impl: ([x]) => x === null },
  // Spark's IsNaN: NULL is not NaN (false, never NULL).
  isnan: { min: 1, max: 1, nullIntolerant: false, type: (a) => (isNumeric(a[0]) ? 'boolean' : 'expects a number'), impl: ([x]) => typeof x === 'number' && Number.isNaN(x) },
  isnotnull: { min: 1, max: 1, nullIntolerant: false, takesVariant: true, type: () => 'boolean', impl: ([x]) => x !== null },
  // Spark's `<=>` (EqualNullSafe): `=` with its coercion and order, but NULL equals NULL and
  // the result is never NULL.
  equal_null: {
    min: 2, max: 2, nullIntolerant: false,
    type: () => 'boolean',
    // Never called: `compile` builds every call.
    impl: () => null,
    compile: (e, c) => {
      const { l, r, test } = c.comparison(e, e.args[0], e.args[1], '=');
      return {
        type: 'boolean',
        eval: (row, ctx) => {
          const a = l.eval(row, ctx), b = r.eval(row, ctx);
          return a === null || b === null ? a === b : test(a, b);
        },
      };
    },
  },
};

/** like(str, pattern[, escape]) and ilike(…) are the LIKE and ILIKE operators, as Spark's Like/ILike. */
const likeCall = (caseInsensitive: boolean): SpecialFormDef => ({
  min: 2, max: 3,
  replacement: (e, c) => {
    if (e.args.length < 2 || e.args.length > 3) return undefined;
    const esc = e.args[2];
    if (esc && (esc.kind !== 'literal' || typeof esc.value !== 'string' || [...esc.value].length !== 1)) c.fail(e, `${e.name}() takes its escape character as a one-character string literal`);
    const escape = esc ? (esc as { value: string }).value : undefined;
    return { kind: 'like', arg: e.args[0], pattern: e.args[1], negated: false, caseInsensitive, ...(escape !== undefined ? { escape } : {}), pos: e.pos };
  },
});

export const PREDICATE_SPECIAL_FORMS: Record<string, SpecialFormDef> = { like: likeCall(false), ilike: likeCall(true) };
