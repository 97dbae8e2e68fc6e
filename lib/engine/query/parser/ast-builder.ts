/**
 * The Spark SQL front end's entry: `parsePlan(sql)` parses one query with Spark's grammar
 * (spark-parser.ts) and builds Weir's unresolved logical plan (unresolved-plan.ts) the way
 * Spark's AstBuilder builds Catalyst's: FROM (relations, joins, LATERAL VIEW) → WHERE (Filter) →
 * GROUP BY (Aggregate; HAVING an UnresolvedHaving over it) or the select list (Project) →
 * DISTINCT → ORDER BY/SORT BY (Sort) → OFFSET → LIMIT; WITH is an UnresolvedWith of SubqueryAliases,
 * set operations Union/Intersect/Except. The ANTLR parse tree stays inside this folder.
 *
 * query-planner.ts plans from this unresolved plan (with aggregate-planner.ts and
 * join-planner.ts), and expression-builder.ts turns its expressions into Weir's Expr.
 */
import { TerminalNode, type ParserRuleContext, type Token } from 'antlr4ng';
import { unsupportedOperation } from '../../errors';
import { containsAggregate, isAggregateCall, isAggregateFunctionName } from '../aggregate-functions';
import { isNondeterministicFunction } from '../random-functions';
import { formatDouble } from '../sql-values';
import { SqlValidationError } from '../sql-error';
import { ExpressionAstBuilder, notSupported, type WindowSpec } from './expression-ast-builder';
import { parseSchema } from './data-type-parser';
import { mapPlanExpressions, replacePlanNodes, someExpression } from './expression-tree';
import { identifierText } from './identifiers';
import { lateralSubqueryJoin } from './lateral-subquery';
import { Ctx, parseQuery, parseQueryTokens, parseSpark } from './spark-parser';
import type { ParsedText, PipeChain, PipeOperator } from './spark-parser';
import { VALUES_RELATION, type Expression, type JoinType, type LogicalPlan, type Position, type SortOrder, type SubqueryAlias, type UnresolvedFunction } from './unresolved-plan';

type C<K extends keyof typeof Ctx> = InstanceType<(typeof Ctx)[K]>;

const JOIN_TYPES: Record<string, JoinType> = {
  '': 'Inner', INNER: 'Inner', CROSS: 'Cross', LEFT: 'LeftOuter', LEFTOUTER: 'LeftOuter', RIGHT: 'RightOuter', RIGHTOUTER: 'RightOuter',
  FULL: 'FullOuter', FULLOUTER: 'FullOuter', SEMI: 'LeftSemi', LEFTSEMI: 'LeftSemi', ANTI: 'LeftAnti', LEFTANTI: 'LeftAnti',
};

/**
 * The name of the first function `e` calls that an inline table cannot evaluate to a constant, if
 * any: a nondeterministic one (rand(), uuid()…) or an aggregate (count(1)), neither of them
 * foldable, as Spark's ResolveInlineTables.validateInputEvaluable requires.
 */
function firstUnevaluableCall(e: Expression): string | undefined {
  let found: string | undefined;
  someExpression(e, (x) => {
    if (x.kind !== 'UnresolvedFunction' || x.nameParts.length !== 1) return false;
    const name = x.nameParts[0].toLowerCase();
    if (isNondeterministicFunction(name) || isAggregateFunctionName(name)) found = x.nameParts[0];
    return found !== undefined;
  });
  return found;
}

/** The name a pipe operator's query reads its left side as, until the left side's plan takes its place. */
const PIPE_INPUT = '|> input';

class PlanAstBuilder {
  readonly expr: ExpressionAstBuilder;
  /** The name tokens that pipe operators' queries read their left side as. */
  private readonly pipeInputs = new Set<Token>();
  constructor(private readonly parsed: ParsedText) {
    this.expr = new ExpressionAstBuilder(parsed, (q) => this.query(q));
  }

  private pos(ctx: ParserRuleContext): Position {
    return this.expr.pos(ctx);
  }

