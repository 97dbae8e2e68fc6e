/**
 * Walking an unresolved expression tree (unresolved-plan.ts) without knowing every node's
 * fields: a child is any field holding an Expression, an array of them, or CASE's pairs. A
 * subquery's plan is not an expression and is not entered.
 */
import type { Expression } from './unresolved-plan';

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
