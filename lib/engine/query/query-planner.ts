/**
 * The Spark SQL front end's unresolved plan (parser/) → LogicalPlan for one streaming source:
 * StreamingRelation → Generate (LATERAL VIEW) → Filter (WHERE) → Project (the select list), with
 * aggregation, sort and limit from aggregate-planner.ts and a stream-static join from
 * join-planner.ts.
 *
 * A subquery in FROM and a CTE (`WITH t AS (…) SELECT … FROM t`) are planned as the plan of
 * their own SELECT under the outer one, as Spark inlines them: a stateless one is just more
 * Filter/Project nodes, a stateful one is analyzed with the rest (so an aggregation over an
 * aggregation meets Spark's rules for chained stateful operators in the analyzer). The outer
 * SELECT reads the inner one's output columns: its logical plan, resolved (resolved-plan.ts), and
 * that plan's output. Clauses this version cannot run (window functions,
 * subqueries in expressions) are refused here, each naming the construct and where it is.
 */
import { unsupportedOperation } from '../errors';
import type { Expr, SqlPosition } from './expression';
import { exprChildren, exprToString } from './expression';
import { compileExpression, expressionType, typeOfCompiled, unresolvedColumn, widenSetOperationColumn, widerTypeWithoutStringPromotion } from './expression-compiler';
import { constant } from './function-args';
import { nondeterministicLateralSubquery } from './parser/lateral-subquery';
import { DUPLICATE_COLUMN_MARK, duplicateColumn, sideColumnName, writtenColumnName, writtenName } from './column-names';
import { ExpressionBuilder, lineColumn, type Scope } from './expression-builder';
import { generatorOutput, GENERATORS, TABLE_FUNCTIONS } from './generators';
import { children, firstStreamingRelation, isDeterministicPlan, relationOutput, type LogicalPlan, type NamedExpr, type ScalarSubquery, type StreamingRelation } from './logical-plan';
import { isCorrelatedSubquery } from './correlated-scalar-subquery';
import { checkCorrelatedReferences, checkCorrelatedReferenceTypes, checkMixedAggregates, checkOffsetCorrelation, OuterReferences, readsOuterReference } from './outer-references';
import { inSubqueriesInJoinConditions, inSubqueryOverRows, outerReferenceInSetOperation } from './in-subquery-rows';
import { holdsMap, holdsVariant, isOrderable, sameType, typeOfField, typeText, type TypeInfo } from './data-types';
import { parsePlan } from './parser/ast-builder';
import { mapExpression, someExpression } from './parser/expression-tree';
import { expressionSql } from './parser/expression-sql';
import { groupingSetsOf, isGroupingCall } from './grouping-analytics';
import { BooleanType, IntegerType, LongType, type DataType } from './parser/data-type';
import { parseDataType } from './parser/data-type-parser';
import { resolveSubquery, type Resolved } from './resolved-plan';
import { conjunctionOf, splitConjunctivePredicates, VALUES_RELATION, type BinaryOp, type Expression, type LogicalPlan as UnresolvedPlan, type Position } from './parser/unresolved-plan';
import { containsAggregate, isAggregateCall } from './aggregate-functions';
import { buildAggregation, buildSortAndLimit, extractsWhatIsNotThere, checkStarWithGroupByPosition, groupingItem, isAggregation, isDistinctOverAggregation, missingSortReferences, sortOverMissingReferences, windowInGrouping, type SortClause } from './aggregate-planner';
import { buildStreamStaticJoin, firstStaticTable, tableOrViewNotFound, type JoinLeafPlan } from './join-planner';
import { isDeterministic } from './random-functions';
import { planPivot } from './pivot-planner';
import { planUnpivot } from './unpivot-planner';
import { notSupportedYet, offsetToPosition, SqlValidationError } from './sql-error';
import { incompatibleColumnType, numColumnsMismatch } from './plan-output';
import { positionalArguments } from './named-arguments';
import { checkSqlLimits, tooDeep } from './sql-limits';
import { timeWindowIn, WINDOW_COLUMN, windowInsideAnItem, withWindowColumn } from './time-windowing';
import { staticTableName, VALUES_TABLE, type StaticTableSpec } from '../operators/stream-static-join';
import { extractWindowExpressions, hasWindowExpression, WINDOW_COLUMN_PREFIX, windowInsideAggregate } from './window-functions';
import type { Field, Schema } from '../types';

/** What FROM gives the rest of a SELECT: the plan, its columns, and the names that qualify them. */
interface FromItem {
  plan: LogicalPlan;
  schema: Schema;
  qualifiers: string[];
  /**
   * A join's sides when they share column names (ExpressionBuilder's Scope); metadataColumn false
   * where FROM is a subquery or a CTE, which has no hidden `_metadata` (Spark's SubqueryAlias
   * propagates metadata columns only from a relation, or through a chain of aliases of one).
   */
  scope?: Pick<Scope, 'sides' | 'merged' | 'metadataColumn' | 'hidden'>;
}

/** `relations`: the job's sources, in order (FROM names each by its sourceName); one relation is the one-source job. */
export function buildLogicalPlan(sql: string, relations: StreamingRelation | readonly StreamingRelation[], staticTables: StaticTableSpec[] = []): LogicalPlan {
  checkSqlLimits(sql);
  try {
    const all = Array.isArray(relations) ? relations : [relations as StreamingRelation];
    // The row an inline table's rows are selected from (VALUES_TABLE), beside the job's tables.
    const planner = new QueryPlanner(sql, all, [...staticTables, VALUES_TABLE]);
    return staticReadsChecked(planner.plan(parsePlan(sql), new Map()), all);
  } catch (e) {
    // The last resort, should some shape within the limits still exhaust the stack.
    if (e instanceof RangeError) throw tooDeep();
    throw e;
  }
}

/** Spark's UNRESOLVABLE_TABLE_VALUED_FUNCTION: a call in FROM of a function that is none of TABLE_FUNCTIONS. */
function unresolvableTableFunction(call: Extract<Expression, { kind: 'UnresolvedFunction' }>): SqlValidationError {
  const name = `\`${call.nameParts.join('.')}\``;
  return new SqlValidationError(
    `[UNRESOLVABLE_TABLE_VALUED_FUNCTION] Could not resolve ${name} to a table-valued function. Please make sure that ${name} is defined as a table-valued function and that all required parameters are provided correctly. ` +
      `If ${name} is not defined, please create the table-valued function before using it. For more information about defining table-valued functions, please refer to the Apache Spark documentation. ` +
      `Weir's table-valued functions are ${[...TABLE_FUNCTIONS].join(', ')}`,
    lineColumn(call.pos), 'FROM', 'UNRESOLVABLE_TABLE_VALUED_FUNCTION');
}

/**
 * A static table is read on a join's side only: a CTE over one, read in FROM alone or in a UNION
 * with a stream, is Spark's batch relation where a stream must be (refused as Spark refuses it).
 */
function staticReadsChecked(plan: LogicalPlan, relations: readonly StreamingRelation[]): LogicalPlan {
  const needsStream = () => new SqlValidationError(`A streaming query needs FROM ${relations.map((r) => r.sourceName).join(' or ')}: a static table is read by joining it with a stream`, undefined, 'FROM');
  let streams = 0;
  const walk = (p: LogicalPlan, parent: LogicalPlan | undefined, inUnion: boolean): void => {
    if (p.kind === 'StreamingRelation') streams++;
    if (p.kind === 'StaticRelation' && parent?.kind !== 'Join') {
      throw inUnion ? unsupportedOperation('Union between streaming and batch DataFrames/Datasets is not supported') : needsStream();
    }
    for (const c of children(p)) walk(c, p, inUnion || p.kind === 'Union');
  };
  walk(plan, undefined, false);
  if (streams === 0) throw needsStream();
  return plan;
}

/**
 * What a CTE's reads read. Spark 3.4+'s InlineCTE inlines a CTE into each read only where it is
 * deterministic or read once; a nondeterministic one (`rand()`, `uuid()`, `shuffle(…)`) is one
 * relation that every read shares, computed once. Over static data, Weir makes it so: a
 * StaticRelation whose view is the CTE's plan, which a batch plan runs once for all its reads
 * (streaming-query.ts's staticBatch); read once, it gives what inlining would. Over the stream
 * it is inlined (docs/sql.md says why).
 */
function cteRelation(name: string, cte: Resolved): LogicalPlan {
  const table = firstStaticTable(cte.plan);
  if (!table || firstStreamingRelation(cte.plan) || isDeterministicPlan(cte.plan, isDeterministic)) return cte.plan;
  return { kind: 'StaticRelation', table, keys: [], columns: cte.output.map((f) => f.name), view: { name, plan: cte.plan, schema: cte.output } };
}

/** The plans a query reads (its expressions' subqueries not included). */
function planChildren(p: UnresolvedPlan): UnresolvedPlan[] {
  switch (p.kind) {
    case 'UnresolvedRelation': case 'OneRowRelation':
      return [];
    case 'Join': case 'Intersect': case 'Except':
      return [p.left, p.right];
    case 'Union':
      return [...p.children];
    case 'UnresolvedWith':
      return [p.child, ...p.cteRelations];
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'Aggregate': case 'Distinct': case 'Filter': case 'Generate': case 'Limit': case 'Offset': case 'Project': case 'Sort':
    case 'SubqueryAlias': case 'UnresolvedHaving': case 'UnresolvedSubqueryColumnAliases': case 'Unpivot': case 'Pivot': case 'RepartitionByExpression':
    default:
      return [p.child];
  }
}

/** The tables and outer CTEs a query reads by name, lower-cased (its expressions' subqueries not included, nor the CTEs it defines). */
function relationNames(u: UnresolvedPlan): string[] {
  if (u.kind === 'UnresolvedRelation') return [u.multipartIdentifier.join('.').toLowerCase()];
  if (u.kind === 'UnresolvedWith') {
    // A CTE the query defines itself is no table it reads: what its definition reads is (each
    // definition sees the ones before it, the query all of them, as Spark's CTESubstitution).
    const defined = new Set<string>();
    const names: string[] = [];
    for (const cte of u.cteRelations) {
      names.push(...relationNames(cte.child).filter((n) => !defined.has(n)));
      defined.add(cte.alias.toLowerCase());
    }
    return [...names, ...relationNames(u.child).filter((n) => !defined.has(n))];
  }
  return planChildren(u).flatMap(relationNames);
}

/** A query's select list, or undefined where a star leaves it to resolution: the columns an IN subquery compares. */
function selectItems(p: UnresolvedPlan): readonly Expression[] | undefined {
  switch (p.kind) {
    case 'Project':
      return p.projectList.some((e) => e.kind === 'UnresolvedStar') ? undefined : p.projectList;
    case 'Aggregate':
      return p.aggregateExpressions.some((e) => e.kind === 'UnresolvedStar') ? undefined : p.aggregateExpressions;
    case 'Union':
      return selectItems(p.children[0]);
    case 'Except': case 'Intersect':
      return selectItems(p.left);
    case 'Distinct': case 'Limit': case 'Offset': case 'Sort': case 'UnresolvedHaving': case 'RepartitionByExpression':
      return selectItems(p.child);
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'Filter': case 'Generate': case 'Join': case 'OneRowRelation': case 'SubqueryAlias':
    case 'UnresolvedRelation': case 'UnresolvedSubqueryColumnAliases': case 'UnresolvedWith': case 'Unpivot': case 'Pivot':
    default:
      return undefined;
  }
}

/** Spark's DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH: `(a, b) IN (SELECT …)` of another number of columns. */
function inSubqueryLengthMismatch(p: Extract<Expression, { kind: 'InSubquery' }>, items: readonly Expression[]): SqlValidationError {
  const sql = (e: Expression) => `"${expressionSql(e)}"`;
  const left = p.values.length > 1 ? `named_struct(${p.values.map((v) => `'${expressionSql(v)}', ${expressionSql(v)}`).join(', ')})` : expressionSql(p.values[0]);
  return new SqlValidationError(
    `[DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH] Cannot resolve "(${left} IN (listquery()))" due to data type mismatch: ` +
      `The number of columns in the left hand side of an IN subquery does not match the number of columns in the output of subquery. ` +
      `Left hand side columns(length: ${p.values.length}): [${p.values.map(sql).join(', ')}], right hand side columns(length: ${items.length}): [${items.map(sql).join(', ')}]. ` +
      `Select as many columns in the subquery as the values before IN, one per value`,
    lineColumn(p.pos), 'IN', 'DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH');
}

