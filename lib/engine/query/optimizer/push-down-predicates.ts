/**
 * Spark's PushDownPredicates (with CombineFilters): the conjuncts of a Filter above a
 * stream-static join that read only the stream's columns move below the join (the stream is
 * always the preserved side, so an outer join keeps its meaning), so the join looks up and copies
 * only the rows that survive; a Filter above an inner join of two streams joins its condition
 * (PushPredicateThroughJoin); a Filter above a Project of plain columns moves below it; adjacent
 * Filters combine.
 */
import { conjunction as and, conjuncts, exprToString, referencedColumns, type Expr } from '../expression';
import { isStreamStreamJoin, type LogicalPlan } from '../logical-plan';
import type { JoinSideName } from '../join-time-range';
import { readStreamJoin } from '../stream-join-planner';
import { isDeterministic } from '../random-functions';
import { readsOnly, streamRelationOf, streamSide, type Node, type OptimizerRuleApplication } from './plan-walk';

function withFilter(conds: Expr[], child: LogicalPlan): LogicalPlan {
  if (conds.length === 0) return child;
  if (child.kind === 'Filter') return { ...child, condition: and([child.condition, ...conds]) };
  return { kind: 'Filter', condition: and(conds), child };
}

export function pushDownPredicates(plan: LogicalPlan, applied: OptimizerRuleApplication[]): LogicalPlan {
  switch (plan.kind) {
    case 'StreamingRelation':
    case 'StaticRelation':
      return plan;
    case 'Join': {
      const j = isStreamStreamJoin(plan) ? pushPredicateThroughJoin(plan, applied) : plan;
      return { ...j, left: pushDownPredicates(j.left, applied), right: pushDownPredicates(j.right, applied) };
    }
    case 'Union':
      return { ...plan, branches: plan.branches.map((b) => pushDownPredicates(b, applied)) };
    case 'Filter': {
      const child = plan.child;
      if (child.kind === 'Filter') {
        applied.push({ rule: 'CombineFilters', detail: `${exprToString(plan.condition)} AND ${exprToString(child.condition)}` });
        return pushDownPredicates({ ...child, condition: and([child.condition, plan.condition]) }, applied);
      }
      if (child.kind === 'Join' && isStreamStreamJoin(child)) {
        // An inner join of two streams takes the filter into its condition, as Spark's
        // PushPredicateThroughJoin does: the same pairs come out, and a time range written in
        // WHERE (the only place a USING join has for one) now bounds the join's state. An outer
        // join keeps it above: in its condition a failed pair would come out padded instead.
        if (child.joinType !== 'Inner') return { ...plan, child: pushDownPredicates(child, applied) };
        applied.push({ rule: 'PushPredicateThroughJoin', detail: `${exprToString(plan.condition)} moved into the condition of Join Inner (two streams)` });
        return pushDownPredicates({ ...child, condition: child.condition ? and([child.condition, plan.condition]) : plan.condition }, applied);
      }
      if (child.kind === 'Join') {
        const { side, with: rebuild } = streamSide(child);
        const rel = streamRelationOf(side);
        // A static column named like a stream column is only ever a same-named join key, whose
        // joined value is the stream's: a name the stream has means the stream's column.
        // A nondeterministic conjunct (rand() < 0.1) stays above: below, it would draw for rows the join drops.
        const [down, stay] = partition(conjuncts(plan.condition), (c) => rel !== undefined && isDeterministic(c) && readsOnly(c, rel.schema));
        if (down.length === 0) return { ...plan, child: pushDownPredicates(child, applied) };
        applied.push({ rule: 'PushDownPredicates', detail: `${down.map(exprToString).join(' AND ')} moved below Join ${child.joinType} (stream side)` });
        const join = pushDownPredicates(rebuild(withFilter(down, side)), applied);
        return stay.length ? { ...plan, condition: and(stay), child: join } : join;
      }
      if (child.kind === 'Generate') {
        // What reads none of the generated columns holds for every row a child row makes or for
        // none (Spark's PushPredicateThroughNonJoin through a deterministic generator); a
        // nondeterministic one stays above, where it draws once per generated row.
        const generated = new Set(child.output.map((o) => o.toLowerCase()));
        const [down, stay] = partition(conjuncts(plan.condition), (c) => isDeterministic(c) && ![...referencedColumns(c)].some((r) => generated.has(r.toLowerCase())));
        if (down.length) {
          applied.push({ rule: 'PushDownPredicates', detail: `${down.map(exprToString).join(' AND ')} moved below Generate ${exprToString(child.generator)}` });
          const g = { ...child, child: pushDownPredicates(withFilter(down, child.child), applied) };
          return stay.length ? { ...plan, condition: and(stay), child: g } : g;
        }
      }
      if (child.kind === 'Project') {
        // Through a projection of plain columns (renames substituted), as Spark's PushPredicateThroughNonJoin.
        const byName = new Map(child.list.map((n) => [n.name.toLowerCase(), n.expr]));
        const refs = [...referencedColumns(plan.condition)];
        if (refs.every((r) => byName.get(r.toLowerCase())?.kind === 'column')) {
          const condition = substitute(plan.condition, (name) => byName.get(name.toLowerCase())!);
          applied.push({ rule: 'PushDownPredicates', detail: `${exprToString(plan.condition)} moved below Project` });
          return { ...child, child: pushDownPredicates({ kind: 'Filter', condition, child: child.child }, applied) };
        }
      }
      return { ...plan, child: pushDownPredicates(child, applied) };
    }
    // A filter above a Limit or an Offset stays there (the Filter case moves none through it):
    // below, it would change which rows are the first ones kept or skipped.
    case 'Project':
    case 'Aggregate':
    case 'Deduplicate':
    case 'Expand':
    case 'Generate':
    case 'Window':
    case 'Sort':
    case 'Limit':
    case 'Offset':
      return { ...plan, child: pushDownPredicates(plan.child, applied) } as LogicalPlan;
  }
}

