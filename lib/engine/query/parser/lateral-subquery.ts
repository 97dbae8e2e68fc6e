/**
 * A LATERAL subquery in FROM (`FROM t1, LATERAL (SELECT … WHERE t2.x = t1.x) s`, `[LEFT] JOIN
 * LATERAL (…) s ON …`), Spark's LateralJoin of a LateralSubquery: each row of the relations
 * before it joined with the subquery's rows for that row's values. Spark decorrelates it into a
 * join (DecorrelateInnerQuery); Weir answers it as it answers a correlated scalar subquery of any
 * shape (query/correlated-scalar-subquery.ts), by running the subquery's batch plan once for each
 * distinct tuple of the outer values it reads, here keeping all its rows: the correlated scalar
 * subquery `(SELECT collect_list(struct(s.*)) FROM (…) s WHERE <ON>)` gives each outer row its
 * rows, and a Generate of inline() (inline_outer() for a LEFT join, which pads a row that has
 * none with NULLs) turns them into columns after the outer row's, named as the subquery names
 * them and qualified by its alias. The ON condition is the subquery's WHERE, so that a LEFT join
 * pads only a row none of whose rows meet it. Spark's checks of a correlated subquery apply as
 * they are (an outer column in an aggregate is CORRELATED_REFERENCE), and the subquery reads
 * static data only, as a correlated scalar subquery does: a LATERAL subquery over a stream is
 * refused, as a scalar subquery over a stream is.
 */
import { isNondeterministicFunction } from '../random-functions';
import { SqlValidationError } from '../sql-error';
import { mapPlanExpressions, someExpression } from './expression-tree';
import type { Expression, LogicalPlan, Position } from './unresolved-plan';

/** The alias of a LATERAL subquery written without one: its columns are read unqualified. */
const LATERAL_ALIAS = '__lateral_subquery';

/** `left` joined LATERAL with `right` (the subquery, aliased or not), as the Generate described above. */
export function lateralSubqueryJoin(left: LogicalPlan, right: LogicalPlan, outer: boolean, condition: Expression | undefined, pos: Position): LogicalPlan {
  if (condition) refuseNondeterministicCondition(condition, pos);
  const alias = right.kind === 'SubqueryAlias' ? right.alias : LATERAL_ALIAS;
  const relation: LogicalPlan = right.kind === 'SubqueryAlias' ? right : { kind: 'SubqueryAlias', alias, child: right, pos };
  const rows: Expression = {
    kind: 'UnresolvedFunction', nameParts: ['collect_list'], isDistinct: false, pos,
    arguments: [{ kind: 'UnresolvedFunction', nameParts: ['struct'], isDistinct: false, arguments: [{ kind: 'UnresolvedStar', target: [alias], pos }], pos }],
  };
  const scan: LogicalPlan = condition ? { kind: 'Filter', condition, child: relation, pos } : relation;
  const subquery: Expression = { kind: 'ScalarSubquery', plan: { kind: 'Project', projectList: [rows], child: scan, pos }, pos };
  return {
    kind: 'Generate', generator: { kind: 'UnresolvedFunction', nameParts: [outer ? 'inline_outer' : 'inline'], arguments: [subquery], isDistinct: false, pos },
    outer: false, qualifier: alias, generatorOutput: [], child: left, pos,
  };
}

/**
 * Spark's CheckAnalysis refuses a nondeterministic LATERAL subquery beside relations of more than
 * one row (NON_DETERMINISTIC_LATERAL_SUBQUERIES): its rows would differ from one outer row to the
 * next, where Weir runs it once per tuple of outer values. The planner asks, for the Generate a
 * LATERAL subquery is (above), where the relations before it may have more than one row (a
 * stream has): the error, or undefined where the subquery is deterministic or not a LATERAL one.
 */
export function nondeterministicLateralSubquery(generator: Extract<Expression, { kind: 'UnresolvedFunction' }>, pos: Position): SqlValidationError | undefined {
  const name = generator.nameParts.join('.').toLowerCase();
  const subquery = generator.arguments[0];
  if (!(name === 'inline' || name === 'inline_outer') || subquery?.kind !== 'ScalarSubquery') return undefined;
  let found: string | undefined;
  mapPlanExpressions(subquery.plan, (x) => {
    if (!found && x.kind === 'UnresolvedFunction' && x.nameParts.length === 1 && isNondeterministicFunction(x.nameParts[0].toLowerCase())) found = x.nameParts[0];
    return undefined;
  });
  if (!found) return undefined;
  return new SqlValidationError(
    `[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.NON_DETERMINISTIC_LATERAL_SUBQUERIES] Unsupported subquery expression: Non-deterministic lateral subqueries are not supported when joining with outer relations that produce more than one row: it calls ${found}(). ` +
      'Compute the random value in the outer query, or join without LATERAL',
    pos, 'LATERAL', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.NON_DETERMINISTIC_LATERAL_SUBQUERIES');
}

/**
 * Spark's CheckAnalysis refuses a LATERAL join's ON that calls a nondeterministic function
 * (LATERAL_JOIN_CONDITION_NON_DETERMINISTIC): the condition is the subquery's filter here, run
 * once per tuple of outer values rather than once per pair.
 */
function refuseNondeterministicCondition(condition: Expression, pos: Position): void {
  let found: string | undefined;
  someExpression(condition, (x) => {
    if (x.kind === 'UnresolvedFunction' && x.nameParts.length === 1 && isNondeterministicFunction(x.nameParts[0].toLowerCase())) found = x.nameParts[0];
    return found !== undefined;
  });
  if (!found) return;
  throw new SqlValidationError(
    `[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.LATERAL_JOIN_CONDITION_NON_DETERMINISTIC] Unsupported subquery expression: Lateral join condition cannot be non-deterministic: it calls ${found}(). ` +
      'Compute the random value in the subquery\'s select list and compare with it, or join without LATERAL',
    pos, 'LATERAL', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.LATERAL_JOIN_CONDITION_NON_DETERMINISTIC');
}