/** Spark's refusal of a join condition's subquery that reads both of the join's sides. */
function subqueryReadingBothSides(x: Expression): SqlValidationError {
  return new SqlValidationError(
    `[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_EXPRESSION_IN_JOIN_CONDITION] Unsupported subquery expression: Correlated subqueries in the join predicate cannot reference both join inputs: ${expressionSql(x)}. ` +
      'Correlate it with one side, or move it to WHERE over an inner join',
    lineColumn(x.pos), 'subquery', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_EXPRESSION_IN_JOIN_CONDITION');
}

/**
 * The top inner join's ON conjuncts that hold an IN or EXISTS subquery, moved to WHERE (an inner
 * join passes the same pairs either way), where the rewrite of a predicate subquery takes them,
 * as Spark's RewritePredicateSubquery plans them over the join.
 */
function subqueryJoinConditionsAsWhere(join: Extract<UnresolvedPlan, { kind: 'Join' }>, where: Expression | undefined): { child: UnresolvedPlan; where?: Expression } {
  const conjuncts = join.joinType === 'Inner' && join.condition ? splitConjunctivePredicates(join.condition) : [];
  const moved = conjuncts.filter((c) => someExpression(c, (x) => x.kind === 'InSubquery' || x.kind === 'Exists'));
  if (moved.length === 0) return { child: join, where };
  const kept = conjuncts.filter((c) => !moved.includes(c));
  const { condition: _, ...rest } = join;
  return { child: kept.length ? { ...rest, condition: conjunctionOf(kept) } : rest, where: conjunctionOf(where ? [...moved, where] : moved) };
}

/** A plan's or expression's text as written, without positions: two are alike where it is. */
const writtenText = (node: UnresolvedPlan | Expression) => JSON.stringify(node, (k, v: unknown) => (k === 'pos' ? undefined : typeof v === 'bigint' ? `${v}n` : v));

/**
 * ORDER BY's EXISTS and IN subqueries: over GROUP BY, one that is a grouping expression as
 * written (`planned` the same expressions rewritten, as the aggregation outputs them) reads that
 * grouping expression, as Spark resolves a Sort's expression to the Aggregate's; any other, over
 * a select list too, is refused as Spark refuses a predicate subquery in a Sort.
 */
function predicateSubqueriesInSort(sort: SortClause, written: readonly Expression[], planned: readonly Expression[]): SortClause {
  const subquery = (x: Expression) => x.kind === 'Exists' || x.kind === 'InSubquery';
  const texts = written.map((g) => (someExpression(g, subquery) ? writtenText(g) : undefined));
  const order = sort.order.map((o) => ({
    ...o,
    child: mapExpression(reducedExists(o.child), (x) => {
      const i = someExpression(x, subquery) ? texts.indexOf(writtenText(x)) : -1;
      if (i >= 0) return planned[i];
      if (!subquery(x)) return undefined;
      throw new SqlValidationError(
        '[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_IN_EXISTS_SUBQUERY] Unsupported subquery expression: IN/EXISTS predicate subqueries can only be used in filters, joins, aggregations, window functions, projections, and UPDATE/MERGE/DELETE commands: ' +
          'here in ORDER BY. Sort by a grouping expression or a select item that computes it',
        lineColumn(x.pos), 'subquery', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_IN_EXISTS_SUBQUERY');
    }),
  }));
  return { ...sort, order };
}

/**
 * An IN subquery's query without what changes nothing IN reads of it: an ORDER BY without a
 * LIMIT (Spark removes it) and DISTINCT (IN asks whether a row is equal, not how many are).
 */
function inRows(q: UnresolvedPlan): UnresolvedPlan {
  return q.kind === 'Sort' || q.kind === 'Distinct' ? inRows(q.child) : q;
}

/**
 * `x [NOT] IN (SELECT <aggregate> FROM … [WHERE …])`, a subquery of one row (an aggregation
 * without GROUP BY) as `x = (SELECT …)` (`NOT (x = (SELECT …))`): the
 * same value, NULL where either side is, which the scalar subquery's rewrite answers over no
 * rows too (count(*) 0), as Spark's does. With HAVING it has that row where HAVING holds and
 * none else, where IN is false: `CASE WHEN (SELECT <having> …) THEN x = (SELECT …) ELSE false
 * END`, HAVING's value a scalar subquery of its own over the same rows (`HAVING count(*) = 0`
 * true over none).
 */
function inOneRowAsComparison(e: Expression): Expression {
  return mapExpression(e, (x) => {
    if (x.kind !== 'InSubquery' || x.values.length !== 1) return undefined;
    const query = inRows(x.query);
    if (query.kind === 'UnresolvedHaving' && query.child.kind === 'Aggregate' && query.child.groupingExpressions.length === 0 && query.child.aggregateExpressions.length === 1) {
      const aggregate = query.child;
      // HAVING may read the select item by its alias.
      const item = aggregate.aggregateExpressions[0];
      const having = item.kind !== 'Alias' ? query.havingCondition : mapExpression(query.havingCondition, (h) => (h.kind === 'UnresolvedAttribute' && h.nameParts.length === 1 && h.nameParts[0].toLowerCase() === item.name.toLowerCase() ? item.child : undefined));
      const held: Expression = { kind: 'ScalarSubquery', plan: { ...aggregate, aggregateExpressions: [having] }, pos: x.pos };
      // An item of no column (`SELECT 1 … HAVING …`) is that value, over no rows too.
      const value = item.kind === 'Alias' ? item.child : item;
      const constant = !someExpression(value, (v) => v.kind === 'UnresolvedAttribute' || v.kind === 'UnresolvedStar' || v.kind === 'UnresolvedFunction' || v.kind === 'ScalarSubquery');
      const equal: Expression = { kind: 'BinaryOperator', op: 'EqualTo', left: x.values[0], right: constant ? value : { kind: 'ScalarSubquery', plan: aggregate, pos: x.pos }, pos: x.pos };
      return { kind: 'CaseWhen', branches: [[held, equal]], elseValue: { kind: 'Literal', value: false, dataType: BooleanType, pos: x.pos }, pos: x.pos };
    }
    const global = query.kind === 'Aggregate' ? query.groupingExpressions.length === 0 : query.kind === 'Project' && isAggregation({ items: query.projectList, grouping: [], distinct: false, pos: query.pos });
    if (!global || selectItems(query)?.length !== 1) return undefined;
    return { kind: 'BinaryOperator', op: 'EqualTo', left: x.values[0], right: { kind: 'ScalarSubquery', plan: query, pos: x.pos }, pos: x.pos };
  });
}

/** A relation in FROM by name, optionally aliased: its name and the qualifier its columns are read by. */
function namedRelation(u: UnresolvedPlan): { table: string; qualifier: string } | undefined {
  const [alias, rel] = u.kind === 'SubqueryAlias' ? [u.alias, u.child] : [undefined, u];
  if (rel.kind !== 'UnresolvedRelation') return undefined;
  const table = rel.multipartIdentifier.join('.');
  return { table, qualifier: alias ?? table };
}

/**
 * FROM's relations (its joins' sides, not inside a subquery), in order, each with the qualifier
 * its columns are read by: a relation by name with its name (namedRelation), an aliased subquery
 * without one.
 */
function fromLeaves(u: UnresolvedPlan): { table?: string; qualifier: string }[] {
  if (u.kind === 'Join') return [...fromLeaves(u.left), ...fromLeaves(u.right)];
  // A LATERAL VIEW, generator or subquery over relations (a side of a join) reads theirs, and is read by its alias.
  if (u.kind === 'Generate' && !u.tableFunction) return [...fromLeaves(u.child), ...(u.qualifier ? [{ qualifier: u.qualifier }] : [])];
  const named = namedRelation(u);
  if (named) return [named];
  return u.kind === 'SubqueryAlias' ? [{ qualifier: u.alias }] : [];
}

/**
 * The LATERAL VIEWs and LATERAL generators or subqueries over FROM's relations (each a Generate
 * over what is before it), innermost first, and the relations under them.
 */
function lateralChain(u: UnresolvedPlan): { views: Extract<UnresolvedPlan, { kind: 'Generate' }>[]; under: UnresolvedPlan } {
  const views: Extract<UnresolvedPlan, { kind: 'Generate' }>[] = [];
  while (u.kind === 'Generate') {
    views.unshift(u);
    u = u.child;
  }
  return { views, under: u };
}

/**
 * The names of FROM's tables that an alias hides (`t1` of `FROM t1 t2`, Scope.hidden), lower-
 * cased, leaving out those another of its relations is read by (`FROM t1 t2 JOIN t1`).
 */
function hiddenTableNames(u: UnresolvedPlan): Set<string> {
  const read = fromQualifiers(u);
  const names = fromLeaves(u).flatMap((l) => (l.table === undefined || l.table === l.qualifier ? [] : [l.table, l.table.split('.').pop()!].map((n) => n.toLowerCase())));
  return new Set(names.filter((n) => !read.has(n)));
}

/** The qualifiers FROM's relations are read by, lower-cased. */
function fromQualifiers(u: UnresolvedPlan): Set<string> {
  return new Set(fromLeaves(u).map((l) => l.qualifier.toLowerCase()));
}

/**
 * A star in a function's arguments (or IN's list) in ORDER BY or HAVING: Spark's ResolveReferences
 * expands one in a Project's, an Aggregate's select list and a Filter's (WHERE) condition only,
 * so in a Sort's or HAVING's it stays, and CheckAnalysis refuses it. A subquery's own stars are
 * its own.
 */
function refuseStar(e: Expression, clause: string): void {
  let star: Expression | undefined;
  someExpression(e, (x) => (x.kind === 'UnresolvedStar' ? ((star = x), true) : false));
  if (star) {
    throw new SqlValidationError(
      `[INVALID_USAGE_OF_STAR_OR_REGEX] Invalid usage of '*' in ${clause}: a star is expanded only as a select item, or in a function's arguments or IN's list in the select list or WHERE. Write the columns out`,
      lineColumn(star.pos), '*', 'INVALID_USAGE_OF_STAR_OR_REGEX');
  }
}

/**
 * Whether an item of a select list reads the alias of an earlier one by its bare name (Spark's
 * lateral column alias), which only the select list itself resolves.
 */
function readsLateralAlias(items: readonly Expression[]): boolean {
  const aliases = new Set<string>();
  for (const item of items) {
    const reads = someExpression(item, (x) => x.kind === 'UnresolvedAttribute' && x.nameParts.length === 1 && aliases.has(x.nameParts[0].toLowerCase()));
    if (reads) return true;
    if (item.kind === 'Alias') aliases.add(item.name.toLowerCase());
  }
  return false;
}

/**
 * A correlated scalar subquery without FROM (`(SELECT t1c)`, `(SELECT t1c + 1 WHERE t1c > 8)`):
 * Spark's reads its one-row relation, so it is the outer row's value, NULL where its WHERE is
 * not true; its names are all the outer query's (listed, as Spark names its column). Undefined
 * for another subquery, one that reads no column (an uncorrelated one) or aggregates.
 */
function outerRowSubquery(u: UnresolvedPlan): { value: Expression; outer: string[] } | undefined {
  if (u.kind !== 'Project' || u.projectList.length !== 1 || u.projectList[0].kind === 'UnresolvedStar') return undefined;
  const where = u.child.kind === 'Filter' && u.child.child.kind === 'OneRowRelation' ? u.child.condition : undefined;
  if (!where && u.child.kind !== 'OneRowRelation') return undefined;
  const item = u.projectList[0].kind === 'Alias' ? u.projectList[0].child : u.projectList[0];
  if (containsAggregate(item) || (where && containsAggregate(where))) return undefined;
  const outer: string[] = [];
  for (const e of where ? [item, where] : [item]) {
    someExpression(e, (x) => {
      if (x.kind === 'UnresolvedAttribute') outer.push(x.nameParts[x.nameParts.length - 1]);
      return x.kind === 'ScalarSubquery' || x.kind === 'Exists' || x.kind === 'InSubquery';
    });
  }
  if (outer.length === 0) return undefined;
  const value: Expression = where ? { kind: 'CaseWhen', branches: [[where, item]], pos: u.pos } : item;
  return { value, outer };
}

/** The prefix of the joins (and their columns) correlated scalar subqueries are rewritten to, hidden from `*`. */
const HIDDEN_SCALAR_SUBQUERY = '__scalar_subquery';

/** `SELECT * FROM child`: every column of `child`, as a query of its own. */
const selectAll = (child: UnresolvedPlan, pos: Position): UnresolvedPlan => ({ kind: 'Project', projectList: [{ kind: 'UnresolvedStar', pos }], child, pos });

/**
 * An EXISTS subquery's query reduced to what decides it, as Spark's optimizer has it before
 * RewritePredicateSubquery joins it: ORDER BY and DISTINCT change no row's existence and are
 * dropped (RemoveRedundantSorts and the like), and so is a LIMIT of some rows, which keeps one
 * where there is one; GROUP BY without HAVING has a row where its input has one, so its input is
 * read instead; an aggregate without GROUP BY or HAVING has one row whatever its input, and LIMIT 0
 * none, so EXISTS is known (true, false) without the query:
 * `EXISTS (SELECT count(*) FROM t WHERE t.k = o.k)` is true for every row, as in Spark, not only
 * where t has a matching row (the count bug); a select list without FROM has its one row. Any
 * other query is left as it is.
 */
function existsRows(q: UnresolvedPlan): UnresolvedPlan | boolean {
  switch (q.kind) {
    case 'Sort': case 'Distinct':
      return existsRows(q.child);
    case 'Limit': {
      // Another LIMIT (an expression, NULL, a negative count) is left to be refused as it is.
      const n = q.limitExpr.kind === 'Literal' && (typeof q.limitExpr.value === 'number' || typeof q.limitExpr.value === 'bigint') ? Number(q.limitExpr.value) : -1;
      return n === 0 ? false : n > 0 ? existsRows(q.child) : q;
    }
    case 'Aggregate':
      // GROUPING SETS, ROLLUP and CUBE may group by no column (a row over no input).
      if (q.groupingExpressions.length === 0 || q.groupingExpressions.some((g) => g.kind === 'GroupingAnalytics')) return q.groupingExpressions.length === 0 ? true : q;
      return existsRows(selectAll(q.child, q.pos));
    case 'Project':
      if (q.projectList.some(containsAggregate)) return true;
      // Without FROM (Spark's OneRowRelation) it has that one row whatever it reads of the outer
      // row (`EXISTS (SELECT t.a)`), unless a generator makes its rows.
      return q.child.kind === 'OneRowRelation' && !q.projectList.some(readsGenerator) ? true : q;
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'Except': case 'Filter': case 'Generate': case 'Intersect': case 'Join': case 'Offset': case 'OneRowRelation': case 'Pivot':
    case 'RepartitionByExpression': case 'SubqueryAlias': case 'Union': case 'Unpivot': case 'UnresolvedHaving': case 'UnresolvedRelation':
    case 'UnresolvedSubqueryColumnAliases': case 'UnresolvedWith':
    default:
      return q;
  }
}

/** Whether a select item calls a generator (explode(…) and the like), which makes its rows. */
const readsGenerator = (item: Expression) => someExpression(item, (x) => x.kind === 'UnresolvedFunction' && GENERATORS.has(x.nameParts.join('.').toLowerCase()));

/** The expression with each EXISTS subquery reduced to what decides it (existsRows): a literal where that is known. */
function reducedExists(e: Expression): Expression {
  return mapExpression(e, (x) => {
    if (x.kind !== 'Exists') return undefined;
    const rows = existsRows(x.plan);
    if (typeof rows === 'boolean') return { kind: 'Literal', value: rows, dataType: BooleanType, pos: x.pos };
    return rows === x.plan ? undefined : { ...x, plan: rows };
  });
}

/** The prefix of an EXISTS subquery's table made a join's static side over a join, and of its columns. */
const EXISTS_SUBQUERY = '__exists';

/** The name of an IN subquery made a join's static side, and of its one column. */
const IN_SUBQUERY = '__in_subquery';
const IN_SUBQUERY_VALUE = '__in_value';

/**
 * The plan EXCEPT or INTERSECT was rewritten to, its aggregation marked `setOperation` (the
 * checker reads the analyzed plan, where it is no aggregation yet).
 */
function setOperationMarked(p: LogicalPlan, op: 'Except' | 'Intersect'): LogicalPlan {
  if (p.kind === 'Aggregate') return { ...p, setOperation: op };
  if (p.kind === 'Project' || p.kind === 'Filter' || p.kind === 'Generate') return { ...p, child: setOperationMarked(p.child, op) };
  throw new Error(`Internal: ${op} planned as ${p.kind}, not over an aggregation`);
}

class QueryPlanner {
  /** Inside a UNION's branches (a static table there is Spark's streaming-batch Union). */
  private unionDepth = 0;
  /** A source reads files: `_metadata` names their hidden metadata column. */
  private readonly metadataColumn: boolean;
  /**
   * Planning a join's side or a CTE, where a static table may be read by a subquery that the join
   * runs over the table (join-planner.ts's static views); elsewhere a static table is no relation.
   */
  private staticLeaves = false;
  /** The CTEs in scope of the SELECT being planned, which a scalar subquery in it may read. */
  private ctes: ReadonlyMap<string, LogicalPlan> = new Map();
  /** Spark's ids of scalar subqueries (`scalar-subquery#0`), in the order they are planned. */
  private subqueryIds = 0;
  /** Numbers the joins correlated scalar subqueries are rewritten to. */
  private correlatedIds = 0;
  /** The SELECTs around the scalar subqueries being planned, whose names their plans may read. */
  private readonly outerReferences = new OuterReferences();
  /** Numbers the columns of window expressions (window-functions.ts). */
  private windowIds = 0;
  /**
   * The SELECT being planned reads static tables only, in a batch plan: its window functions run
   * (a CTE is planned with staticLeaves whatever it reads; one over a stream refuses them).
   */
  private batchSelect = false;
  /** How many output names select lists repeated (duplicateColumn numbers each repeat's row column). */
  private repeats = 0;

  constructor(
    private readonly sql: string,
    private readonly relations: readonly StreamingRelation[],
    private readonly staticTables: StaticTableSpec[],
  ) {
    this.metadataColumn = relations.some((r) => r.metadataColumn === true);
  }

  /**
   * A built part of the query (a CTE, a subquery, a LATERAL VIEW) resolved, its expressions
   * typed, and its output columns, which the SELECT around it reads: the analysis of the whole
   * query then reads the types it carries instead of compiling its expressions again.
   */
  private resolved(plan: LogicalPlan): Resolved {
    if (plan.kind === 'StreamingRelation' && this.relations.includes(plan)) return { plan, output: relationOutput(plan) };
    return resolveSubquery(plan);
  }

  /** A query: WITH, set operations, ORDER BY and LIMIT around SELECT blocks. `ctes` by lower-cased name. */
  plan(u: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan>): LogicalPlan {
    switch (u.kind) {
      case 'UnresolvedWith': {
        const scope = new Map(ctes);
        for (const cte of u.cteRelations) scope.set(cte.alias.toLowerCase(), cteRelation(cte.alias, this.resolved(this.withStaticLeaves(() => this.plan(cte.child, scope)))));
        return this.plan(u.child, scope);
      }
      case 'Limit':
      case 'Offset':
      case 'Sort': {
        let limit: { expr: Expression; pos: Position } | undefined;
        let offset: { expr: Expression; pos: Position } | undefined;
        let sort: SortClause | undefined;
        let repartition: Extract<UnresolvedPlan, { kind: 'RepartitionByExpression' }> | undefined;
        let inner: UnresolvedPlan = u;
        if (inner.kind === 'Limit') {
          limit = { expr: this.foldedLimit(inner.limitExpr), pos: inner.pos };
          inner = inner.child;
        }
        // Over a stream the streaming checker refuses the Offset (Spark's UnsupportedOperationChecker).
        if (inner.kind === 'Offset') {
          offset = { expr: this.foldedLimit(inner.offsetExpr), pos: inner.pos };
          inner = inner.child;
        }
        if (inner.kind === 'Sort') {
          for (const o of inner.order) refuseStar(o, 'ORDER BY');
          // SORT BY (global false) sorts each partition: a micro-batch's rows are one here, so
          // it is ORDER BY's sort, under Spark's same streaming rule (Complete mode, over an aggregation).
          sort = { order: inner.order, pos: inner.pos };
          inner = inner.child;
        }
        if (inner.kind === 'RepartitionByExpression') {
          repartition = inner;
          inner = inner.child;
        }
        // ORDER BY over an aggregation may compute what it sorts on (grouping(k), sum(x)): the
        // aggregation plans the sort with its select list (buildAggregation).
        const aggregates = inner.kind === 'Aggregate' || inner.kind === 'UnresolvedHaving' || (inner.kind === 'Project' && isAggregation({ items: inner.projectList, grouping: [], distinct: false, pos: inner.pos }));
        let planned: LogicalPlan;
        if (sort && aggregates) planned = buildSortAndLimit(this.select(inner, ctes, sort), undefined, limit, [], offset);
        // A batch plan's ORDER BY may sort on a column it does not select (Spark's
        // ResolveMissingReferences); a stream's names output columns only (buildSortAndLimit).
        else if (sort && inner.kind === 'Project' && this.staticLeaves && this.readsStaticTablesOnly(inner, ctes)) planned = buildSortAndLimit(this.select(inner, ctes, sort), undefined, limit, [], offset);
        else {
          const p = this.plan(inner, ctes);
          // A set operation's ORDER BY names (or numbers) its output's columns, the first query's;
          // another name is Spark's UNRESOLVED_COLUMN over that output.
          const setOperation = (x: UnresolvedPlan): boolean => x.kind === 'Union' || x.kind === 'Intersect' || x.kind === 'Except' || (x.kind === 'Distinct' && setOperation(x.child));
          const output = sort && (p.kind !== 'Project' || setOperation(inner)) ? this.resolved(p).output : [];
          for (const o of output.length ? sort!.order : []) {
            const e = o.child;
            if (e.kind === 'UnresolvedAttribute' && e.nameParts.length === 1 && e.nameParts[0].toLowerCase() !== 'all') compileExpression({ kind: 'column', name: e.nameParts[0], pos: lineColumn(e.pos) }, output);
          }
          planned = buildSortAndLimit(p, sort, limit, output.map((f) => f.name), offset);
        }
        return repartition ? this.repartitioned(repartition, planned) : planned;
      }
      case 'RepartitionByExpression':
        return this.repartitioned(u, this.plan(u.child, ctes));
      case 'Unpivot': case 'Pivot':
        return this.from(u, ctes).plan;
      case 'Union':
        return this.union(u, ctes);
      case 'UnresolvedSubqueryColumnAliases':
        return this.columnAliases(u, ctes);
      case 'Intersect': case 'Except':
        return this.setOperationAsJoin(u, ctes);
      case 'Distinct': {
        // UNION (distinct) is Spark's Distinct over the Union: SELECT DISTINCT * of the UNION ALL,
        // a streaming aggregation keyed by every column (ReplaceDistinctWithAggregate).
        const distinct = u.child.kind === 'Union'
          ? this.select({ ...u, child: selectAll({ kind: 'SubqueryAlias', alias: '__union', child: u.child, pos: u.child.pos }, u.pos) }, ctes)
          : this.select(u, ctes);
        this.refuseMapInDistinct(distinct, lineColumn(u.pos), u.child.kind === 'Union' ? 'UNION' : 'DISTINCT');
        return distinct;
      }
      // Every member listed, so that a new one is a lint error until it is handled here.
      case 'Aggregate': case 'Filter': case 'Generate': case 'Join': case 'OneRowRelation': case 'Project': case 'SubqueryAlias':
      case 'UnresolvedHaving': case 'UnresolvedRelation':
      default:
        return this.select(u, ctes);
    }
  }

  /**
   * DISTRIBUTE BY (Spark's RepartitionByExpression) over `planned`, its child's plan: its
   * expressions must resolve over the child's output (Spark's analyzer), and then the rows are
   * the child's. Spark repartitions them across its tasks; a micro-batch's output has no
   * partitioning a sink sees, so Weir keeps them as they are.
   */
  private repartitioned(u: Extract<UnresolvedPlan, { kind: 'RepartitionByExpression' }>, planned: LogicalPlan): LogicalPlan {
    const { output } = this.resolved(planned);
    // The names that qualify the child's columns: its relations' and aliases' (Spark's output attributes keep them).
    const qualifiers: string[] = [];
    const walk = (p: UnresolvedPlan): void => {
      if (p.kind === 'UnresolvedRelation') qualifiers.push(p.multipartIdentifier[p.multipartIdentifier.length - 1]);
      if (p.kind === 'SubqueryAlias') qualifiers.push(p.alias);
      else if (p.kind !== 'Union') planChildren(p).forEach(walk);
    };
    walk(u.child);
    const builder = this.builder(qualifiers, output);
    for (const e of u.partitionExpressions) compileExpression(builder.build(e), output);
    return planned;
  }

  /**
   * A Distinct of a map-holding column refused as Spark's CheckAnalysis refuses it, before its
   * grouping: `planned` is the Distinct's aggregation (under a Project or Filter of it), whose
   * keys are the distinct columns, typed over its input (a GROUP BY there is checked first).
   */
  private refuseMapInDistinct(planned: LogicalPlan, position: SqlPosition | undefined, operator: string): void {
    let p = planned;
    while (p.kind === 'Project' || p.kind === 'Filter') p = p.child;
    if (p.kind !== 'Aggregate') return;
    const keys = p.groupBy;
    // The Project over the aggregation names its keys as the query's columns.
    const names = planned.kind === 'Project' && planned.list.length === keys.length ? planned.list.map((n) => n.name) : keys.map((e) => exprToString(e));
    const input = this.resolved(p.child).output;
    refuseSetOperationColumns(keys.map((e, i) => [names[i], expressionType(e, input)]), position, operator);
  }

  /**
   * EXCEPT and INTERSECT, as Spark's optimizer rewrites them (ReplaceExceptWithAntiJoin,
   * ReplaceIntersectWithSemiJoin): a Distinct over a LEFT ANTI (EXCEPT) or LEFT SEMI (INTERSECT)
   * join on each column pair, null-safe (`l.c <=> r.c`: a NULL matches a NULL), and
   * ReplaceDistinctWithAggregate makes the Distinct an aggregation keyed by every column. It is
   * planned as that SQL, the right query the join's static side, and its aggregation marked
   * `setOperation` (the checker reads the analyzed plan, where it is no aggregation yet).
   * Spark's UnsupportedOperationChecker refuses EXCEPT with a stream on its right and INTERSECT
   * with a stream on either side, so `<stream query> EXCEPT <static query>` runs on a stream,
   * and both run of two static queries in a batch plan (a join's static side, a subquery there).
   */
  private setOperationAsJoin(u: Extract<UnresolvedPlan, { kind: 'Except' | 'Intersect' }>, ctes: ReadonlyMap<string, LogicalPlan>): LogicalPlan {
    const position = this.setOperator(u.left, u.right);
    const except = u.kind === 'Except';
    const op = except ? 'EXCEPT' : 'INTERSECT';
    const rightStatic = this.readsNoStream(u.right, ctes);
    const batch = rightStatic && this.readsNoStream(u.left, ctes);
    if (except && !rightStatic) throw unsupportedOperation('Except on a streaming DataFrame/Dataset on the right is not supported', { position });
    if (!except && !batch) throw unsupportedOperation('Intersect of streaming DataFrames/Datasets is not supported', { position });
    // Of two static queries the same plan runs as a batch, where a stream's query reads them.
    if (batch && !this.staticLeaves) throw notSupportedYet(`${op} of two static queries`, position, except ? 'a stream is on its left: <stream query> EXCEPT <static query>' : 'it runs on a join\'s static side: JOIN (<static query> INTERSECT <static query>)');
    // On a stream, Spark's RewriteExceptAll would count the static rows' copies again at every batch.
    if (u.isAll && !batch) throw notSupportedYet('EXCEPT ALL of a stream and a static table', position, 'Spark\'s rewrite of it subtracts the static rows again at every batch; EXCEPT (DISTINCT) runs');
    const operator = u.isAll ? `${op} ALL` : op;
    const left = this.resolved(this.plan(u.left, ctes)).output;
    const right = this.resolved(this.withStaticLeaves(() => this.plan(u.right, ctes))).output;
    if (left.length !== right.length) throw numColumnsMismatch(operator, left.length, 1, right.length, position);
    // Spark's WidenSetOperationTypes: each column pair of one type.
    const widened = left.map((f, i): TypeInfo | undefined => {
      const g = right[i];
      if (sameType(f, g) && f.void === g.void) return undefined;
      const w = widenSetOperationColumn([f, g]);
      if (!w) throw incompatibleColumnType(operator, i, 1, g, f, position);
      return w.type;
    });
    // A CalendarInterval, which has no equality either, is refused here too, before the join's `<=>` of it is.
    refuseSetOperationColumns(left.map((f, i) => [f.name, widened[i] ?? f]), position, operator, (t) => !isOrderable(t));
    if (u.isAll) return this.setOperationAll(u, left, right, widened, ctes);
    // The result has the left's columns, cast where the widened type differs; the right's is cast by `<=>`.
    const leftTypes = widened.map((t, i) => (t && !sameType(left[i], t) ? t : undefined));
    const pos = u.pos;
    const prefix = except ? '__except' : '__intersect';
    const [l, r] = [`${prefix}_left`, `${prefix}_right`];
    const names = right.map((_, i) => `${prefix}_${i}`);
    const column = (q: string, name: string): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [q, name], pos });
    const condition = conjunctionOf(left.map((f, i): Expression => ({ kind: 'BinaryOperator', op: 'EqualNullSafe', left: column(l, f.name), right: column(r, names[i]), pos })));
    const join: UnresolvedPlan = {
      kind: 'Join', joinType: except ? 'LeftAnti' : 'LeftSemi', condition, pos,
      left: { kind: 'SubqueryAlias', alias: l, child: leftTypes.some((t) => t) ? this.castTo(u.left, left, leftTypes) : u.left, pos: u.left.pos },
      right: { kind: 'SubqueryAlias', alias: r, child: { kind: 'UnresolvedSubqueryColumnAliases', outputColumnNames: names, child: u.right, pos: u.right.pos }, pos: u.right.pos },
    };
    return setOperationMarked(this.plan({ kind: 'Distinct', child: selectAll(join, pos), pos }, ctes), u.kind);
  }

  /**
   * EXCEPT ALL and INTERSECT ALL of two static queries, as Spark's optimizer rewrites them
   * (RewriteExceptAll, RewriteIntersectAll): a UNION ALL of both sides' rows, each with a flag of
   * its side, aggregated per distinct row (a NULL grouped with a NULL), and each row kept as many
   * times as it is left: EXCEPT ALL sums 1 for a left copy and -1 for a right one and keeps rows
   * whose sum is above 0; INTERSECT ALL counts each side's copies and keeps rows found on both,
   * the lesser count of times. Spark's Generate of ReplicateRows (an internal generator) is
   * `explode(array_repeat(true, n))` here, Weir's generator of n rows. `widened` is each column
   * pair's common type where the two differ (`left` and `right` are the sides' columns): both
   * sides are cast to it.
   */
  private setOperationAll(u: Extract<UnresolvedPlan, { kind: 'Except' | 'Intersect' }>, left: Schema, right: Schema, widened: readonly (TypeInfo | undefined)[], ctes: ReadonlyMap<string, LogicalPlan>): LogicalPlan {
    const pos = u.pos;
    const except = u.kind === 'Except';
    const prefix = except ? '__except_all' : '__intersect_all';
    const names = left.map((_, i) => `${prefix}_${i}`);
    const column = (name: string): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [name], pos });
    const literal = (value: bigint | boolean | null, dataType: DataType): Expression => ({ kind: 'Literal', value, dataType, pos });
    const call = (name: string, ...args: Expression[]): Expression => ({ kind: 'UnresolvedFunction', nameParts: [name], arguments: args, isDistinct: false, pos });
    const alias = (child: Expression, name: string): Expression => ({ kind: 'Alias', child, name, pos });
    const binary = (op: BinaryOp, l: Expression, r: Expression): Expression => ({ kind: 'BinaryOperator', op, left: l, right: r, pos });
    // A side's rows: its flags, then its columns renamed (a side may repeat a name) and cast to the widened types.
    const side = (query: UnresolvedPlan, output: Schema, flags: Expression[]): UnresolvedPlan => {
      const columns = names.map((name, i) => {
        const t = widened[i];
        const cast = t && t.type !== 'null' && (output[i].void || !sameType(output[i], t));
        return cast ? alias({ kind: 'Cast', child: column(name), dataType: parseDataType(typeText(t)), evalMode: 'LEGACY', pos }, name) : column(name);
      });
      const renamed: UnresolvedPlan = { kind: 'UnresolvedSubqueryColumnAliases', outputColumnNames: names, child: query, pos: query.pos };
      return { kind: 'Project', projectList: [...flags, ...columns], child: { kind: 'SubqueryAlias', alias: `${prefix}_side`, child: renamed, pos: query.pos }, pos: query.pos };
    };
    const [vcol1, vcol2, count] = [`${prefix}_vcol1`, `${prefix}_vcol2`, `${prefix}_count`];
    let union: UnresolvedPlan;
    let counted: Expression;
    let kept: Expression;
    if (except) {
      union = { kind: 'Union', children: [side(u.left, left, [alias(literal(1n, LongType), vcol1)]), side(u.right, right, [alias(literal(-1n, LongType), vcol1)])], pos };
      counted = call('sum', column(vcol1));
      kept = binary('GreaterThan', counted, literal(0n, LongType));
    } else {
      const nil = literal(null, BooleanType);
      const yes = literal(true, BooleanType);
      union = { kind: 'Union', children: [side(u.left, left, [alias(yes, vcol1), alias(nil, vcol2)]), side(u.right, right, [alias(nil, vcol1), alias(yes, vcol2)])], pos };
      const [n1, n2] = [call('count', column(vcol1)), call('count', column(vcol2))];
      counted = call('if', binary('GreaterThan', n1, n2), n2, n1);
      kept = binary('And', binary('GreaterThanOrEqual', n1, literal(1n, LongType)), binary('GreaterThanOrEqual', n2, literal(1n, LongType)));
    }
    const aggregate: UnresolvedPlan = {
      kind: 'UnresolvedHaving', havingCondition: kept, pos,
      child: { kind: 'Aggregate', groupingExpressions: names.map(column), aggregateExpressions: [...names.map(column), alias(counted, count)], child: { kind: 'SubqueryAlias', alias: prefix, child: union, pos }, pos },
    };
    const copies = call('array_repeat', literal(true, BooleanType), { kind: 'Cast', child: column(count), dataType: IntegerType, evalMode: 'LEGACY', pos });
    const replicated: UnresolvedPlan = {
      kind: 'Generate', generator: call('explode', copies) as Extract<Expression, { kind: 'UnresolvedFunction' }>, outer: false, generatorOutput: [`${prefix}_copy`], pos,
      child: { kind: 'SubqueryAlias', alias: `${prefix}_counts`, child: aggregate, pos },
    };
    const planned = this.plan({ kind: 'Project', projectList: left.map((f, i) => alias(column(names[i]), f.name)), child: replicated, pos }, ctes);
    return setOperationMarked(planned, u.kind);
  }

  /** `query` (whose columns are `output`) with its i-th column cast to `types[i]`, where one is given, under its name. */
  private castTo(query: UnresolvedPlan, output: Schema, types: readonly (TypeInfo | undefined)[]): UnresolvedPlan {
    const pos = query.pos;
    const projectList = output.map((f, i): Expression => {
      const column: Expression = { kind: 'UnresolvedAttribute', nameParts: [f.name], pos };
      const t = types[i];
      return t ? { kind: 'Alias', name: f.name, child: { kind: 'Cast', child: column, dataType: parseDataType(typeText(t)), evalMode: 'LEGACY', pos }, pos } : column;
    });
    return { kind: 'Project', projectList, child: { kind: 'SubqueryAlias', alias: '__widened', child: query, pos }, pos };
  }

  /** Where the set operator between two queries is written (the text between them holds only it, brackets and comments). */
  private setOperator(left: UnresolvedPlan, right: UnresolvedPlan): SqlPosition | undefined {
    const gap = this.sql.slice(left.pos.end, right.pos.start);
    const m = /\b(UNION|INTERSECT|EXCEPT|MINUS)\b/i.exec(gap);
    return m ? offsetToPosition(this.sql, left.pos.end + m.index) : lineColumn(left.pos);
  }

  /**
   * UNION ALL of SELECTs over one stream or several. A branch may aggregate (Spark plans it as
   * its own stateful operator); the analyzer holds the whole query to Spark's rules (one
   * aggregation, a watermark for Append).
   */
  private union(u: Extract<UnresolvedPlan, { kind: 'Union' }>, ctes: ReadonlyMap<string, LogicalPlan>): LogicalPlan {
    const pos = u.inlineTable ? lineColumn(u.pos) : this.setOperator(u.children[0], u.children[1]);
    this.unionDepth++;
    const branches = u.children.map((c) => this.plan(c, ctes));
    this.unionDepth--;
    if (u.inlineTable) this.checkInlineTableTypes(u.inlineTable.names, branches, pos);
    return { kind: 'Union', branches, pos };
  }

  /**
   * Spark's ResolveInlineTables (EvaluateUnresolvedInlineTable.findCommonTypesAndCast): each
   * column's values must widen to one type by TypeCoercion.findWiderTypeWithoutStringPromotion,
   * so `VALUES (1), ('a')` is refused where a UNION ALL of the same SELECTs makes a STRING of it;
   * `VALUES (1), (2.5), (NULL)` is a DECIMAL(11,1) in both. What widens, the UNION widens alike.
   */
  private checkInlineTableTypes(names: readonly string[], rows: LogicalPlan[], pos: SqlPosition | undefined): void {
    const outputs = rows.map((r) => this.resolved(r).output);
    names.forEach((name, i) => {
      // A NULL value (VOID) has no type of its own: it takes the others'.
      const types = outputs.map((o): TypeInfo => (o[i].void ? { type: 'null' } : typeOfField(o[i])));
      if (!widerTypeWithoutStringPromotion(types)) {
        throw new SqlValidationError(
          `Invalid inline table. Found incompatible types in the column \`${name.replace(/`/g, '``')}\` for inline table. ` +
            `Its values are ${[...new Set(types.filter((t) => t.type !== 'null').map((t) => typeText(t)))].join(' and ')}: CAST them to one type`,
          pos, 'VALUES', 'INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE');
      }
    });
  }

  /** One SELECT: [DISTINCT] select list or aggregation [HAVING] over WHERE over LATERAL VIEWs over FROM. */
  private select(u: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan>, sort?: SortClause): LogicalPlan {
    const before = this.ctes;
    const batchBefore = this.batchSelect;
    this.ctes = ctes;
    try {
      const plan = this.repeatsMarked(this.selectBlock(u, ctes, sort));
      // Spark evaluates an inline table's values as it analyses it: a column of a query around
      // it (an outer reference, `(WITH c AS (VALUES (e.k)) …)`) has no value then.
      const inlineRow = u.kind === 'Project' && u.child.kind === 'UnresolvedRelation' && u.child.multipartIdentifier[0] === VALUES_RELATION;
      if (inlineRow && readsOuterReference(plan)) {
        throw new SqlValidationError('[INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE] Invalid inline table. Cannot evaluate an expression that reads a column of the query around it in inline table definition. Select the column instead',
          lineColumn(u.pos), 'VALUES', 'INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE');
      }
      return plan;
    } finally {
      this.ctes = before;
      this.batchSelect = batchBefore;
    }
  }

  private selectBlock(u: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan>, sort?: SortClause): LogicalPlan {
    const selectPos = u.pos;
    let distinct = false;
    if (u.kind === 'Distinct') {
      distinct = true;
      u = u.child;
    }
    let having: Expression | undefined;
    if (u.kind === 'UnresolvedHaving') {
      having = u.havingCondition;
      refuseStar(having, 'HAVING');
      u = u.child;
    }
    const overAggregation = this.windowsOverAggregation(u, ctes, having, distinct, sort);
    if (overAggregation) return this.selectBlock(overAggregation.plan, ctes, overAggregation.sort);
    if (having && u.kind === 'Aggregate') {
      const rewritten = this.correlatedHavingAsWhere(u, having, distinct) ?? this.existsInHavingAsWhere(u, having, distinct);
      if (rewritten) return this.selectBlock(rewritten, ctes, sort);
    }
    let items: readonly Expression[];
    let grouping: readonly Expression[] = [];
    let groupPos = selectPos;
    let child: UnresolvedPlan;
    if (u.kind === 'Aggregate') {
      items = u.aggregateExpressions;
      grouping = u.groupingExpressions;
      groupPos = u.pos;
      child = u.child;
    } else if (u.kind === 'Project') {
      items = u.projectList;
      child = u.child;
    } else {
      // A parenthesized query, or a bare relation (`TABLE src`).
      if (distinct || having) throw notSupportedYet(`${u.kind} here`, lineColumn(u.pos));
      if (u.kind === 'UnresolvedRelation' || u.kind === 'SubqueryAlias' || u.kind === 'Unpivot' || u.kind === 'Pivot') return this.from(u, ctes).plan;
      // A LATERAL generator's rows in brackets (`(e JOIN LATERAL explode(e.tags) t(tag)) x`), or a
      // pipe operator's join (`|> JOIN t`, Spark's Join over the left side): every column.
      if (u.kind === 'Generate' || u.kind === 'Join') return this.selectBlock(selectAll(u, u.pos), ctes, sort);
      return this.plan(u, ctes);
    }
    let where: Expression | undefined;
    if (child.kind === 'Filter') {
      where = child.condition;
      child = child.child;
    }
    if (child.kind === 'Join') {
      this.refuseSubqueriesReadingBothSides(child);
      ({ child, where } = subqueryJoinConditionsAsWhere(child, where));
    }
    child = inSubqueriesInJoinConditions(child, (q) => this.readsNoStream(q, this.ctes) && this.uncorrelatedQuery(q) !== undefined);
    child = this.predicateSubqueriesInJoinConditions(child);
    if (where && child.kind === 'Join') ({ child, where } = this.commaJoinConditions(child, where));
    if (where) this.checkReducedExists(where, child, ctes);
    if (where) where = this.groupedExistsDecorrelated(reducedExists(where));
    items = items.map(reducedExists);
    grouping = grouping.map(reducedExists);
    const writtenGrouping = grouping;
    if (where) where = inOneRowAsComparison(where);
    if (where) ({ child, where } = this.predicateSubqueryAsJoin(child, where));
    items = items.map((i) => this.predicateSubqueriesAsCounts(i, child));
    // GROUP BY an EXISTS or IN: the same counts, grouped by as any expression (Spark groups by its
    // existence join's column); a correlated count is joined for the grouping too, one join for
    // each distinct subquery, so that a select item written as the grouping expression reads it.
    grouping = grouping.map((g) => this.predicateSubqueriesAsCounts(g, child));
    if (where) where = this.predicateSubqueriesAsCounts(where, child);
    ({ child, items, where, grouping } = this.correlatedScalarSubqueriesAsJoins(child, items, where, grouping));
    const chain = lateralChain(child);
    child = chain.under;
    const lateralViews = chain.views;
    const tableFunction = lateralViews.find((lv) => lv.tableFunction);
    if (tableFunction && !this.staticLeaves) throw this.tableFunctionOverStream(tableFunction);
    let from = this.from(child, ctes);
    // After FROM's tables are found, as Spark checks a Sort's subqueries after resolving them.
    if (sort) sort = predicateSubqueriesInSort(sort, writtenGrouping, grouping);
    const hidden = hiddenTableNames(child);
    if (hidden.size) from = { ...from, scope: { ...from.scope, hidden } };
    this.batchSelect = this.staticLeaves && !firstStreamingRelation(from.plan);
    from = this.generated(from, lateralViews);
    let plan = from.plan;
    const schema = from.schema;
    const qualifiers = [...from.qualifiers];
    const builder = this.builder(qualifiers, schema, from.scope);
    // A star in WHERE's calls (coalesce(*), 4 IN (*)) is the input's columns, as Spark's ResolveReferences expands a Filter's.
    builder.expandStar = (star) => this.starExprs(star, qualifiers, schema, from.scope);
    const windowIn = where && this.batchSelect ? someExpression(where, (x) => x.kind === 'UnresolvedWindowExpression') : false;
    if (windowIn) throw new SqlValidationError('It is not allowed to use window functions inside WHERE clause. Compute it in a subquery and filter on its column', lineColumn(where!.pos), 'WHERE', '_LEGACY_ERROR_TEMP_1034');
    if (where) checkNoAggregateInWhere(where);
    if (where) {
      // WHERE window(…): the rows expanded into their windows, filtered, and the column dropped
      // again (Spark resolves the select list's * before TimeWindowing adds it).
      const windowed = this.timeWindowing([where], schema, plan, builder);
      plan = windowed
        ? {
            kind: 'Project',
            list: schema.map((f) => ({ expr: { kind: 'column', name: f.name }, name: f.name })),
            child: { kind: 'Filter', condition: this.builder(qualifiers, windowed.schema, from.scope).build(withWindowColumn(where)), child: windowed.plan },
          }
        : { kind: 'Filter', condition: builder.build(where), child: plan };
    }

    const clauses = { items, grouping, having, distinct, pos: groupPos, sort, batch: this.staticLeaves };
    if (distinct && grouping.length === 0 && !having && windowInsideAnItem(items)) {
      // SELECT DISTINCT window(ts, '1 minute').start: Spark's Distinct over the Project that
      // TimeWindowing computes the window below; its keys read the window column.
      const windowed = this.timeWindowing(items, schema, plan, builder)!;
      return buildAggregation({ ...clauses, items: items.map(withWindowColumn) }, windowed.plan, windowed.schema, this.builder(qualifiers, windowed.schema, from.scope));
    }
    if (grouping.some((g) => g.kind === 'GroupingAnalytics') && timeWindowIn(grouping)) {
      // GROUP BY ROLLUP(window(ts, …), k): Spark's TimeWindowing computes the window below the
      // Expand, which then nulls the `window` column as any grouping column.
      const windowed = this.timeWindowing(grouping, schema, plan, builder)!;
      return buildAggregation(
        {
          ...clauses, items: items.map(withWindowColumn), grouping: grouping.map(withWindowColumn), ...(having ? { having: withWindowColumn(having) } : {}),
          ...(sort ? { sort: { ...sort, order: sort.order.map((o) => ({ ...o, child: withWindowColumn(o.child) })) } } : {}),
        },
        windowed.plan, windowed.schema, this.builder(qualifiers, windowed.schema, from.scope),
      );
    }
    if (isAggregation(clauses)) {
      checkStarWithGroupByPosition(items, grouping, groupPos);
      // A star in an aggregate's arguments (count(t.*), count(DISTINCT *)): its columns, as Spark's
      // ResolveReferences expands a star in a function's arguments.
      builder.expandStar = (star) => this.starExprs(star, qualifiers, schema, from.scope);
      // `SELECT DISTINCT *` (or `*` with a GROUP BY of every column): the star's columns, each
      // then a grouping key like any column written out.
      const expanded = items.flatMap((i): Expression[] => (i.kind !== 'UnresolvedStar' ? [i]
        : this.starColumns(i, qualifiers, schema, from.scope).map(({ column, path, pruned, outer }): Expression => {
          if (outer) return { kind: 'UnresolvedAttribute', nameParts: [...i.target!, column], pos: i.pos };
          if (pruned) throw notSupportedYet('EXCEPT of a struct\'s field in a star that is grouped by (DISTINCT *, GROUP BY ALL)', lineColumn(i.pos), 'leave out the whole column, or build the struct in a subquery');
          return path.length === 0
            // The row's column itself: a repeated name's copies are each their own key.
            ? { kind: 'UnresolvedAttribute', nameParts: [column], exact: true, pos: i.pos }
            : { kind: 'UnresolvedAttribute', nameParts: [column, ...path], pos: i.pos };
        })));
      if (isDistinctOverAggregation(clauses)) {
        // SELECT DISTINCT … GROUP BY …: Spark's Distinct over the Aggregate, a second
        // aggregation by every output column of the first (ORDER BY sorts its output).
        const inner = this.resolved(buildAggregation({ ...clauses, items: expanded, distinct: false, sort: undefined }, plan, schema, builder));
        const columns = inner.output.map((f): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [f.name], exact: true, pos: groupPos }));
        return buildAggregation({ items: columns, grouping: [], distinct: true, pos: groupPos, sort, batch: this.staticLeaves }, inner.plan, inner.output, this.builder([], inner.output));
      }
      return buildAggregation({ ...clauses, items: expanded }, plan, schema, builder);
    }
    // Window functions in a batch plan's select list (Spark's ExtractWindowExpressions): Window
    // nodes over the rows, the select list reading their columns.
    if (this.batchSelect && items.some(hasWindowExpression)) {
      const extracted = extractWindowExpressions(items, plan, schema, builder, () => this.windowIds++);
      const { plan: windowPlan, output } = this.resolved(extracted.plan);
      return this.project(extracted.items, qualifiers, output, windowPlan, this.builder(qualifiers, output, from.scope), from.scope, sort);
    }
    const windowed = this.timeWindowing(items, schema, plan, builder);
    if (windowed) return this.project(items.map(withWindowColumn), qualifiers, schema, windowed.plan, this.builder(qualifiers, windowed.schema, from.scope), from.scope, sort);
    return this.project(items, qualifiers, schema, plan, builder, from.scope, sort);
  }

  /**
   * FROM's relations with the LATERAL VIEWs and LATERAL generators or subqueries over them
   * (`views`, innermost first), each a Generate of its rows beside the row it reads.
   */
  private generated(from: FromItem, views: readonly Extract<UnresolvedPlan, { kind: 'Generate' }>[]): FromItem {
    let plan = from.plan;
    let schema = from.schema;
    const qualifiers = [...from.qualifiers];
    // A generator's columns, once one is named by an alias or repeats a name, are a side of their
    // own (`t.*` is the generator's columns only, a repeated name read unqualified is ambiguous),
    // as Spark's Generate's output attributes are.
    let sides = from.scope?.sides ? new Map(from.scope.sides) : undefined;
    for (const lv of views) {
      const builder = this.builder(qualifiers, schema, from.scope);
      const before = schema;
      const name = lv.generator.nameParts.join('.').toLowerCase() + (lv.outer ? '_outer' : '');
      if (lv.tableFunction && !TABLE_FUNCTIONS.has(name)) throw unresolvableTableFunction(lv.generator);
      if (name === 'json_tuple' || name === 'json_tuple_outer') {
        // One row out per row in (OUTER changes nothing): the input's columns and the keys'.
        const pos = lineColumn(lv.generator.pos);
        const items = this.jsonTuple(positionalArguments('json_tuple', lv.generator.arguments, lv.generator.pos), lv.generatorOutput.length ? lv.generatorOutput : undefined, builder, schema, pos, lv.tableFunction);
        // A key's column of a taken name repeats it, as a generator's does (generate below).
        const taken = new Set(schema.map((f) => f.name.toLowerCase()));
        const named = items.map((i): NamedExpr => {
          if (!taken.has(i.name.toLowerCase())) {
            taken.add(i.name.toLowerCase());
            return i;
          }
          return { ...i, name: duplicateColumn(i.name, ++this.repeats) };
        });
        ({ plan, output: schema } = this.resolved({ kind: 'Project', list: [...schema.map((f): NamedExpr => ({ expr: { kind: 'column', name: f.name }, name: f.name })), ...named], child: plan }));
      } else {
        if (!atMostOneRow(plan)) {
          const nondeterministic = nondeterministicLateralSubquery(lv.generator, lv.pos);
          if (nondeterministic) throw nondeterministic;
        }
        if (!GENERATORS.has(name) && !lv.tableFunction) throw notSupportedYet(`LATERAL VIEW ${name}()`, lineColumn(lv.generator.pos), 'LATERAL VIEW takes explode(), posexplode(), inline() and their _outer forms, stack() and json_tuple()');
        const args = positionalArguments(name, lv.generator.arguments, lv.generator.pos);
        const call: Expr = { kind: 'call', name, args: args.map((a) => builder.build(a)), pos: lineColumn(lv.generator.pos) };
        ({ plan, output: schema } = this.resolved(this.generate(call as Extract<Expr, { kind: 'call' }>, lv.generatorOutput.length ? lv.generatorOutput : undefined, schema, plan, false, lv.tableFunction).plan));
      }
      if (lv.qualifier) qualifiers.push(lv.qualifier);
      const generated = schema.slice(before.length);
      if (lv.qualifier || generated.some((f) => writtenColumnName(f.name) !== f.name)) {
        if (!sides) {
          const own = new Map<string, string>();
          for (const f of before) if (!own.has(writtenColumnName(f.name).toLowerCase())) own.set(writtenColumnName(f.name).toLowerCase(), f.name);
          sides = new Map(from.qualifiers.map((q) => [q.toLowerCase(), own]));
        }
        // Unaliased, the side has a name no SQL text writes: its columns are read unqualified.
        sides.set(lv.qualifier?.toLowerCase() ?? `${DUPLICATE_COLUMN_MARK}generate${sides.size}`, new Map(generated.map((f) => [writtenColumnName(f.name).toLowerCase(), f.name])));
        from = { ...from, scope: { ...from.scope, sides } };
      }
    }
    return { ...from, plan, schema, qualifiers };
  }

  /**
   * Window functions over an aggregation's output in a batch plan (`SELECT k, sum(v), rank() OVER
   * (ORDER BY sum(v)) FROM t GROUP BY k`): Spark's Window above the Aggregate. Written here as that
   * query: `SELECT <items> FROM (SELECT <grouping expressions>, <aggregates> FROM … GROUP BY …
   * [HAVING …]) w`, each grouping expression and aggregate call of the items (inside a window
   * expression's arguments, PARTITION BY and ORDER BY too) read as the inner query's column.
   * Undefined where the SELECT does not aggregate, has no window expression, or is DISTINCT.
   */
  private windowsOverAggregation(u: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan>, having: Expression | undefined, distinct: boolean, sort?: SortClause): { plan: UnresolvedPlan; sort?: SortClause } | undefined {
    if (!this.staticLeaves || (u.kind !== 'Aggregate' && u.kind !== 'Project') || !this.readsStaticTablesOnly(u, ctes)) return undefined;
    const items = u.kind === 'Aggregate' ? u.aggregateExpressions : u.projectList;
    if (!items.some(hasWindowExpression)) return undefined;
    // A GROUP BY position is the select item there (Spark's groupByOrdinal), resolved against
    // these items, not the inner query's: `GROUP BY 1` of `SELECT k, sum(v), rank() OVER (…)`
    // groups by k, and of `SELECT rank() OVER (…), count(*)` is a window grouped by, refused.
    // Inside CUBE, ROLLUP and GROUPING SETS too; the inner query groups by the items so found.
    const positioned = (g: Expression): Expression => g.kind !== 'GroupingAnalytics' ? groupingItem(g, items) : {
      ...g,
      groupingSets: g.groupingSets.map((set) => set.map((e) => groupingItem(e, items))),
      ...(g.groupByExpressions ? { groupByExpressions: g.groupByExpressions.map((e) => groupingItem(e, items)) } : {}),
    };
    const grouping = u.kind === 'Aggregate' ? u.groupingExpressions.map(positioned) : [];
    const windowGrouped = grouping.find(hasWindowExpression);
    if (windowGrouped) throw windowInGrouping(windowGrouped, windowGrouped.pos);
    if (distinct && u.kind === 'Project' && !having && !items.some(containsAggregate)) {
      // SELECT DISTINCT over window functions (`SELECT DISTINCT k, first_value(v) OVER (PARTITION BY k
      // ORDER BY ts DESC)`): Spark's Distinct above the Window, the rows of that SELECT made distinct.
      const pos = u.pos;
      const windowed: UnresolvedPlan = { kind: 'SubqueryAlias', alias: '__window_distinct', child: u, pos };
      return { plan: { kind: 'Distinct', child: selectAll(windowed, pos), pos }, ...(sort ? { sort } : {}) };
    }
    if (distinct || items.some((i) => i.kind === 'UnresolvedStar')) return undefined;
    // An aggregate in a window's arguments or specification (`rank() OVER (ORDER BY sum(v))`)
    // makes an aggregation of the SELECT too; the window's own function does not.
    const windowReadsAggregate = items.some((i) => someExpression(i, (x) => x.kind === 'UnresolvedWindowExpression'
      && [...(x.child.kind === 'UnresolvedFunction' ? x.child.arguments : [x.child]), ...x.partitionSpec, ...x.orderSpec.map((o) => o.child)].some((y) => someExpression(y, isAggregateCall))));
    if (!isAggregation({ items, grouping, ...(having ? { having } : {}), distinct, pos: u.pos }) && !windowReadsAggregate) return undefined;
    const pos = u.pos;
    const alias = '__window_input';
    const hidden: Expression[] = [];
    const keyOf = (e: Expression) => expressionSql(e).toLowerCase();
    // Under CUBE, ROLLUP or GROUPING SETS the inner query keeps the GROUP BY as written and
    // outputs each distinct grouping expression (NULL where its set leaves it out).
    const keys = groupingSetsOf(grouping, keyOf)?.expressions ?? grouping;
    const groups = new Map(keys.map((g, i) => [keyOf(g), `__window_group${i}`]));
    // A GROUP BY name that is a select item's alias (`depname AS d … GROUP BY d`): the inner
    // query outputs the item under its alias, so that its GROUP BY reads the name as Spark's
    // groupByAliases does (the item, unless an input column has the name), and the outer items
    // read the item's expression as that column.
    const aliased = new Map(items.flatMap((i) => (i.kind === 'Alias' && !containsAggregate(i.child) && !hasWindowExpression(i.child) ? [[i.name.toLowerCase(), i.child] as const] : [])));
    keys.forEach((g, i) => {
      const item = g.kind === 'UnresolvedAttribute' && g.nameParts.length === 1 ? aliased.get(g.nameParts[0].toLowerCase()) : undefined;
      if (!item || g.kind !== 'UnresolvedAttribute') return hidden.push({ kind: 'Alias', child: g, name: `__window_group${i}`, pos });
      const name = g.nameParts[0];
      groups.set(keyOf(g), name);
      if (!groups.has(keyOf(item))) groups.set(keyOf(item), name);
      return hidden.push({ kind: 'Alias', child: item, name, pos });
    });
    const aggregates = new Map<string, string>();
    const column = (name: string): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [alias, name], pos });
    const over = (e: Expression): Expression => mapExpression(e, (x) => {
      if (x.kind === 'UnresolvedWindowExpression') {
        const f = x.child;
        const child = f.kind === 'UnresolvedFunction' ? { ...f, arguments: f.arguments.map(over) } : over(f);
        return { ...x, child, partitionSpec: x.partitionSpec.map(over), orderSpec: x.orderSpec.map((o) => ({ ...o, child: over(o.child) })) };
      }
      const group = x.kind === 'Literal' ? undefined : groups.get(keyOf(x));
      if (group) return column(group);
      // grouping() and grouping_id() read the grouping set, known in the inner query only.
      if (x.kind === 'UnresolvedFunction' && (isAggregateCall(x) || isGroupingCall(x))) {
        if (hasWindowExpression(x)) throw windowInsideAggregate(x.pos);
        let name = aggregates.get(keyOf(x));
        if (!name) {
          name = `__window_aggregate${aggregates.size}`;
          aggregates.set(keyOf(x), name);
          hidden.push({ kind: 'Alias', child: x, name, pos: x.pos });
        }
        return column(name);
      }
      return undefined;
    });
    const outer = items.map((item): Expression => {
      if (item.kind === 'Alias') return { ...item, child: over(item.child) };
      const name = item.kind === 'UnresolvedAttribute' ? item.nameParts[item.nameParts.length - 1] : expressionSql(item);
      return { kind: 'Alias', child: over(item), name, pos: item.pos };
    });
    let inner: UnresolvedPlan = u.kind === 'Aggregate' ? { ...u, groupingExpressions: grouping, aggregateExpressions: hidden } : { kind: 'Aggregate', groupingExpressions: [], aggregateExpressions: hidden, child: u.child, pos };
    if (having) inner = { kind: 'UnresolvedHaving', havingCondition: having, child: inner, pos };
    const plan: UnresolvedPlan = { kind: 'Project', projectList: outer, child: { kind: 'SubqueryAlias', alias, child: inner, pos }, pos };
    return { plan, ...(sort ? { sort: { ...sort, order: sort.order.map((o) => ({ ...o, child: over(o.child) })) } } : {}) };
  }

  /** Spark's TimeWindowing (time-windowing.ts): a Generate of the clause's window(…) over `plan`, or undefined without one. */
  private timeWindowing(exprs: readonly Expression[], schema: Schema, plan: LogicalPlan, builder: ExpressionBuilder): { plan: LogicalPlan; schema: Schema } | undefined {
    const call = timeWindowIn(exprs);
    if (!call) return undefined;
    const generator = builder.build(call) as Extract<Expr, { kind: 'call' }>;
    if (schema.some((f) => f.name.toLowerCase() === WINDOW_COLUMN)) {
      throw new SqlValidationError(`${exprToString(generator)} outputs a column ${WINDOW_COLUMN}, and its input has a column ${WINDOW_COLUMN} too: rename that column in a subquery`, generator.pos, 'window');
    }
    const { plan: generate, output } = this.resolved({ kind: 'Generate', generator, output: [WINDOW_COLUMN], child: plan });
    return { plan: generate, schema: output };
  }

  /**
   * A LIMIT of integer arithmetic and casts over literals (`LIMIT 2 + 1`, `LIMIT CAST(1 AS INT)`)
   * evaluated to its literal, as Spark folds a limit-like expression before CheckAnalysis checks
   * it. Only such bounded work runs while a job validates; anything else is left for
   * buildSortAndLimit to judge.
   */
  private foldedLimit(e: Expression): Expression {
    const arithmetic = (x: Expression): boolean =>
      x.kind === 'Literal' ||
      (x.kind === 'Cast' && arithmetic(x.child)) ||
      ((x.kind === 'UnaryMinus' || x.kind === 'UnaryPositive') && arithmetic(x.child)) ||
      (x.kind === 'BinaryOperator' && (x.op === 'Add' || x.op === 'Subtract' || x.op === 'Multiply') && arithmetic(x.left) && arithmetic(x.right));
    if (e.kind === 'Literal' || !arithmetic(e)) return e;
    const compiled = compileExpression(this.builder([], []).build(e), []);
    const t = typeOfCompiled(compiled);
    if (t.type !== 'long' || t.integral !== 32) return e;
    const v = compiled.eval({}, { batchTimestampMs: 0 });
    return { kind: 'Literal', value: v === null ? null : BigInt(v as number | bigint), dataType: IntegerType, pos: e.pos };
  }

  private builder(qualifiers: readonly string[], schema: Schema, scope?: Pick<Scope, 'sides' | 'merged' | 'metadataColumn' | 'hidden'>): ExpressionBuilder {
    const builder = new ExpressionBuilder({ qualifiers: new Set(qualifiers.map((q) => q.toLowerCase())), columns: new Set(schema.map((f) => f.name.toLowerCase())), ...scope, metadataColumn: this.metadataColumn && scope?.metadataColumn !== false }, this.sql);
    const ctes = this.ctes;
    builder.scalarSubquery = (u, pos) => this.scalarSubquery(u, pos, ctes, builder, schema);
    builder.checkSubquery = (u, pos) => this.checkPredicateSubquery(u, pos, ctes, builder, schema);
    this.outerReferences.attach(builder);
    builder.batch = this.batchSelect;
    return builder;
  }

  /**
   * `(SELECT …)` in an expression: Spark's ScalarSubquery. Uncorrelated and over static tables, it
   * is their batch plan of one column, which the run evaluates once, before its first batch's
   * operators (ScalarSubqueryExec): one row's value, NULL for no row, more rows an error. One
   * without FROM (`(SELECT 200)`) reads Spark's OneRowRelation, a batch relation too. One that
   * reads names of the SELECT around it (`outer`, whose builder reads them) is correlated: its
   * plan reads them as outer references, and runs for each tuple of their values
   * (correlated-scalar-subquery.ts).
   */
  private scalarSubquery(u: UnresolvedPlan, pos: SqlPosition | undefined, ctes: ReadonlyMap<string, LogicalPlan>, outer: ExpressionBuilder, outerSchema: Schema): Expr {
    // Over a stream (one of the job's, or a CTE over one) it is refused; a name that is no table
    // is left to its resolution, which refuses it as Spark does (TABLE_OR_VIEW_NOT_FOUND).
    const overStream = (n: string) => this.relations.some((r) => r.sourceName.toLowerCase() === n) || (ctes.has(n) && firstStreamingRelation(ctes.get(n)!) !== undefined);
    if (relationNames(u).some(overStream)) {
      throw notSupportedYet('A scalar subquery over a stream', pos, 'a scalar subquery reads static tables (staticTables in the job spec); join the stream instead');
    }
    const { planned: { plan, output }, outer: values } = this.outerReferences.within(outer, outerSchema, () => this.resolved(this.withStaticLeaves(() => this.plan(u, ctes))), pos, isLateralRows(u));
    if (output.length !== 1) {
      throw new SqlValidationError(
        `[INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN] Invalid subquery: Scalar subquery must return only one column, but got ${output.length}. Select one column in it`,
        pos, 'subquery', 'INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN');
    }
    const subquery: ScalarSubquery = { id: this.subqueryIds++, plan, type: typeOfField(output[0]) };
    if (values.length === 0) return { kind: 'scalarSubquery', subquery, pos };
    checkCorrelatedReferences(plan, pos);
    checkCorrelatedReferenceTypes(plan, pos, isLateralRows(u));
    return { kind: 'scalarSubquery', subquery: { ...subquery, correlated: true }, outer: values, pos };
  }

  /**
   * An EXISTS or IN subquery that Weir does not run where it is: planned as a correlated subquery
   * is (scalarSubquery) to apply Spark's checks of its outer references (checkCorrelatedReferences),
   * so that a query Spark refuses at analysis is refused with Spark's error class. A subquery
   * that Weir cannot plan so is left to the refusal of its place.
   */
  private checkPredicateSubquery(u: UnresolvedPlan, pos: SqlPosition | undefined, ctes: ReadonlyMap<string, LogicalPlan>, outer: ExpressionBuilder, outerSchema: Schema): void {
    // One over a stream is no static subquery: its refusal stands.
    const overStream = (n: string) => this.relations.some((r) => r.sourceName.toLowerCase() === n) || (ctes.has(n) && firstStreamingRelation(ctes.get(n)!) !== undefined);
    if (relationNames(u).some(overStream)) return;
    let planned: { planned: Resolved; outer: Expr[] };
    try {
      planned = this.outerReferences.within(outer, outerSchema, () => this.resolved(this.withStaticLeaves(() => this.plan(u, ctes))), pos);
    } catch {
      return;
    }
    if (planned.outer.length === 0) return;
    checkCorrelatedReferences(planned.planned.plan, pos);
    checkOffsetCorrelation(planned.planned.plan, pos);
    checkCorrelatedReferenceTypes(planned.planned.plan, pos);
  }

  /**
   * An EXISTS subquery of WHERE whose aggregates reducedExists drops (its rows are its input's):
   * Spark's CheckAnalysis has them still, and refuses one over both the outer row's column and
   * the subquery's own (AGGREGATE_FUNCTION_MIXED_OUTER_LOCAL_REFERENCES). `from` is the SELECT's
   * FROM, whose columns are the outer row's; where either does not plan, its own refusal stands.
   */
  private checkReducedExists(where: Expression, from: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan>): void {
    const dropped: Extract<Expression, { kind: 'Exists' }>[] = [];
    someExpression(where, (x) => {
      if (x.kind === 'Exists' && existsRows(x.plan) !== x.plan) dropped.push(x);
      return false;
    });
    if (dropped.length === 0 || dropped.some((x) => !this.readsNoStream(x.plan, ctes))) return;
    let outer: FromItem;
    try {
      outer = this.from(from, ctes);
    } catch {
      return;
    }
    const builder = this.builder(outer.qualifiers, outer.schema, outer.scope);
    for (const x of dropped) {
      let plan: LogicalPlan;
      try {
        plan = this.outerReferences.within(builder, outer.schema, () => this.resolved(this.withStaticLeaves(() => this.plan(x.plan, ctes))), lineColumn(x.pos)).planned.plan;
      } catch {
        continue;
      }
      checkMixedAggregates(plan, lineColumn(x.pos));
    }
  }

  /** FROM: the source, a CTE, a subquery, or a stream-static join. */
  private from(u: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan>): FromItem {
    switch (u.kind) {
      case 'UnresolvedRelation': {
        const name = u.multipartIdentifier.join('.');
        const cte = u.multipartIdentifier.length === 1 ? ctes.get(name.toLowerCase()) : undefined;
        if (cte) return { plan: cte, schema: this.resolved(cte).output, qualifiers: [name], scope: { metadataColumn: false } };
        const relation = this.relations.find((r) => r.sourceName.toLowerCase() === name.toLowerCase());
        if (relation) return { plan: relation, schema: relationOutput(relation), qualifiers: [relation.sourceName] };
        // A static table outside a join is a batch relation: with a stream beside it, Spark's Union rule.
        if (this.unionDepth > 0 && !this.staticLeaves && this.staticTables.some((t) => t.name.toLowerCase() === name.toLowerCase())) {
          throw unsupportedOperation('Union between streaming and batch DataFrames/Datasets is not supported', { position: lineColumn(u.pos) });
        }
        const table = this.staticTables.find((t) => t.name.toLowerCase() === name.toLowerCase());
        if (table && this.staticLeaves) {
          return { plan: { kind: 'StaticRelation', table, keys: [], columns: table.schema.map((f) => f.name) }, schema: table.schema, qualifiers: [table.name] };
        }
        if (table) {
          const written = staticTableName(table);
          throw new SqlValidationError(
            `FROM ${written}: ${written === 'VALUES' ? 'an inline table' : `${written} is a static table, which`} a streaming query reads by joining it with a stream (FROM ${this.relations[0].sourceName} JOIN ${written === 'VALUES' ? '(VALUES …) AS t(a, b)' : name} ON …), or in a subquery on the join's static side`,
            lineColumn(u.pos), 'FROM');
        }
        throw tableOrViewNotFound(name, this.relations, this.staticTables, lineColumn(u.pos), [...ctes.keys()]);
      }
      case 'SubqueryAlias': {
        const inner = ['UnresolvedRelation', 'Join', 'Unpivot', 'Pivot'].includes(u.child.kind) ? this.from(u.child, ctes) : this.subquery(u.child, ctes);
        return { ...inner, qualifiers: [...inner.qualifiers, u.alias] };
      }
      case 'Unpivot': {
        const child = this.from(u.child, ctes);
        const { plan, schema } = planUnpivot(u, { plan: child.plan, schema: child.schema, builder: (s) => this.builder(child.qualifiers, s, s === child.schema ? child.scope : undefined), resolved: (p) => this.resolved(p) });
        // The ids keep their qualifiers (Spark's Expand outputs the child's attributes).
        return { plan, schema, qualifiers: child.qualifiers, scope: { metadataColumn: false } };
      }
      case 'Join':
        return buildStreamStaticJoin(u, this.relations, this.staticTables, (scope) => {
          const builder = new ExpressionBuilder({ ...scope, metadataColumn: this.metadataColumn }, this.sql);
          this.outerReferences.attach(builder);
          // An uncorrelated scalar subquery in ON (an IN subquery there reads one: in-subquery-rows.ts);
          // a name of the join's sides is unresolved in it, as no operator runs a correlated one there.
          builder.scalarSubquery = (s, pos) => this.scalarSubquery(s, pos, ctes, new ExpressionBuilder({ qualifiers: new Set(), columns: new Set() }, this.sql), []);
          return builder;
        }, (side) => this.joinLeaf(side, ctes), this.staticLeaves);
      case 'OneRowRelation':
        // Spark's OneRowRelation: on a join's static side or in a CTE, a SELECT without FROM reads
        // one row of no columns, the row an inline table's rows are selected from.
        if (this.staticLeaves) return { plan: { kind: 'StaticRelation', table: VALUES_TABLE, keys: [], columns: [] }, schema: [], qualifiers: [] };
        throw new SqlValidationError(`A streaming query needs FROM ${this.relations.map((r) => r.sourceName).join(' or ')}`, lineColumn(u.pos), 'FROM');
      case 'Pivot': {
        const child = this.from(u.child, ctes);
        const { plan, schema } = planPivot(u, {
          plan: child.plan, schema: child.schema, builder: (s) => this.builder(child.qualifiers, s, s === child.schema ? child.scope : undefined), resolved: (p) => this.resolved(p),
          aggregate: (items, grouping, p, s) => buildAggregation({ items, grouping, distinct: false, pos: u.pos, batch: this.staticLeaves }, p, s, this.builder(child.qualifiers, s, s === child.schema ? child.scope : undefined)),
        });
        return { plan, schema, qualifiers: child.qualifiers, scope: { metadataColumn: false } };
      }
      case 'Aggregate': case 'Distinct': case 'Except': case 'Filter': case 'Generate': case 'Intersect': case 'Limit': case 'Offset':
      case 'Project': case 'Sort': case 'Union': case 'UnresolvedHaving': case 'UnresolvedSubqueryColumnAliases': case 'UnresolvedWith':
      case 'RepartitionByExpression':
      default:
        return this.subquery(u, ctes);
    }
  }

  /**
   * A predicate subquery over a static table among WHERE's conjuncts over a stream, as Spark's
   * RewritePredicateSubquery plans it: `x IN (SELECT c FROM <table> [WHERE …])` (`x` a column) a
   * LEFT SEMI join of the stream with the subquery on `x = c`, `x NOT IN (…)` the null-aware LEFT
   * ANTI join, `[NOT] EXISTS (SELECT … FROM <table> WHERE <correlated condition>)` a LEFT SEMI (or
   * ANTI) join on that condition; the other conjuncts stay WHERE. FROM may be the stream, a
   * subquery over it, or either joined with static tables (the semi join's left is then that
   * join). Each side's unqualified name is
   * qualified with its table, so a column both have (`k IN (SELECT k FROM t)`) is each side's, as
   * Spark resolves a subquery's names in its own table first. Any other subquery is left to the
   * expression builder, which refuses it.
   */
  private predicateSubqueryAsJoin(child: UnresolvedPlan, where: Expression): { child: UnresolvedPlan; where?: Expression } {
    const conjuncts = splitConjunctivePredicates(where);
    const named = namedRelation;
    const n = named(child);
    // FROM the stream by name, or (`outer`) a subquery over it, or either joined with static tables.
    const stream = n && this.relations.some((r) => r.sourceName.toLowerCase() === n.table.toLowerCase()) ? n : undefined;
    if (!stream && !this.correlationOuter(child)) return { child, where };
    // The subquery's table: a static table (`direct`, a join's static side as it is), or a CTE
    // over static tables (the SELECT's scope), with its columns.
    const staticOf = (u: UnresolvedPlan | undefined): { schema: Schema; qualifier: string; direct: boolean } | undefined => {
      const n = u && named(u);
      if (!n) return undefined;
      const table = this.staticTables.find((t) => t.name.toLowerCase() === n.table.toLowerCase());
      if (table) return { schema: table.schema, qualifier: n.qualifier, direct: true };
      const cte = this.ctes.get(n.table.toLowerCase());
      return cte && !firstStreamingRelation(cte) ? { schema: this.resolved(cte).output, qualifier: n.qualifier, direct: false } : undefined;
    };
    const qualified = (e: Expression, qualifier: string): Expression => (e.kind === 'UnresolvedAttribute' && e.nameParts.length === 1 ? { ...e, nameParts: [qualifier, e.nameParts[0]] } : e);
    type SemiJoin = Pick<Extract<UnresolvedPlan, { kind: 'Join' }>, 'joinType' | 'right' | 'condition' | 'nullAware' | 'inSubquery' | 'pos'>;
    /**
     * A LEFT SEMI (ANTI) join with a subquery's table on a condition over both sides, which
     * `condition` builds given how to read an expression of the subquery (its names of the table's
     * columns the table's, as Spark resolves a subquery's names in its own table first).
     */
    const tableJoin = (negated: boolean, table: UnresolvedPlan, t: { schema: Schema; qualifier: string; direct: boolean }, condition: (inner: (e: Expression) => Expression) => Expression | undefined, pos: Position): SemiJoin => {
      const has = (name: string) => t.schema.some((f) => f.name.toLowerCase() === name.toLowerCase());
      const on = condition((e) => mapExpression(e, (x) => (x.kind === 'UnresolvedAttribute' && x.nameParts.length === 1 && has(x.nameParts[0]) ? qualified(x, t.qualifier) : undefined)));
      const joinType = negated ? 'LeftAnti' : 'LeftSemi';
      if (stream && t.direct) return { joinType, right: table, ...(on ? { condition: on } : {}), pos };
      // Over a join the outer side may have a column of the table's name too (the same table
      // joined under another alias), which a stream-static pair cannot tell apart: the table's
      // columns are renamed for this join, and the condition reads them by those names.
      const alias = `${EXISTS_SUBQUERY}${this.correlatedIds++}`;
      const names = t.schema.map((_, i) => `${alias}_${i}`);
      const renamed = on && mapExpression(on, (x) => {
        if (x.kind !== 'UnresolvedAttribute' || x.nameParts.length !== 2 || x.nameParts[0].toLowerCase() !== t.qualifier.toLowerCase()) return undefined;
        const i = t.schema.findIndex((f) => f.name.toLowerCase() === x.nameParts[1].toLowerCase());
        return i < 0 ? undefined : { ...x, nameParts: [alias, names[i]] };
      });
      const right: UnresolvedPlan = {
        kind: 'SubqueryAlias', alias, pos: table.pos,
        child: { kind: 'UnresolvedSubqueryColumnAliases', outputColumnNames: names, child: selectAll(table, table.pos), pos: table.pos },
      };
      return { joinType, right, ...(renamed ? { condition: renamed } : {}), pos };
    };
    /**
     * Whether an expression of a subquery over a table of these columns reads a column of the
     * outer query: the table's name, once an alias hides it, is the outer query's where that
     * reads a relation by it (Scope.hidden).
     */
    const outerNames = fromQualifiers(child);
    const readsOuterOf = (e: Expression, t: { schema: Schema; qualifier: string }, table: string) => someExpression(e, (x) => {
      if (x.kind !== 'UnresolvedAttribute') return false;
      const first = x.nameParts[0].toLowerCase();
      const hidden = first === table.toLowerCase() && t.qualifier.toLowerCase() !== first && outerNames.has(first);
      if (x.nameParts.length > 1) return first !== t.qualifier.toLowerCase() && (first !== table.toLowerCase() || hidden);
      return !t.schema.some((f) => f.name.toLowerCase() === first);
    });
    const asJoin = (c: Expression): SemiJoin | undefined => {
      const negated = c.kind === 'Not';
      const p = c.kind === 'Not' ? c.child : c;
      if (p.kind === 'Exists') {
        // The subquery's WHERE is the join's condition.
        const q = p.plan;
        if (q.kind !== 'Project') {
          const query = this.uncorrelatedQuery(q);
          return query && tableJoin(negated, query.from, query, () => undefined, c.pos);
        }
        const from = q.child.kind === 'Filter' ? q.child.child : q.child;
        // Over a stream the join is a join of streams, under their rules (a time range; NOT
        // EXISTS is a LEFT ANTI join, which Spark refuses with a stream on the right).
        const n = named(from);
        const other = stream && n && this.relations.find((r) => r.sourceName.toLowerCase() === n.table.toLowerCase());
        // A static table or CTE by name, or another stream, with a WHERE; any other relation of
        // static data (an inline table, range(), a subquery), or an uncorrelated EXISTS (no WHERE:
        // a semi join without a condition), as Spark's RewritePredicateSubquery takes any relation.
        const byName = q.child.kind === 'Filter' ? staticOf(from) ?? (other ? { schema: relationOutput(other), qualifier: n.qualifier, direct: true } : undefined) : undefined;
        const where = q.child.kind === 'Filter' ? q.child.condition : undefined;
        const nested = byName && !other && where ? this.nestedSubqueriesFirst(from, where) : undefined;
        if (nested) return tableJoin(negated, nested.from, nested, (inner) => nested.where && inner(nested.where), c.pos);
        const joined = from.kind === 'Join' && where ? this.joinAsOneRelation(from, where) : undefined;
        if (joined) return tableJoin(negated, joined.from, joined, () => joined.where, c.pos);
        const t = byName ?? this.staticRelationOf(from);
        if (!t) return undefined;
        return tableJoin(negated, from, t, (inner) => where && inner(where), c.pos);
      }
      if (p.kind !== 'InSubquery' || !p.values.every((v) => v.kind === 'UnresolvedAttribute')) return undefined;
      // Of several values, a star's columns are counted where the join's side renames them.
      const items = selectItems(p.query);
      if (!items && p.values.length === 1) return undefined;
      if (items && items.length !== p.values.length) throw inSubqueryLengthMismatch(p, items);
      const query = inRows(p.query);
      const values = p.values.map((v) => (stream ? qualified(v, stream.qualifier) : v));
      const value = values[0];
      const grouped = values.length === 1 ? this.correlatedAggregateInJoin(query, value, negated, staticOf, p.pos) : undefined;
      if (grouped) return { ...grouped, pos: c.pos };
      // Correlated (`x IN (SELECT c FROM t WHERE t.k = e.k)`): Spark's rewrite joins the table on
      // `x = c` and the subquery's WHERE; NOT IN on `(x = c OR isnull(x = c))` and the WHERE, a
      // NULL comparison keeping no row only among the rows the WHERE pairs it with. `(a, b)`
      // joins on each pair so.
      const table = query.kind === 'Project' && query.child.kind === 'Filter' ? query.child.child : undefined;
      const t = table && staticOf(table);
      if (items && query.kind === 'Project' && query.child.kind === 'Filter' && table && t && readsOuterOf(query.child.condition, t, named(table)!.table)) {
        const where = query.child.condition;
        return tableJoin(negated, table, t, (inner) => {
          const pairs = values.map((v, i): Expression => {
            const equal: Expression = { kind: 'BinaryOperator', op: 'EqualTo', left: v, right: inner(items[i].kind === 'Alias' ? items[i].child : items[i]), pos: p.pos };
            return negated ? { kind: 'BinaryOperator', op: 'Or', left: equal, right: { kind: 'IsNull', child: equal, pos: p.pos }, pos: p.pos } : equal;
          });
          return conjunctionOf([...pairs, inner(where)]);
        }, c.pos);
      }
      // `c FROM t`: the table itself; any other query over static tables (a WHERE, an expression,
      // GROUP BY … HAVING, DISTINCT, a UNION), as the join's static side, which runs it as its
      // batch plan, its one column named for the join.
      // Over a join or a subquery the outer column is left as written, to be resolved there as
      // WHERE would; the table's column is then renamed, so that a name both have is the outer's.
      // `(a, b) IN (…)` joins on each column pair (`a = x AND b = y`); `(a, b) NOT IN (…)` is
      // the anti join on `(a = x OR isnull(a = x)) AND (b = y OR isnull(b = y))`, as Spark's
      // rewrite: a row is kept only where no subquery row is equal or unknown on every pair.
      const plain = stream !== undefined && query.kind === 'Project' && query.projectList.every((e) => e.kind === 'UnresolvedAttribute') && staticOf(query.child)?.direct === true;
      // Its tables may be the outer query's CTEs over static tables (this.ctes: the SELECT's scope).
      if (!plain && !this.readsNoStream(query, this.ctes)) return undefined;
      // A query that reads the outer row in another shape (a LIMIT, a join, a set operation) is
      // no join's side: it is answered per outer row (in-subquery-rows.ts).
      if (!plain && !this.uncorrelatedQuery(query)) return undefined;
      const names = values.length === 1 ? [IN_SUBQUERY_VALUE] : values.map((_, i) => `${IN_SUBQUERY_VALUE}_${i}`);
      const right: UnresolvedPlan = plain ? query.child : {
        kind: 'SubqueryAlias', alias: IN_SUBQUERY, pos: query.pos,
        child: { kind: 'UnresolvedSubqueryColumnAliases', outputColumnNames: names, child: query, pos: query.pos },
      };
      const pairs = values.map((left, i): Expression => ({
        kind: 'BinaryOperator', op: 'EqualTo', pos: p.pos, left,
        right: plain ? qualified(query.projectList[i], named(query.child)!.qualifier) : { kind: 'UnresolvedAttribute', nameParts: [IN_SUBQUERY, names[i]], pos: p.pos },
      }));
      if (values.length === 1) return { joinType: negated ? 'LeftAnti' : 'LeftSemi', right, condition: pairs[0], pos: c.pos, inSubquery: true, ...(negated ? { nullAware: true } : {}) };
      const matched = negated ? pairs.map((e): Expression => ({ kind: 'BinaryOperator', op: 'Or', left: e, right: { kind: 'IsNull', child: e, pos: p.pos }, pos: p.pos })) : pairs;
      return { joinType: negated ? 'LeftAnti' : 'LeftSemi', right, condition: conjunctionOf(matched), pos: c.pos, inSubquery: true };
    };
    // Each such conjunct is its own join, in the order written, each over the joins before it
    // (Spark's rewrite folds them the same way); a semi or anti join outputs its left side's
    // columns only, so the stream's qualifier names them all the way up.
    let joined = child;
    const rest: Expression[] = [];
    for (const c of conjuncts) {
      const join = asJoin(c);
      if (join) joined = { kind: 'Join', left: joined, ...join };
      else rest.push(c);
    }
    return { child: joined, where: rest.length ? conjunctionOf(rest) : undefined };
  }

  /**
   * `[NOT] EXISTS (SELECT … FROM f WHERE <inner> = <outer> [AND …] GROUP BY g HAVING h)`, a
   * correlated EXISTS over an aggregation with HAVING, as Spark's DecorrelateInnerQuery takes it:
   * the aggregation grouped by the correlated inner expressions too, uncorrelated, as a derived
   * table, and the EXISTS over it correlated by those equalities alone: `EXISTS (SELECT 1 FROM
   * (SELECT …, <inner> AS k0 FROM f WHERE <the rest> GROUP BY g, <inner> HAVING h) s WHERE s.k0 =
   * <outer>)`, which an EXISTS over a subquery joins. Left as it is where a correlated conjunct
   * is no such equality, or a relation of f is not known by name.
   */
  private groupedExistsDecorrelated(e: Expression): Expression {
    return mapExpression(e, (x) => {
      if (x.kind !== 'Exists' || x.plan.kind !== 'UnresolvedHaving' || x.plan.child.kind !== 'Aggregate' || x.plan.child.child.kind !== 'Filter') return undefined;
      const having = x.plan;
      const aggregate = x.plan.child;
      const filter = x.plan.child.child;
      if (aggregate.groupingExpressions.some((g) => g.kind === 'GroupingAnalytics')) return undefined;
      // The subquery's own names: its relations' qualifiers and columns (Spark resolves a name there first).
      const qualifiers = new Set<string>();
      const columns = new Set<string>();
      for (const { table, qualifier } of fromLeaves(filter.child)) {
        if (table === undefined) return undefined;
        const cte = this.ctes.get(table.toLowerCase());
        const static_ = !cte ? this.staticTables.find((t) => t.name.toLowerCase() === table.toLowerCase()) : undefined;
        const schema = cte ? this.resolved(cte).output : static_?.schema;
        if (!schema) return undefined;
        qualifiers.add(qualifier.toLowerCase());
        schema.forEach((f) => columns.add(f.name.toLowerCase()));
      }
      const isInner = (nameParts: readonly string[]) => (nameParts.length > 1 ? qualifiers.has(nameParts[0].toLowerCase()) : columns.has(nameParts[0].toLowerCase()));
      const split = correlatedEqualities(filter.condition, isInner);
      // HAVING reading the outer row (beside its own EXISTS over aggregates) is left as it is.
      if (!split || split.keys.length === 0 || sidesRead(having.havingCondition, isInner).outer) return undefined;
      const { keys, rest } = split;
      const pos = x.pos;
      const alias = `${EXISTS_SUBQUERY}_having${this.correlatedIds++}`;
      const names = keys.map((_, i) => `${alias}_k${i}`);
      const grouped: UnresolvedPlan = {
        ...having,
        child: {
          ...aggregate,
          groupingExpressions: [...aggregate.groupingExpressions, ...keys.map((k) => k.inner)],
          aggregateExpressions: [...aggregate.aggregateExpressions, ...keys.map((k, i): Expression => ({ kind: 'Alias', child: k.inner, name: names[i], pos }))],
          child: rest.length ? { ...filter, condition: conjunctionOf(rest) } : filter.child,
        },
      };
      const condition = conjunctionOf(keys.map((k, i): Expression => ({ kind: 'BinaryOperator', op: 'EqualTo', left: { kind: 'UnresolvedAttribute', nameParts: [alias, names[i]], pos }, right: k.outer, pos })));
      const one: Expression = { kind: 'Literal', value: 1n, dataType: IntegerType, pos };
      const plan: UnresolvedPlan = { kind: 'Project', projectList: [one], pos, child: { kind: 'Filter', condition, pos, child: { kind: 'SubqueryAlias', alias, child: grouped, pos } } };
      return { ...x, plan };
    });
  }

  /**
   * `x [NOT] IN (SELECT <item> FROM <static table> WHERE <inner> = <outer> [AND …] GROUP BY g
   * [HAVING h])`, a correlated IN over an aggregation, as Spark decorrelates it (its
   * DecorrelateInnerQuery pulls an equality up through an Aggregate by grouping by its inner side
   * too): the subquery's aggregation grouped by g and the correlated inner expressions, joined on
   * `x = <item>` (`(x = <item> OR isnull(x = <item>))` for NOT IN, null-aware among the rows the
   * correlation pairs) and each `outer = inner`. Undefined for another shape, or where a
   * correlated conjunct is not such an equality.
   */
  private correlatedAggregateInJoin(query: UnresolvedPlan, value: Expression, negated: boolean, staticOf: (u: UnresolvedPlan) => { schema: Schema } | undefined, pos: Position):
    Pick<Extract<UnresolvedPlan, { kind: 'Join' }>, 'joinType' | 'right' | 'condition'> | undefined {
    const having = query.kind === 'UnresolvedHaving' ? query.havingCondition : undefined;
    const aggregate = query.kind === 'UnresolvedHaving' ? query.child : query;
    if (aggregate.kind !== 'Aggregate' || aggregate.child.kind !== 'Filter' || aggregate.aggregateExpressions.length !== 1 || aggregate.aggregateExpressions[0].kind === 'UnresolvedStar') return undefined;
    const table = aggregate.child.child;
    const n = namedRelation(table);
    const t = n && staticOf(table);
    if (!n || !t) return undefined;
    // Spark resolves a name in the subquery's own table first, then in the outer query.
    const columns = new Set(t.schema.map((f) => f.name.toLowerCase()));
    const isInner = (nameParts: readonly string[]) => {
      const first = nameParts[0].toLowerCase();
      return nameParts.length > 1 ? first === n.qualifier.toLowerCase() || first === n.table.toLowerCase() : columns.has(first);
    };
    const split = correlatedEqualities(aggregate.child.condition, isInner);
    if (!split || split.keys.length === 0) return undefined;
    const { keys, rest } = split;
    const alias = `${IN_SUBQUERY}${this.correlatedIds++}`;
    const names = [`${alias}_v`, ...keys.map((_, i) => `${alias}_k${i}`)];
    const grouped: UnresolvedPlan = {
      ...aggregate,
      groupingExpressions: [...aggregate.groupingExpressions, ...keys.map((k) => k.inner)],
      aggregateExpressions: [aggregate.aggregateExpressions[0], ...keys.map((k, i): Expression => ({ kind: 'Alias', child: k.inner, name: names[i + 1], pos }))],
      child: rest.length ? { ...aggregate.child, condition: conjunctionOf(rest) } : table,
    };
    const right: UnresolvedPlan = {
      kind: 'SubqueryAlias', alias, pos: query.pos,
      child: { kind: 'UnresolvedSubqueryColumnAliases', outputColumnNames: names, child: having ? { ...query, child: grouped } as UnresolvedPlan : grouped, pos: query.pos },
    };
    const column = (name: string): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [alias, name], pos });
    const equal: Expression = { kind: 'BinaryOperator', op: 'EqualTo', left: value, right: column(names[0]), pos };
    const matched: Expression = negated ? { kind: 'BinaryOperator', op: 'Or', left: equal, right: { kind: 'IsNull', child: equal, pos }, pos } : equal;
    const correlation = keys.map((k, i): Expression => ({ kind: 'BinaryOperator', op: 'EqualTo', left: k.outer, right: column(names[i + 1]), pos }));
    return { joinType: negated ? 'LeftAnti' : 'LeftSemi', right, condition: conjunctionOf([matched, ...correlation]) };
  }

  /**
   * An EXISTS or IN subquery left in a join's ON condition (an outer, semi or anti join's, or an
   * inner join's below the top one), as Spark's RewritePredicateSubquery plans it: an existence
   * join of the one side whose columns it reads (the left where it reads neither), whose boolean
   * column the condition reads. Here that side becomes a derived table of its rows with the
   * subquery's value as a hidden column (a select item's EXISTS or IN, predicateSubqueriesAsCounts),
   * under the side's own name, so the condition's other names read it as before. A subquery that
   * reads both sides is refused as Spark refuses it; a side that is itself a join is left as it is.
   */
  private predicateSubqueriesInJoinConditions(u: UnresolvedPlan): UnresolvedPlan {
    if (u.kind !== 'Join') return u;
    const sides = { left: this.predicateSubqueriesInJoinConditions(u.left), right: this.predicateSubqueriesInJoinConditions(u.right) };
    const subquery = (x: Expression) => x.kind === 'Exists' || x.kind === 'InSubquery';
    if (!u.condition || !someExpression(u.condition, subquery)) return { ...u, ...sides };
    // The side with the subquery's value as one more column, and how the condition reads it;
    // undefined where it does not resolve so (it reads the other side).
    const withValue = (side: UnresolvedPlan, x: Expression): { side: UnresolvedPlan; value: Expression } | undefined => {
      const named = side.kind === 'SubqueryAlias' ? side.alias : side.kind === 'UnresolvedRelation' && side.multipartIdentifier.length === 1 ? side.multipartIdentifier[0] : undefined;
      if (named === undefined) return undefined;
      const column = `${HIDDEN_SCALAR_SUBQUERY}_on${this.correlatedIds++}`;
      const project: UnresolvedPlan = { kind: 'Project', projectList: [{ kind: 'UnresolvedStar', pos: x.pos }, { kind: 'Alias', child: x, name: column, pos: x.pos }], child: side, pos: side.pos };
      const wrapped: UnresolvedPlan = { kind: 'SubqueryAlias', alias: named, child: project, pos: side.pos };
      try {
        // A side of static data is planned as a join's static side is.
        if (this.readsNoStream(side, this.ctes)) this.withStaticLeaves(() => this.plan(wrapped, this.ctes));
        else this.plan(wrapped, this.ctes);
      } catch (e) {
        if (e instanceof SqlValidationError && e.errorClass?.startsWith('UNRESOLVED_COLUMN')) return undefined;
        throw e;
      }
      return { side: wrapped, value: { kind: 'UnresolvedAttribute', nameParts: [named, column], pos: x.pos } };
    };
    const condition = mapExpression(u.condition, (x) => {
      if (!subquery(x)) return undefined;
      const left = withValue(sides.left, x);
      const right = left ? undefined : withValue(sides.right, x);
      const placed = left ?? right;
      if (placed) {
        sides[left ? 'left' : 'right'] = placed.side;
        return placed.value;
      }
      // Neither side alone resolves it: one that resolves over both reads both.
      const both: UnresolvedPlan = { kind: 'Project', projectList: [x], child: { kind: 'Join', joinType: 'Cross', left: sides.left, right: sides.right, pos: u.pos }, pos: u.pos };
      try {
        this.plan(both, this.ctes);
      } catch {
        return undefined;
      }
      throw subqueryReadingBothSides(x);
    });
    return { ...u, ...sides, condition };
  }

  /**
   * An inner join's ON subquery that reads both of its sides (`ON x1 = y1 AND EXISTS (SELECT …
   * WHERE z2 = x2 AND z2 = y2)`), refused as Spark's RewritePredicateSubquery refuses it: it puts
   * a join condition's subquery on one side. Only a subquery that neither side alone resolves
   * (each UNRESOLVED_COLUMN) and the two together do is refused; the rest are moved to WHERE
   * (subqueryJoinConditionsAsWhere).
   */
  private refuseSubqueriesReadingBothSides(join: Extract<UnresolvedPlan, { kind: 'Join' }>): void {
    if (join.joinType !== 'Inner' || !join.condition) return;
    // Whether the subquery resolves as a select item over `side`; undefined where planning it fails otherwise.
    const resolvesOver = (side: UnresolvedPlan, x: Expression): boolean | undefined => {
      const query: UnresolvedPlan = { kind: 'Project', projectList: [x], child: side, pos: join.pos };
      try {
        if (this.readsNoStream(side, this.ctes)) this.withStaticLeaves(() => this.plan(query, this.ctes));
        else this.plan(query, this.ctes);
        return true;
      } catch (e) {
        return e instanceof SqlValidationError && e.errorClass?.startsWith('UNRESOLVED_COLUMN') ? false : undefined;
      }
    };
    someExpression(join.condition, (x) => {
      if (x.kind !== 'Exists' && x.kind !== 'InSubquery') return false;
      if (resolvesOver(join.left, x) !== false || resolvesOver(join.right, x) !== false) return false;
      if (resolvesOver({ ...join, joinType: 'Cross', condition: undefined }, x) === true) throw subqueryReadingBothSides(x);
      return false;
    });
  }

  /**
   * [NOT] EXISTS and IN subqueries outside WHERE's conjuncts (the select list, under an OR), which
   * Spark's RewritePredicateSubquery makes an existence join: here the counts of the subquery's
   * rows that decide it, scalar subqueries (correlated ones joined as RewriteCorrelatedScalarSubquery
   * joins them, a count over no rows 0). EXISTS is count(*) > 0; `x IN (SELECT c …)` is true where
   * a row has c = x, else NULL where x is NULL and there is a row or a row's c is NULL, else false.
   * A subquery of another shape than `SELECT … FROM … [WHERE …]` is left as it is, and refused.
   */
  private predicateSubqueriesAsCounts(e: Expression, outer: UnresolvedPlan): Expression {
    const pos = e.pos;
    const literal = (value: bigint | boolean | null, dataType: DataType): Expression => ({ kind: 'Literal', value, dataType, pos });
    // (SELECT count(*) FROM <its FROM> WHERE <its WHERE> [AND extra]) > 0
    // DISTINCT changes no count's being above 0.
    const rows = (q: UnresolvedPlan): UnresolvedPlan => (q.kind === 'Distinct' ? q.child : q);
    const any = (q0: UnresolvedPlan, extra?: Expression): Expression | undefined => {
      const q = rows(q0);
      // Over a stream it stays the subquery it is, refused as such.
      if (q.kind !== 'Project' || q.child.kind === 'OneRowRelation' || !this.readsNoStream(q, this.ctes)) return undefined;
      const where = q.child.kind === 'Filter' ? q.child.condition : undefined;
      const from = q.child.kind === 'Filter' ? q.child.child : q.child;
      const condition = where && extra ? conjunctionOf([where, extra]) : where ?? extra;
      const count: Expression = { kind: 'UnresolvedFunction', nameParts: ['count'], arguments: [literal(1n, IntegerType)], isDistinct: false, pos };
      const plan: UnresolvedPlan = { kind: 'Project', projectList: [count], child: condition ? { kind: 'Filter', condition, child: from, pos } : from, pos };
      return { kind: 'BinaryOperator', op: 'GreaterThan', left: { kind: 'ScalarSubquery', plan, pos }, right: literal(0n, LongType), pos };
    };
    // Another shape (a LIMIT, a set operation, a star, more than three values) over static data:
    // the scalar subquery over its rows (in-subquery-rows.ts).
    const overRows = (x: Extract<Expression, { kind: 'InSubquery' }>): Expression | undefined => {
      if (!this.readsNoStream(x.query, this.ctes)) return undefined;
      const items = selectItems(x.query);
      if (items && items.length !== x.values.length) throw inSubqueryLengthMismatch(x, items);
      return inSubqueryOverRows(x.values.map((v) => this.outerQualified(v, outer)), x.query, x.pos);
    };
    const inAsCounts = (x: Extract<Expression, { kind: 'InSubquery' }>): Expression | undefined => {
      const query = rows(x.query);
      const items = selectItems(query);
      if (query.kind !== 'Project' || items?.length !== x.values.length) return undefined;
      // An aggregating select list (one row over all of FROM's) or an item that reads an earlier
      // item's alias (a lateral column alias) means nothing as a condition on FROM's rows: such a
      // query is answered over its own rows.
      if (items.some(containsAggregate) || readsLateralAlias(items)) return undefined;
      // A relation the outer query reads by the same name (its table again, neither aliased)
      // would take the outer value's qualified name inside the count as its own column: such an
      // IN is answered over the subquery's rows instead, where the value is the outer row's.
      const inner = fromQualifiers(query.child.kind === 'Filter' ? query.child.child : query.child);
      if ([...fromQualifiers(outer)].some((q) => inner.has(q))) return undefined;
      // Each value as the outer query reads it: inside the count, a name of the subquery's table would be its column.
      const pairs = x.values.map((value, i) => ({ item: items[i].kind === 'Alias' ? items[i].child : items[i], value: this.outerQualified(value, outer) }));
      const equal = (p: (typeof pairs)[number]): Expression => ({ kind: 'BinaryOperator', op: 'EqualTo', left: p.item, right: p.value, pos });
      // `(a, b) IN (…)` is true where a row is equal on every pair; else NULL where a row is equal
      // or unknown on every pair: each pair equal, or its row's side NULL, or the outer value NULL
      // (outside the count), so that every count is correlated by equalities only.
      const matched = any(query, conjunctionOf(pairs.map(equal)));
      if (!matched || pairs.length > 3) return undefined;
      const unknowns: Expression[] = [];
      const ways = (i: number, inside: Expression[], outside: Expression[]): void => {
        if (i < pairs.length) {
          ways(i + 1, [...inside, equal(pairs[i])], outside);
          ways(i + 1, [...inside, { kind: 'IsNull', child: pairs[i].item, pos }], outside);
          ways(i + 1, inside, [...outside, { kind: 'IsNull', child: pairs[i].value, pos }]);
          return;
        }
        // Every pair equal is `matched`.
        if (outside.length === 0 && inside.every((e) => e.kind !== 'IsNull')) return;
        const some = any(query, inside.length ? conjunctionOf(inside) : undefined);
        if (some) unknowns.push(conjunctionOf([...outside, some]));
      };
      ways(0, [], []);
      if (unknowns.length !== 3 ** pairs.length - 1) return undefined;
      const unknown = unknowns.reduce((l, r): Expression => ({ kind: 'BinaryOperator', op: 'Or', left: l, right: r, pos }));
      return { kind: 'CaseWhen', branches: [[matched, literal(true, BooleanType)], [unknown, literal(null, BooleanType)]], elseValue: literal(false, BooleanType), pos };
    };
    // EXISTS over a set operation of static data that reads the outer row (its planning alone
    // finds a name unresolved): refused as Spark refuses it.
    const overSetOperation = (q: UnresolvedPlan): undefined => {
      if ((q.kind !== 'Union' && q.kind !== 'Intersect' && q.kind !== 'Except') || !this.readsNoStream(q, this.ctes)) return undefined;
      try {
        this.withStaticLeaves(() => this.plan(selectAll({ kind: 'SubqueryAlias', alias: EXISTS_SUBQUERY, child: q, pos: q.pos }, q.pos), this.ctes));
      } catch (err) {
        if (err instanceof SqlValidationError && err.errorClass?.startsWith('UNRESOLVED_COLUMN')) throw outerReferenceInSetOperation(q);
      }
      return undefined;
    };
    return mapExpression(e, (x) => (x.kind === 'InSubquery' ? inAsCounts(x) ?? overRows(x) : x.kind === 'Exists' ? any(x.plan) ?? overSetOperation(x.plan) : undefined));
  }

  /**
   * An expression of the outer query with each unqualified name qualified by the relation of
   * FROM that has the column (a stream, a static table or a CTE, by its alias), so that it still
   * reads the outer row where it is put inside a subquery over a table of a column of that name.
   */
  private outerQualified(e: Expression, from: UnresolvedPlan): Expression {
    const owners = fromLeaves(from).flatMap(({ table: name, qualifier }) => {
      if (name === undefined) return [];
      const cte = this.ctes.get(name.toLowerCase());
      const relation = !cte ? this.relations.find((r) => r.sourceName.toLowerCase() === name.toLowerCase()) : undefined;
      const table = !cte ? this.staticTables.find((x) => x.name.toLowerCase() === name.toLowerCase()) : undefined;
      const columns = cte ? this.resolved(cte).output : relation ? relationOutput(relation) : table?.schema;
      return columns ? [{ qualifier, columns }] : [];
    });
    return mapExpression(e, (x) => {
      if (x.kind !== 'UnresolvedAttribute' || x.nameParts.length !== 1) return undefined;
      const owner = owners.find((o) => o.columns.some((f) => f.name.toLowerCase() === x.nameParts[0].toLowerCase()));
      return owner ? { ...x, nameParts: [owner.qualifier, x.nameParts[0]] } : undefined;
    });
  }

  /**
   * Spark's RewriteCorrelatedScalarSubquery, for a scalar subquery over a static table in the select
   * list or WHERE of a SELECT from a stream (or its join with static tables), correlated by
   * equalities of its table's columns and the outer query's (`(SELECT max(weight) FROM regions r WHERE r.code = e.region AND …)`): the stream LEFT
   * JOIN its aggregation grouped by those columns on the equalities, the subquery read as the
   * joined value. A stream row no group matches reads the subquery's value over no rows (Spark's
   * handling of the count bug: `count(*)` is 0 there, not NULL), an uncorrelated scalar subquery of
   * it over no rows. The joined columns are hidden (`__scalar_subquery…`, out of `*`).
   */
  private correlatedScalarSubqueriesAsJoins(child: UnresolvedPlan, items: readonly Expression[], where: Expression | undefined, grouping: readonly Expression[] = []):
    { child: UnresolvedPlan; items: readonly Expression[]; where?: Expression; grouping: readonly Expression[] } {
    const outer = this.correlationOuter(child);
    if (!outer) return { child, items, where, grouping };
    let joined = child;
    // A subquery written twice (a grouping expression and the select item that repeats it) is
    // one join, read by both: the item is then the grouping expression, as Spark's are alike.
    const joins = new Map<string, Expression>();
    const text = writtenText;
    const rewrite = (e: Expression): Expression => mapExpression(e, (x) => {
      if (x.kind !== 'ScalarSubquery') return undefined;
      const oneRow = outerRowSubquery(x.plan);
      if (oneRow) return oneRow.value;
      const key = text(x.plan);
      const seen = joins.get(key);
      if (seen) return seen;
      const r = this.correlatedScalarSubquery(x.plan, outer);
      if (!r) return undefined;
      const value = joinedValue(x, r);
      joins.set(key, value);
      return value;
    });
    const joinedValue = (x: Extract<Expression, { kind: 'ScalarSubquery' }>, r: NonNullable<ReturnType<QueryPlanner['correlatedScalarSubquery']>>): Expression => {
      const name = `${HIDDEN_SCALAR_SUBQUERY}${this.correlatedIds++}`;
      const col = (c: string): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [name, `${name}_${c}`], pos: x.pos });
      const aggregate: UnresolvedPlan = {
        kind: 'Aggregate', pos: x.pos, groupingExpressions: r.keys.map((k) => k.inner),
        aggregateExpressions: [
          ...r.keys.map((k, i): Expression => ({ kind: 'Alias', child: k.inner, name: `${name}_k${i}`, pos: x.pos })),
          { kind: 'Alias', child: r.value, name: `${name}_v`, pos: x.pos },
          { kind: 'Alias', child: { kind: 'Literal', value: true, dataType: BooleanType, pos: x.pos }, name: `${name}_m`, pos: x.pos },
        ],
        child: r.rest ? { kind: 'Filter', condition: r.rest, child: r.table, pos: x.pos } : r.table,
      };
      const grouped: UnresolvedPlan = r.having ? { kind: 'UnresolvedHaving', havingCondition: r.having, child: aggregate, pos: x.pos } : aggregate;
      const condition = conjunctionOf(r.keys.map((k, i): Expression => ({ kind: 'BinaryOperator', op: 'EqualTo', left: k.outer, right: col(`k${i}`), pos: x.pos })));
      joined = { kind: 'Join', joinType: 'LeftOuter', left: joined, right: { kind: 'SubqueryAlias', alias: name, child: grouped, pos: x.pos }, condition, pos: x.pos };
      // A GROUP BY subquery over no rows has no row: NULL, the LEFT JOIN's.
      if (r.grouping) return col('v');
      // No group matched: the subquery's value over no rows.
      const empty: Expression = { kind: 'ScalarSubquery', plan: { kind: 'Project', projectList: [r.value], child: { kind: 'Filter', condition: { kind: 'Literal', value: false, dataType: BooleanType, pos: x.pos }, child: r.table, pos: x.pos }, pos: x.pos }, pos: x.pos };
      return { kind: 'CaseWhen', branches: [[{ kind: 'IsNull', child: col('m'), pos: x.pos }, empty]], elseValue: col('v'), pos: x.pos };
    };
    // Unaliased, the column is named as Spark names a correlated scalar subquery: scalarsubquery(<outer columns>).
    const named = items.map((item) => {
      const out = rewrite(item);
      const oneRow = item.kind === 'ScalarSubquery' ? outerRowSubquery(item.plan) : undefined;
      if (oneRow) return { kind: 'Alias', child: out, name: `scalarsubquery(${oneRow.outer.join(', ')})`, pos: item.pos } as Expression;
      if (item.kind !== 'ScalarSubquery' || !joins.has(text(item.plan))) return out;
      return { kind: 'Alias', child: out, name: `scalarsubquery(${this.correlatedScalarSubquery(item.plan, outer)!.keys.map((k) => expressionSql(k.outer).split('.').pop()).join(', ')})`, pos: item.pos } as Expression;
    });
    const filtered = where && rewrite(where);
    const grouped = grouping.map(rewrite);
    return { child: joined, items: named, where: filtered, grouping: grouped };
  }

  /**
   * The names a correlated scalar subquery may read of the SELECT's FROM: the stream's, and those
   * of the tables a join in FROM reads with it; a subquery's (over the stream, or a static table
   * joined with it) by its alias, as its columns are not known before it is planned. Undefined
   * where FROM is not the one stream (or a subquery over it) joined with static tables.
   */
  private correlationOuter(child: UnresolvedPlan): { qualifiers: Set<string>; columns: Set<string> } | undefined {
    const outer = { qualifiers: new Set<string>(), columns: new Set<string>() };
    let streams = 0;
    const leaves = (u: UnresolvedPlan): boolean => {
      if (u.kind === 'Join') return leaves(u.left) && leaves(u.right);
      if (u.kind === 'SubqueryAlias' && u.child.kind !== 'UnresolvedRelation') {
        outer.qualifiers.add(u.alias.toLowerCase());
        if (!this.readsStaticTablesOnly(u.child, this.ctes)) streams++;
        return true;
      }
      const t = namedRelation(u);
      if (!t) return false;
      const cte = this.ctes.get(t.table.toLowerCase());
      const relation = !cte ? this.relations.find((r) => r.sourceName.toLowerCase() === t.table.toLowerCase()) : undefined;
      const table = !cte ? this.staticTables.find((x) => x.name.toLowerCase() === t.table.toLowerCase()) : undefined;
      if (!cte && !relation && !table) return false;
      if (relation || (cte && firstStreamingRelation(cte))) streams++;
      [t.table, t.qualifier].forEach((q) => outer.qualifiers.add(q.toLowerCase()));
      (cte ? this.resolved(cte).output : relation ? relationOutput(relation) : table!.schema).forEach((f) => outer.columns.add(f.name.toLowerCase()));
      return true;
    };
    // A batch plan (a join's static side) reads no stream; a streaming query reads one here.
    return leaves(child) && streams === (this.staticLeaves ? 0 : 1) ? outer : undefined;
  }

  /**
   * HAVING with a correlated scalar subquery over a static table (`GROUP BY region HAVING count(*)
   * > (SELECT max(weight) FROM regions r WHERE r.code = e.region)`), as Spark's
   * RewriteCorrelatedScalarSubquery plans it: the subquery's aggregation LEFT JOINed above the
   * streaming Aggregate, the condition a Filter over the join. Written here as that query: `SELECT *
   * FROM (<the aggregation, HAVING's other conjuncts, and each aggregate and column the moved
   * conjuncts read as a hidden column>) h WHERE <those conjuncts over h>`, whose WHERE the rewrite
   * into a join then takes. The streaming rules of a stream-static join above an aggregation are
   * the analyzer's, as for that query written out (Append needs the aggregation's watermark).
   * Undefined where no conjunct has such a subquery.
   */
  private correlatedHavingAsWhere(aggregate: Extract<UnresolvedPlan, { kind: 'Aggregate' }>, having: Expression, distinct: boolean): UnresolvedPlan | undefined {
    const from = aggregate.child.kind === 'Filter' ? aggregate.child.child : aggregate.child;
    const outer = this.correlationOuter(from);
    if (!outer) return undefined;
    // An IN subquery there too: Spark's semi (anti) join above the Aggregate is WHERE's over it.
    const correlated = (c: Expression) => someExpression(c, (x) => x.kind === 'InSubquery' || (x.kind === 'ScalarSubquery' && this.correlatedScalarSubquery(x.plan, outer) !== undefined));
    // The aggregates, grouping columns and select aliases a moved conjunct reads are the
    // aggregation's (hidden) columns; in a subquery, the outer columns its correlation reads.
    return this.havingAsWhere(aggregate, having, distinct, 'having', correlated, (c, hide) => mapExpression(c, (x) => {
      if (x.kind === 'UnresolvedAttribute' || isAggregateCall(x)) return hide(x);
      if (x.kind !== 'ScalarSubquery') return undefined;
      const r = this.correlatedScalarSubquery(x.plan, outer);
      const body = x.plan.kind === 'UnresolvedHaving' ? x.plan.child : x.plan;
      if (!r || (body.kind !== 'Project' && body.kind !== 'Aggregate') || body.child.kind !== 'Filter') return x;
      const outerKeys = new Set(r.keys.map((k) => k.outer));
      const condition = mapExpression(body.child.condition, (y) => (outerKeys.has(y) ? hide(y) : undefined));
      const plan = { ...body, child: { ...body.child, condition } };
      return { ...x, plan: x.plan.kind === 'UnresolvedHaving' ? { ...x.plan, child: plan } : plan };
    }));
  }

  /**
   * HAVING with [NOT] EXISTS (`GROUP BY dept_id HAVING EXISTS (SELECT 1 FROM bonus WHERE
   * bonus_amt < min(emp.salary))`), which Spark's RewritePredicateSubquery joins above the
   * aggregation: the aggregation with the outer aggregates its subqueries read as its (hidden)
   * columns, and the conjuncts holding EXISTS a WHERE over it, reading those columns. An
   * aggregate in a subquery's WHERE is the outer query's (a WHERE aggregates nothing of its own).
   * Undefined where no HAVING conjunct holds EXISTS.
   */
  private existsInHavingAsWhere(aggregate: Extract<UnresolvedPlan, { kind: 'Aggregate' }>, having: Expression, distinct: boolean): UnresolvedPlan | undefined {
    const exists = (c: Expression) => someExpression(c, (x) => x.kind === 'Exists');
    return this.havingAsWhere(aggregate, having, distinct, 'exists', exists, (c, hide) => {
      const outerAggregates = (e: Expression) => mapExpression(e, (x) => (isAggregateCall(x) ? hide(x) : undefined));
      return mapExpression(c, (x) => {
        if (x.kind !== 'Exists' || x.plan.kind !== 'Project' || x.plan.child.kind !== 'Filter') return undefined;
        return { ...x, plan: { ...x.plan, child: { ...x.plan.child, condition: outerAggregates(x.plan.child.condition) } } };
      });
    });
  }

  /**
   * HAVING's conjuncts that `moves` picks as a WHERE over the aggregation, where Spark joins their
   * subqueries above the Aggregate: `SELECT * FROM (<the aggregation, HAVING's other conjuncts, and
   * each expression `rewrite` hides as a hidden column of it>) h WHERE <the moved conjuncts as
   * `rewrite` gives them>`. Undefined where no conjunct moves.
   */
  private havingAsWhere(
    aggregate: Extract<UnresolvedPlan, { kind: 'Aggregate' }>, having: Expression, distinct: boolean, tag: string,
    moves: (c: Expression) => boolean, rewrite: (c: Expression, hide: (e: Expression) => Expression) => Expression,
  ): UnresolvedPlan | undefined {
    const conjuncts = splitConjunctivePredicates(having);
    const moved = conjuncts.filter(moves);
    if (moved.length === 0) return undefined;
    const pos = having.pos;
    const alias = `${HIDDEN_SCALAR_SUBQUERY}_${tag}${this.correlatedIds++}`;
    const hidden: Expression[] = [];
    const hide = (e: Expression): Expression => {
      const name = `${alias}_${hidden.length}`;
      hidden.push({ kind: 'Alias', child: e, name, pos: e.pos });
      return { kind: 'UnresolvedAttribute', nameParts: [alias, name], pos: e.pos };
    };
    const where = conjunctionOf(moved.map((c) => rewrite(c, hide)));
    const kept = conjuncts.filter((c) => !moved.includes(c));
    let inner: UnresolvedPlan = { ...aggregate, aggregateExpressions: [...aggregate.aggregateExpressions, ...hidden] };
    if (kept.length) inner = { kind: 'UnresolvedHaving', havingCondition: conjunctionOf(kept), child: inner, pos };
    if (distinct) inner = { kind: 'Distinct', child: inner, pos };
    return selectAll({ kind: 'Filter', condition: where, child: { kind: 'SubqueryAlias', alias, child: inner, pos }, pos }, pos);
  }

  /**
   * A correlated scalar subquery's parts, as the rewrite into a join takes them: `SELECT <value>
   * FROM <static table> [alias] WHERE <conjuncts>`, the conjuncts that read the outer query each an
   * equality of an expression of the table's columns and one of the outer query's, aggregated
   * (grouped by correlated columns only). Undefined for one that reads no outer column, and for
   * one of another shape, which the expression builder plans as it is, run for each tuple of
   * its outer values (correlated-scalar-subquery.ts).
   */
  private correlatedScalarSubquery(u: UnresolvedPlan, outer: { qualifiers: ReadonlySet<string>; columns: ReadonlySet<string> }):
    { value: Expression; table: UnresolvedPlan; keys: { inner: Expression; outer: Expression }[]; rest?: Expression; grouping?: readonly Expression[]; having?: Expression } | undefined {
    // GROUP BY the correlated columns (`… WHERE t2c = t1c GROUP BY t2c [HAVING …]`) is the same
    // aggregation the rewrite makes, its HAVING over it; then a row no group matches reads NULL.
    const having = u.kind === 'UnresolvedHaving' && u.child.kind === 'Aggregate' ? u.havingCondition : undefined;
    const body = having && u.kind === 'UnresolvedHaving' ? u.child : u;
    const grouped = body.kind === 'Aggregate' ? body : undefined;
    const project = body.kind === 'Project' ? body : grouped ? { kind: 'Project' as const, projectList: grouped.aggregateExpressions, child: grouped.child, pos: grouped.pos } : undefined;
    const filter = project?.child.kind === 'Filter' ? project.child : undefined;
    const base = filter ? filter.child : project?.child;
    const t = base && namedRelation(base);
    // Its table: a static table, or a CTE over static tables.
    const cte = t && this.ctes.get(t.table.toLowerCase());
    const staticTable = t && !cte ? this.staticTables.find((s) => s.name.toLowerCase() === t.table.toLowerCase()) : undefined;
    const table = staticTable?.schema ?? (cte && !firstStreamingRelation(cte) ? this.resolved(cte).output : undefined);
    // Spark resolves a name in the subquery's own table first, then in the outer query.
    const inner = { qualifiers: new Set(t ? [t.table, t.qualifier].map((q) => q.toLowerCase()) : []), columns: new Set((table ?? []).map((f) => f.name.toLowerCase())) };
    const sideOf = (a: Extract<Expression, { kind: 'UnresolvedAttribute' }>): 'inner' | 'outer' | undefined => {
      const first = a.nameParts[0].toLowerCase();
      if (a.nameParts.length > 1 && inner.qualifiers.has(first)) return 'inner';
      if (a.nameParts.length > 1 && outer.qualifiers.has(first)) return 'outer';
      if (inner.columns.has(first)) return 'inner';
      return outer.columns.has(first) ? 'outer' : undefined;
    };
    const sides = (e: Expression): Set<string | undefined> => {
      const out = new Set<string | undefined>();
      someExpression(e, (x) => {
        if (x.kind === 'UnresolvedAttribute') out.add(sideOf(x));
        return false;
      });
      return out;
    };
    const readsOuterColumn = (x: unknown): boolean => {
      if (x === null || typeof x !== 'object') return false;
      if (Array.isArray(x)) return x.some(readsOuterColumn);
      const node = x as { kind?: string };
      if (node.kind === 'UnresolvedAttribute') return sideOf(node as Extract<Expression, { kind: 'UnresolvedAttribute' }>) === 'outer';
      return Object.values(x).some(readsOuterColumn);
    };
    // Over another FROM, whose columns are not known here, a name qualified by the outer query's is the tell.
    if (!table || !filter || !project || !base || !readsOuterColumn(u)) return undefined;
    if (project.projectList.length !== 1 || project.projectList[0].kind === 'UnresolvedStar') return undefined;
    const value = project.projectList[0].kind === 'Alias' ? project.projectList[0].child : project.projectList[0];
    if (readsOuterColumn(value) || !isAggregation({ items: [value], grouping: [], distinct: false, pos: project.pos })) return undefined;
    const keys: { inner: Expression; outer: Expression }[] = [];
    const rest: Expression[] = [];
    for (const c of splitConjunctivePredicates(filter.condition)) {
      if (!readsOuterColumn(c)) {
        rest.push(c);
        continue;
      }
      const [l, r] = c.kind === 'BinaryOperator' && c.op === 'EqualTo' ? [sides(c.left), sides(c.right)] : [];
      const only = (s: Set<string | undefined> | undefined, side: string) => s !== undefined && s.size === 1 && s.has(side);
      if (c.kind === 'BinaryOperator' && only(l, 'inner') && only(r, 'outer')) keys.push({ inner: c.left, outer: c.right });
      else if (c.kind === 'BinaryOperator' && only(l, 'outer') && only(r, 'inner')) keys.push({ inner: c.right, outer: c.left });
      else return undefined;
    }
    // Grouped by other than correlated columns it may give several rows for an outer row, which
    // Spark 4's single join refuses as it runs (SCALAR_SUBQUERY_TOO_MANY_ROWS): run as it is.
    const grouping = grouped?.groupingExpressions ?? [];
    const key = (e: Expression) => (e.kind === 'UnresolvedAttribute' ? e.nameParts[e.nameParts.length - 1] : expressionSql(e)).toLowerCase();
    if (grouping.some((g) => !keys.some((k) => key(k.inner) === key(g))) || (having && readsOuterColumn(having))) return undefined;
    // HAVING over one group of no GROUP BY: an outer row no row matches reads the aggregate over
    // no rows where HAVING keeps it, NULL where it drops it, and a matched group HAVING dropped
    // NULL too, which the join's no-match value cannot tell apart: run as it is.
    if (having && grouping.length === 0) return undefined;
    return { value, table: base, keys, ...(rest.length ? { rest: conjunctionOf(rest) } : {}), ...(grouping.length ? { grouping } : {}), ...(having ? { having } : {}) };
  }

  /**
   * `EXISTS (SELECT … FROM t WHERE <correlated> AND EXISTS (SELECT … FROM u WHERE u.k = t.k))`:
   * a subquery in the subquery's WHERE is no join condition, so the conjuncts that hold one and
   * read no column of the outer query filter t first, as a query of static data named as t is
   * (where the inner subquery is planned as in any other WHERE, its own join), and the other
   * conjuncts are the join's condition, as Spark rewrites the inner subquery inside the outer
   * one's plan. Undefined where no conjunct holds a subquery, or those that do read the outer
   * query (the filtered table does not plan on its own).
   */
  private nestedSubqueriesFirst(from: UnresolvedPlan, where: Expression): { from: UnresolvedPlan; where?: Expression; schema: Schema; qualifier: string; direct: false } | undefined {
    const n = namedRelation(from);
    const conjuncts = splitConjunctivePredicates(where);
    const holdsSubquery = (e: Expression) => someExpression(e, (x) => x.kind === 'Exists' || x.kind === 'InSubquery' || x.kind === 'ScalarSubquery');
    const first = conjuncts.filter(holdsSubquery);
    if (!n || first.length === 0) return undefined;
    const rest = conjuncts.filter((e) => !holdsSubquery(e));
    const pos = from.pos;
    const filtered: UnresolvedPlan = { kind: 'SubqueryAlias', alias: n.qualifier, child: selectAll({ kind: 'Filter', condition: conjunctionOf(first), child: from, pos }, pos), pos };
    try {
      const t = this.staticRelationOf(filtered);
      return t && { from: filtered, ...(rest.length ? { where: conjunctionOf(rest) } : {}), ...t };
    } catch {
      return undefined;
    }
  }

  /**
   * `EXISTS (SELECT … FROM emp JOIN dept ON … WHERE e.name = emp.name)`: a subquery over a join of
   * static tables (or CTEs over them), made one relation for the semi join's side, each table's
   * column under a name of its own (the join's tables may share one, as dept_id), and the WHERE's
   * names of them (`emp.name`, or a name one table alone has) read as those, so that the WHERE
   * is the join's condition, as Spark's RewritePredicateSubquery joins the subquery's join.
   * Undefined for another join (of a stream, a subquery), or one that does not plan on its own.
   */
  private joinAsOneRelation(join: Extract<UnresolvedPlan, { kind: 'Join' }>, where: Expression): { from: UnresolvedPlan; where: Expression; schema: Schema; qualifier: string; direct: false } | undefined {
    const tables: { qualifier: string; schema: Schema }[] = [];
    const leaves = (u: UnresolvedPlan): boolean => {
      if (u.kind === 'Join') return leaves(u.left) && leaves(u.right);
      const n = namedRelation(u);
      const table = n && this.staticTables.find((t) => t.name.toLowerCase() === n.table.toLowerCase());
      const cte = n && !table ? this.ctes.get(n.table.toLowerCase()) : undefined;
      if (!n || (!table && (!cte || firstStreamingRelation(cte)))) return false;
      tables.push({ qualifier: n.qualifier.toLowerCase(), schema: table ? table.schema : this.resolved(cte!).output });
      return true;
    };
    if (!leaves(join)) return undefined;
    const alias = `${EXISTS_SUBQUERY}_join${this.correlatedIds++}`;
    const pos = join.pos;
    const name = (i: number, j: number) => `${alias}_${i}_${j}`;
    const items = tables.flatMap((t, i) => t.schema.map((f, j): Expression => ({ kind: 'Alias', name: name(i, j), child: { kind: 'UnresolvedAttribute', nameParts: [t.qualifier, f.name], pos }, pos })));
    const column = (t: { schema: Schema }, c: string) => t.schema.findIndex((f) => f.name.toLowerCase() === c.toLowerCase());
    const condition = mapExpression(where, (x) => {
      if (x.kind !== 'UnresolvedAttribute' || x.nameParts.length > 2) return undefined;
      const [q, c] = x.nameParts.length === 2 ? [x.nameParts[0].toLowerCase(), x.nameParts[1]] : [undefined, x.nameParts[0]];
      const owners = tables.map((t, i) => ({ i, j: column(t, c) })).filter(({ i, j }) => j >= 0 && (q === undefined || tables[i].qualifier === q));
      // A name no table (or several) has is the outer query's, left as written.
      return owners.length === 1 ? { ...x, nameParts: [alias, name(owners[0].i, owners[0].j)] } : undefined;
    });
    const from: UnresolvedPlan = { kind: 'SubqueryAlias', alias, child: { kind: 'Project', projectList: items, child: join, pos }, pos };
    try {
      const t = this.staticRelationOf(from);
      return t && { from, where: condition, ...t };
    } catch {
      return undefined;
    }
  }

  /**
   * An EXISTS subquery of another shape than `SELECT … FROM … [WHERE …]` (a LIMIT, an OFFSET, a
   * set operation) that reads no column of the outer query, as a relation of static data (the
   * semi join's side, joined without a condition). Spark resolves a subquery's names in its own
   * query first: one that is planned on its own reads no outer column. Undefined for one that
   * does not plan so (a correlated one), left to be refused.
   */
  private uncorrelatedQuery(q: UnresolvedPlan): { from: UnresolvedPlan; schema: Schema; qualifier: string; direct: false } | undefined {
    const from: UnresolvedPlan = { kind: 'SubqueryAlias', alias: `${EXISTS_SUBQUERY}_query`, child: q, pos: q.pos };
    try {
      const t = this.staticRelationOf(from);
      return t && { from, ...t };
    } catch {
      return undefined;
    }
  }

  /** Whether a query reads tables, each of them one of the job's static tables or a CTE over them (no stream). */
  /**
   * A relation of static data that is no static table by name (an inline table, range(), a
   * subquery or CTE over static tables): its columns, and the alias its query names it by.
   */
  private staticRelationOf(u: UnresolvedPlan): { schema: Schema; qualifier: string; direct: false } | undefined {
    // A join of static tables names its columns by its tables' names, which one alias cannot carry.
    if (u.kind === 'Join' || !this.readsStaticTablesOnly(u, this.ctes)) return undefined;
    const schema = this.resolved(this.withStaticLeaves(() => this.plan(selectAll(u, u.pos), this.ctes))).output;
    return { schema, qualifier: u.kind === 'SubqueryAlias' ? u.alias : '', direct: false };
  }

  private readsStaticTablesOnly(u: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan> = new Map()): boolean {
    const names = relationNames(u);
    return names.length > 0 && this.readsNoStream(u, ctes);
  }

  /**
   * Whether a query reads no stream: its tables are static tables or CTEs over them, or it reads
   * none (a SELECT without FROM, Spark's OneRowRelation, which is a batch relation too).
   */
  private readsNoStream(u: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan>): boolean {
    const isStatic = (n: string) => this.staticTables.some((t) => t.name.toLowerCase() === n) || (ctes.has(n) && !firstStreamingRelation(ctes.get(n)!));
    return relationNames(u).every(isStatic);
  }

  /**
   * Tables joined by commas (or CROSS JOIN) with their conditions in WHERE (`FROM events e,
   * regions r WHERE e.region = r.code`): Spark's optimizer moves each conjunct into the lowest
   * inner join that has every table it reads (PushPredicateThroughJoin) before its planner looks
   * for the equality. Here each such conjunct becomes that join's ON, which for an inner join
   * passes the same pairs; a conjunct that reads no table, or a name no table qualifies, goes to
   * the top join. Only a tree of such joins over the job's streams and static tables is changed.
   */
  private commaJoinConditions(join: Extract<UnresolvedPlan, { kind: 'Join' }>, where: Expression): { child: UnresolvedPlan; where?: Expression } {
    const known = (name: string) => [...this.relations.map((r) => r.sourceName), ...this.staticTables.map((t) => t.name)].some((n) => n.toLowerCase() === name.toLowerCase());
    /** The qualifiers of each table under a comma join tree, or undefined when it is another tree. */
    const names = (u: UnresolvedPlan): Set<string> | undefined => {
      if (u.kind === 'Join') {
        if (u.condition !== undefined || u.usingColumns || u.natural || (u.joinType !== 'Inner' && u.joinType !== 'Cross')) return undefined;
        const l = names(u.left), r = names(u.right);
        return l && r && new Set([...l, ...r]);
      }
      const [alias, rel] = u.kind === 'SubqueryAlias' ? [u.alias, u.child] : [undefined, u];
      if (rel.kind !== 'UnresolvedRelation' || !known(rel.multipartIdentifier.join('.'))) return undefined;
      return new Set([rel.multipartIdentifier.join('.'), ...(alias ? [alias] : [])].map((n) => n.toLowerCase()));
    };
    const all = names(join);
    if (!all) return { child: join, where };
    /** The tables a conjunct reads by their qualifiers; undefined when it reads an unqualified name. */
    const reads = (c: Expression): Set<string> | undefined => {
      const qs = new Set<string>();
      let unqualified = false;
      mapExpression(c, (x) => {
        if (x.kind === 'UnresolvedAttribute') {
          if (x.nameParts.length > 1 && all.has(x.nameParts[0].toLowerCase())) qs.add(x.nameParts[0].toLowerCase());
          else unqualified = true;
        }
        return undefined;
      });
      return unqualified ? undefined : qs;
    };
    const placed = new Map<Extract<UnresolvedPlan, { kind: 'Join' }>, Expression[]>();
    const rest: Expression[] = [];
    for (const c of splitConjunctivePredicates(where)) {
      const qs = reads(c);
      if (qs && qs.size === 0) {
        rest.push(c);
        continue;
      }
      // The lowest join whose tables cover the conjunct's (the top one for an unqualified name).
      let at = join;
      for (;;) {
        const below = [at.left, at.right].find((s): s is Extract<UnresolvedPlan, { kind: 'Join' }> => s.kind === 'Join' && qs !== undefined && [...qs].every((q) => names(s)!.has(q)));
        if (!below) break;
        at = below;
      }
      placed.set(at, [...(placed.get(at) ?? []), c]);
    }
    const rebuild = (u: UnresolvedPlan): UnresolvedPlan => {
      if (u.kind !== 'Join') return u;
      const on = placed.get(u);
      return { ...u, left: rebuild(u.left), right: rebuild(u.right), ...(on ? { joinType: 'Inner' as const, condition: conjunctionOf(on) } : {}) };
    };
    return { child: rebuild(join), where: rest.length ? conjunctionOf(rest) : undefined };
  }

  /**
   * A side of a join that is a CTE or a subquery (join-planner.ts's JoinLeafPlanner); undefined for a table.
   * A LATERAL VIEW, generator or subquery over relations (`t1 JOIN LATERAL (…) s JOIN t2 ON …`) is
   * their rows with its own beside them, each read by its name as in FROM, as Spark joins a
   * LateralJoin's output as any relation's.
   */
  private joinLeaf(u: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan>): JoinLeafPlan | undefined {
    if (u.kind === 'Generate' && !u.tableFunction) return this.withStaticLeaves(() => this.lateralSide(u, ctes));
    const inner = u.kind === 'SubqueryAlias' ? u.child : u;
    if (inner.kind === 'UnresolvedRelation') {
      const name = inner.multipartIdentifier.join('.');
      const cte = inner.multipartIdentifier.length === 1 ? ctes.get(name.toLowerCase()) : undefined;
      return cte && { plan: cte, schema: this.resolved(cte).output, name };
    }
    // A join in brackets, aliased (`(e JOIN regions r ON …) x`), is the subquery of its columns.
    if (inner.kind === 'Join' && u.kind !== 'SubqueryAlias') return undefined;
    const query: UnresolvedPlan = inner.kind === 'Join' ? selectAll(inner, inner.pos) : inner;
    const { plan, schema } = this.withStaticLeaves(() => this.subquery(query, ctes));
    return { plan, schema };
  }

  /** A join's side that is a Generate over relations (joinLeaf): its rows, and each relation's and generator's columns by its name. */
  private lateralSide(u: Extract<UnresolvedPlan, { kind: 'Generate' }>, ctes: ReadonlyMap<string, LogicalPlan>): JoinLeafPlan {
    const { views, under } = lateralChain(u);
    let from = this.from(under, ctes);
    const hidden = hiddenTableNames(under);
    if (hidden.size) from = { ...from, scope: { ...from.scope, hidden } };
    const { plan, schema, qualifiers, scope } = this.generated(from, views);
    // Each name reads its own columns: the relations' those before the generators', as in FROM.
    const own = new Map(schema.map((f) => [writtenColumnName(f.name).toLowerCase(), f.name] as const));
    const sides = scope?.sides ?? new Map(qualifiers.map((q) => [q.toLowerCase(), own] as const));
    return { plan, schema, qualifiers, scope: { sides, ...(scope?.merged ? { merged: scope.merged } : {}) } };
  }

  /** `f` planned with static tables readable as relations (see staticLeaves). */
  private withStaticLeaves<T>(f: () => T): T {
    const before = this.staticLeaves;
    this.staticLeaves = true;
    try {
      return f();
    } finally {
      this.staticLeaves = before;
    }
  }

  /**
   * `(SELECT …) AS t(a, b)` and `WITH t(a, b) AS (…)`: the query's columns renamed in order, as
   * Spark's ResolveSubqueryColumnAliases does, a Project above it.
   */
  private columnAliases(u: Extract<UnresolvedPlan, { kind: 'UnresolvedSubqueryColumnAliases' }>, ctes: ReadonlyMap<string, LogicalPlan>): LogicalPlan {
    // A join in brackets (`(a JOIN b ON …) t(x, y)`) is the subquery of its columns, as in FROM.
    const child = u.child.kind === 'Join' ? selectAll(u.child, u.child.pos) : u.child;
    const { plan, output } = this.resolved(this.plan(child, ctes));
    const names = u.outputColumnNames;
    if (names.length !== output.length) {
      throw new SqlValidationError(
        `Number of column aliases does not match number of columns. Number of column aliases: ${names.length}; number of columns: ${output.length}. ` +
          `Name each of ${output.map((f) => f.name).join(', ')} in the alias list, or alias the columns inside the subquery instead`,
        lineColumn(u.pos), 'column aliases', '_LEGACY_ERROR_TEMP_1028',
      );
    }
    // A name given twice (`t(x, x)`) is two columns, as Spark's are.
    const list: NamedExpr[] = output.map((f, i) => ({ expr: { kind: 'column', name: f.name }, name: names[i] }));
    this.markRepeats(list);
    return { kind: 'Project', list, child: plan };
  }

  /**
   * Spark's star expansion: `*` all input columns, `a.*` a join side's, `s.*` a struct column's
   * fields; each as the column it reads (and the field of it), less what `EXCEPT (…)` leaves out
   * (exceptStar).
   */
  private starColumns(e: Extract<Expression, { kind: 'UnresolvedStar' }>, qualifiers: readonly string[], inputSchema: Schema, scope?: Pick<Scope, 'sides' | 'merged'>): StarColumn[] {
    const pos = lineColumn(e.pos);
    const isQualifier = (t: readonly string[]) => t.length === 1 && qualifiers.some((q) => q.toLowerCase() === t[0].toLowerCase());
    if (e.target && !isQualifier(e.target)) {
      const t = e.target.join('.');
      // `s.*`, `s.inner.*`: the column and the fields down to the struct (a column named `a.b` first, as before).
      const column = (parts: readonly string[]) => inputSchema.find((x) => x.name.toLowerCase() === parts.join('.').toLowerCase());
      const whole = column(e.target);
      const top = whole ?? column(e.target.slice(0, 1));
      const path = whole ? [] : e.target.slice(1);
      let struct = top;
      const fieldPath: string[] = [];
      for (const part of path) {
        struct = struct?.type === 'struct' ? struct.fields?.find((f) => f.name.toLowerCase() === part.toLowerCase()) : undefined;
        if (struct) fieldPath.push(struct.name);
      }
      const fields = struct?.type === 'window' ? [{ name: 'start' }, { name: 'end' }] : struct?.type === 'struct' ? (struct.fields ?? []) : undefined;
      // `v1.*` in a subquery, v1 a relation of the query around it (`LATERAL (SELECT v1.*)`):
      // its columns as outer references.
      const visible = (name: string) => !name.startsWith(HIDDEN_SCALAR_SUBQUERY) && !name.startsWith(WINDOW_COLUMN_PREFIX);
      const outer = !struct && !e.except && e.target.length === 1 ? this.outerReferences.star(e.target[0], visible, pos) : undefined;
      if (outer) return outer.map(({ name, expr }): StarColumn => ({ column: name, path: [], name, outer: expr }));
      if (!struct) {
        throw new SqlValidationError(
          `Cannot resolve \`${t}\`.* given input columns ${inputSchema.map((f) => `\`${f.name}\``).join(', ')}: no table, alias or struct column is named ${t}`,
          pos, '*', 'CANNOT_RESOLVE_STAR_EXPAND',
        );
      }
      if (!fields) throw new SqlValidationError(`Unknown table, alias or struct column "${t}" in ${t}.*`, pos, '*');
      const columns = fields.map((fld): StarColumn => ({ column: top!.name, path: [...fieldPath, fld.name], name: fld.name, type: fld as Field }));
      return e.except ? exceptStar(columns, e.except, () => false, pos, true) : columns;
    }
    const side = e.target && scope?.sides?.get(e.target[0].toLowerCase());
    // A join's row names a column two sides share by its side (`a.value`): its written name is the side's.
    const written = new Map<string, string>();
    for (const columns of scope?.sides?.values() ?? []) for (const [key, column] of columns) if (!written.has(column)) written.set(column, writtenName(sideColumnName(key, column), column));
    const columns = (side ? [...side.values()] : inputSchema.map((f) => f.name)).filter((c) => !c.startsWith(HIDDEN_SCALAR_SUBQUERY) && !c.startsWith(WINDOW_COLUMN_PREFIX))
      .map((column): StarColumn => ({ column, path: [], name: written.get(column) ?? column, type: inputSchema.find((f) => f.name === column) }));
    if (!e.except) return columns;
    // `t.value` in the EXCEPT list: the column `value` of the table or join side t.
    const qualifies = (q: string, c: StarColumn) => {
      const lower = q.toLowerCase();
      const sideColumns = scope?.sides?.get(lower);
      return sideColumns ? sideColumns.get(c.name.toLowerCase()) === c.column : qualifiers.some((x) => x.toLowerCase() === lower);
    };
    return exceptStar(columns, e.except, qualifies, pos, false);
  }

  /** What a star in a function's arguments stands for: its columns (a struct's fields for `s.*`). */
  private starExprs(star: Extract<Expression, { kind: 'UnresolvedStar' }>, qualifiers: readonly string[], inputSchema: Schema, scope?: Pick<Scope, 'sides' | 'merged'>): Expr[] {
    return this.starColumns(star, qualifiers, inputSchema, scope).map(starColumnExpr);
  }

  private subquery(u: UnresolvedPlan, ctes: ReadonlyMap<string, LogicalPlan>): FromItem {
    const { plan, output } = this.resolved(this.plan(u, ctes));
    return { plan, schema: output, qualifiers: [], scope: { metadataColumn: false } };
  }

  /**
   * The select list of a SELECT without aggregation; with `sort` (a batch plan's ORDER BY), sorted
   * on what it names, a column it does not select too (sortOverMissingReferences).
   */
  private project(items: readonly Expression[], qualifiers: readonly string[], inputSchema: Schema, child: LogicalPlan, builder: ExpressionBuilder, scope?: Pick<Scope, 'sides' | 'merged'>, sort?: SortClause): LogicalPlan {
    const list: NamedExpr[] = [];
    let generate: Extract<LogicalPlan, { kind: 'Generate' }> | undefined;
    const starColumns = (e: Extract<Expression, { kind: 'UnresolvedStar' }>): NamedExpr[] =>
      this.starColumns(e, qualifiers, inputSchema, scope).map((c) => ({ expr: starColumnExpr(c), name: c.path.length > 0 || c.outer ? c.name : builder.outputName(c.column) }));
    builder.expandStar = (star) => this.starExprs(star, qualifiers, inputSchema, scope);
    for (const item of items) {
      const alias = item.kind === 'Alias' ? [item.name] : item.kind === 'MultiAlias' ? item.names : undefined;
      const e = item.kind === 'Alias' || item.kind === 'MultiAlias' ? item.child : item;
      const pos = lineColumn(e.pos);
      if (e.kind === 'UnresolvedStar' && e.replace) {
        // `|> SET a = e`: the column a (the last of that name, as Spark's) takes e's value in its place.
        const columns = starColumns(e);
        const { name, expr } = e.replace;
        const at = columns.findLastIndex((c) => c.name.toLowerCase() === name.toLowerCase());
        if (at < 0) throw new SqlValidationError(`[UNRESOLVED_COLUMN.WITH_SUGGESTION] ${unresolvedColumn(name, columns.map((c) => c.name))}`, lineColumn(expr.pos), name, 'UNRESOLVED_COLUMN.WITH_SUGGESTION');
        columns[at] = { expr: builder.selectItem(expr).expr, name: columns[at].name };
        list.push(...columns);
        continue;
      }
      if (e.kind === 'UnresolvedStar') {
        list.push(...starColumns(e));
        continue;
      }
      if (e.kind === 'UnresolvedWindowExpression') throw builder.nonTimeWindow(e, alias?.[0]);
      const fn = e.kind === 'UnresolvedFunction' ? e.nameParts.join('.').toLowerCase() : undefined;
      // json_tuple(json, 'k1', 'k2', …) as a select item: Spark's generator, one column per key
      // (c0, c1, … as Spark names them, or the aliases), each the key's value as a string.
      if (e.kind === 'UnresolvedFunction' && fn === 'json_tuple') {
        list.push(...this.jsonTuple(positionalArguments(fn, e.arguments, e.pos), alias, builder, inputSchema, pos));
        continue;
      }
      if (e.kind === 'UnresolvedFunction' && fn && GENERATORS.has(fn)) {
        const call = builder.build(e) as Extract<Expr, { kind: 'call' }>;
        if (generate) {
          throw new SqlValidationError(
            `The generator is not supported: only one generator allowed per SELECT clause but found 2: ${exprToString(generate.generator)}, ${exprToString(call)}. Generate in a subquery and the other in the outer SELECT`,
            pos, 'generator', 'UNSUPPORTED_GENERATOR.MULTI_GENERATOR',
          );
        }
        const generated = this.generate(call, alias, inputSchema, child, true);
        generate = generated.plan;
        generate.output.forEach((column, i) => list.push({ expr: { kind: 'column', name: column }, name: generated.names[i] }));
        continue;
      }
      if (item.kind === 'MultiAlias') throw this.aliasMismatch(fn ?? 'the expression', 1, item.names, pos);
      const { expr, named } = builder.selectItem(e);
      // Spark names `parsed.id` (a struct field) `id`.
      const name = alias?.[0] ?? (named.kind === 'column' ? builder.outputName(named.name) : named.kind === 'field' ? named.field : exprToString(named));
      list.push({ expr, name });
      // An item's name, its alias or the one Spark gives it (`s.field` is `field`), is a lateral alias.
      builder.addLateralAlias(name, expr);
    }
    const missing = sort && missingSortReferences(sort, list, inputSchema, (e) => builder.sortItem(() => sortedOnCorrelatedSubquery(builder.build(e), sort.pos), (x) => extractsWhatIsNotThere(x, inputSchema)));
    builder.endSelectList();
    this.markRepeats(list);
    return missing ? sortOverMissingReferences(list, missing, generate ?? child) : { kind: 'Project', list, child: generate ?? child };
  }

  /**
   * A name given twice is two columns, as in Spark's plans (`*` over a join whose sides share a
   * name): the repeat gets a row column of its own, written as the name (the output shows both,
   * as Spark's does) and ambiguous where a name reads it. Marks `list` in place.
   */
  private markRepeats(list: NamedExpr[]): void {
    const seen = new Set<string>();
    list.forEach((n, i) => {
      const key = writtenColumnName(n.name).toLowerCase();
      if (!seen.has(key)) {
        seen.add(key);
        return;
      }
      const name = duplicateColumn(writtenColumnName(n.name), ++this.repeats);
      list[i] = { ...n, name };
    });
  }

  /**
   * The SELECT's plan with the repeated names of its output marked (markRepeats): an
   * aggregation's select list too (`count(*), count(1)`, both named count(1)), whose repeat would
   * otherwise share the first's row column and be lost.
   */
  private repeatsMarked(plan: LogicalPlan): LogicalPlan {
    switch (plan.kind) {
      case 'Sort': case 'Limit': case 'Offset':
        return { ...plan, child: this.repeatsMarked(plan.child) };
      case 'Project': {
        const list = [...plan.list];
        this.markRepeats(list);
        return list.some((n, i) => n !== plan.list[i]) ? { ...plan, list } : plan;
      }
      // Every member listed, so that a new one is a lint error until it is handled here.
      case 'Aggregate': case 'Deduplicate': case 'Expand': case 'Filter': case 'Generate': case 'Join': case 'StaticRelation': case 'StreamingRelation': case 'Union': case 'Window':
      default:
        return plan;
    }
  }

  /**
   * json_tuple(json, 'k1', 'k2', …): Spark's generator of one row per input row, so a projection
   * here, one column per key (c0, c1, … as Spark names them, or the aliases), each the key's value
   * as a string.
   */
  /**
   * A call in FROM over a stream-only query (`SELECT * FROM range(3)` as the job's query): its
   * rows are static data, read as an inline table's are, by joining them with a stream.
   */
  private tableFunctionOverStream(lv: Extract<UnresolvedPlan, { kind: 'Generate' }>): SqlValidationError {
    const written = this.sql.slice(lv.generator.pos.start, lv.generator.pos.end);
    return new SqlValidationError(
      `FROM ${written}: a table-valued function's rows are static data, which a streaming query reads by joining them with a stream (FROM ${this.relations[0].sourceName} JOIN ${written} AS t ON …), or in a subquery on the join's static side`,
      lineColumn(lv.pos), 'FROM');
  }

  private jsonTuple(args: readonly Expression[], alias: readonly string[] | undefined, builder: ExpressionBuilder, inputSchema: Schema, pos: Expr['pos'], tableFunction?: boolean): NamedExpr[] {
    if (args.length < 2) throw new SqlValidationError(`[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The \`json_tuple\` requires > 1 parameters but the actual number is ${args.length}. json_tuple() takes (json, key1[, key2, …])`, pos, 'json_tuple', 'WRONG_NUM_ARGS.WITHOUT_SUGGESTION');
    const keys = args.slice(1);
    // Spark's JsonTuple.checkInputDataTypes: the JSON and every key a STRING (a NULL of no type is none).
    const built = args.map((a) => builder.build(a));
    const notString = built.find((a) => compileExpression(a, inputSchema).type !== 'string');
    if (notString) {
      throw new SqlValidationError(
        `[DATATYPE_MISMATCH.NON_STRING_TYPE] Cannot resolve "json_tuple(…)" due to data type mismatch: all arguments of the function \`json_tuple\` must be strings. Write the JSON and each key as a STRING (CAST ${exprToString(notString)} AS STRING)`,
        pos, 'json_tuple', 'DATATYPE_MISMATCH.NON_STRING_TYPE');
    }
    const json = built[0];
    if (alias && alias.length !== keys.length) throw this.aliasMismatch('json_tuple', keys.length, alias, pos, tableFunction);
    return keys.map((_, i) => ({ expr: { kind: 'call', name: 'json_tuple_item', args: [json, built[i + 1]], pos }, name: alias?.[i] ?? `c${i}` }));
  }

  private aliasMismatch(fn: string, expected: number, aliases: readonly string[], pos: Expr['pos'], tableFunction?: boolean): SqlValidationError {
    if (tableFunction) {
      // Spark's ResolveTableValuedFunctions: the alias list of a call in FROM names its columns.
      return new SqlValidationError(
        `[NUM_TABLE_VALUE_ALIASES_MISMATCH] Number of given aliases does not match number of output columns. Function name: \`${fn}\`; number of aliases: ${aliases.length}; number of output columns: ${expected}. ` +
          `Name each of its ${expected} column${expected === 1 ? '' : 's'} in the alias list (AS t(a, b)), or leave the list out`,
        pos, fn, 'NUM_TABLE_VALUE_ALIASES_MISMATCH',
      );
    }
    return new SqlValidationError(
      `The number of aliases supplied in the AS clause does not match the number of columns output by the UDTF. Expected ${expected} aliases, but got ${aliases.join(', ')}. ` +
        `Give ${fn}() ${expected} name${expected === 1 ? '' : 's'} (AS (a, b)), or leave it unaliased and rename its columns in an outer SELECT`,
      pos, fn, 'UDTF_ALIAS_NUMBER_MISMATCH',
    );
  }

  /**
   * A generator (a select item or a LATERAL VIEW) as a Generate over `child`: its output columns
   * are Spark's (or the aliases). Rows hold columns by name, so an output named like a column of
   * its input, which the other items may read, would hide it. A LATERAL VIEW's output is visible
   * beside the input's columns, so there the name is repeated (column-names.ts: Spark's output
   * shows both, a name that reads them unqualified is ambiguous); a select item's is only the select item's (`SELECT explode(split(word, ' ')) AS word`, Spark's
   * word count), so with `renameCollisions` it is generated under an unused name that the
   * Project above names back.
   */
  private generate(call: Extract<Expr, { kind: 'call' }>, aliases: readonly string[] | undefined, inputSchema: Schema, child: LogicalPlan, renameCollisions = false, tableFunction?: boolean): { plan: Extract<LogicalPlan, { kind: 'Generate' }>; names: string[] } {
    call = foldStackRows(call, inputSchema);
    const fields = generatorOutput(call.name, call.args, call.args.map((a) => compileExpression(a, inputSchema)));
    if (!Array.isArray(fields)) throw new SqlValidationError(`${fields.message} in ${exprToString(call)}`, call.pos, call.name, fields.errorClass);
    if (aliases !== undefined && aliases.length !== fields.length) throw this.aliasMismatch(call.name, fields.length, aliases, call.pos, tableFunction);
    const taken = new Set(inputSchema.map((c) => c.name.toLowerCase()));
    const names = aliases ? [...aliases] : fields.map((f) => f.name);
    const output = names.map((name) => {
      if (!taken.has(name.toLowerCase())) {
        taken.add(name.toLowerCase());
        return name;
      }
      // A LATERAL VIEW's (or a LATERAL subquery's) column of a taken name repeats it, as Spark's
      // output does: a column of its own, written as the name, ambiguous where it is read unqualified.
      if (!renameCollisions) return duplicateColumn(name, ++this.repeats);
      let unused = `__generated_${name}`;
      for (let i = 1; taken.has(unused.toLowerCase()); i++) unused = `__generated_${name}_${i}`;
      taken.add(unused.toLowerCase());
      return unused;
    });
    return { plan: { kind: 'Generate', generator: call, output, child }, names };
  }
}