/**
 * Spark's PushPredicateThroughJoin for a join's own condition: its conjuncts that read one side
 * only move below that side as a Filter (Spark's `split`), where the side's rows that fail them
 * can match nothing anyway: an inner or left semi join's of either side, an outer join's of the
 * side it does not preserve (a preserved row that fails its side's conjunct still comes out,
 * padded), a full outer join's none. Below the side such a conjunct reaches the source's Filter,
 * and so keeps the rows it drops out of the source's watermark, as Spark's does. A join of
 * streams only (the static side of a stream-static join is read whole by the join).
 */
function pushPredicateThroughJoin(join: Node<'Join'>, applied: OptimizerRuleApplication[]): Node<'Join'> {
  if (!join.condition) return join;
  const sides = PUSHED_SIDES[join.joinType] ?? [];
  const { sideConditions } = readStreamJoin(join);
  // As Spark's split, only the deterministic ones: below a side, rand() would draw for other rows.
  const moved = new Map(sides.flatMap((side) => {
    const conds = sideConditions[side] ? conjuncts(sideConditions[side]).filter(isDeterministic) : [];
    return conds.length ? [[side, conds] as const] : [];
  }));
  if (moved.size === 0) return join;
  const gone = new Set([...moved.values()].flat());
  const rest = conjuncts(join.condition).filter((c) => !gone.has(c));
  let out: Node<'Join'> = { ...join, condition: rest.length ? and(rest) : undefined, stateCondition: join.stateCondition ?? join.condition };
  for (const [side, conds] of moved) {
    applied.push({ rule: 'PushPredicateThroughJoin', detail: `${conds.map(exprToString).join(' AND ')} moved below the ${side} side of Join ${join.joinType} (two streams)` });
    out = { ...out, [side]: withFilter(conds, out[side]) };
  }
  return out;
}

/** The sides whose one-sided conjuncts of a join's condition Spark's PushPredicateThroughJoin moves below them. */
const PUSHED_SIDES: Record<string, readonly JoinSideName[]> = { Inner: ['left', 'right'], LeftSemi: ['left', 'right'], LeftOuter: ['right'], RightOuter: ['left'], FullOuter: [] };

function partition<T>(xs: T[], pred: (x: T) => boolean): [T[], T[]] {
  const yes: T[] = [], no: T[] = [];
  for (const x of xs) (pred(x) ? yes : no).push(x);
  return [yes, no];
}

function substitute(e: Expr, col: (name: string) => Expr): Expr {
  switch (e.kind) {
    case 'column':
      return col(e.name);
    case 'literal':
      return e;
    case 'field':
    case 'unary':
    case 'isNull':
    case 'cast':
      return { ...e, arg: substitute(e.arg, col) };
    case 'binary':
      return { ...e, left: substitute(e.left, col), right: substitute(e.right, col) };
    case 'in':
      return { ...e, arg: substitute(e.arg, col), list: e.list.map((x) => substitute(x, col)) };
    case 'between':
      return { ...e, arg: substitute(e.arg, col), low: substitute(e.low, col), high: substitute(e.high, col) };
    case 'like':
      return { ...e, arg: substitute(e.arg, col), pattern: substitute(e.pattern, col) };
    case 'case':
      return {
        ...e,
        operand: e.operand && substitute(e.operand, col),
        branches: e.branches.map((b) => ({ when: substitute(b.when, col), then: substitute(b.then, col) })),
        otherwise: e.otherwise && substitute(e.otherwise, col),
      };
    case 'call':
      return { ...e, args: e.args.map((x) => substitute(x, col)) };
    // Only columns are substituted: a lambda's variables are never the Project's names.
    case 'lambda':
      return { ...e, body: substitute(e.body, col) };
    case 'lambdaVariable':
    case 'outerReference':
      return e;
    // A correlated one's outer values read the row.
    case 'scalarSubquery':
      return e.outer ? { ...e, outer: e.outer.map((x) => substitute(x, col)) } : e;
  }
}
