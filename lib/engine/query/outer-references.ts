/**
 * The outer references of correlated scalar subqueries, as Spark's analyzer resolves them
 * (ResolveSubquery, OuterReference): a name in a subquery's plan that none of its own scopes
 * has is read in the SELECT around the subquery, then in the one around that, and so on. Each
 * such read is an outer value of the subquery (Spark's outerAttrs): the expression over the
 * outer row, which the subquery's `outer` holds, and in its plan an `outerReference` to its
 * position. A name read two levels out is an outer value of the subquery around it too, so that
 * each plan reads the values of the level right around it only. A LATERAL subquery reads the
 * query right around it only, as Spark resolves an outer reference in its AnalysisContext's
 * outerPlan alone: neither it nor a subquery inside it reads a query further out.
 */
import type { Schema } from '../types';
import { isAggregateFunctionName } from './aggregate-functions';
import { isOrderable } from './data-types';
import { exprChildren, exprToString, mapExprChildren, type Expr, type SqlPosition } from './expression';
import { expressionType } from './expression-compiler';
import type { ExpressionBuilder } from './expression-builder';
import { children, nodeExpressions, staticName, type LogicalPlan } from './logical-plan';
import type { Resolved } from './resolved-plan';
import { notSupportedYet, SqlValidationError } from './sql-error';

interface OuterScope {
  /** How the SELECT around the subquery reads its names, and over which columns. */
  builder: ExpressionBuilder;
  schema: Schema;
  /** The outer values read so far, by their positions. */
  values: Expr[];
  /** The subquery planned in this scope is a LATERAL one (parser/lateral-subquery.ts). */
  lateral: boolean;
}

export class OuterReferences {
  /** The scopes around the subquery being planned, innermost last. */
  private readonly scopes: OuterScope[] = [];

  /**
   * `plan()` (a subquery's planning) with `builder` over `schema` the scope around it: its plan,
   * and the outer values it read.
   */
  within(builder: ExpressionBuilder, schema: Schema, plan: () => Resolved, pos: SqlPosition | undefined, lateral = false): { planned: Resolved; outer: Expr[] } {
    const scope: OuterScope = { builder, schema, values: [], lateral };
    this.scopes.push(scope);
    try {
      const planned = plan();
      // A CTE of a subquery around it that reads that subquery's outer values (`(WITH c AS
      // (SELECT * FROM t WHERE t.k = o.k) SELECT (SELECT max(v) FROM c))`): its outer references
      // would read this subquery's values.
      if (readsOuterReference(planned.plan, (r) => r.level < this.scopes.length)) {
        throw notSupportedYet('A scalar subquery that reads a CTE whose query reads a column of a query around the subquery', pos, 'read the CTE in the FROM of the subquery that defines it, or join it there');
      }
      return { planned, outer: scope.values };
    } finally {
      this.scopes.pop();
    }
  }

  /** Lets `builder`, made while a subquery is planned, read the names of the scopes around it. */
  attach(builder: ExpressionBuilder): void {
    const level = this.scopes.length;
    if (level > 0) builder.outer = (parts, pos) => this.resolve(level - 1, parts, pos);
  }

  /**
   * A star `q.*` that the subquery being planned has no table, alias or struct column `q` for,
   * as Spark's ResolveReferences expands it in a LATERAL subquery (`LATERAL (SELECT v1.*)`,
   * `COALESCE(v1.*)`): the columns of `q` in the scope right around it, each an outer reference
   * with its name (those `visible` takes); undefined outside a subquery or where that scope has
   * no `q`. Spark expands such a star in its subquery's outer plan only (AnalysisContext's
   * outerPlan), not in a query further out.
   */
  star(q: string, visible: (name: string) => boolean, pos: SqlPosition | undefined): { name: string; expr: Expr }[] | undefined {
    const level = this.scopes.length - 1;
    const scope = this.scopes[level];
    const names = scope?.builder.qualifiedColumns(q, scope.schema);
    return names?.filter(visible).map((name) => ({ name, expr: this.resolve(level, [q, name], pos)! }));
  }

