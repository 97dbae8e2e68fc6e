/**
 * Spark's higher-order functions (its `lambda_funcs` group): functions that take a lambda
 * (`x -> x + 1`, `(acc, x) -> acc + x`) and apply it to the elements of an array or the entries
 * of a map, with Spark's types, NULL handling and errors (ANSI mode off).
 *
 * How a lambda runs (Spark's NamedLambdaVariable, which holds its value in an AtomicReference):
 * the compiler compiles the body once, with each parameter bound to a variable; the function sets
 * the variables, then evaluates the body, once per element. Evaluation is synchronous and each
 * lambda has its own variables, so a nested lambda (`transform(a, x -> filter(x, y -> y > 0))`)
 * and a body reading the row's columns (`x -> x + n`) read what they should. Which names in a
 * body are variables was decided by the builder (expression-builder.ts): the innermost
 * parameter of that name, else a column.
 *
 * As Spark's LambdaBinder, an argument that is not a lambda where a function is expected is a
 * function that ignores its variables: `transform(a, 0)` is an array of zeros.
 *
 * Values: an array is a JS array; a map a plain object from each key's text to its value
 * (map-keys.ts), so a lambda gets a map's key read back as the key type.
 */
import { RecordExpressionError } from '../errors';
import { compareValues } from './ordering';
import { buildMap } from './map-functions';
import { mapKeyValue } from './map-keys';
import { fieldOfType, isMapKeyType, isOrderable, sameType, typeOfField, typeText, type TypeInfo } from './data-types';
import type { CallCompiler, CompiledExpr, EvalContext, Evaluator } from './function-types';
import { compiled } from './compiled-expr';
import { exprToString, type Expr } from './expression';
import type { Row } from '../types';

/** A lambda compiled for the function that binds it: set its variables, then evaluate the body. */
export interface CompiledLambda extends TypeInfo {
  vars: { value: unknown }[];
  body: Evaluator;
}

/** What a higher-order function needs of the expression compiler. */
export interface LambdaCompiler extends CallCompiler {
  /**
   * `e` as a function of variables of these types (Spark's LambdaBinder): a lambda with as many
   * parameters (INVALID_LAMBDA_FUNCTION_CALL otherwise), or any other expression.
   */
  lambda(e: Expr, params: TypeInfo[]): CompiledLambda;
  /**
   * Spark's MapZipWithCoercion: two maps read with one key type, the keys' wider type
   * (findWiderTypeForTwo), when reading neither map's keys as that type can fail (Spark's
   * Cast.forceNullable); undefined when there is no such type.
   */
  withWiderKeys(left: CompiledExpr, right: CompiledExpr): [CompiledExpr, CompiledExpr] | undefined;
}

type Call = Extract<Expr, { kind: 'call' }>;

export interface HigherOrderFunctionDef {
  /** The arguments as Spark's reference names them. */
  params: string[];
  /** Required arguments (the rest are optional). */
  min: number;
  compile(e: Call, c: LambdaCompiler): CompiledExpr;
}

/** An array index (transform's and filter's second variable) is an INT, as Spark's. */
const INT: TypeInfo = { type: 'long', integral: 32 };
const ORDINALS = ['first', 'second', 'third', 'fourth'];

/** Spark's UNEXPECTED_INPUT_TYPE for argument `i` (0-based). */
function wrongInput(c: LambdaCompiler, e: Call, i: number, required: string, actual: TypeInfo, todo: string): never {
  return c.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `The ${ORDINALS[i]} parameter requires the "${required}" type, however "${exprToString(e.args[i])}" has the type "${typeText(actual)}".`, todo);
}

/** The array argument `i`: its type, and its element type (NULL: an array of NULLs). */
function arrayArg(c: LambdaCompiler, e: Call, i: number): { arr: CompiledExpr; element: TypeInfo } {
  const arr = c.compile(e.args[i]);
  if (arr.type === 'null') return { arr, element: { type: 'null' } };
  if (arr.type !== 'array') wrongInput(c, e, i, 'ARRAY', arr, `${e.name}() takes an array here.`);
  return { arr, element: typeOfField(arr.elementType!) };
}