/**
 * stack(n, …) with its row count n written as a constant INT that is no literal (CAST(1 AS INT),
 * 1 + 1) evaluated to the literal the generator reads: Spark's Stack evaluates any foldable INT
 * (a NULL one reads as 0, which its check refuses as out of range).
 */
function foldStackRows(call: Extract<Expr, { kind: 'call' }>, inputSchema: Schema): Extract<Expr, { kind: 'call' }> {
  const n = call.args[0];
  if (call.name !== 'stack' || n === undefined || n.kind === 'literal' || !constant(n)) return call;
  const c = compileExpression(n, inputSchema);
  if (c.type !== 'long' || c.integral !== 32) return call;
  const value = c.eval({}, { batchTimestampMs: 0 }) ?? 0;
  return { ...call, args: [{ kind: 'literal', value, type: 'long', integral: 32, pos: n.pos, dataType: typeOfCompiled(c) }, ...call.args.slice(1)] };
}

/**
 * Whether a plan gives at most one row, as Spark's maxRows knows it: one row of VALUES (or of no
 * table), an aggregation without grouping, a LIMIT 1, and what projects or filters them.
 */
function atMostOneRow(plan: LogicalPlan): boolean {
  switch (plan.kind) {
    case 'StaticRelation': return plan.view ? atMostOneRow(plan.view.plan) : plan.table === VALUES_TABLE;
    case 'Aggregate': return plan.groupBy.length === 0;
    case 'Limit': return plan.limit <= 1 || atMostOneRow(plan.child);
    case 'Project': case 'Filter': case 'Sort': case 'Offset': case 'Deduplicate': return atMostOneRow(plan.child);
    // Every other member listed, so that a new one is a lint error until it is handled here.
    case 'Expand': case 'Generate': case 'Join': case 'StreamingRelation': case 'Union': case 'Window':
    default: return false;
  }
}

