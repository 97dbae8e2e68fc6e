/**
 * `(a, …) IN (<query>)` of a shape Spark decorrelates and Weir's joins do not take: a correlated
 * query with a LIMIT (after its ORDER BY: Spark's DecorrelateInnerQuery limits each correlation
 * key's rows with a row_number()), whose FROM is a join or a set operation, a correlated `(a, b)`
 * IN; or one in a join's ON. Weir reads it as a scalar subquery over the query's rows, which
 * query/correlated-scalar-subquery.ts answers for any shape (run once per distinct tuple of the
 * outer values it reads, or once for all rows where it reads none):
 *
 *     (SELECT CASE WHEN bool_or(m) THEN true WHEN count(1) > count(m) THEN NULL ELSE false END
 *      FROM (SELECT (q.c0 = a AND …) AS m FROM (<query>) q(c0, …)))
 *
 * which is IN's three-valued answer: TRUE where a row equals the values, else NULL where a row's
 * comparison is unknown (a NULL on either side), else FALSE (none over no rows). NOT IN is its
 * negation, as Spark's null-aware anti join keeps a row only where every comparison is FALSE.
 */
import { lineColumn } from './expression-builder';
import { BooleanType, IntegerType } from './parser/data-type';
import { SqlValidationError } from './sql-error';
import { mapExpression } from './parser/expression-tree';
import { conjunctionOf, type Expression, type LogicalPlan, type Position } from './parser/unresolved-plan';

const ROWS = '__in_rows';
const MATCH = '__in_match';
const ROW = '__in_row';

/** `values IN (query)` (the values as the outer query reads them, qualified) as the scalar subquery above. */
export function inSubqueryOverRows(values: readonly Expression[], query: LogicalPlan, pos: Position): Expression {
  const name = (...parts: string[]): Expression => ({ kind: 'UnresolvedAttribute', nameParts: parts, pos });
  const call = (fn: string, ...args: Expression[]): Expression => ({ kind: 'UnresolvedFunction', nameParts: [fn], arguments: args, isDistinct: false, pos });
  const literal = (value: boolean | bigint | null, dataType = BooleanType): Expression => ({ kind: 'Literal', value, dataType, pos });
  const columns = values.map((_, i) => `${ROWS}_${i}`);
  const rows: LogicalPlan = { kind: 'SubqueryAlias', alias: ROWS, pos, child: { kind: 'UnresolvedSubqueryColumnAliases', outputColumnNames: columns, child: query, pos } };
  const equal = conjunctionOf(values.map((v, i): Expression => ({ kind: 'BinaryOperator', op: 'EqualTo', left: name(ROWS, columns[i]), right: v, pos })));
  const matches: LogicalPlan = {
    kind: 'SubqueryAlias', alias: MATCH, pos,
    child: { kind: 'Project', projectList: [{ kind: 'Alias', child: equal, name: MATCH, pos }], child: rows, pos },
  };
  const match = name(MATCH, MATCH);
  const answer: Expression = {
    kind: 'CaseWhen', pos, elseValue: literal(false),
    branches: [
      [call('bool_or', match), literal(true)],
      [{ kind: 'BinaryOperator', op: 'GreaterThan', left: call('count', literal(1n, IntegerType)), right: call('count', match), pos }, literal(null)],
    ],
  };
  return { kind: 'ScalarSubquery', plan: { kind: 'Project', projectList: [answer], child: matches, pos }, pos };
}

/**
 * `values IN (query)` where the query reads no outer column, as the join's condition may hold it
 * (Spark's RewritePredicateSubquery makes it an ExistenceJoin there): its rows collected once per
 * batch, as an uncorrelated scalar subquery's value, and `exists(rows, r -> r.c0 = a AND …)`,
 * whose three-valued answer is IN's (TRUE where a row is equal, else NULL where one is unknown,
 * else FALSE).
 */
function inSubqueryOverArray(values: readonly Expression[], query: LogicalPlan, pos: Position): Expression {
  const columns = values.map((_, i) => `${ROWS}_${i}`);
  const rows: LogicalPlan = { kind: 'SubqueryAlias', alias: ROWS, pos, child: { kind: 'UnresolvedSubqueryColumnAliases', outputColumnNames: columns, child: query, pos } };
  const struct: Expression = { kind: 'UnresolvedFunction', nameParts: ['struct'], isDistinct: false, arguments: [{ kind: 'UnresolvedStar', target: [ROWS], pos }], pos };
  const collected: Expression = {
    kind: 'ScalarSubquery', pos,
    plan: { kind: 'Project', projectList: [{ kind: 'UnresolvedFunction', nameParts: ['collect_list'], isDistinct: false, arguments: [struct], pos }], child: rows, pos },
  };
  const row = { kind: 'UnresolvedNamedLambdaVariable', nameParts: [ROW], pos } as const;
  const field = (c: string): Expression => ({ kind: 'UnresolvedNamedLambdaVariable', nameParts: [ROW, c], pos });
  const equal = conjunctionOf(values.map((v, i): Expression => ({ kind: 'BinaryOperator', op: 'EqualTo', left: field(columns[i]), right: v, pos })));
  return { kind: 'UnresolvedFunction', nameParts: ['exists'], isDistinct: false, pos, arguments: [collected, { kind: 'LambdaFunction', function: equal, arguments: [row], pos }] };
}

/**
 * The IN subqueries in the conditions of a FROM's joins (an outer, semi or anti join's ON, or
 * inside an ON conjunct: `(t.c IN (…)) IS NULL`), each that `uncorrelated` takes as above: the
 * expression builder takes no predicate subquery in a join's condition.
 */
export function inSubqueriesInJoinConditions(plan: LogicalPlan, uncorrelated: (query: LogicalPlan) => boolean): LogicalPlan {
  if (plan.kind !== 'Join') return plan;
  const left = inSubqueriesInJoinConditions(plan.left, uncorrelated);
  const right = inSubqueriesInJoinConditions(plan.right, uncorrelated);
  const condition = plan.condition && mapExpression(plan.condition, (x) => (x.kind === 'InSubquery' && uncorrelated(x.query) ? inSubqueryOverArray(x.values, x.query, x.pos) : undefined));
  return { ...plan, left, right, ...(condition ? { condition } : {}) };
}

/**
 * [NOT] EXISTS over a set operation whose branches read the outer query: Spark's CheckAnalysis
 * (before set operations were decorrelated) refuses an outer reference below a UNION, INTERSECT
 * or EXCEPT there.
 */
export function outerReferenceInSetOperation(query: LogicalPlan): SqlValidationError {
  const op = query.kind === 'Union' ? 'UNION' : query.kind === 'Intersect' ? 'INTERSECT' : 'EXCEPT';
  return new SqlValidationError(
    `[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED] Unsupported subquery expression: Accessing outer query column is not allowed in this location: a branch of ${op}. ` +
      `Read the outer column in a WHERE around the set operation: EXISTS (SELECT * FROM (… ${op} …) u WHERE u.k = outer.k)`,
    lineColumn(query.pos), 'subquery', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED');
}