function mapArg(c: LambdaCompiler, e: Call, i: number): { map: CompiledExpr; key: TypeInfo; value: TypeInfo } {
  const map = c.compile(e.args[i]);
  if (map.type === 'null') return { map, key: { type: 'null' }, value: { type: 'null' } };
  if (map.type !== 'map') wrongInput(c, e, i, 'MAP', map, `${e.name}() takes a map here.`);
  return { map, key: typeOfField(map.keyType!), value: typeOfField(map.valueType!) };
}

/** A function whose lambda must give a BOOLEAN (filter, exists, forall, map_filter). */
function predicate(c: LambdaCompiler, e: Call, i: number, params: TypeInfo[]): CompiledLambda {
  const f = c.lambda(e.args[i], params);
  if (f.type !== 'boolean' && f.type !== 'null') wrongInput(c, e, i, 'BOOLEAN', f, `The lambda of ${e.name}() must give a boolean (a condition such as x > 0).`);
  return f;
}

const arrayOf = (t: TypeInfo): TypeInfo => ({ type: 'array', elementType: fieldOfType('element', t) });
/** Only the type of a compiled expression or lambda (not its evaluator or variables). */
const typeOnly = ({ type, fields, decimal, elementType, keyType, valueType, interval, integral, float32, ntz }: TypeInfo): TypeInfo =>
  Object.fromEntries(Object.entries({ type, fields, decimal, elementType, keyType, valueType, interval, integral, float32, ntz }).filter(([, v]) => v !== undefined)) as unknown as TypeInfo;
const isNull = (v: unknown): boolean => v === null || v === undefined;

/** transform and filter bind (element) or, for a lambda of two parameters, (element, index). */
function elementLambda(c: LambdaCompiler, e: Call, element: TypeInfo, bind: (x: Expr, p: TypeInfo[]) => CompiledLambda): { f: CompiledLambda; indexed: boolean } {
  const fn = e.args[1];
  const indexed = fn.kind === 'lambda' && fn.params.length === 2;
  return { f: bind(fn, indexed ? [element, INT] : [element]), indexed };
}

/** The map's entries as [typed key, value] pairs, in the map's order. */
function entries(m: Record<string, unknown>, key: TypeInfo): [unknown, unknown][] {
  return Object.entries(m).map(([k, v]) => [mapKeyValue(k, key), v ?? null]);
}

/** A map from the pairs of a map whose keys did not change (map_filter, transform_values). */
const sameKeys = (pairs: [string, unknown][]): Record<string, unknown> => Object.fromEntries(pairs);

/** Spark's COMPARATOR_RETURNS_NULL, a record error (the query stops at this record in Spark). */
function comparatorReturnedNull(a: unknown, b: unknown): never {
  throw new RecordExpressionError(
    `array_sort(): The comparator has returned a NULL for a comparison between ${String(a)} and ${String(b)}. It should return a positive integer for "greater than", 0 for "equal" and a negative integer for "less than" (COMPARATOR_RETURNS_NULL)`,
    { function: 'array_sort', errorClass: 'COMPARATOR_RETURNS_NULL' },
  );
}

/** Spark's default comparator of array_sort: ascending, NULLs last, NaN above every number. */
function defaultOrder(x: unknown, y: unknown): number {
  if (isNull(x) || isNull(y)) return isNull(x) && isNull(y) ? 0 : isNull(x) ? 1 : -1;
  return compareValues(x, y);
}

function aggregate(e: Call, c: LambdaCompiler): CompiledExpr {
  const { arr, element } = arrayArg(c, e, 0);
  const zero = c.compile(e.args[1]);
  const acc = typeOnly(zero);
  const merge = c.lambda(e.args[2], [acc, element]);
  // `array()` is Spark's ARRAY<VOID> (kept as an ARRAY<STRING>): a lambda of any other array refused.
  const voidZero = zero.type === 'array' && zero.elementType?.void === true;
  if (voidZero && !(merge.type === 'array' && merge.elementType?.void)) {
    wrongInput(c, e, 2, 'ARRAY<VOID>', merge, 'The start value array() is an ARRAY<VOID>: write it in the type the lambda gives, such as CAST(array() AS ARRAY<STRING>).');
  }
  if (!sameType(merge, zero)) {
    wrongInput(c, e, 2, typeText(zero), merge, `The lambda gives ${typeText(merge)} where the start value is ${typeText(zero)}: write the start value in the type the lambda gives (such as 0D, 0.0 or CAST(0 AS DECIMAL(10,2))), or CAST the lambda's result.`);
  }
  const finish = e.args[3] ? c.lambda(e.args[3], [acc]) : undefined;
  const [accVar, elVar] = merge.vars;
  const result = finish ? typeOnly(finish) : acc;
  return compiled(result, () => {
    const [mergeBody, zeroEval, getArr, finishBody] = [merge.body, zero.eval, arr.eval, finish?.body];
    return (row, ctx) => {
      const xs = getArr(row, ctx) as unknown[] | null;
      if (isNull(xs)) return null;
      let state = zeroEval(row, ctx);
      for (const x of xs!) {
        accVar.value = state;
        elVar.value = x ?? null;
        state = mergeBody(row, ctx);
      }
      if (!finish) return state;
      finish.vars[0].value = state;
      return finishBody!(row, ctx);
    };
  });
}

