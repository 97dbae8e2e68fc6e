/**
 * Spark's InferFiltersFromConstraints, for a join of two streams: a filter one side's rows are
 * known to pass (its constraints: the deterministic conjuncts of the Filters below it, read
 * through Projects that rename columns) holds for the other side's rows too, wherever it reads
 * only join keys compared with `=`: `r.id % 2 = 0` under the right side of `ON l.id = r.id` gives
 * `l.id % 2 = 0` for the left side, whose rows failing it can match nothing. An inner or left
 * semi join infers for both sides, a left outer (or anti) join for its right side only, a right
 * outer join for its left side only (a preserved row comes out whatever it matches), a full outer
 * join for neither.
 *
 * It matters to a streaming query because such rows are never buffered: Spark's state row counts
 * are the rows that pass the inferred filter, and the filter, pushed down to the source's read,
 * keeps the rows it drops out of that read's watermark, as in Spark. PushDownPredicates then moves
 * the new Filter down.
 */
import { conjunction, conjuncts, exprChildren, exprToString, mapExprChildren, referencedColumns, type Expr } from '../expression';
import type { JoinSideName } from '../join-time-range';
import { isStreamStreamJoin, type LogicalPlan } from '../logical-plan';
import { isDeterministic } from '../random-functions';
import { readStreamJoin } from '../stream-join-planner';
import type { Node, OptimizerRuleApplication } from './plan-walk';

/** The sides a join type infers filters for (Spark's InferFiltersFromConstraints by join type). */
const INFERRED_SIDES: Record<string, readonly JoinSideName[]> = { Inner: ['left', 'right'], LeftSemi: ['left', 'right'], LeftOuter: ['right'], RightOuter: ['left'] };

export function inferFiltersFromConstraints(plan: LogicalPlan, applied: OptimizerRuleApplication[]): LogicalPlan {
  const rebuilt = rebuildChildren(plan, (c) => inferFiltersFromConstraints(c, applied));
  return rebuilt.kind === 'Join' && isStreamStreamJoin(rebuilt) ? inferForJoin(rebuilt, applied) : rebuilt;
}

function rebuildChildren(plan: LogicalPlan, f: (p: LogicalPlan) => LogicalPlan): LogicalPlan {
  switch (plan.kind) {
    case 'StreamingRelation':
    case 'StaticRelation':
      return plan;
    case 'Join':
      return { ...plan, left: f(plan.left), right: f(plan.right) };
    case 'Union':
      return { ...plan, branches: plan.branches.map(f) };
    case 'Aggregate': case 'Deduplicate': case 'Expand': case 'Filter': case 'Generate': case 'Limit': case 'Offset': case 'Project': case 'Sort': case 'Window':
      return { ...plan, child: f(plan.child) } as LogicalPlan;
  }
}

function inferForJoin(join: Node<'Join'>, applied: OptimizerRuleApplication[]): Node<'Join'> {
  const sides = INFERRED_SIDES[join.joinType] ?? [];
  if (sides.length === 0) return join;
  // Keys compared with `=` between two columns (`<=>` keeps NULL keys a filter would drop).
  const keys = readStreamJoin(join).keys.filter((k) => !k.nullSafe && k.left.kind === 'column' && k.right.kind === 'column');
  if (keys.length === 0) return join;
  let out = join;
  for (const side of sides) {
    const other: JoinSideName = side === 'left' ? 'right' : 'left';
    // The other side's key column → this side's.
    const rename = new Map(keys.map((k) => [(k[other] as Extract<Expr, { kind: 'column' }>).name.toLowerCase(), k[side]]));
    const known = new Set(constraints(join[side]).map(exprToString));
    const inferred = constraints(join[other])
      .filter((c) => [...referencedColumns(c)].every((r) => rename.has(r.toLowerCase())))
      .map((c) => renamed(c, rename))
      .filter((c) => !known.has(exprToString(c)));
    if (inferred.length === 0) continue;
    applied.push({ rule: 'InferFiltersFromConstraints', detail: `${inferred.map(exprToString).join(' AND ')} inferred for the ${side} side of Join ${join.joinType} (two streams)` });
    const cond = conjunction(inferred);
    const target = out[side];
    out = { ...out, [side]: target.kind === 'Filter' ? { ...target, condition: conjunction([target.condition, cond]) } : { kind: 'Filter', condition: cond, child: target } };
  }
  return out;
}

/**
 * The conditions every row of `plan` passes, over its output columns: a Filter's deterministic
 * conjuncts, and below a Project those that read only columns it passes on (renamed).
 */
function constraints(plan: LogicalPlan): Expr[] {
  switch (plan.kind) {
    case 'Filter':
      // A scalar subquery's value is computed once for the plan: it is not copied to another place.
      return [...conjuncts(plan.condition).filter((c) => isDeterministic(c) && !readsScalarSubquery(c)), ...constraints(plan.child)];
    case 'Project': {
      const passed = new Map<string, Expr>();
      for (const n of plan.list) {
        if (n.expr.kind === 'column' && !passed.has(n.expr.name.toLowerCase())) passed.set(n.expr.name.toLowerCase(), { kind: 'column', name: n.name });
      }
      return constraints(plan.child).filter((c) => [...referencedColumns(c)].every((r) => passed.has(r.toLowerCase()))).map((c) => renamed(c, passed));
    }
    case 'Deduplicate':
      return constraints(plan.child);
    // Other operators' constraints (an aggregation's, a join's, …) are not read: nothing inferred.
    case 'Aggregate': case 'Expand': case 'Generate': case 'Join': case 'Limit': case 'Offset': case 'Sort': case 'StaticRelation': case 'StreamingRelation': case 'Union': case 'Window':
      return [];
  }
}

function renamed(e: Expr, to: ReadonlyMap<string, Expr>): Expr {
  return e.kind === 'column' ? (to.get(e.name.toLowerCase()) ?? e) : mapExprChildren(e, (c) => renamed(c, to));
}

const readsScalarSubquery = (e: Expr): boolean => e.kind === 'scalarSubquery' || exprChildren(e).some(readsScalarSubquery);
