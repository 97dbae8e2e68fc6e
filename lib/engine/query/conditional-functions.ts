/**
 * Spark's conditional functions (group conditional_funcs): coalesce, nullif, if, nvl, ifnull,
 * nvl2 and nanvl. CASE WHEN is the compiler's. None is NULL-intolerant: a NULL argument is a
 * value they choose between.
 */
import type { Expr } from './expression';
import { nums, unified } from './function-args';
import type { FunctionDef } from './function-types';
import { compiled, typeOfCompiled } from './compiled-expr';
import { unifyTypes, widerTypeForTwo, type ExprType } from './sql-values';

/** The INT literal 0. */
const INT_ZERO: Expr = { kind: 'literal', value: 0, type: 'long', integral: 32 };

/** The type of a choice between values: their wider type, VOID when all are untyped NULLs (Spark's if(c, NULL, NULL)). */
const chosen = (values: ExprType[], fn: string): ExprType | string => (values.every((t) => t === 'null') ? 'null' : unified(values, fn, true));

export const CONDITIONAL_FUNCTIONS: Record<string, FunctionDef> = {
  coalesce: {
    min: 1, max: 64, nullIntolerant: false, valueArgs: 'all', stringPromotion: true, coalescing: true, type: () => 'null',
    unifiedType: (types) => types.reduce<ExprType | undefined>((t, x) => (t ? widerTypeForTwo(t, x) : t), 'null') ?? 'coalesce() arguments have incompatible types: CAST them to one type (DATATYPE_MISMATCH.DATA_DIFF_TYPES)',
    impl: (args) => args.find((v) => v !== null && v !== undefined) ?? null,
  },
  // Spark's NullIf is If(a = b, NULL, a): `a` of its own type, compared as `=` compares (a
  // string beside a number cast to it: nullif('0', 0) is NULL, nullif('abc', 0) 'abc').
  nullif: {
    min: 2, max: 2, nullIntolerant: false, valueArgs: 'all', type: () => 'null',
    unifiedType: ([a, b]) => (unifyTypes(a, b) ? a : 'nullif() arguments have incompatible types'),
    impl: ([a, b]) => (a !== null && b !== null && a === b ? null : a),
    compile: (e, c) => {
      const a = c.compile(e.args[0]);
      c.compile(e.args[1]);
      // The comparison's casts belong to its own `a = b`, not to the call's arguments: `a` is
      // returned as it is.
      const eq: Expr = { kind: 'binary', op: '=', left: { ...e.args[0] }, right: { ...e.args[1] }, pos: e.pos };
      const { l, r, test } = c.comparison(eq, eq.left, eq.right, '=');
      return compiled(typeOfCompiled(a), () => {
        const [left, right, value] = [l.eval, r.eval, a.eval];
        return (row, ctx) => {
          const x = left(row, ctx);
          const y = x === null ? null : right(row, ctx);
          return x !== null && y !== null && test(x, y) ? null : value(row, ctx);
        };
      });
    },
  },
  if: {
    min: 3, max: 3, nullIntolerant: false, valueArgs: [1, 2], stringPromotion: true,
    type: (a) => (a[0] === 'boolean' || a[0] === 'null' ? chosen(a.slice(1), 'if') : 'needs a boolean condition first'),
    impl: ([c, x, y]) => (c === true ? x : y),
  },
  // nvl and ifnull are Spark's coalesce, nvl2 its if (RuntimeReplaceable): they widen as those.
  nvl: { min: 2, max: 2, nullIntolerant: false, valueArgs: 'all', stringPromotion: true, coalescing: true, type: (a) => chosen(a, 'nvl'), impl: ([x, y]) => x ?? y },
  ifnull: { min: 2, max: 2, nullIntolerant: false, valueArgs: 'all', stringPromotion: true, coalescing: true, type: (a) => chosen(a, 'ifnull'), impl: ([x, y]) => x ?? y },
  nvl2: { min: 3, max: 3, nullIntolerant: false, valueArgs: [1, 2], stringPromotion: true, type: (a) => chosen(a.slice(1), 'nvl2'), impl: ([x, y, z]) => (x !== null ? y : z) },
  // Spark 4's zeroifnull(x) is coalesce(x, 0), nullifzero(x) is nullif(x, 0) (RuntimeReplaceable).
  // Replaced by those, so that they type as those do: zeroifnull(CAST(1 AS TINYINT)) is an INT,
  // zeroifnull('abc') a STRING, nullifzero(0.0) a DECIMAL(1,1).
  zeroifnull: {
    min: 1, max: 1, nullIntolerant: false, type: (a) => nums(a) ?? unified([a[0], 'long'], 'zeroifnull'), impl: ([x]) => x ?? 0,
    replacement: (e) => ({ kind: 'call', name: 'coalesce', args: [e.args[0], INT_ZERO], pos: e.pos }),
  },
  nullifzero: {
    min: 1, max: 1, nullIntolerant: false, type: (a) => nums(a) ?? unified([a[0], 'long'], 'nullifzero'), impl: ([x]) => (x === 0 || x === 0n ? null : x),
    replacement: (e) => ({ kind: 'call', name: 'nullif', args: [e.args[0], INT_ZERO], pos: e.pos }),
  },
  // Spark: `b` when `a` is NaN (NULL stays NULL); both doubles.
  // Spark's NaNvl is of its first argument's type, its inputs DOUBLE or FLOAT (a FLOAT beside a
  // DOUBLE cast to it, a NULL second argument to the first's type): of a FLOAT and a FLOAT or a
  // NULL a FLOAT.
  nanvl: {
    min: 2, max: 2, nullIntolerant: false, type: (a) => (nums(a) ? 'takes DOUBLE or FLOAT arguments (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE)' : 'double'), impl: ([a, b]) => (a === null ? null : Number.isNaN(a) ? b : a),
    typed: (_e, [a, b]) => (a?.float32 && (b?.float32 || b?.type === 'null')
      ? compiled({ type: 'double', float32: true }, () => { const [x, y] = [a.eval, b.eval]; return (row, ctx) => { const v = x(row, ctx); return v === null || !Number.isNaN(v) ? v : y(row, ctx); }; })
      : undefined),
  },
};