/** One argument evaluated, NULL in NULL out (Spark's SimpleHigherOrderFunction). */
function nullSafe(arg: CompiledExpr, f: (v: unknown, row: Row, ctx: EvalContext) => unknown): Evaluator {
  const get = arg.eval;
  return (row, ctx) => {
    const v = get(row, ctx);
    return isNull(v) ? null : f(v, row, ctx);
  };
}

/**
 * exists and forall: the first element whose predicate is `decisive` decides; otherwise NULL if
 * the predicate was NULL for some element, else the other value (Spark's three-valued logic).
 */
function quantifier(decisive: boolean): HigherOrderFunctionDef {
  return {
    params: ['expr', 'pred'], min: 2,
    compile: (e, c) => {
      const { arr, element } = arrayArg(c, e, 0);
      const f = predicate(c, e, 1, [element]);
      const [el] = f.vars;
      return compiled({ type: 'boolean' }, () => {
        const body = f.body;
        return nullSafe(arr, (v, row, ctx) => {
          let sawNull = false;
          for (const x of v as unknown[]) {
            el.value = x ?? null;
            const r = body(row, ctx);
            if (r === decisive) return decisive;
            if (isNull(r)) sawNull = true;
          }
          return sawNull ? null : !decisive;
        });
      });
    },
  };
}

