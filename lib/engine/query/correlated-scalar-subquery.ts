/**
 * Correlated scalar subqueries over static tables that Spark's RewriteCorrelatedScalarSubquery
 * would decorrelate into a join of any shape (DecorrelateInnerQuery: outer references in a
 * subquery or CTE of its FROM, a join's ON, a UNION's branches, its select list; correlated by any
 * condition; not aggregated, as Spark 4's single join runs one): Weir runs the subquery's batch
 * plan once for each distinct tuple of the outer values it reads, as the domain join would give
 * each outer row the subquery's rows for its values. The tables it reads are static (the job's
 * static tables, inline tables, CTEs over them), so for one batch its value is a function of
 * those outer values: an operator before the one that reads it (CorrelatedScalarSubqueryExec)
 * runs the plan for each tuple the batch's rows hold that it has not run yet, and the compiled
 * expression reads the value of its row's tuple. No row is NULL, more than one
 * SCALAR_SUBQUERY_TOO_MANY_ROWS, as the single join fails; the count bug does not arise (a count
 * over no rows is 0, as the plan gives it).
 *
 * Two dynamic bindings (planning-binding.ts), as scalar-subquery-results.ts's, for the span of
 * a physical planning: the outer values a plan's `outerReference`s read (OuterValues, set before
 * each run of the plan), and the values an operator's correlated subqueries were computed to
 * (CorrelatedValues, which its CorrelatedScalarSubqueryExec fills).
 */
import { encodeKey } from '../state/state-value-codec';
import type { Row } from '../types';
import type { Expr } from './expression';
import type { CompiledExpr, EvalContext } from './function-types';
import { compiled } from './compiled-expr';
import type { ScalarSubquery } from './logical-plan';
import { planningBinding } from './planning-binding';

/** The outer values of the run of a correlated subquery's plan under way, which its outer references read. */
export class OuterValues {
  values: readonly unknown[] = [];
}

/** The key of a tuple of outer values: equal for values a join key equates (encodeKey). */
export const outerValuesKey = (values: readonly unknown[]): string => encodeKey(values);

/** An operator's correlated subqueries' values, each by the key of its outer values. */
export class CorrelatedValues {
  private readonly values = new Map<ScalarSubquery, Map<string, unknown>>();

  has(s: ScalarSubquery, key: string): boolean {
    return this.values.get(s)?.has(key) ?? false;
  }

  set(s: ScalarSubquery, key: string, value: unknown): void {
    let byKey = this.values.get(s);
    if (!byKey) this.values.set(s, (byKey = new Map()));
    byKey.set(key, value);
  }

  get(s: ScalarSubquery, key: string): unknown {
    const byKey = this.values.get(s);
    if (!byKey?.has(key)) throw new Error(`Internal: scalar-subquery#${s.id} read for outer values it was not evaluated for`);
    return byKey.get(key);
  }

  clear(): void {
    this.values.clear();
  }
}

const boundOuter = planningBinding<OuterValues>();
const boundValues = planningBinding<CorrelatedValues>();

/** `f` (the physical planning of a correlated subquery's plan) with its outer references compiled to read `outer`. */
export function withOuterValues<T>(outer: OuterValues | undefined, f: () => T): T {
  return boundOuter.bind(outer, f);
}

/** The outer values the expressions being compiled read (a correlated subquery's plan being planned). */
export function boundOuterValues(): OuterValues | undefined {
  return boundOuter.current();
}

/** `f` (the compilation of an operator's expressions) with its correlated subqueries compiled to read `values`. */
export function withCorrelatedValues<T>(values: CorrelatedValues, f: () => T): T {
  return boundValues.bind(values, f);
}

/** Whether an expression holds a correlated scalar subquery (one with outer values). */
export function isCorrelatedSubquery(e: Expr): e is Extract<Expr, { kind: 'scalarSubquery' }> & { outer: Expr[] } {
  return e.kind === 'scalarSubquery' && (e.outer?.length ?? 0) > 0;
}

/** `outerReference`: the value at its index of the outer values bound when its plan was planned. */
export function compileOuterReference(e: Extract<Expr, { kind: 'outerReference' }>): CompiledExpr {
  const outer = boundOuter.current();
  const { index } = e;
  return {
    ...e.type,
    eval: () => {
      if (!outer) throw new Error(`Internal: outer(${e.name}) compiled outside its correlated subquery's plan`);
      return outer.values[index] ?? null;
    },
  };
}

/** A correlated scalar subquery, its outer values compiled as `outer`: the value computed for the row's values. */
export function compileCorrelatedSubquery(s: ScalarSubquery, outer: readonly CompiledExpr[]): CompiledExpr {
  // The values are bound where the query is compiled; the outer values' evaluators are built with this one's.
  const values = boundValues.current();
  return compiled(s.type, () => {
    const evals = outer.map((o) => o.eval);
    return (row: Row, ctx: EvalContext) => {
      if (!values) throw new Error(`Internal: scalar-subquery#${s.id} compiled outside an operator that evaluates it`);
      return values.get(s, outerValuesKey(evals.map((f) => f(row, ctx))));
    };
  });
}
