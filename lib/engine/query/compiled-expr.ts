/**
 * A compiled expression is its type and its evaluator, and the two are made apart: the analysis
 * (resolved-plan.ts) reads each expression's type, checks it and writes its implicit casts into
 * the plan without building any evaluator, and physical planning builds them when it first reads
 * `eval`. So typing a query builds no closure, as Catalyst's expressions know their dataType
 * before any of their code is generated. A node's evaluator is built once, from its operands'
 * evaluators, and only from what its analysis captured: a build reads no compiler state.
 */
import type { TypeInfo } from './data-types';
import type { CompiledExpr, EvalContext, Evaluator } from './function-types';

/**
 * How many evaluators deferred ones have built (read by the tests that check that analysis builds
 * none, and by nothing else).
 */
export const evaluatorBuilds = { count: 0 };

/**
 * `obj` with its property `key` built by `build` when it is first read, then a plain property (an
 * evaluator, or what a physical operator holds of one).
 */
export function lazyProperty<T extends object, K extends keyof T>(obj: T, key: K, build: () => T[K]): T {
  Object.defineProperty(obj, key, {
    configurable: true,
    enumerable: true,
    get(): T[K] {
      evaluatorBuilds.count++;
      const value = build();
      Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
      return value;
    },
  });
  return obj;
}

/** An expression of type `type` whose evaluator `build` makes when `eval` is first read. */
export function compiled(type: TypeInfo, build: () => Evaluator): CompiledExpr {
  return lazyProperty({ ...type } as CompiledExpr, 'eval', build);
}

/** A compiled expression's type: all it is but its evaluator (which this does not build). */
export function typeOfCompiled(c: CompiledExpr): TypeInfo {
  const type: Record<string, unknown> = {};
  for (const k of Object.keys(c)) if (k !== 'eval') type[k] = (c as unknown as Record<string, unknown>)[k];
  return type as unknown as TypeInfo;
}

/** `c`'s values as an expression of type `type` (the same evaluator, built when `c`'s is). */
export function retyped(c: CompiledExpr, type: TypeInfo): CompiledExpr {
  return compiled(type, () => c.eval);
}

/** An expression of type `type` whose value is `f` of `a`'s (and of the evaluation's context). */
export function mapped(type: TypeInfo, a: CompiledExpr, f: (v: unknown, ctx: EvalContext) => unknown): CompiledExpr {
  return compiled(type, () => {
    const get = a.eval;
    return (r, c) => f(get(r, c), c);
  });
}