  query(ctx: C<'QueryContext'>): LogicalPlan {
    const q = ctx as C<'QueryStatementContext'>;
    const body = this.organize(this.queryTerm(q.queryTerm()), q.queryOrganization());
    const ctes = q.ctes();
    if (!ctes) return body;
    const cteRelations: SubqueryAlias[] = ctes.namedQuery().map((n) => {
      let child = this.query(n.query());
      if (n._columnAliases) child = { kind: 'UnresolvedSubqueryColumnAliases', outputColumnNames: this.identifierList(n._columnAliases), child, pos: this.pos(n) };
      return { kind: 'SubqueryAlias', alias: this.tableIdentifierPart(n.errorCapturingIdentifier()), child, pos: this.pos(n) };
    });
    // Spark's withCTE: names compared as written (the analyzer's resolution is case-insensitive later).
    const duplicates = [...new Set(cteRelations.map((c) => c.alias).filter((a, i, all) => all.indexOf(a) !== i))];
    if (duplicates.length > 0) {
      const names = duplicates.map((d) => `\`${d.replace(/`/g, '``')}\``).join(', ');
      throw new SqlValidationError(`[_LEGACY_ERROR_TEMP_0038] CTE definition can't have duplicate names: ${names}.`, this.pos(ctes), 'WITH', '_LEGACY_ERROR_TEMP_0038');
    }
    return { kind: 'UnresolvedWith', child: body, cteRelations, pos: this.pos(ctx) };
  }

  /** The plan a name token stands for in a pipe query (see rewritePipes): a whole pipe query, or an operator's left side. */
  private pipeRelation(name: Token): LogicalPlan | undefined {
    const chain = this.parsed.pipes.get(name);
    if (chain) return this.pipeChain(chain);
    return this.pipeInputs.has(name) ? { kind: 'UnresolvedRelation', multipartIdentifier: [PIPE_INPUT], pos: this.expr.tokenPos(name) } : undefined;
  }

  /** Spark's visitOperatorPipeStatement: each operator's plan over the plan on its left. */
  private pipeChain(chain: PipeChain): LogicalPlan {
    let plan = this.query(parseQueryTokens(this.parsed, chain.left));
    for (const op of chain.operators) {
      // The operator's own plan is built over a placeholder, and its WINDOW clause applies to it alone; then the left side takes the placeholder's place.
      this.pipeInputs.add(op.input);
      const built = this.query(parseQueryTokens(this.parsed, op.tokens));
      // Spark's withSubqueryAlias: a table subquery boundary, so that WHERE and ORDER BY read only the left side's output.
      const aliased = op.aliasedInput && plan.kind !== 'SubqueryAlias' && plan.kind !== 'UnresolvedRelation';
      const input: LogicalPlan = aliased ? { kind: 'SubqueryAlias', alias: '__auto_generated_subquery_name', child: plan, pos: plan.pos } : plan;
      plan = this.pipeOperator(op, replacePlanNodes(built, (p) => p.kind === 'UnresolvedRelation' && p.multipartIdentifier.length === 1 && p.multipartIdentifier[0] === PIPE_INPUT, input));
    }
    return plan;
  }

  /**
   * A pipe operator's plan from the plan of the query it was written as: SELECT and EXTEND may
   * hold no aggregate function outside a window or subquery (Spark's
   * PIPE_OPERATOR_CONTAINS_AGGREGATE_FUNCTION, which points to AGGREGATE); AGGREGATE needs one
   * in each item it aggregates; AS, PIVOT and UNPIVOT are their plan without the `SELECT *`.
   */
  private pipeOperator(op: PipeOperator, plan: LogicalPlan): LogicalPlan {
    // The planner reads a bare SubqueryAlias, Pivot, Unpivot or Join as a relation, which keeps its qualifiers
    // (`|> AS s |> SELECT s.a`, `|> JOIN u |> SELECT t.*`); a Filter it plans under the SELECT * that reads it.
    if (op.kind === 'UNWRAP') return plan.kind === 'Project' && ['SubqueryAlias', 'Pivot', 'Unpivot', 'Join'].includes(plan.child.kind) ? plan.child : plan;
    if (op.kind === 'AGGREGATE') return this.pipeAggregate(op, plan);
    if (op.kind === 'SET' && plan.kind === 'Project') {
      // Spark's visitOperatorPipeSet: one Project per assignment, each over the one before, so a later one reads an earlier one's value.
      const [star, ...assignments] = plan.projectList;
      return assignments.reduce((child: LogicalPlan, a): LogicalPlan => {
        if (a.kind !== 'Alias') return child;
        if (containsAggregate(a.child)) this.pipeOperator({ ...op, kind: 'SELECT' }, { ...plan, projectList: [a] });
        if (someExpression(a.child, (x) => x.kind === 'UnresolvedWindowExpression')) throw notSupported('A window function in |> SET', a.child.pos);
        return { kind: 'Project', projectList: [{ kind: 'UnresolvedStar', replace: { name: a.name, expr: a.child }, pos: a.pos }], child, pos: star.pos };
      }, plan.child);
    }
    if (op.kind !== 'SELECT' && op.kind !== 'EXTEND') return plan;
    let project = plan;
    while (project.kind === 'Distinct') project = project.child;
    if (project.kind !== 'Project') return plan;
    // Spark wraps each EXTEND item in a PipeExpression, in which a star is no column list.
    const star = op.kind === 'EXTEND' ? project.projectList.slice(1).find((e) => e.kind === 'UnresolvedStar') : undefined;
    if (star) throw new SqlValidationError("[INVALID_USAGE_OF_STAR_OR_REGEX] Invalid usage of '*' in expression `pipeselect`.", star.pos, 'EXTEND', 'INVALID_USAGE_OF_STAR_OR_REGEX');
    for (const item of project.projectList) {
      if (!containsAggregate(item)) continue;
      let call: Expression = item;
      someExpression(item, (x) => {
        if (!isAggregateCall(x)) return false;
        call = x;
        return true;
      }, (x) => x.kind !== 'UnresolvedWindowExpression');
      const expr = this.parsed.text.sql.slice(call.pos.start, call.pos.end);
      throw new SqlValidationError(`[PIPE_OPERATOR_CONTAINS_AGGREGATE_FUNCTION] Aggregate function ${expr} is not allowed when using the pipe operator |> SELECT clause; please use the pipe operator |> AGGREGATE clause instead.`, call.pos, 'SELECT', 'PIPE_OPERATOR_CONTAINS_AGGREGATE_FUNCTION');
    }
    return plan;
  }

  /**
   * Spark's visitOperatorPipeAggregate checks: no window function, GROUPING or GROUPING_ID
   * (PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE), and an aggregate function in each item after
   * the GROUP BY items (PIPE_OPERATOR_AGGREGATE_EXPRESSION_CONTAINS_NO_AGGREGATE_FUNCTION).
   */
  private pipeAggregate(op: PipeOperator, plan: LogicalPlan): LogicalPlan {
    const items = plan.kind === 'Aggregate' ? plan.aggregateExpressions : plan.kind === 'Project' ? plan.projectList : [];
    const unsupported = (c: string, at: Position) => new SqlValidationError(`[UNSUPPORTED_FEATURE.PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE] The feature is not supported: The SQL pipe operator syntax with aggregation (using |> AGGREGATE) does not support ${c}.`, at, 'AGGREGATE', 'UNSUPPORTED_FEATURE.PIPE_OPERATOR_AGGREGATE_UNSUPPORTED_CASE');
    for (const item of items.slice(op.groupingItems)) {
      someExpression(item, (x) => {
        if (x.kind === 'UnresolvedWindowExpression') throw unsupported('window functions', x.pos);
        const name = x.kind === 'UnresolvedFunction' && x.nameParts.length === 1 ? x.nameParts[0].toLowerCase() : '';
        if (name === 'grouping' || name === 'grouping_id') throw unsupported(name.toUpperCase(), x.pos);
        return false;
      });
      if (!containsAggregate(item)) {
        const expr = item.kind === 'Alias' ? item.child : item;
        throw new SqlValidationError(`[PIPE_OPERATOR_AGGREGATE_EXPRESSION_CONTAINS_NO_AGGREGATE_FUNCTION] Non-grouping expression ${this.parsed.text.sql.slice(expr.pos.start, expr.pos.end)} is provided as an argument to the |> AGGREGATE pipe operator but does not contain any aggregate function; please update it to include an aggregate function and then retry the query again.`,
          expr.pos, 'AGGREGATE', 'PIPE_OPERATOR_AGGREGATE_EXPRESSION_CONTAINS_NO_AGGREGATE_FUNCTION');
      }
    }
    return plan;
  }

  private identifierList(ctx: C<'IdentifierListContext'>): string[] {
    return ctx.identifierSeq().errorCapturingIdentifier().map((i) => this.tableIdentifierPart(i));
  }

  /** A name where Spark uses errorCapturingIdentifier: `a-b` is its INVALID_IDENTIFIER error. */
  private tableIdentifierPart(ctx: C<'ErrorCapturingIdentifierContext'>): string {
    if (ctx.errorCapturingIdentifierExtra().identifier().length > 0) {
      const text = ctx.getText();
      throw new SqlValidationError(`[INVALID_IDENTIFIER] The identifier ${text} is invalid. Please, consider quoting it with back-quotes as \`${text}\`.`, this.pos(ctx), 'identifier', 'INVALID_IDENTIFIER');
    }
    return identifierText(ctx.identifier());
  }

  /**
   * ORDER BY, SORT BY, DISTRIBUTE BY, CLUSTER BY as Spark's AstBuilder.withQueryResultClauses
   * combines them: ORDER BY alone, a global Sort; SORT BY a Sort within partitions (global
   * false) over DISTRIBUTE BY's RepartitionByExpression if there is one; CLUSTER BY e the
   * ascending SORT BY e over DISTRIBUTE BY e; any other combination Spark's parse error. Then the
   * WINDOW clause, OFFSET and LIMIT.
   */
  private organize(plan: LogicalPlan, ctx: C<'QueryOrganizationContext'>): LogicalPlan {
    const pos = this.pos(ctx);
    // The grammar gives the BY lists apart from their keywords: each is the clause of the keyword before it.
    const by: Partial<Record<'ORDER' | 'SORT' | 'DISTRIBUTE' | 'CLUSTER', C<'OrderOrSortByClauseContext'> | C<'ClusterOrDistributeByContext'>>> = {};
    let keyword = '';
    for (const child of ctx.children ?? []) {
      if (child instanceof TerminalNode && child.getText().toUpperCase() !== 'BY') keyword = child.getText().toUpperCase();
      else if (child instanceof Ctx.OrderOrSortByClauseContext || child instanceof Ctx.ClusterOrDistributeByContext) by[keyword as keyof typeof by] = child;
    }
    const sortItems = (c: C<'OrderOrSortByClauseContext'> | C<'ClusterOrDistributeByContext'> | undefined) => (c as C<'OrderOrSortByClauseContext'>).sortItem().map((s) => this.expr.sortItem(s));
    const exprs = (c: C<'OrderOrSortByClauseContext'> | C<'ClusterOrDistributeByContext'> | undefined) => (c as C<'ClusterOrDistributeByContext'>).expression().map((e) => this.expr.expression(e));
    const repartition = (c: C<'ClusterOrDistributeByContext'>, child: LogicalPlan): LogicalPlan => ({ kind: 'RepartitionByExpression', partitionExpressions: exprs(c), child, pos: this.pos(c) });
    const written = Object.keys(by).sort().join(',');
    if (written === 'ORDER') plan = { kind: 'Sort', order: sortItems(by.ORDER), global: true, child: plan, pos: this.pos(by.ORDER!) };
    else if (written === 'SORT') plan = { kind: 'Sort', order: sortItems(by.SORT), global: false, child: plan, pos: this.pos(by.SORT!) };
    else if (written === 'DISTRIBUTE') plan = repartition(by.DISTRIBUTE as C<'ClusterOrDistributeByContext'>, plan);
    else if (written === 'DISTRIBUTE,SORT') plan = { kind: 'Sort', order: sortItems(by.SORT), global: false, child: repartition(by.DISTRIBUTE as C<'ClusterOrDistributeByContext'>, plan), pos: this.pos(by.SORT!) };
    else if (written === 'CLUSTER') {
      const c = by.CLUSTER as C<'ClusterOrDistributeByContext'>;
      const order = exprs(c).map((e): SortOrder => ({ kind: 'SortOrder', child: e, direction: 'Ascending', nullOrdering: 'NullsFirst', pos: e.pos }));
      plan = { kind: 'Sort', order, global: false, child: repartition(c, plan), pos: this.pos(c) };
    } else if (written !== '') {
      throw new SqlValidationError('[_LEGACY_ERROR_TEMP_0011] Combination of ORDER BY/SORT BY/DISTRIBUTE BY/CLUSTER BY is not supported.', pos, 'ORDER BY', '_LEGACY_ERROR_TEMP_0011');
    }
    if (ctx.windowClause()) plan = this.withWindowClause(ctx.windowClause()!, plan);
    if (ctx._offset) plan = { kind: 'Offset', offsetExpr: this.expr.expression(ctx._offset), child: plan, pos: this.pos(ctx._offset) };
    const limit = ctx.limitClause();
    if (limit?._limit) plan = { kind: 'Limit', limitExpr: this.expr.expression(limit._limit), child: plan, pos: this.pos(limit) };
    return plan;
  }

  private queryTerm(ctx: C<'QueryTermContext'>): LogicalPlan {
    const primary = ctx.queryPrimary();
    if (primary) return this.queryPrimary(primary);
    const pos = this.pos(ctx);
    const op = ctx._operator!.text!.toUpperCase();
    const all = ctx.setQuantifier()?.getText().toUpperCase() === 'ALL';
    const left = this.queryTerm(ctx._left!);
    const right = this.queryTerm(ctx._right!);
    if (op === 'UNION') {
      // UNION ALL chains as one Union (Catalyst's CombineUnions does the same later).
      const children = [...(all && left.kind === 'Union' ? left.children : [left]), right];
      const union: LogicalPlan = { kind: 'Union', children, pos };
      return all ? union : { kind: 'Distinct', child: union, pos };
    }
    return { kind: op === 'INTERSECT' ? 'Intersect' : 'Except', left, right, isAll: all, pos };
  }

  private queryPrimary(ctx: C<'QueryPrimaryContext'>): LogicalPlan {
    const pos = this.pos(ctx);
    if (ctx.querySpecification()) return this.querySpecification(ctx.querySpecification()!);
    if (ctx.query()) return this.query(ctx.query()!);
    if (ctx.KW_TABLE()) return this.pipeRelation(ctx.tableName()!.start!) ?? { kind: 'UnresolvedRelation', multipartIdentifier: this.tableName(ctx.tableName()!), pos };
    if (ctx.KW_VALUES()) return this.aliased(this.inlineTable(ctx.expression(), ctx.tableAlias(), pos), ctx.tableAlias(), pos);
    // Spark's FROM-first form (`FROM t SELECT a WHERE …`), of one body: the SELECT it reads as.
    const from = ctx.fromClause();
    const bodies = ctx.fromStatementBody();
    if (from && bodies.length === 1 && !bodies[0].transformClause()) return this.organize(this.selectBlock(bodies[0], this.fromClause(from)), bodies[0].queryOrganization());
    throw notSupported('FROM … SELECT', pos);
  }

  /**
   * Spark's UnresolvedInlineTable (`VALUES (1, 'a'), (2, 'b')`, or `VALUES 1, 2` of one column),
   * its columns named col1, col2, … as Spark names them (an alias list renames them), written as
   * what it stands for: a UNION ALL of one SELECT per row over VALUES_RELATION, a row without
   * columns. Its values are evaluated where the query's static side runs, never at validation;
   * a column's type is the one its rows' values widen to, without a STRING beside a number, date
   * or timestamp (checked by the query planner, which knows the types). A row must have as many
   * values as the alias list names (without one, as the first row has), and no value may be
   * nondeterministic or an aggregate, as Spark's ResolveInlineTables requires.
   */
  private inlineTable(exprs: C<'ExpressionContext'>[], alias: C<'TableAliasContext'> | null, pos: Position): LogicalPlan {
    // `(1, 'a')` is a row of two values (Spark's style 1); struct(1, 'a') one value, a struct.
    const rows = exprs.map((x) => this.expr.rowValues(this.expr.expression(x)));
    // Its columns' names as Spark's UnresolvedInlineTable has them: the alias list, else col1, col2, …
    const aliases = alias?._alias && alias.identifierList() ? this.identifierList(alias.identifierList()!) : [];
    const names = aliases.length ? aliases : rows[0].map((_, i) => `col${i + 1}`);
    // Spark's ResolveInlineTables.validateInputDimension: every row has as many values as names.
    const width = names.length;
    rows.forEach((row, i) => {
      if (row.length !== width) {
        throw new SqlValidationError(
          `Invalid inline table. Inline table expected ${width} columns but found ${row.length} columns in row ${i}. Give every row ${aliases.length ? 'a value for each name in the alias list' : 'as many values as the first'}.`,
          this.pos(exprs[i]), 'VALUES', 'INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH');
      }
      for (const v of row) {
        const call = firstUnevaluableCall(v);
        if (call) {
          throw new SqlValidationError(
            `Invalid inline table. Cannot evaluate the expression "${this.parsed.text.sql.slice(v.pos.start, v.pos.end)}" in inline table definition. An inline table holds constants: compute ${call}() in the query that reads it.`,
            v.pos, 'VALUES', 'INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE');
        }
      }
    });
    const relation: LogicalPlan = { kind: 'UnresolvedRelation', multipartIdentifier: [VALUES_RELATION], pos };
    const selects: LogicalPlan[] = rows.map((row) => ({
      kind: 'Project',
      projectList: row.map((v, i): Expression => ({ kind: 'Alias', child: v, name: `col${i + 1}`, pos: v.pos })),
      child: relation,
      pos,
    }));
    return selects.length === 1 ? selects[0] : { kind: 'Union', children: selects, pos, inlineTable: { names } };
  }

  private tableName(ctx: C<'TableNameContext'> | C<'ViewNameContext'>): string[] {
    const id = ctx instanceof Ctx.TableNameContext ? ctx.tableIdentifier() : ctx.viewIdentifier();
    return id.errorCapturingIdentifier().map((p) => this.tableIdentifierPart(p));
  }

  private querySpecification(ctx: C<'QuerySpecificationContext'>): LogicalPlan {
    const from = ctx.fromClause();
    return this.selectBlock(ctx, from ? this.fromClause(from) : undefined);
  }

  /** A SELECT's clauses over its FROM (`from`, undefined without one: Spark's OneRowRelation), written before or after it. */
  private selectBlock(ctx: C<'QuerySpecificationContext'> | C<'FromStatementBodyContext'>, from: LogicalPlan | undefined): LogicalPlan {
    const select = ctx.selectClause();
    if (!select) throw notSupported('SELECT TRANSFORM', this.pos(ctx));
    let plan: LogicalPlan = from ?? { kind: 'OneRowRelation', pos: this.pos(select) };
    for (const lv of ctx.lateralView()) plan = this.lateralView(lv, plan);
    const where = ctx.whereClause();
    if (where) plan = { kind: 'Filter', condition: this.expr.boolean(where.booleanExpression()), child: plan, pos: this.pos(where) };
    const items = select.selectList().namedExpressionSeq().namedExpression().map((n) => this.expr.namedExpression(n));
    const group = ctx.aggregationClause();
    const having = ctx.havingClause();
    if (group || having) {
      const groupingExpressions = group ? this.grouping(group) : [];
      plan = { kind: 'Aggregate', groupingExpressions, aggregateExpressions: items, child: plan, pos: group ? this.pos(group) : this.pos(select) };
      if (having) plan = { kind: 'UnresolvedHaving', havingCondition: this.expr.boolean(having.booleanExpression()), child: plan, pos: this.pos(having) };
    } else {
      plan = { kind: 'Project', projectList: items, child: plan, pos: this.pos(select) };
    }
    if (select.setQuantifier()?.getText().toUpperCase() === 'DISTINCT') plan = { kind: 'Distinct', child: plan, pos: this.pos(select) };
    return ctx.windowClause() ? this.withWindowClause(ctx.windowClause()!, plan) : plan;
  }

  /**
   * WINDOW w AS (…), …: Spark's AstBuilder.withWindowClause and its analyzer's
   * WindowsSubstitution at once (the definitions are all syntax): each `OVER w` in `plan` takes
   * w's definition; `w2 AS w1` is w1's. A name defined twice, a reference to a reference and one
   * to no definition are Spark's INVALID_SQL_SYNTAX errors; an `OVER w` that no clause defines
   * is left for the planner (MISSING_WINDOW_SPECIFICATION). An unused definition changes nothing.
   */
  private withWindowClause(ctx: C<'WindowClauseContext'>, plan: LogicalPlan): LogicalPlan {
    const pos = this.pos(ctx);
    const invalid = (sub: string, message: string) => new SqlValidationError(`Invalid SQL syntax: ${message}`, pos, 'WINDOW', `INVALID_SQL_SYNTAX.${sub}`);
    const quoted = (n: string) => `\`${n.replace(/`/g, '``')}\``;
    const base = new Map<string, { spec: WindowSpec; text: string }>();
    ctx.errorCapturingIdentifier().forEach((id, i) => {
      const name = this.tableIdentifierPart(id);
      if (base.has(name)) throw invalid('REPETITIVE_WINDOW_DEFINITION', `The definition of window ${quoted(name)} is repetitive.`);
      const specCtx = ctx.windowSpec(i)!;
      const p = this.pos(specCtx);
      base.set(name, { spec: this.expr.windowSpec(specCtx), text: this.parsed.text.sql.slice(p.start, p.end) });
    });
    const definitions = new Map([...base].map(([name, d]) => {
      if (d.spec.windowName === undefined) return [name, d];
      const target = base.get(d.spec.windowName);
      if (!target) throw invalid('UNRESOLVED_WINDOW_REFERENCE', `Cannot resolve window reference ${quoted(d.spec.windowName)}.`);
      if (target.spec.windowName !== undefined) throw invalid('INVALID_WINDOW_REFERENCE', `Window reference ${quoted(d.spec.windowName)} is not a window specification.`);
      return [name, target];
    }));
    return mapPlanExpressions(plan, (e) => {
      if (e.kind !== 'UnresolvedWindowExpression' || e.windowName === undefined) return undefined;
      const d = definitions.get(e.windowName);
      if (!d) return undefined;
      const { windowName: _name, ...rest } = e;
      return { ...rest, ...d.spec, definition: d.text };
    });
  }

  private groupingItem(ctx: C<'GroupingSetContext'> | C<'GroupByClauseContext'>): Expression[] {
    const out: Expression[] = [];
    for (const child of ctx.children ?? []) {
      if (child instanceof Ctx.ColumnNameContext) out.push(this.expr.columnName(child));
      else if (child instanceof Ctx.ExpressionContext) out.push(this.expr.expression(child));
    }
    // A grouping set `(a, b)` read whole as one expression is the row constructor struct(a, b):
    // Spark's grammar reads it as the set of a and b (its first alternative).
    const [only] = out;
    if (ctx instanceof Ctx.GroupingSetContext && out.length === 1 && only.kind === 'UnresolvedFunction' && only.nameParts[0] === 'struct' && ctx.getText().startsWith('(')) return [...only.arguments];
    return out;
  }

  private analytics(ctx: C<'GroupingAnalyticsContext'>): Expression {
    const type = ctx.KW_CUBE() ? 'Cube' : ctx.KW_ROLLUP() ? 'Rollup' : 'GroupingSets';
    if (ctx.groupingAnalytics().length > 0) throw notSupported('Nested grouping analytics', this.pos(ctx));
    return { kind: 'GroupingAnalytics', type, groupingSets: ctx.groupingSet().map((s) => this.groupingItem(s)), pos: this.pos(ctx) };
  }

  private grouping(ctx: C<'AggregationClauseContext'>): Expression[] {
    const kind = ctx._kind?.text?.toUpperCase();
    if (kind) {
      const exprs = ctx._groupingExpressions.map((e) => this.expr.expression(e));
      const type = kind === 'CUBE' ? 'Cube' : kind === 'ROLLUP' ? 'Rollup' : 'GroupingSets';
      const sets = type === 'GroupingSets' ? ctx.groupingSet().map((s) => this.groupingItem(s)) : exprs.map((e) => [e]);
      return [{ kind: 'GroupingAnalytics', type, groupingSets: sets, ...(type === 'GroupingSets' ? { groupByExpressions: exprs } : {}), pos: this.pos(ctx) }];
    }
    return ctx.groupByClause().flatMap((g) => (g.groupingAnalytics() ? [this.analytics(g.groupingAnalytics()!)] : this.groupingItem(g)));
  }

  private fromClause(ctx: C<'FromClauseContext'>): LogicalPlan {
    // FROM a, b is an inner join without a condition, as Spark builds it; `a, LATERAL explode(a.x)`
    // generates a's rows' values.
    const [first, ...rest] = ctx.relation();
    const plan = rest.reduce((left: LogicalPlan, r): LogicalPlan => {
      const generator = r.KW_LATERAL() && r.joinRelation().length === 0 && r.pivotClause().length === 0 && r.unPivotClause().length === 0 ? this.lateralGenerator(r.relationPrimary()!, false) : undefined;
      if (generator) return generator(left);
      // A LATERAL subquery is a Generate over the relations before it, a LATERAL one before it too.
      const primary = r.relationPrimary();
      if (r.KW_LATERAL() && primary instanceof Ctx.SubQueryTableSourceContext && r.joinRelation().length === 0) {
        return lateralSubqueryJoin(left, this.relationPrimary(primary), false, undefined, this.pos(r));
      }
      return { kind: 'Join', left, right: this.relation(r), joinType: 'Inner', pos: this.pos(ctx) };
    }, this.relation(first));
    // Spark's visitFromClause: a PIVOT or UNPIVOT after the relations takes no LATERAL VIEW nor the other.
    const notAllowed = (what: string) => new SqlValidationError(`Not allowed in the FROM clause: ${what.replace('_WITH_', ' together with ')}.`, this.pos(ctx), 'FROM', `NOT_ALLOWED_IN_FROM.${what}`);
    const pivot = ctx.pivotClause();
    const unpivot = ctx.unPivotClause();
    if (pivot) {
      if (unpivot) throw notAllowed('UNPIVOT_WITH_PIVOT');
      if (ctx.lateralView().length) throw notAllowed('LATERAL_WITH_PIVOT');
      return this.withPivot(pivot, plan);
    }
    if (unpivot) {
      if (ctx.lateralView().length) throw notAllowed('LATERAL_WITH_UNPIVOT');
      return this.withUnpivot(unpivot, plan);
    }
    return ctx.lateralView().reduce((p, lv) => this.lateralView(lv, p), plan);
  }

  /** PIVOT (aggregates FOR column IN (values)) of `child`, as Spark's AstBuilder.withPivot. */
  private withPivot(ctx: C<'PivotClauseContext'>, child: LogicalPlan): LogicalPlan {
    const pos = this.pos(ctx);
    const ids = ctx.pivotColumn().identifier();
    const column = (id: C<'IdentifierContext'>): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [identifierText(id)], pos: this.pos(id) });
    // `FOR (a, b) IN ((1, 'x') AS p, …)`: the column a struct of a and b, as Spark's CreateStruct.
    const pivotColumn: Expression = ids.length === 1 ? column(ids[0]) : { kind: 'UnresolvedFunction', nameParts: ['struct'], arguments: ids.map(column), isDistinct: false, pos: this.pos(ctx.pivotColumn()) };
    const pivotValues = ctx.pivotValue().map((v): Expression => {
      const e = this.expr.expression(v.expression());
      return v.identifier() ? { kind: 'Alias', child: e, name: identifierText(v.identifier()!), pos: this.pos(v) } : e;
    });
    const aggregates = ctx.namedExpressionSeq().namedExpression().map((n) => this.expr.namedExpression(n));
    return { kind: 'Pivot', aggregates, pivotColumn, pivotValues, child, pos };
  }

  /**
   * UNPIVOT [INCLUDE | EXCLUDE NULLS] (v FOR name IN (a [AS x], …)) or ((v1, v2) FOR name IN
   * ((a, b) [AS x], …)) [[AS] alias] of `child`, as Spark's AstBuilder.withUnpivot.
   */
  private withUnpivot(ctx: C<'UnPivotClauseContext'>, child: LogicalPlan): LogicalPlan {
    const pos = this.pos(ctx);
    const name = (m: C<'MultipartIdentifierContext'>): Expression => this.expr.name(m);
    const single = ctx.unPivotSingleValueColumnClause();
    const includeNulls = !!ctx.KW_INCLUDE();
    let unpivot: Extract<LogicalPlan, { kind: 'Unpivot' }>;
    if (single) {
      const [value, variable] = single.identifier().map(identifierText);
      const columns = single.unPivotColumnAndAlias();
      unpivot = {
        kind: 'Unpivot', includeNulls, values: columns.map((c) => [name(c.multipartIdentifier())]), aliases: columns.map((c) => (c.identifier() ? identifierText(c.identifier()!) : undefined)),
        variableColumnName: variable, valueColumnNames: [value], child, pos,
      };
    } else {
      const multi = ctx.unPivotMultiValueColumnClause()!;
      const valueIds = multi._unPivotValueColumns;
      const variable = multi.identifier().find((i) => !valueIds.includes(i))!;
      const sets = multi.unPivotColumnSet();
      unpivot = {
        kind: 'Unpivot', includeNulls, values: sets.map((s) => s.multipartIdentifier().map(name)), aliases: sets.map((s) => (s.identifier() ? identifierText(s.identifier()!) : undefined)),
        variableColumnName: identifierText(variable), valueColumnNames: valueIds.map(identifierText), child, pos,
      };
    }
    return ctx.identifier() ? { kind: 'SubqueryAlias', alias: identifierText(ctx.identifier()!), child: unpivot, pos } : unpivot;
  }

  /**
   * TABLESAMPLE, as Spark's AstBuilder.withSample reads it: `n ROWS` is a LIMIT of the relation;
   * a percentage or `BUCKET x OUT OF y` is Spark's Sample, which Spark's UnsupportedOperationChecker
   * refuses over a stream (a sample of a stream's batches would differ on a re-run); bytes and a
   * bucket ON a column or function Spark's parser refuses.
   */
  private withSample(ctx: C<'SampleContext'> | null, plan: LogicalPlan): LogicalPlan {
    if (!ctx) return plan;
    const pos = this.pos(ctx);
    const m = ctx.sampleMethod();
    if (!m) throw new SqlValidationError('TABLESAMPLE does not accept empty inputs.', pos, 'TABLESAMPLE', '_LEGACY_ERROR_TEMP_0014');
    if (m.KW_ROWS()) return { kind: 'Limit', limitExpr: this.expr.expression(m.expression()!), child: plan, pos };
    let fraction: number;
    if (m.KW_PERCENTLIT()) fraction = (m.MINUS() ? -1 : 1) * Number(m._percentage!.text) / 100;
    else if (m.KW_BUCKET()) {
      if (m.KW_ON()) {
        throw new SqlValidationError(`TABLESAMPLE(BUCKET x OUT OF y ON ${m.identifier() ? 'colname' : 'function'}) is not supported.`, pos, 'TABLESAMPLE', '_LEGACY_ERROR_TEMP_0015');
      }
      fraction = Number(m._numerator!.text) / Number(m._denominator!.text);
    } else {
      const bytes = m.getText();
      if (/^[0-9]+[bBkKmMgG]$/.test(bytes)) throw new SqlValidationError('TABLESAMPLE(byteLengthLiteral) is not supported.', pos, 'TABLESAMPLE', '_LEGACY_ERROR_TEMP_0015');
      throw new SqlValidationError(`${bytes} is not a valid byte length literal, expected syntax: DIGIT+ ('B' | 'K' | 'M' | 'G').`, pos, 'TABLESAMPLE', '_LEGACY_ERROR_TEMP_0016');
    }
    // Spark's RandomSampler.roundingEpsilon.
    const eps = 1e-6;
    if (!(fraction >= -eps && fraction <= 1 + eps)) {
      throw new SqlValidationError(`Sampling fraction (${formatDouble(fraction)}) must be on interval [0, 1]`, pos, 'TABLESAMPLE', '_LEGACY_ERROR_TEMP_0064');
    }
    throw unsupportedOperation('Sampling is not supported on streaming DataFrames/Datasets', { position: { line: pos.line, column: pos.column } });
  }

  private aliased(plan: LogicalPlan, alias: C<'TableAliasContext'> | null, pos: Position): LogicalPlan {
    if (!alias?._alias) return plan;
    const name = identifierText(alias._alias);
    const list = alias.identifierList();
    const child: LogicalPlan = list ? { kind: 'UnresolvedSubqueryColumnAliases', outputColumnNames: this.identifierList(list), child: plan, pos } : plan;
    return { kind: 'SubqueryAlias', alias: name, child, pos };
  }

  private relation(ctx: C<'RelationContext'>): LogicalPlan {
    if (ctx.tableName()) return this.pipeRelation(ctx.tableName()!.start!) ?? { kind: 'UnresolvedRelation', multipartIdentifier: this.tableName(ctx.tableName()!), pos: this.pos(ctx) };
    // LATERAL before FROM's first relation has no relation to read (Spark's visitFromClause joins
    // it LATERAL only to one before it): the subquery as any.
    if (ctx.KW_LATERAL() && !(ctx.relationPrimary() instanceof Ctx.SubQueryTableSourceContext)) throw notSupported('LATERAL subqueries', this.pos(ctx));
    let plan = this.relationPrimary(ctx.relationPrimary()!);
    // Spark's relationExtension*: joins, PIVOT and UNPIVOT, each over what is before it.
    for (const j of ctx.children ?? []) {
      if (j instanceof Ctx.PivotClauseContext) plan = this.withPivot(j, plan);
      if (j instanceof Ctx.UnPivotClauseContext) plan = this.withUnpivot(j, plan);
      if (!(j instanceof Ctx.JoinRelationContext)) continue;
      const typeText = (j.joinType()?.getText() ?? '').toUpperCase().replace(/\s+/g, '');
      if (j.KW_LATERAL()) {
        // `JOIN LATERAL explode(a.x) t(v)` is the comma form; `LEFT JOIN LATERAL … ON TRUE` keeps a
        // row that generates none, as LATERAL VIEW OUTER.
        const crit = j.joinCriteria();
        const onTrue = !crit || crit.booleanExpression()?.getText().toUpperCase() === 'TRUE';
        const outer = typeText === 'LEFT' || typeText === 'LEFTOUTER';
        const generator = onTrue && !j.KW_NATURAL() && (outer || ['', 'INNER', 'CROSS'].includes(typeText)) ? this.lateralGenerator(j.relationPrimary(), outer) : undefined;
        if (generator) {
          plan = generator(plan);
          continue;
        }
        if (!(j.relationPrimary() instanceof Ctx.SubQueryTableSourceContext)) throw notSupported('LATERAL joins', this.pos(j));
        plan = lateralSubqueryJoin(plan, this.relationPrimary(j.relationPrimary()), outer, this.lateralJoinCondition(j, typeText), this.pos(j));
        continue;
      }
      const joinType = JOIN_TYPES[typeText];
      if (!joinType) throw notSupported(`${typeText} JOIN`, this.pos(j));
      const right = this.relationPrimary(j.relationPrimary());
      const crit = j.joinCriteria();
      const pos = this.expr.parsed.text.span(ctx.start!, j.stop);
      if (j.KW_NATURAL()) {
        plan = { kind: 'Join', left: plan, right, joinType, natural: true, pos };
      } else if (crit?.KW_USING()) {
        plan = { kind: 'Join', left: plan, right, joinType, usingColumns: this.identifierList(crit.identifierList()!), pos };
      } else if (crit) {
        plan = { kind: 'Join', left: plan, right, joinType, condition: this.joinCondition(crit), pos };
      } else {
        plan = { kind: 'Join', left: plan, right, joinType, pos };
      }
    }
    return plan;
  }

  /**
   * The ON of a JOIN LATERAL (subquery), refusing what Spark's AstBuilder refuses: a join type
   * other than INNER, CROSS and LEFT OUTER (an outer side cannot be correlated to), NATURAL and
   * USING.
   */
  private lateralJoinCondition(j: C<'JoinRelationContext'>, typeText: string): Expression | undefined {
    const pos = this.pos(j);
    if (!['', 'INNER', 'CROSS', 'LEFT', 'LEFTOUTER'].includes(typeText)) {
      // Spark's JoinType.sql.
      const sql = { RightOuter: 'RIGHT OUTER', FullOuter: 'FULL OUTER', LeftSemi: 'LEFT SEMI', LeftAnti: 'LEFT ANTI' }[JOIN_TYPES[typeText] as string] ?? typeText;
      throw new SqlValidationError(
        `[INVALID_LATERAL_JOIN_TYPE] The ${sql} JOIN with LATERAL correlation is not allowed because an OUTER subquery cannot correlate to its join partner. Remove the LATERAL correlation or use an INNER JOIN, or LEFT OUTER JOIN instead.`,
        pos, 'LATERAL', 'INVALID_LATERAL_JOIN_TYPE');
    }
    if (j.KW_NATURAL()) throw new SqlValidationError('[UNSUPPORTED_FEATURE.LATERAL_NATURAL_JOIN] The feature is not supported: NATURAL join with LATERAL correlation. Write the join\'s condition in ON', pos, 'LATERAL', 'UNSUPPORTED_FEATURE.LATERAL_NATURAL_JOIN');
    const crit = j.joinCriteria();
    if (crit?.KW_USING()) throw new SqlValidationError('[UNSUPPORTED_FEATURE.LATERAL_JOIN_USING] The feature is not supported: JOIN USING with LATERAL correlation. Write the join\'s condition in ON', pos, 'LATERAL', 'UNSUPPORTED_FEATURE.LATERAL_JOIN_USING');
    return crit ? this.joinCondition(crit) : undefined;
  }

  private joinCondition(crit: C<'JoinCriteriaContext'>): Expression {
    if (crit.booleanExpression()) return this.expr.boolean(crit.booleanExpression()!);
    // The grammar's completion alternative `ON a = b` between two names.
    const [l, r] = crit.columnNamePathAllowEmpty().map((c) => this.expr.name(c.multipartIdentifierAllowEmpty()!.multipartIdentifier()!));
    return r ? { kind: 'BinaryOperator', op: 'EqualTo', left: l, right: r, pos: this.pos(crit).start === l.pos.start ? this.pos(crit) : { ...l.pos, end: r.pos.end } } : l;
  }

  private relationPrimary(ctx: C<'RelationPrimaryContext'>): LogicalPlan {
    const pos = this.pos(ctx);
    if (ctx instanceof Ctx.TableSourceContext) {
      const input = this.pipeRelation(ctx.start!);
      if (input) return this.aliased(this.withSample(ctx.sample(), input), ctx.tableAlias(), pos);
      if (ctx.temporalClause()) throw notSupported('Time travel (AS OF)', pos);
      const ref = ctx.identifierReference();
      if (ref && !ref.multipartIdentifier()) throw notSupported('IDENTIFIER(…)', pos);
      // The grammar's table names have two parts at most; `cat.db.t` is read as an identifierReference.
      const name = ref ? ref.multipartIdentifier()!.errorCapturingIdentifier().map((p) => this.tableIdentifierPart(p)) : this.tableName((ctx.tableName() ?? ctx.viewName())!);
      const relation: LogicalPlan = { kind: 'UnresolvedRelation', multipartIdentifier: name, pos };
      // A LIMIT of the relation keeps its name as a qualifier (`s.a`), as Spark's Limit passes its child's attributes on.
      const sampled = this.withSample(ctx.sample(), relation);
      return this.aliased(sampled === relation || ctx.tableAlias()?._alias ? sampled : { kind: 'SubqueryAlias', alias: name[name.length - 1], child: sampled, pos }, ctx.tableAlias(), pos);
    }
    if (ctx instanceof Ctx.SubQueryTableSourceContext) {
      return this.aliased(this.withSample(ctx.sample(), this.query(ctx.atomSubQueryTableSource().query())), ctx.tableAlias(), pos);
    }
    if (ctx instanceof Ctx.JoinTableSourceContext) return this.aliased(this.relation(ctx.relation()), ctx.tableAlias(), pos);
    if (ctx instanceof Ctx.InlineTableSourceContext) return this.aliased(this.inlineTable(ctx.inlineTable().expression(), ctx.tableAlias(), pos), ctx.tableAlias(), pos);
    const table = ctx instanceof Ctx.FunctionTableSourceContext ? this.tableFunction(ctx) : undefined;
    if (table) return table;
    throw notSupported('Table-valued functions', pos);
  }

  /**
   * A call in FROM, `f(args) [AS] [t[(c1, …)]]`, Spark's UnresolvedTableValuedFunction, as what
   * it stands for: a Generate of the call over VALUES_RELATION, the one row without columns an
   * inline table reads, so that the rows are static data where an inline table's are (a join's
   * static side, a subquery, a CTE). range(…) is Spark's Range (a generator only here), explode
   * and the other generators Spark's generator table functions (a Generate over OneRowRelation);
   * the planner resolves the name. The alias names the relation, its list the columns.
   * Undefined for a call whose name or arguments the grammar reads otherwise (IDENTIFIER(…), a
   * TABLE argument).
   */
  private tableFunction(ctx: C<'FunctionTableSourceContext'>): LogicalPlan | undefined {
    const generator = this.functionTableCall(ctx);
    if (!generator) return undefined;
    const pos = this.pos(ctx);
    const alias = ctx.functionTable().tableAlias();
    const columns = alias.identifierList() ? this.identifierList(alias.identifierList()!) : [];
    const relation: LogicalPlan = { kind: 'UnresolvedRelation', multipartIdentifier: [VALUES_RELATION], pos };
    const generate: LogicalPlan = { kind: 'Generate', generator, outer: false, generatorOutput: columns, child: relation, tableFunction: true, pos };
    return alias._alias ? { kind: 'SubqueryAlias', alias: identifierText(alias._alias), child: generate, pos } : generate;
  }

  /** The call of a function in FROM (`range(3)`, `explode(a.x)`), or undefined where it is not a plain call. */
  private functionTableCall(ctx: C<'FunctionTableSourceContext'>): UnresolvedFunction | undefined {
    const fn = ctx.functionTable().atomFunctionTable();
    if (fn.functionName().KW_IDENTIFIER() || !fn.functionName().qualifiedName()) return undefined;
    const args: Expression[] = [];
    for (const a of fn.functionTableArgument()) {
      const arg = a.functionArgument();
      const named = arg?.namedArgumentExpression();
      if (named) args.push({ kind: 'NamedArgumentExpression', key: identifierText(named._key!), value: this.expr.expression(named._value!), pos: this.pos(arg!) });
      else if (arg?.expression()) args.push(this.expr.expression(arg.expression()!));
      else return undefined;
    }
    return {
      kind: 'UnresolvedFunction', nameParts: fn.functionName().qualifiedName()!.identifier().map(identifierText), arguments: args, isDistinct: false,
      pos: this.expr.parsed.text.span(fn.start!, fn.RIGHT_PAREN().symbol),
    };
  }

  /**
   * A generator called in FROM after LATERAL (`FROM events e, LATERAL explode(e.tags) AS t(tag)`,
   * Spark 3.4's table-valued generator functions): over the relations before it the Generate a
   * LATERAL VIEW of the same call makes, its alias naming the table and its columns. Undefined
   * for any other relation (a LATERAL subquery).
   */
  private lateralGenerator(ctx: C<'RelationPrimaryContext'>, outer: boolean): ((child: LogicalPlan) => LogicalPlan) | undefined {
    if (!(ctx instanceof Ctx.FunctionTableSourceContext)) return undefined;
    const generator = this.functionTableCall(ctx);
    if (!generator) return undefined;
    const alias = ctx.functionTable().tableAlias();
    const columns = alias.identifierList() ? this.identifierList(alias.identifierList()!) : [];
    return (child) => ({
      kind: 'Generate', generator, outer, ...(alias._alias ? { qualifier: identifierText(alias._alias) } : {}),
      generatorOutput: columns, child, pos: this.pos(ctx),
    });
  }

  private lateralView(ctx: C<'LateralViewContext'>, child: LogicalPlan): LogicalPlan {
    const pos = this.pos(ctx);
    const generator: UnresolvedFunction = {
      kind: 'UnresolvedFunction', nameParts: this.tableName(ctx.viewName()), arguments: ctx.expression().map((e) => this.expr.expression(e)), isDistinct: false,
      pos: this.expr.parsed.text.span(ctx.viewName().start!, ctx.RIGHT_PAREN().symbol),
    };
    const tableAlias = ctx.tableAlias();
    // Spark's lateralView is `… ) tblName=identifier (AS? colName, …)`, its table name written:
    // in `explode(x) AS c` (ANSI off, where AS is a name) the table is named AS and c is its
    // column. dt-sql-parser's grammar reads `AS c` as the table's alias.
    if (tableAlias.KW_AS() && tableAlias._alias && !tableAlias.identifierList() && ctx._colName.length === 0) {
      return { kind: 'Generate', generator, outer: !!ctx.KW_OUTER(), qualifier: tableAlias.KW_AS()!.getText(), generatorOutput: [identifierText(tableAlias._alias)], child, pos };
    }
    const alias = tableAlias._alias;
    return {
      kind: 'Generate', generator, outer: !!ctx.KW_OUTER(), ...(alias ? { qualifier: identifierText(alias) } : {}),
      generatorOutput: ctx._colName.map(identifierText), child, pos,
    };
  }
}


