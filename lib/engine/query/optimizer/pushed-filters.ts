/**
 * Spark's PushedFilters: the condition a source may apply as it reads; and the conditions each
 * read of a source applies below its watermark. The plan is not rewritten; compileStreamingQuery
 * reads it.
 */
import { isDeterministic } from '../random-functions';
import { conjunction, conjuncts, referencedColumns, type Expr } from '../expression';
import { children, type LogicalPlan, type StreamingRelation } from '../logical-plan';

/** A read of a source (a StreamingRelation of the plan), with the condition of the Filter right above it. */
export interface SourceRead {
  relation: StreamingRelation;
  condition?: Expr;
}

/**
 * Every read of a source in the plan, in plan order (a self-join or a self-union reads its
 * source twice), each with the condition of the Filter right above it, where PushDownPredicates
 * leaves a WHERE over the source or a join's ON conjunct of its side.
 */
export function sourceReads(plan: LogicalPlan): SourceRead[] {
  const out: SourceRead[] = [];
  const walk = (p: LogicalPlan): void => {
    if (p.kind === 'StreamingRelation') out.push({ relation: p });
    else if (p.kind === 'Filter' && p.child.kind === 'StreamingRelation') out.push({ relation: p.child, condition: p.condition });
    else for (const c of children(p)) walk(c);
  };
  walk(plan);
  return out;
}

/**
 * The condition a source may apply while it reads (Spark's PushedFilters; its JSON reader's
 * filter pushdown): that of a Filter right above the plan's only read of a source, when it
 * calls no function (so it is deterministic and reads nothing of the batch, such as
 * current_timestamp). A line the Filter would drop is then never kept in the batch, which is
 * what a batch's memory (and so its GC time) is made of. The Filter stays in the plan: the
 * source only skips rows whose condition is not TRUE, and keeps a row whose condition fails to
 * evaluate, for the Filter to divert as a bad record. With two reads of the stream (a self-union)
 * nothing is pushed: one branch's condition would drop the other's rows.
 */
export function scanFilterOf(reads: readonly SourceRead[]): Expr | undefined {
  const condition = reads.length === 1 ? reads[0].condition : undefined;
  return condition && !callsAFunction(condition) ? condition : undefined;
}

/**
 * The conjuncts of a read's condition that Spark's optimizer pushes below the source's
 * EventTimeWatermark (PushPredicateThroughNonJoin moves a deterministic filter that does not
 * read the event time; rand() < 0.5 stays above): the rows whose event times the
 * read's watermark folds. `WHERE k = 'a'` keeps the event times of other keys out of it,
 * `WHERE ts > …` does not. Undefined: every row the read reads.
 */
export function watermarkConditionOf(read: SourceRead): Expr | undefined {
  const eventTime = read.relation.eventTime?.toLowerCase();
  if (!read.condition || eventTime === undefined) return undefined;
  const below = conjuncts(read.condition).filter((c) => isDeterministic(c) && ![...referencedColumns(c)].some((col) => col.toLowerCase() === eventTime));
  return below.length ? conjunction(below) : undefined;
}

function callsAFunction(e: Expr): boolean {
  switch (e.kind) {
    // A scalar subquery's value is set by an operator, after the source has read.
    case 'call':
    case 'scalarSubquery':
    case 'outerReference':
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