  /** A name as the scope at `level` (or one around it) reads it, as an outer reference to it; undefined where none has it. */
  private resolve(level: number, parts: readonly string[], pos: SqlPosition | undefined): Expr | undefined {
    const scope = this.scopes[level];
    // A table's name its alias hides is a query's further out first (Scope.hidden), this one's where none has it.
    const owns = scope.builder.ownsName(parts);
    // Further out is a query around the query around a subquery: a LATERAL subquery reads only
    // the query right around it (Spark's AnalysisContext.outerPlan), nor does a subquery in one
    // read past it (UNRESOLVED_COLUMN).
    const further = () => (scope.lateral || this.scopes[level - 1]?.lateral ? undefined : scope.builder.outer?.(parts, pos));
    const value = owns && !scope.builder.hidesName(parts) ? scope.builder.attribute(parts, pos) : further() ?? (owns ? scope.builder.attribute(parts, pos) : undefined);
    if (!value) return undefined;
    const type = expressionType(value, scope.schema);
    scope.values.push(value);
    return { kind: 'outerReference', index: scope.values.length - 1, name: parts[parts.length - 1], type, level: level + 1, pos };
  }
}

/** Whether an expression of the plan (its subqueries' plans included) holds an outer reference that `which` takes. */
export function readsOuterReference(plan: LogicalPlan, which: (r: Extract<Expr, { kind: 'outerReference' }>) => boolean = () => true): boolean {
  const reads = (e: Expr): boolean => (e.kind === 'outerReference' && which(e)) || (e.kind === 'scalarSubquery' && readsOuterReference(e.subquery.plan, which)) || exprChildren(e).some(reads);
  return nodeExpressions(plan).some(reads) || children(plan).some((c) => readsOuterReference(c, which)) || (plan.kind === 'StaticRelation' && plan.view !== undefined && readsOuterReference(plan.view.plan, which));
}

/**
 * Spark's CheckAnalysis of a correlated subquery's plan (checkCorrelationsInSubquery): an outer
 * reference is read where a Filter, a Project or a join reads it, not by an aggregation (`SELECT
 * sum(t0a) AS d FROM t1`, `SELECT count(*) + t0a …`), which is
 * UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE, naming the select items as
 * written (the aggregation's select list is the Project above it, reading its aggregates by name);
 * nor below the side an outer join pads (ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED).
 */