/**
 * A column a star stands for: the row's column (or a field inside it, for `s.*` and `s.inner.*`,
 * the fields down to it), its written name, its type, and, when `* EXCEPT` leaves out fields
 * inside it, the struct it becomes.
 */
interface StarColumn {
  readonly column: string;
  readonly path: readonly string[];
  readonly name: string;
  readonly type?: Field;
  readonly pruned?: PrunedStruct;
  /** A column of a query around a subquery (`v1.*` there): the outer reference that reads it. */
  readonly outer?: Expr;
}

/** A struct less some of its fields, each kept field whole or itself pruned. */
interface PrunedStruct {
  readonly fields: readonly { readonly name: string; readonly pruned?: PrunedStruct }[];
}

/**
 * Whether a scalar subquery is the one a LATERAL subquery is written as (parser/lateral-subquery.ts):
 * `SELECT collect_list(struct(s.*)) FROM (…) s [WHERE <ON>]`, its rows collected per outer row.
 */
function isLateralRows(u: UnresolvedPlan): boolean {
  if (u.kind !== 'Project' || u.projectList.length !== 1) return false;
  const item = u.projectList[0];
  const arg = item.kind === 'UnresolvedFunction' && item.nameParts.join('.') === 'collect_list' ? item.arguments[0] : undefined;
  const star = arg?.kind === 'UnresolvedFunction' && arg.nameParts.join('.') === 'struct' ? arg.arguments[0] : undefined;
  const scan = u.child.kind === 'Filter' ? u.child.child : u.child;
  return star?.kind === 'UnresolvedStar' && scan.kind === 'SubqueryAlias' && star.target?.length === 1 && star.target[0] === scan.alias;
}