export const HIGHER_ORDER_FUNCTIONS: Record<string, HigherOrderFunctionDef> = {
  transform: {
    params: ['expr', 'func'], min: 2,
    compile: (e, c) => {
      const { arr, element } = arrayArg(c, e, 0);
      const { f, indexed } = elementLambda(c, e, element, (x, p) => c.lambda(x, p));
      const [el, index] = f.vars;
      return compiled(arrayOf(f), () => {
        const body = f.body;
        return nullSafe(arr, (v, row, ctx) => {
          const xs = v as unknown[];
          const out = new Array<unknown>(xs.length);
          for (let i = 0; i < xs.length; i++) {
            el.value = xs[i] ?? null;
            if (indexed) index.value = i;
            out[i] = body(row, ctx);
          }
          return out;
        });
      });
    },
  },
  filter: {
    params: ['expr', 'func'], min: 2,
    compile: (e, c) => {
      const { arr, element } = arrayArg(c, e, 0);
      const { f, indexed } = elementLambda(c, e, element, (x, p) => predicate(c, e, 1, p));
      const [el, index] = f.vars;
      return compiled(arr.type === 'null' ? arrayOf({ type: 'null' }) : typeOnly(arr), () => {
        const body = f.body;
        return nullSafe(arr, (v, row, ctx) => {
          const xs = v as unknown[];
          const out: unknown[] = [];
          for (let i = 0; i < xs.length; i++) {
            el.value = xs[i] ?? null;
            if (indexed) index.value = i;
            if (body(row, ctx) === true) out.push(xs[i] ?? null);
          }
          return out;
        });
      });
    },
  },
  // Three-valued, as Spark's default spark.sql.legacy.arrayExistsFollowsThreeValuedLogic=true:
  // true if the predicate is true for some element, else NULL if it was NULL for some, else false.
  exists: quantifier(true),
  // false if the predicate is false for some element, else NULL if it was NULL for some, else true.
  forall: quantifier(false),
  // The state has the start value's type: the merge lambda must give exactly that type, as in Spark.
  aggregate: { params: ['expr', 'start', 'merge', 'finish'], min: 3, compile: aggregate },
  reduce: { params: ['expr', 'start', 'merge', 'finish'], min: 3, compile: aggregate },
  // The shorter array is padded with NULLs.
  zip_with: {
    params: ['left', 'right', 'func'], min: 3,
    compile: (e, c) => {
      const left = arrayArg(c, e, 0);
      const right = arrayArg(c, e, 1);
      const f = c.lambda(e.args[2], [left.element, right.element]);
      const [l, r] = f.vars;
      return compiled(arrayOf(f), () => {
        const [body, getL, getR] = [f.body, left.arr.eval, right.arr.eval];
        return (row, ctx) => {
          const xs = getL(row, ctx) as unknown[] | null;
          if (isNull(xs)) return null;
          const ys = getR(row, ctx) as unknown[] | null;
          if (isNull(ys)) return null;
          const n = Math.max(xs!.length, ys!.length);
          const out = new Array<unknown>(n);
          for (let i = 0; i < n; i++) {
            l.value = xs![i] ?? null;
            r.value = ys![i] ?? null;
            out[i] = body(row, ctx);
          }
          return out;
        };
      });
    },
  },
  // Without a comparator: ascending, NULLs last. A comparator gives a negative integer, 0 or a
  // positive integer; NULL from it is Spark's COMPARATOR_RETURNS_NULL. The sort is stable.
  array_sort: {
    params: ['expr', 'func'], min: 1,
    compile: (e, c) => {
      const { arr, element } = arrayArg(c, e, 0);
      const type = arr.type === 'null' ? arrayOf({ type: 'null' }) : typeOnly(arr);
      if (e.args.length === 1) {
        if (!isOrderable(element)) {
          c.mismatch(e, 'INVALID_ORDERING_TYPE', `The \`array_sort\` does not support ordering on type "${typeText(element)}".`, 'Give array_sort a comparator lambda: array_sort(a, (l, r) -> …).');
        }
        return compiled(type, () => nullSafe(arr, (v) => [...(v as unknown[])].sort(defaultOrder)));
      }
      const f = c.lambda(e.args[1], [element, element]);
      if (f.type !== 'long') {
        c.mismatch(e, 'UNEXPECTED_RETURN_TYPE', `The \`lambdafunction\` requires return "INT" type, but the actual is "${typeText(f)}" type.`, 'The comparator must give an integer: negative, 0 or positive.');
      }
      const [l, r] = f.vars;
      return compiled(type, () => {
        const body = f.body;
        return nullSafe(arr, (v, row, ctx) =>
          (v as unknown[]).map((x) => x ?? null).sort((x, y) => {
            l.value = x;
            r.value = y;
            const cmp = body(row, ctx);
            if (isNull(cmp)) comparatorReturnedNull(x, y);
            return Number(cmp);
          }));
      });
    },
  },
  map_filter: {
    params: ['expr', 'func'], min: 2,
    compile: (e, c) => {
      const { map, key, value } = mapArg(c, e, 0);
      const f = predicate(c, e, 1, [key, value]);
      const [k, v] = f.vars;
      return compiled(typeOnly(map), () => {
        const body = f.body;
        return nullSafe(map, (m, row, ctx) => {
          const texts = Object.keys(m as object);
          const kept: [string, unknown][] = [];
          entries(m as Record<string, unknown>, key).forEach(([typed, val], i) => {
            k.value = typed;
            v.value = val;
            if (body(row, ctx) === true) kept.push([texts[i], val]);
          });
          return sameKeys(kept);
        });
      });
    },
  },
  // A NULL or repeated new key is Spark's NULL_MAP_KEY or DUPLICATED_MAP_KEY (a bad record).
  transform_keys: {
    params: ['expr', 'func'], min: 2,
    compile: (e, c) => {
      const { map, key, value } = mapArg(c, e, 0);
      const f = c.lambda(e.args[1], [key, value]);
      if (!isMapKeyType(f)) {
        c.mismatch(e, 'INVALID_MAP_KEY_TYPE', `The input ${typeText(f)} is an invalid type for a map key.`, 'A map cannot key a map: give the lambda a key of another type.');
      }
      const [k, v] = f.vars;
      const keyType: TypeInfo = f.type === 'null' ? { type: 'string' } : typeOnly(f);
      const type: TypeInfo = { type: 'map', keyType: { ...fieldOfType('key', keyType), nullable: false }, valueType: map.type === 'map' ? map.valueType : fieldOfType('value', value) };
      return compiled(type, () => {
        const body = f.body;
        return nullSafe(map, (m, row, ctx) => {
          const pairs = entries(m as Record<string, unknown>, key);
          const keys = pairs.map(([typed, val]) => {
            k.value = typed;
            v.value = val;
            return body(row, ctx);
          });
          return buildMap('transform_keys()', keys, pairs.map((p) => p[1]), keyType);
        });
      });
    },
  },
  transform_values: {
    params: ['expr', 'func'], min: 2,
    compile: (e, c) => {
      const { map, key, value } = mapArg(c, e, 0);
      const f = c.lambda(e.args[1], [key, value]);
      const [k, v] = f.vars;
      const type: TypeInfo = { type: 'map', keyType: map.type === 'map' ? map.keyType : { name: 'key', type: 'string', nullable: false }, valueType: fieldOfType('value', f) };
      return compiled(type, () => {
        const body = f.body;
        return nullSafe(map, (m, row, ctx) => {
          const texts = Object.keys(m as object);
          return sameKeys(entries(m as Record<string, unknown>, key).map(([typed, val], i) => {
            k.value = typed;
            v.value = val;
            return [texts[i], body(row, ctx)];
          }));
        });
      });
    },
  },
  // The keys of both maps, the first map's first; a value missing from one map is NULL.
  map_zip_with: {
    params: ['map1', 'map2', 'function'], min: 3,
    compile: (e, c) => {
      const left = mapArg(c, e, 0);
      const right = mapArg(c, e, 1);
      let key = left.map.type === 'map' ? left.key : right.key;
      let keyType = left.map.type === 'map' ? left.map.keyType : right.map.type === 'map' ? right.map.keyType : { name: 'key', type: 'string' as const, nullable: false };
      let [lm, rm] = [left.map, right.map];
      if (left.map.type === 'map' && right.map.type === 'map' && !sameType(left.key, right.key)) {
        // Both maps read with the keys' wider type, so that equal keys have one text (map-keys.ts).
        const wider = c.withWiderKeys(left.map, right.map);
        if (!wider) {
          return c.mismatch(e, 'MAP_ZIP_WITH_DIFF_TYPES', `Input to the \`map_zip_with\` should have been two maps with compatible key types, but it's ["${typeText(left.key)}", "${typeText(right.key)}"].`, 'CAST the keys of one map to the key type of the other.');
        }
        [lm, rm] = wider;
        key = typeOfField(lm.keyType!);
        keyType = lm.keyType;
      }
      const f = c.lambda(e.args[2], [key, left.value, right.value]);
      const [k, v1, v2] = f.vars;
      const [leftMap, rightMap] = [lm, rm];
      return compiled({ type: 'map', keyType, valueType: fieldOfType('value', f) }, () => {
        const [body, getL, getR] = [f.body, leftMap.eval, rightMap.eval];
        return (row, ctx) => {
          const m1 = getL(row, ctx) as Record<string, unknown> | null;
          if (isNull(m1)) return null;
          const m2 = getR(row, ctx) as Record<string, unknown> | null;
          if (isNull(m2)) return null;
          const texts = [...new Set([...Object.keys(m1!), ...Object.keys(m2!)])];
          return sameKeys(texts.map((t) => {
            k.value = mapKeyValue(t, key);
            v1.value = Object.hasOwn(m1!, t) ? (m1![t] ?? null) : null;
            v2.value = Object.hasOwn(m2!, t) ? (m2![t] ?? null) : null;
            return [t, body(row, ctx)];
          }));
        };
      });
    },
  },
};

/** Spark's reference form of each signature: `transform(expr, func)`, `aggregate(expr, start, merge[, finish])`. */
export function higherOrderSignature(name: string, def: HigherOrderFunctionDef): string {
  const required = def.params.slice(0, def.min).join(', ');
  const optional = def.params.slice(def.min).map((p) => `[, ${p}]`).join('');
  return `${name}(${required}${optional})`;
}