export function checkCorrelatedReferences(plan: LogicalPlan, pos: SqlPosition | undefined): void {
  const reads = (e: Expr): boolean => e.kind === 'outerReference' || exprChildren(e).some(reads);
  const aggregate = plan.kind === 'Project' ? (plan.child.kind === 'Filter' ? plan.child.child : plan.child) : undefined;
  if (plan.kind === 'Project' && aggregate?.kind === 'Aggregate') {
    // Spark checks the Aggregate's mixed aggregates before where it reads the outer row.
    checkMixedReferencesInsideAggregate(aggregate, pos);
    const aggregates = new Map(aggregate.aggregates.map((a) => [a.name, a.expr]));
    const written = (e: Expr): Expr => (e.kind === 'column' ? aggregates.get(e.name) ?? e : mapExprChildren(e, written));
    const found = [...aggregate.groupBy.filter(reads).map((e) => exprToString(e)), ...plan.list.map((n) => ({ ...n, expr: written(n.expr) })).filter((n) => reads(n.expr)).map((n) => `${exprToString(n.expr)} AS ${n.name}`)];
    if (found.length) {
      throw new SqlValidationError(
        `[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE] Unsupported subquery expression: Expressions referencing the outer query are not supported outside of WHERE/HAVING clauses: ${found.map((x) => `"${x}"`).join(',')}. ` +
          'Read the outer column in its WHERE, or aggregate it in the outer query',
        pos, 'subquery', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE');
    }
  }
  if (plan.kind === 'Aggregate') checkMixedReferencesInsideAggregate(plan, pos);
  // The side a LEFT join pads with NULLs (a RIGHT join's left, swapped; a FULL join's either),
  // but for the joins a subquery was rewritten to: Spark's domain join cannot reach below it.
  if (plan.kind === 'Join' && plan.joinType === 'LeftOuter' && plan.right.kind === 'StaticRelation' && !staticName(plan.right).startsWith('__') && readsOuterReference(plan.right)) {
    throw new SqlValidationError(
      `[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED] Unsupported subquery expression: Accessing outer query column is not allowed in this location: the side of an outer join that is padded with NULLs (${staticName(plan.right)}). ` +
        'Read the outer column in the join\'s ON or in the WHERE above the join',
      pos, 'subquery', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED');
  }
  children(plan).forEach((c) => checkCorrelatedReferences(c, pos));
  if (plan.kind === 'StaticRelation' && plan.view) checkCorrelatedReferences(plan.view.plan, pos);
}

/**
 * Spark's CheckAnalysis of a correlated aggregate (checkMixedReferencesInsideAggregateExpr): an
 * aggregate over the outer row's column and the subquery's own has no value per outer row that
 * the decorrelated join could compute.
 */
function checkMixedReferencesInsideAggregate(plan: Extract<LogicalPlan, { kind: 'Aggregate' }>, pos: SqlPosition | undefined): void {
  const reads = (e: Expr): boolean => e.kind === 'outerReference' || exprChildren(e).some(reads);
  const local = (e: Expr): boolean => e.kind === 'column' || (e.kind !== 'outerReference' && exprChildren(e).some(local));
  const mixedCall = (e: Expr): Expr | undefined =>
    e.kind === 'call' && isAggregateFunctionName(e.name) && reads(e) && local(e) ? e : exprChildren(e).map(mixedCall).find((x) => x);
  const mixed = plan.aggregates.map((n) => mixedCall(n.expr)).find((x) => x);
  if (mixed) {
    throw new SqlValidationError(
      `[INVALID_SUBQUERY_EXPRESSION.AGGREGATE_FUNCTION_MIXED_OUTER_LOCAL_REFERENCES] Invalid subquery: Found an aggregate function in a correlated predicate that has both outer and local references, which is not supported: ${exprToString(mixed)}. ` +
        'Aggregate the subquery\'s own columns, and combine the result with the outer column outside the aggregate',
      pos, 'subquery', 'INVALID_SUBQUERY_EXPRESSION.AGGREGATE_FUNCTION_MIXED_OUTER_LOCAL_REFERENCES');
  }
}

/** checkMixedReferencesInsideAggregate of each aggregation of the plan (its views' too). */
export function checkMixedAggregates(plan: LogicalPlan, pos: SqlPosition | undefined): void {
  if (plan.kind === 'Aggregate') checkMixedReferencesInsideAggregate(plan, pos);
  children(plan).forEach((c) => checkMixedAggregates(c, pos));
  if (plan.kind === 'StaticRelation' && plan.view) checkMixedAggregates(plan.view.plan, pos);
}

/**
 * An outer reference below an Offset (`EXISTS (SELECT … WHERE t.k = o.k LIMIT 1 OFFSET 2)`):
 * Spark's CheckAnalysis refused it as ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED (an Offset
 * is no operator a correlation may pass) from SPARK-46446, which found its decorrelation wrong,
 * until SPARK-49166 decorrelated it (spark.sql.optimizer.decorrelateOffset.enabled). Checked for
 * the EXISTS and IN subqueries Weir does not run where they are, which it refuses either way;
 * a scalar or LATERAL one runs per outer row, as Spark answers it since.
 */
export function checkOffsetCorrelation(plan: LogicalPlan, pos: SqlPosition | undefined): void {
  if (plan.kind === 'Offset' && readsOwnOuterReference(plan.child)) {
    throw new SqlValidationError(
      `[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED] Unsupported subquery expression: Accessing outer query column is not allowed in this location: below an OFFSET (OFFSET ${plan.offset}). ` +
        'Drop the OFFSET, or read the outer column in a query around the subquery',
      pos, 'subquery', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED');
  }
  children(plan).forEach((c) => checkOffsetCorrelation(c, pos));
  if (plan.kind === 'StaticRelation' && plan.view) checkOffsetCorrelation(plan.view.plan, pos);
}

/**
 * Spark's decorrelation (DecorrelateInnerQuery) of an outer reference below an Aggregate that no
 * equality with an inner column stands for: a domain join, on `inner <=> outer` for each such
 * outer column, which a type without an order cannot have (a map; SPARK-40615):
 * UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_REFERENCE_DATA_TYPE. A map is
 * never equal to a column (maps are not compared), so a map outer reference below an aggregate is
 * always such a one. Checked after the analyzer's checks, as the optimizer runs after them.
 */
export function checkCorrelatedReferenceTypes(plan: LogicalPlan, pos: SqlPosition | undefined, rowsOfLateral = false): void {
  // A LATERAL subquery's rows are collected per outer row by an aggregate of Weir's
  // (parser/lateral-subquery.ts), no aggregate of the subquery's: only what is below it counts.
  if (rowsOfLateral) {
    const below = plan.kind === 'Project' ? plan.child : plan;
    checkCorrelatedReferenceTypes(below.kind === 'Aggregate' ? below.child : below, pos);
    return;
  }
  if (plan.kind === 'Aggregate') {
    const unordered = ownOuterReferences(plan.child, true).find((r) => !isOrderable(r.type));
    if (unordered) {
      throw new SqlValidationError(
        `[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_REFERENCE_DATA_TYPE] Unsupported subquery expression: Correlated column reference 'outer(${unordered.name})' cannot be ${unordered.type.type} type. ` +
          `Read a value of it that has an order (${unordered.name}[key], map_keys(…)) in the outer query, and correlate by that`,
        pos, 'subquery', 'UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_REFERENCE_DATA_TYPE');
    }
  }
  children(plan).forEach((c) => checkCorrelatedReferenceTypes(c, pos));
  if (plan.kind === 'StaticRelation' && plan.view) checkCorrelatedReferenceTypes(plan.view.plan, pos);
}

/**
 * The outer references of its own subquery that the plan reads (as readsOwnOuterReference finds
 * them). `pulledOut`: leaving out a map's value read by a key of the outer row alone
 * (`outer.m[1]`), which Spark's PullOutNestedDataOuterRefExpressions makes an outer column of
 * its own, of the value's type.
 */
function ownOuterReferences(plan: LogicalPlan, pulledOut = false): Extract<Expr, { kind: 'outerReference' }>[] {
  const out: Extract<Expr, { kind: 'outerReference' }>[] = [];
  const outerOnly = (e: Expr): boolean => e.kind !== 'column' && (e.kind !== 'scalarSubquery' || (e.outer ?? []).every(outerOnly)) && exprChildren(e).every(outerOnly);
  const visit = (e: Expr): void => {
    if (e.kind === 'outerReference') out.push(e);
    if (pulledOut && e.kind === 'call' && e.name === 'get' && e.args[0]?.kind === 'outerReference' && e.args.slice(1).every(outerOnly)) return;
    exprChildren(e).forEach(visit);
  };
  const walk = (p: LogicalPlan): void => {
    nodeExpressions(p).forEach(visit);
    children(p).forEach(walk);
    if (p.kind === 'StaticRelation' && p.view) walk(p.view.plan);
  };
  walk(plan);
  return out;
}

/**
 * Whether the plan reads an outer reference of its own subquery: a nested subquery's plan is not
 * read, as the values it takes from this one's rows, and the outer values it passes on, are its
 * expression's children (exprChildren), as Spark's hasOuterReferences reads a plan's expressions.
 */
function readsOwnOuterReference(plan: LogicalPlan): boolean {
  return ownOuterReferences(plan).length > 0;
}