/** Parses one Spark SQL query into Weir's unresolved plan; a syntax error is Spark's PARSE_SYNTAX_ERROR. */
export function parsePlan(sql: string): LogicalPlan {
  const { tree, parsed } = parseQuery(sql);
  return new PlanAstBuilder(parsed).query(tree);
}

/** Parses one Spark SQL expression (Spark's parseExpression). */
export function parseExpression(sql: string): Expression {
  const { tree, parsed } = parseSpark(sql, (p) => p.expression());
  return new PlanAstBuilder(parsed).expr.expression(tree);
}

/** The shapes most streaming queries have (Kafka columns, JSON, CTEs, joins, windows, literals). */
const WARM_UP_QUERY = `WITH parsed AS (
  SELECT CAST(key AS STRING) AS k, from_json(CAST(value AS STRING), 'id BIGINT, user STRING, amount DECIMAL(10,2), ts TIMESTAMP, tags ARRAY<STRING>') AS j,
    topic, partition, offset, timestamp, timestampType
  FROM events
  WHERE value IS NOT NULL AND topic = 'orders' OR partition IN (0, 1)
), enriched AS (
  SELECT j.id, j.user AS user_name, j.amount, j.ts, j.tags[0] AS first_tag, t.region, p.*,
    CASE WHEN j.amount >= 100 THEN 'large' WHEN j.amount > 0 THEN 'small' ELSE 'none' END AS size,
    coalesce(j.user, 'anonymous') AS who, upper(trim(t.region)) AS region_code, j.amount * 1.2 - 3 / 4 AS gross,
    date_format(j.ts, 'yyyy-MM-dd') AS day, j.ts + INTERVAL 5 MINUTES AS due, x :: long AS xl, "text" AS s,
    transform(j.tags, x -> upper(x)) AS tags_up, named_struct('a', 1).a AS na, NOT flag AS nf
  FROM parsed p JOIN regions t ON p.k = t.k LEFT JOIN users u USING (k)
  WHERE j.amount BETWEEN 1 AND 1000 AND j.user LIKE 'a%' AND j.user RLIKE '^[a-z]+$' AND j.id <> 0
    AND j.ts > TIMESTAMP '2024-01-01 00:00:00' AND DATE '2024-01-01' <= to_date(j.ts) AND (j.id = 1 OR j.id != 2)
)
SELECT window(ts, '10 minutes', '5 minutes') AS w, region, size, count(*) AS n, count(DISTINCT user_name) AS users,
  sum(amount) AS total, avg(amount), min(ts), max(ts), approx_count_distinct(who) AS who_n,
  sum(gross) FILTER (WHERE size = 'large') AS large_gross, first(day), max(partition), max(offset), round(sum(gross), 2) AS r
FROM enriched
GROUP BY window(ts, '10 minutes', '5 minutes'), region, size
HAVING count(*) > 1 AND sum(amount) > 0.5`;

/**
 * Parses a representative query once, to fill ANTLR's prediction cache (one per process,
 * shared by every later parse). A process's first parse pays for the cache of the paths it
 * needs, about a second for a 100-line query; call this at process start so that a user's
 * first validation does not. A query of a shape the cache has not seen still pays for its
 * new paths (`npm run bench -- sql-frontend` measures both).
 */
export function warmUpSparkParser(): void {
  parsePlan(WARM_UP_QUERY);
  parseSchema('id BIGINT, name STRING, price DECIMAL(10,2), tags ARRAY<STRING>, attrs MAP<STRING, INT>, pos STRUCT<x: DOUBLE, y: DOUBLE>');
}