/**
 * An ORDER BY key that is no select item: the Sort's own expression in Spark's plan, where a
 * correlated scalar subquery may not be (Spark's checkSubqueryExpression allows one in a Filter,
 * an Aggregate or a Project only): UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY.
 */
function sortedOnCorrelatedSubquery(key: Expr, pos: Position): Expr {
  const correlated = (e: Expr): boolean => isCorrelatedSubquery(e) || exprChildren(e).some(correlated);
  if (correlated(key)) {
    throw new SqlValidationError(
      '[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY] Unsupported subquery expression: Correlated scalar subqueries can only be used in filters, aggregations, projections, and UPDATE/MERGE/DELETE commands: ' +
        `ORDER BY ${exprToString(key)}. Select it (SELECT …, (subquery) AS k … ORDER BY k)`,
      lineColumn(pos), 'ORDER BY', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY');
  }
  return key;
}

/** Whether `e` reads a column of the subquery's own relations (`isInner` of its name) and one of the outer query. */
function sidesRead(e: Expression, isInner: (nameParts: readonly string[]) => boolean): { inner: boolean; outer: boolean } {
  const sides = { inner: false, outer: false };
  someExpression(e, (x) => {
    if (x.kind !== 'UnresolvedAttribute') return false;
    sides[isInner(x.nameParts) ? 'inner' : 'outer'] = true;
    return false;
  });
  return sides;
}

/**
 * A correlated subquery's WHERE as Spark's DecorrelateInnerQuery pulls equalities up through an
 * Aggregate: each conjunct `inner = outer` (either way round) a key, the conjuncts that read no
 * outer column the rest; undefined where a correlated conjunct is no such equality.
 */
function correlatedEqualities(condition: Expression, isInner: (nameParts: readonly string[]) => boolean): { keys: { inner: Expression; outer: Expression }[]; rest: Expression[] } | undefined {
  const keys: { inner: Expression; outer: Expression }[] = [];
  const rest: Expression[] = [];
  for (const c of splitConjunctivePredicates(condition)) {
    if (!sidesRead(c, isInner).outer) {
      rest.push(c);
      continue;
    }
    if (c.kind !== 'BinaryOperator' || c.op !== 'EqualTo') return undefined;
    const [l, r] = [sidesRead(c.left, isInner), sidesRead(c.right, isInner)];
    if (l.inner && !l.outer && r.outer && !r.inner) keys.push({ inner: c.left, outer: c.right });
    else if (r.inner && !r.outer && l.outer && !l.inner) keys.push({ inner: c.right, outer: c.left });
    else return undefined;
  }
  return { keys, rest };
}

/** A star's column as the expression that reads it: a pruned struct is rebuilt of its kept fields. */
function starColumnExpr(c: StarColumn): Expr {
  if (c.outer) return c.outer;
  const column: Expr = { kind: 'column', name: c.column };
  const read = c.path.reduce((arg: Expr, field): Expr => ({ kind: 'field', arg, field }), column);
  const rebuild = (value: Expr, pruned: PrunedStruct): Expr => ({
    kind: 'call', name: 'named_struct',
    args: pruned.fields.flatMap((f): Expr[] => {
      const field: Expr = { kind: 'field', arg: value, field: f.name };
      return [{ kind: 'literal', value: f.name, type: 'string' }, f.pruned ? rebuild(field, f.pruned) : field];
    }),
  });
  return c.pruned ? rebuild(read, c.pruned) : read;
}

/**
 * Spark's UnresolvedStarExcept: each name of the EXCEPT list resolves among the star's columns
 * (`t.c` by a qualifier of c, `c.f.g` a field inside c, names compared case-insensitively); a
 * column named is left out, a field named is left out of its struct, which is rebuilt of the
 * rest. A name that resolves to nothing is Spark's UNRESOLVED_COLUMN (in a struct's expansion
 * EXCEPT_UNRESOLVED_COLUMN_IN_STRUCT_EXPANSION), a column named twice or with a field of it
 * EXCEPT_OVERLAPPING_COLUMNS.
 */
function exceptStar(columns: readonly StarColumn[], except: readonly (readonly string[])[], qualifies: (q: string, c: StarColumn) => boolean, pos: SqlPosition | undefined, structExpansion: boolean): StarColumn[] {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const fieldsOf = (f: Field | undefined) => (f?.type === 'struct' ? (f.fields ?? []) : []);
  /** The field path `path` inside `type`, in the fields' own names; undefined if one is missing. */
  const fieldPath = (type: Field | undefined, path: readonly string[]): string[] | undefined => {
    const out: string[] = [];
    let t = type;
    for (const part of path) {
      t = fieldsOf(t).find((f) => same(f.name, part));
      if (!t) return undefined;
      out.push(t.name);
    }
    return out;
  };
  const paths = new Map<StarColumn, string[][]>();
  for (const parts of except) {
    const found = (parts.length > 1 ? columns.filter((c) => same(c.name, parts[1]) && qualifies(parts[0], c)).map((c) => [c, fieldPath(c.type, parts.slice(2))] as const) : [])
      .concat(columns.filter((c) => same(c.name, parts[0])).map((c) => [c, fieldPath(c.type, parts.slice(1))] as const))
      .filter((x): x is readonly [StarColumn, string[]] => x[1] !== undefined);
    const name = parts.map((p) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? p : `\`${p.replace(/`/g, '``')}\``)).join('.');
    if (found.length === 0) {
      const candidates = columns.map((c) => c.name);
      if (structExpansion) {
        throw new SqlValidationError(
          `[EXCEPT_UNRESOLVED_COLUMN_IN_STRUCT_EXPANSION] The column ${name} in the EXCEPT list cannot be resolved. Did you mean one of the following? [${candidates.map((c) => `\`${c}\``).join(', ')}]. Name a field of the struct without its struct's name`,
          pos, 'EXCEPT', 'EXCEPT_UNRESOLVED_COLUMN_IN_STRUCT_EXPANSION',
        );
      }
      throw new SqlValidationError(`${unresolvedColumn(parts.join('.'), candidates)} It is named in the EXCEPT list of the star`, pos, 'EXCEPT', 'UNRESOLVED_COLUMN.WITH_SUGGESTION');
    }
    if (new Set(found.map(([c]) => c)).size > 1) {
      throw new SqlValidationError(`[AMBIGUOUS_REFERENCE] Reference ${name} in the EXCEPT list is ambiguous: the star has more than one column of that name. Qualify it with its table`, pos, 'EXCEPT', 'AMBIGUOUS_REFERENCE');
    }
    const [column, path] = found[0];
    paths.set(column, [...(paths.get(column) ?? []), path]);
  }
  const overlapping = () => new SqlValidationError(
    `[EXCEPT_OVERLAPPING_COLUMNS] Columns in an EXCEPT list must be distinct and non-overlapping, but got (${except.map((p) => p.join('.')).join(', ')}).`,
    pos, 'EXCEPT', 'EXCEPT_OVERLAPPING_COLUMNS',
  );
  /** `type` less the fields `cut` names (paths inside it, none empty). */
  const prune = (type: Field | undefined, cut: readonly string[][]): PrunedStruct => ({
    fields: fieldsOf(type).flatMap((f) => {
      const inside = cut.filter((p) => p[0] === f.name).map((p) => p.slice(1));
      if (inside.length === 0) return [{ name: f.name }];
      if (inside.some((p) => p.length === 0)) {
        if (inside.length > 1) throw overlapping();
        return [];
      }
      return [{ name: f.name, pruned: prune(f, inside) }];
    }),
  });
  return columns.flatMap((c): StarColumn[] => {
    const cut = paths.get(c);
    if (!cut) return [c];
    if (cut.some((p) => p.length === 0)) {
      if (cut.length > 1) throw overlapping();
      return [];
    }
    return [{ ...c, pruned: prune(c.type, cut) }];
  });
}

