/**
 * What the optimizer's rules share: the record of a rule's application, and how a rule finds the
 * stream in a plan (a stream-static join has one stream side).
 */
import type { Schema } from '../../types';
import { resolveColumn } from '../expression-compiler';
import { referencedColumns, type Expr } from '../expression';
import type { LogicalPlan, StreamingRelation } from '../logical-plan';

export interface OptimizerRuleApplication {
  /** Spark's rule name, e.g. `PushDownPredicates`. */
  rule: string;
  /** What it moved or removed, in the plan's own terms. */
  detail: string;
}

export type Node<K extends LogicalPlan['kind']> = Extract<LogicalPlan, { kind: K }>;

export function streamRelationOf(plan: LogicalPlan): StreamingRelation | undefined {
  if (plan.kind === 'StreamingRelation') return plan;
  if (plan.kind === 'StaticRelation') return undefined;
  if (plan.kind === 'Join') return streamRelationOf(plan.left) ?? streamRelationOf(plan.right);
  // Several relations: nothing is pushed across a union as one relation.
  if (plan.kind === 'Union') return undefined;
  return streamRelationOf(plan.child);
}

/** Whether every column `e` reads is a column of `schema` (as the compiler resolves names). */
export function readsOnly(e: Expr, schema: Schema): boolean {
  for (const c of referencedColumns(e)) if (!resolveColumn(schema, c)) return false;
  return true;
}

/** The stream side of a stream-static join, and a setter that rebuilds the join around a new one. */
export function streamSide(j: Node<'Join'>): { side: LogicalPlan; with: (p: LogicalPlan) => Node<'Join'> } {
  return j.left.kind === 'StaticRelation' ? { side: j.right, with: (p) => ({ ...j, right: p }) } : { side: j.left, with: (p) => ({ ...j, left: p }) };
}
