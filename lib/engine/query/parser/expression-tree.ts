/**
 * Walking an unresolved expression tree (unresolved-plan.ts) without knowing every node's
 * fields: a child is any field holding an Expression, an array of them, or CASE's pairs. A
 * subquery's plan is not an expression and is not entered.
 */
import type { Expression, LogicalPlan } from './unresolved-plan';

/** Fields that never hold a child expression (a data type and a subquery's plan have a `kind` too). */
const LEAF_FIELDS = new Set(['pos', 'dataType', 'plan', 'query', 'nameParts', 'names', 'name', 'target']);

const isExpression = (v: unknown): v is Expression => !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { kind?: unknown }).kind === 'string';

function mapValue(v: unknown, f: (e: Expression) => Expression): unknown {
  if (isExpression(v)) return f(v);
  if (Array.isArray(v)) return v.map((x) => mapValue(x, f));
  return v;
}

/**
 * `e` with each node replaced by `replace(node)` where that gives one (its children are then
 * not visited), the other nodes rebuilt over their mapped children. `e` is not changed.
 */
export function mapExpression(e: Expression, replace: (e: Expression) => Expression | undefined): Expression {
  const r = replace(e);
  if (r) return r;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) out[k] = LEAF_FIELDS.has(k) ? v : mapValue(v, (x) => mapExpression(x, replace));
  return out as unknown as Expression;
}

/** Whether `test` holds for `e` or any expression inside it (not inside a node `enter` refuses). */
export function someExpression(e: Expression, test: (e: Expression) => boolean, enter: (e: Expression) => boolean = () => true): boolean {
  if (test(e)) return true;
  if (!enter(e)) return false;
  const visit = (v: unknown): boolean => (isExpression(v) ? someExpression(v, test, enter) : Array.isArray(v) ? v.some(visit) : false);
  return Object.entries(e).some(([k, v]) => !LEAF_FIELDS.has(k) && visit(v));
}

/** The plan nodes' kinds: a field holding one is a child plan, not an expression. */
const PLAN_KINDS: ReadonlySet<string> = new Set<LogicalPlan['kind']>([
  'UnresolvedRelation', 'OneRowRelation', 'SubqueryAlias', 'UnresolvedSubqueryColumnAliases', 'Project', 'Filter', 'UnresolvedHaving', 'Aggregate', 'Join',
  'Union', 'Intersect', 'Except', 'Distinct', 'UnresolvedWith', 'Generate', 'Sort', 'Limit', 'Offset', 'Unpivot', 'Pivot', 'RepartitionByExpression',
]);

/**
 * `plan` with each of its plan nodes that `isTarget` holds for replaced by `by`; a subquery's
 * plan inside an expression is not entered. `plan` is not changed.
 */
export function replacePlanNodes(plan: LogicalPlan, isTarget: (p: LogicalPlan) => boolean, by: LogicalPlan): LogicalPlan {
  if (isTarget(plan)) return by;
  const map = (v: unknown): unknown => (Array.isArray(v) ? v.map(map) : isExpression(v) && PLAN_KINDS.has(v.kind) ? replacePlanNodes(v as unknown as LogicalPlan, isTarget, by) : v);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(plan)) out[k] = k === 'pos' ? v : map(v);
  return out as unknown as LogicalPlan;
}

/**
 * `plan` with mapExpression(…, replace) applied to the expressions of each of its nodes, as
 * Catalyst's resolveExpressions over a plan tree: a subquery's plan inside an expression is not
 * entered. `plan` is not changed.
 */
export function mapPlanExpressions(plan: LogicalPlan, replace: (e: Expression) => Expression | undefined): LogicalPlan {
  const map = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(map);
    if (!isExpression(v)) return v;
    return PLAN_KINDS.has(v.kind) ? mapPlanExpressions(v as unknown as LogicalPlan, replace) : mapExpression(v, replace);
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(plan)) out[k] = k === 'pos' ? v : map(v);
  return out as unknown as LogicalPlan;
}