/**
 * Spark's CheckAnalysis of a Distinct (SELECT DISTINCT, UNION), an Intersect and an Except: they
 * tell rows equal, and a map or a VARIANT has no equality, so an output column holding one
 * (`columns`: each name and type) is refused, before any grouping of it is.
 */
function refuseSetOperationColumns(columns: readonly (readonly [string, TypeInfo | Field])[], position: SqlPosition | undefined, operator: string, refused = holdsMap): void {
  const column = columns.find(([, t]) => holdsVariant(t) || refused(t));
  if (column) throw setOperationColumnRefused(column[0], column[1], position, operator);
}

/**
 * Spark's UNSUPPORTED_FEATURE.SET_OPERATION_ON_VARIANT_TYPE or …_MAP_TYPE (CheckAnalysis's
 * variantColumnInSetOperation, mapColumnInSetOperation): the column `name` of type `t`, holding a
 * VARIANT or a map, has no equality for a DISTINCT or a set operation to tell its rows apart by.
 */
function setOperationColumnRefused(name: string, t: TypeInfo | Field, position: SqlPosition | undefined, operator: string): SqlValidationError {
  const variant = holdsVariant(t);
  const kind = variant ? 'VARIANT' : 'MAP';
  const todo = variant ? "Compare a value read from it instead: variant_get(v, '$.path', 'type') or to_json(v)" : "Compare the map's entries instead: array_sort(map_entries(m))";
  return new SqlValidationError(
    `[UNSUPPORTED_FEATURE.SET_OPERATION_ON_${kind}_TYPE] The feature is not supported: Cannot have ${kind} type columns in DataFrame which calls set operations (INTERSECT, EXCEPT, etc.), but the type of column \`${name.replace(/`/g, '``')}\` is "${typeText(t)}". ${todo}`,
    position, operator, `UNSUPPORTED_FEATURE.SET_OPERATION_ON_${kind}_TYPE`);
}

/**
 * Spark's CheckAnalysis of a Filter: an aggregate function in WHERE (outside a window and a
 * subquery) aggregates nothing, INVALID_WHERE_CONDITION.
 */
function checkNoAggregateInWhere(where: Expression): void {
  const found: Expression[] = [];
  someExpression(where, (x) => {
    if (isAggregateCall(x)) found.push(x);
    return false;
  }, (x) => x.kind !== 'UnresolvedWindowExpression');
  if (found.length === 0) return;
  throw new SqlValidationError(
    `[INVALID_WHERE_CONDITION] The WHERE condition "${where.kind === 'BinaryOperator' ? `(${expressionSql(where)})` : expressionSql(where)}" contains invalid expressions: ${found.map((x) => expressionSql(x)).join(', ')}. ` +
      'Rewrite the query to avoid window functions, aggregate functions, and generator functions in the WHERE clause: filter on an aggregate with GROUP BY … HAVING, or compute it in a subquery',
    lineColumn(found[0].pos),
    'WHERE',
    'INVALID_WHERE_CONDITION',
  );
}
