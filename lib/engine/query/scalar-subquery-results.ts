/**
 * The values of a run's scalar subqueries, out of the logical plan (which stays immutable, as the
 * rest of the planner's): Spark's logical ScalarSubquery holds no value, its physical one holds
 * its result, set once its plan has run. Here a compiled query's expressions read the values of
 * the ScalarSubqueryResults its physical planning was bound to, which its ScalarSubqueryExec
 * fills at the first batch (and again where the subqueries' tables changed); each compilation
 * (each run) has its own.
 *
 * The binding is dynamic, for the synchronous span of physical planning (withScalarSubqueryResults),
 * as the expression compiler is called from every planner without a handle of the query's.
 */
import type { ScalarSubquery } from './logical-plan';
import { planningBinding } from './planning-binding';

export class ScalarSubqueryResults {
  private readonly values = new Map<ScalarSubquery, unknown>();

  set(s: ScalarSubquery, value: unknown): void {
    this.values.set(s, value);
  }

  /** The value of `s`, which must have been evaluated. */
  get(s: ScalarSubquery): unknown {
    if (!this.values.has(s)) throw new Error(`Internal: scalar-subquery#${s.id} read before it was evaluated`);
    return this.values.get(s);
  }
}

const bound = planningBinding<ScalarSubqueryResults>();

/** `f` (physical planning) with the scalar subqueries' expressions compiled to read `results`. */
export function withScalarSubqueryResults<T>(results: ScalarSubqueryResults, f: () => T): T {
  return bound.bind(results, f);
}

/** The results the expressions being compiled read (unset outside physical planning: a value read then is an internal error). */
export function boundScalarSubqueryResults(): ScalarSubqueryResults | undefined {
  return bound.current();
}
