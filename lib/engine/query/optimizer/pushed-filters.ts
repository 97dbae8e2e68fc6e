/**
 * Spark's PushedFilters: the condition a source may apply as it reads. The plan is not
 * rewritten; compileStreamingQuery reads it.
 */
import type { Expr } from '../expression';
import { children, type LogicalPlan } from '../logical-plan';

/**
 * The condition a source may apply while it reads (Spark's PushedFilters; its JSON reader's
 * filter pushdown): that of a Filter right above the plan's only StreamingRelation, when it
 * calls no function (so it is deterministic and reads nothing of the batch, such as
 * current_timestamp). A line the Filter would drop is then never kept in the batch, which is
 * what a batch's memory (and so its GC time) is made of. The Filter stays in the plan: the
 * source only skips rows whose condition is not TRUE, and keeps a row whose condition fails to
 * evaluate, for the Filter to divert as a bad record. With two reads of the stream (a self-union)
 * nothing is pushed: one branch's condition would drop the other's rows.
 */
export function scanFilterOf(plan: LogicalPlan): Expr | undefined {
  let relations = 0;
  let condition: Expr | undefined;
  const walk = (p: LogicalPlan): void => {
    if (p.kind === 'StreamingRelation') relations++;
    if (p.kind === 'Filter' && p.child.kind === 'StreamingRelation' && !callsAFunction(p.condition)) condition = p.condition;
    for (const c of children(p)) walk(c);
  };
  walk(plan);
  return relations === 1 ? condition : undefined;
}

function callsAFunction(e: Expr): boolean {
  switch (e.kind) {
    case 'call':
      return true;
    case 'literal':
    case 'column':
    case 'lambdaVariable':
      return false;
    case 'lambda':
      return callsAFunction(e.body);
    case 'field':
    case 'unary':
    case 'isNull':
    case 'cast':
      return callsAFunction(e.arg);
    case 'binary':
      return callsAFunction(e.left) || callsAFunction(e.right);
    case 'in':
      return callsAFunction(e.arg) || e.list.some(callsAFunction);
    case 'between':
      return callsAFunction(e.arg) || callsAFunction(e.low) || callsAFunction(e.high);
    case 'like':
      return callsAFunction(e.arg) || callsAFunction(e.pattern);
    case 'case':
      return (e.operand !== undefined && callsAFunction(e.operand)) || e.branches.some((b) => callsAFunction(b.when) || callsAFunction(b.then)) || (e.otherwise !== undefined && callsAFunction(e.otherwise));
  }
}
