/**
 * GROUP BY / aggregate functions / HAVING / SELECT DISTINCT → logical plan:
 *
 *   Project [select list over the aggregate's output]
 *   +- Filter [HAVING]            (when there is one)
 *      +- Aggregate [keys], [aggregates]
 *         +- <child: the source, after WHERE>
 *
 * The aggregate's output columns are the grouping keys (a plain column keeps its name, a
 * window is `window`, a session window `session_window`, any other expression `__key<i>`)
 * and the aggregates (`__agg<i>`). The select list and HAVING are rewritten onto those
 * columns: each aggregate call becomes a reference to its `__agg<i>` (the same call twice
 * shares one), each occurrence of a grouping expression a reference to its key. What is left must only read keys, as Spark requires.
 * SELECT DISTINCT is an Aggregate over all selected expressions with no aggregates (Spark
 * treats `distinct()` the same way, so the same output-mode rules apply).
 */
import { unsupportedOperation } from '../errors';
import type { Schema } from '../types';
import { containsAggregate, FIRST_LAST_NAMES, isAggregateCall } from './aggregate-functions';
import { LIST_AGG_NAMES, unsupportedSyntax, WITHIN_GROUP_NAMES } from './within-group';
import { canonicalized, exprChildren, exprToString, mapExprChildren, METADATA_COLUMN, referencedColumns, type Expr, type SqlPosition } from './expression';
import { lineColumn, type ExpressionBuilder } from './expression-builder';
import { groupingCall, groupingCallName, groupingSetsOf, hasDuplicateGroupingSets, HIVE_GROUPING_ID, hiveGroupingId, isGroupingCall } from './grouping-analytics';
import { compileExpression, implicitCastExpr, typeOfCompiled, unresolvedColumn } from './expression-compiler';
import { positionalArguments } from './named-arguments';
import { isNondeterministicFunction } from './random-functions';
import { GROUPING_ID_COLUMN, GROUPING_POS_COLUMN, type LogicalPlan, type NamedExpr } from './logical-plan';
import { expressionSql } from './parser/expression-sql';
import { mapExpression, someExpression } from './parser/expression-tree';
import { BooleanType, IntegerType, NullType, sql, StringType, type DataType } from './parser/data-type';
import type { Expression, Position, SortOrder } from './parser/unresolved-plan';
import { SqlValidationError } from './sql-error';
import { fieldOfType } from './data-types';
import { writtenColumnName } from './column-names';
import { isCorrelatedSubquery } from './correlated-scalar-subquery';

const AGG_PREFIX = '__agg';
const KEY_PREFIX = '__key';
const SORT_PREFIX = '__sort';

type Call = Extract<Expression, { kind: 'UnresolvedFunction' }>;

/** Spark's checkValidAggregateExpression: a column read outside every aggregate function. */
export function columnOutsideAggregate(e: Expression): Expression | undefined {
  let found: Expression | undefined;
  someExpression(e, (x) => {
    if (x.kind === 'UnresolvedAttribute') found = x;
    return found !== undefined;
  }, (x) => !isAggregateCall(x));
  return found;
}

/** A select list, GROUP BY, HAVING and DISTINCT of one SELECT, as the front end parsed them. */
export interface AggregationClauses {
  items: readonly Expression[];
  grouping: readonly Expression[];
  having?: Expression;
  distinct: boolean;
  /** GROUP BY's position, or the SELECT's. */
  pos: Position;
  /** ORDER BY over the aggregation, which may compute what it sorts on. */
  sort?: SortClause;
  /** A batch query over static tables (a join's static side), not the stream's aggregation. */
  batch?: boolean;
}

/** An ORDER BY clause as written. */
export interface SortClause {
  order: readonly SortOrder[];
  pos: Position;
}

/**
 * Whether a SELECT DISTINCT also groups (GROUP BY, an aggregate function, HAVING): Spark's
 * Distinct over that Aggregate, two stateful operators.
 */
export function isDistinctOverAggregation(c: AggregationClauses): boolean {
  return c.distinct && (c.grouping.length > 0 || c.items.some(containsAggregate) || c.having !== undefined);
}

/** Whether the SELECT aggregates: GROUP BY, an aggregate function, HAVING or DISTINCT. */
export function isAggregation(c: AggregationClauses): boolean {
  return c.grouping.length > 0 || c.distinct || c.having !== undefined || c.items.some(containsAggregate);
}

/** Spark's default column name of an aggregate call, e.g. `count(1)` for count(*), `sum(amount)`. */
function aggregateText(name: string, args: Expr[], filter: Expr | undefined): string {
  return `${name}(${args.map(exprToString).join(', ')})${filter ? ` FILTER (WHERE ${exprToString(filter)})` : ''}`;
}

/**
 * Spark's checks of a call's WITHIN GROUP (FunctionResolution.validateFunction, with the
 * function builders' argument counts before them), and what the call is then: for
 * `percentile_cont(p) WITHIN GROUP (ORDER BY x [DESC])` (and percentile_disc) Spark's
 * PercentileCont(x, p, reverse), for `mode() WITHIN GROUP (ORDER BY x [DESC])` its Mode(x) of
 * deterministic ties, the least value (the greatest with DESC): (x, true, reverse).
 * Undefined for a call without WITHIN GROUP that needs none (mode(x)); a function that takes no
 * WITHIN GROUP is refused with it.
 */
export function withinGroup(n: Call): { args: Expression[]; reverse?: boolean } | undefined {
  const name = n.nameParts[0].toLowerCase();
  const order = n.orderingWithinGroup;
  const pos = lineColumn(n.pos);
  if (!WITHIN_GROUP_NAMES.includes(name)) {
    if (order) throw unsupportedSyntax(name, 'WITHIN GROUP (ORDER BY ...)', pos);
    return undefined;
  }
  if (LIST_AGG_NAMES.includes(name)) return listAggWithinGroup(n, name);
  const invalid = (sub: string, why: string) => new SqlValidationError(`[INVALID_WITHIN_GROUP_EXPRESSION.${sub}] Invalid function \`${name}\` with WITHIN GROUP. ${why}`, pos, name, `INVALID_WITHIN_GROUP_EXPRESSION.${sub}`);
  const isMode = name === 'mode';
  const written = n.arguments.length;
  if (isMode ? written > 2 : written !== 1) {
    throw new SqlValidationError(
      `[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The \`${name}\` requires ${isMode ? '0' : '1'} parameters but the actual number is ${written}. Write ${isMode ? 'mode() WITHIN GROUP (ORDER BY x)' : `${name}(percentage) WITHIN GROUP (ORDER BY x)`}`,
      pos, name, 'WRONG_NUM_ARGS.WITHOUT_SUGGESTION',
    );
  }
  if (n.isDistinct) throw invalid('DISTINCT_UNSUPPORTED', `Cannot use DISTINCT with WITHIN GROUP. Take ${name} of the rows as they are`);
  // mode(x[, deterministic]): the ordering is written in the call, none may follow it.
  if (isMode && written > 0) {
    if (order) throw invalid('WRONG_NUM_ORDERINGS', `Requires 0 orderings in WITHIN GROUP but got ${order.length}. Write mode() WITHIN GROUP (ORDER BY x) or mode(x)`);
    return undefined;
  }
  if (!order) throw invalid('WITHIN_GROUP_MISSING', `WITHIN GROUP is required for inverse distribution function. Write ${isMode ? 'mode() WITHIN GROUP (ORDER BY x) or mode(x)' : `${name}(p) WITHIN GROUP (ORDER BY x)`}`);
  if (order.length !== 1) throw invalid('WRONG_NUM_ORDERINGS', `Requires 1 orderings in WITHIN GROUP but got ${order.length}. Order by the one value it reads`);
  const reverse = order[0].direction === 'Descending';
  const deterministic: Expression = { kind: 'Literal', value: true, dataType: BooleanType, pos: n.pos };
  return { args: [order[0].child, isMode ? deterministic : n.arguments[0]], reverse };
}

/**
 * `listagg(x[, d]) WITHIN GROUP (ORDER BY k [ASC|DESC] [NULLS FIRST|LAST], …)` as Spark's
 * ListAgg(x, d, orderings): (x, d, 'ASC NULLS FIRST,…', k, …), d NULL when not written. With
 * DISTINCT the ordering must be x alone (Spark's FUNCTION_AND_ORDER_EXPRESSION_MISMATCH), so
 * that the distinct values have one order. Undefined without WITHIN GROUP.
 */
function listAggWithinGroup(n: Call, name: string): { args: Expression[] } | undefined {
  const order = n.orderingWithinGroup;
  if (!order || n.arguments.length < 1 || n.arguments.length > 2) return undefined;
  if (n.isDistinct && (order.length !== 1 || expressionSql(order[0].child) !== expressionSql(n.arguments[0]))) {
    throw new SqlValidationError(
      `[FUNCTION_AND_ORDER_EXPRESSION_MISMATCH] The arguments of the function \`${name}\` ("${expressionSql(n.arguments[0])}") do not match its ORDER BY expressions (${order.map((o) => `"${expressionSql(o.child)}"`).join(', ')}): with DISTINCT, order by the argument alone`,
      lineColumn(n.pos), name, 'FUNCTION_AND_ORDER_EXPRESSION_MISMATCH',
    );
  }
  const literal = (value: string | null, dataType: DataType): Expression => ({ kind: 'Literal', value, dataType, pos: n.pos });
  const orderings = order.map((o) => `${o.direction === 'Ascending' ? 'ASC' : 'DESC'} ${o.nullOrdering === 'NullsFirst' ? 'NULLS FIRST' : 'NULLS LAST'}`).join(',');
  return { args: [n.arguments[0], n.arguments[1] ?? literal(null, NullType), literal(orderings, StringType), ...order.map((o) => o.child)] };
}

/** The WITHIN GROUP of listagg's (x, d, orderings, k, …) as Spark writes it: `k ASC NULLS FIRST, …`. */
function listAggOrderText(args: readonly Expr[]): string {
  const orderings = String((args[2] as { value?: unknown }).value).split(',');
  return args.slice(3).map((k, i) => `${exprToString(k)} ${orderings[i]}`).join(', ');
}

/** A select item without its alias, and the alias. */
function unaliased(item: Expression): { expr: Expression; alias?: string } {
  return item.kind === 'Alias' ? { expr: item.child, alias: item.name } : { expr: item };
}

export function buildAggregation(c: AggregationClauses, child: LogicalPlan, childSchema: Schema, builder: ExpressionBuilder): LogicalPlan {
  const groupPos = lineColumn(c.pos);
  const hasGroupBy = c.grouping.length > 0 || c.items.some(containsAggregate) || c.having !== undefined;
  if (c.distinct && hasGroupBy) {
    throw unsupportedOperation('Multiple streaming aggregations are not supported with streaming DataFrames/Datasets (SELECT DISTINCT over an aggregation); remove DISTINCT or the GROUP BY.');
  }

  // Grouping expressions: a position is the select item there (Spark's groupByOrdinal); a bare
  // name that is not an input column may be a select alias (Spark's groupByAliases).
  const aliases = new Map<string, Expression>();
  for (const item of c.items) if (item.kind === 'Alias') aliases.set(item.name.toLowerCase(), item.child);
  const allKeys = c.distinct ? undefined : groupByAll(c, childSchema);
  const keyNodes = c.distinct ? c.items.map((i) => unaliased(i).expr) : allKeys ?? c.grouping.map((n) => groupingItem(n, c.items));
  // A select item grouped by (by GROUP BY ALL, its alias or its position) reads the earlier
  // items' aliases as it does in the select list (Spark's lateral column aliases): `k AS lca,
  // lca + 1 AS col … GROUP BY col` groups by k + 1.
  const buildGrouped = (n: Expression): Expr => {
    const at = c.items.findIndex((i) => unaliased(i).expr === n);
    for (const item of c.items.slice(0, Math.max(at, 0))) {
      const { expr, alias } = unaliased(item);
      if (alias && !containsAggregate(expr) && !someExpression(expr, (x) => x.kind === 'UnresolvedWindowExpression')) builder.addLateralAlias(alias, builder.build(expr));
    }
    try {
      return builder.build(n);
    } finally {
      builder.endSelectList();
    }
  };
  // Spark names an unaliased select item by its text (`concat_ws( , a, b)`, `1`) before it
  // resolves GROUP BY, so groupByAliases finds an item by that name too: the item, not an
  // aggregate, whose name (as the select list gives it) is the one grouped by.
  const generatedNameItem = (name: string): Expression | undefined =>
    c.items.find((item) => {
      if (item.kind === 'Alias' || item.kind === 'UnresolvedAttribute' || item.kind === 'UnresolvedStar' || containsAggregate(item)) return false;
      try {
        return fieldName(exprToString(prettyStrings(builder.build(item)))).toLowerCase() === name.toLowerCase();
      } catch {
        return false; // not an expression of the input on its own
      }
    });
  const inSource = (name: string) => childSchema.some((f) => f.name.toLowerCase() === name.toLowerCase());
  // Spark's CheckAnalysis: an aggregate in a grouping expression, written there or the alias of one.
  const groupByAggregate = (found: Expression, pos: Position | undefined): SqlValidationError =>
    new SqlValidationError(`[GROUP_BY_AGGREGATE] Aggregate functions are not allowed in GROUP BY, but found ${expressionSql(found)}.`, lineColumn(pos) ?? groupPos, 'GROUP BY', 'GROUP_BY_AGGREGATE');
  // A select alias where a name inside a grouping expression is no input column (Spark 3.4+'s
  // resolveGroupByAlias replaces every such attribute, `GROUP BY col1 % abc`); undefined when none is.
  const withAliases = (n: Expression): Expression | undefined => {
    let replaced = false;
    const out = mapExpression(n, (x) => {
      if (x.kind !== 'UnresolvedAttribute' || x.nameParts.length !== 1 || inSource(x.nameParts[0])) return undefined;
      const alias = aliases.get(x.nameParts[0].toLowerCase());
      if (alias && containsAggregate(alias)) throw groupByAggregate(alias, x.pos);
      if (alias) replaced = true;
      return alias;
    });
    return replaced ? out : undefined;
  };
  const groupingExpr = (written: Expression): Expr => {
    // Inside CUBE, ROLLUP and GROUPING SETS too, a position is the select item there.
    const n = groupingItem(written, c.items);
    // A GROUP BY as written (not DISTINCT's keys, nor GROUP BY ALL's, which the select items are).
    if (!c.distinct && !allKeys && someExpression(n, isWindowExpression)) throw windowInGrouping(n, n.pos);
    if (containsAggregate(n)) throw groupByAggregate(n, n.pos);
    if (n.kind === 'UnresolvedAttribute' && n.nameParts.length === 1) {
      const name = n.nameParts[0];
      const alias = aliases.get(name.toLowerCase());
      if (!inSource(name) && alias) {
        if (containsAggregate(alias)) throw groupByAggregate(alias, n.pos);
        return buildGrouped(alias);
      }
      const generated = inSource(name) || alias ? undefined : generatedNameItem(name);
      if (generated) return buildGrouped(generated);
      return buildGrouped(n);
    }
    return buildGrouped(withAliases(n) ?? n);
  };
  // Grouping expressions, and a select item with one, are alike as Spark's semanticEquals finds
  // them: by their canonical text (`b + a` is the grouping expression `a + b`).
  const semanticText = (e: Expr) => exprToString(canonicalized(e));
  const groupingText = (n: Expression) => semanticText(groupingExpr(n));
  // CUBE, ROLLUP and GROUPING SETS (Spark's ResolveGroupingAnalytics): an Expand below the
  // Aggregate makes each row once per grouping set, its grouping columns (`__key<i>`) NULL where
  // the set leaves them out; the Aggregate groups by them and spark_grouping_id.
  const analytics = c.distinct ? undefined : groupingSetsOf(keyNodes, groupingText);
  let input = child;
  let groupBy: Expr[], keyText: string[], keyNames: string[], keySemantic: string[];
  if (analytics) {
    const exprs = analytics.expressions.map(groupingExpr);
    keyNames = [...exprs.map((_, i) => `${KEY_PREFIX}${i}`), GROUPING_ID_COLUMN, ...(hasDuplicateGroupingSets(analytics.sets) ? [GROUPING_POS_COLUMN] : [])];
    input = { kind: 'Expand', groupBy: exprs, groupingSets: analytics.sets, output: keyNames, child };
    groupBy = keyNames.map((name): Expr => ({ kind: 'column', name, pos: groupPos }));
    keyText = [...exprs.map(exprToString), ...keyNames.slice(exprs.length)];
    keySemantic = [...exprs.map(semanticText), ...keyNames.slice(exprs.length)];
  } else {
    groupBy = keyNodes.map(groupingExpr);
    keyText = groupBy.map(exprToString);
    keySemantic = groupBy.map(semanticText);
    if (!c.distinct) {
      // GROUP BY s, s groups as GROUP BY s does (Spark keeps both, to the same groups).
      const first = groupBy.map((_g, i) => keySemantic.indexOf(keySemantic[i]) === i);
      [groupBy, keyText, keySemantic] = [groupBy.filter((_g, i) => first[i]), keyText.filter((_t, i) => first[i]), keySemantic.filter((_t, i) => first[i])];
    }
    keyNames = aggregateKeyNames(groupBy, childSchema);
    // A grouping expression with a correlated subquery answered per row (an IN over the
    // subquery's rows, in-subquery-rows.ts) is computed by a Project below the Aggregate, where
    // such a subquery runs as in a select list, and grouped by as its column (`__key<i>`, the
    // name the key has anyway), as Spark's PullOutGroupingExpressions projects it.
    const correlated = (e: Expr): boolean => isCorrelatedSubquery(e) || exprChildren(e).some(correlated);
    if (groupBy.some(correlated)) {
      const pulled = groupBy.map((g, i): NamedExpr | undefined => (correlated(g) ? { expr: g, name: keyNames[i] } : undefined));
      input = { kind: 'Project', list: [...childSchema.map((f): NamedExpr => ({ expr: { kind: 'column', name: f.name }, name: f.name })), ...pulled.filter((p) => p !== undefined)], child };
      groupBy = groupBy.map((g, i): Expr => (pulled[i] ? { kind: 'column', name: keyNames[i], pos: g.pos } : g));
    }
  }
  const seenKey = new Set<string>();
  keyNames.forEach((k, i) => {
    if (seenKey.has(k)) throw new SqlValidationError(`GROUP BY lists ${keyText[i]} twice`, groupBy[i].pos ?? groupPos, 'GROUP BY');
    seenKey.add(k);
  });

  // The input's columns and the grouping keys' by the names the aggregation's expressions read
  // them, typed for extractsWhatIsNotThere (an aggregate's column it leaves untyped): computed
  // once, when HAVING or an ORDER BY item first asks.
  const keyExprs = analytics ? analytics.expressions.map(groupingExpr) : groupBy;
  let probed: Schema | undefined;
  const probeSchema = (): Schema => (probed ??= [
    ...childSchema,
    ...keyExprs.flatMap((g, i) => {
      try {
        return [fieldOfType(keyNames[i], typeOfCompiled(compileExpression(g, childSchema)))];
      } catch {
        return [];
      }
    }),
  ]);

  const aggregates: NamedExpr[] = [];
  const aggText: string[] = [];
  /** Which aggregates are DISTINCT (a batch plan's), by index among `aggregates`. */
  const distinctCalls = new Set<number>();
  const ref = (name: string, pos: Position): Expression => ({ kind: 'UnresolvedAttribute', nameParts: [name], pos, exact: true });

  const aggregateRef = (n: Call): Expression => {
    const pos = lineColumn(n.pos);
    const name = n.nameParts[0].toLowerCase();
    if (n.arguments.some(containsAggregate) || (n.filter && containsAggregate(n.filter))) throw new SqlValidationError('It is not allowed to use an aggregate function in the argument of another aggregate function. Please use the inner aggregate function in a sub-query.', pos, name, 'NESTED_AGGREGATE_FUNCTION');
    const lateral = n.arguments.map((a) => builder.lateralAliasRead(a)).find((a) => a !== undefined);
    if (lateral) {
      throw new SqlValidationError(
        `The feature is not supported: Referencing a lateral column alias \`${lateral}\` in the aggregate function "${expressionSql(n)}". Aggregate what the alias stands for`,
        pos, name, 'UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_AGGREGATE_FUNC',
      );
    }
    const within = withinGroup(n);
    let args = within ? within.args.map((a) => builder.build(a)) : positionalArguments(name, n.arguments, n.pos).flatMap((a) => builder.argument(a));
    if (within?.reverse !== undefined) args.push({ kind: 'literal', value: within.reverse, type: 'boolean', pos });
    const listAgg = LIST_AGG_NAMES.includes(name);
    // listagg(x) is Spark's ListAgg(x, NULL): its name shows the default delimiter.
    if (listAgg && args.length === 1) args.push({ kind: 'literal', value: null, type: 'null', pos });
    if (n.isDistinct && !c.batch) {
      throw unsupportedOperation('Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.', { aggregate: `${name}(DISTINCT ${args.map(exprToString).join(', ')})` });
    }
    const filter = n.filter ? builder.build(n.filter) : undefined;
    const firstLast = FIRST_LAST_NAMES.includes(name);
    if (firstLast) {
      // first(x) IGNORE NULLS is first(x, true), as Spark builds it; the flag must be a literal.
      if (args.length > 2 || (n.ignoreNulls && args.length > 1)) throw new SqlValidationError(`${name}() takes a value and whether to ignore NULLs: ${name}(x[, true])`, pos, name);
      if (n.ignoreNulls) args = [...args, { kind: 'literal', value: true, type: 'boolean', pos }];
    }
    const ignoresNulls = firstLast && args[1]?.kind === 'literal' && args[1].value === true;
    const filterText = filter ? ` FILTER (WHERE ${exprToString(filter)})` : '';
    const text = listAgg && within ? `${name}(${n.isDistinct ? 'DISTINCT ' : ''}${args.slice(0, 2).map(exprToString).join(', ')}) WITHIN GROUP (ORDER BY ${listAggOrderText(args)})${filterText}`
      : n.isDistinct ? `${name}(DISTINCT ${args.map(exprToString).join(', ')})${filterText}` : within
      ? `${name}(${name === 'mode' ? '' : exprToString(args[1])}) WITHIN GROUP (ORDER BY ${exprToString(args[0])}${within.reverse ? ' DESC' : ''})${filter ? ` FILTER (WHERE ${exprToString(filter)})` : ''}`
      : firstLast ? aggregateText(name, args.slice(0, 1), filter) + (ignoresNulls ? ' ignore nulls' : '') : aggregateText(name, args, filter);
    // count(*) (the front end reads it as count(1), as Spark does) counts rows: the aggregate's fast path.
    const star = name === 'count' && args.length === 1 && args[0].kind === 'literal' && args[0].value !== null;
    if (filter) {
      if (firstLast) {
        // first and last keep a NULL value, so a row FILTER leaves out is not a NULL to them:
        // the condition goes along as a third argument, which only the planner writes.
        args = [args[0], args[1] ?? { kind: 'literal', value: false, type: 'boolean', pos }, filter];
      } else {
        // FILTER (WHERE c): the rows where c is not true add nothing, which for these functions
        // (they all skip NULL) is the argument as NULL there. A literal option (approx_count_distinct's
        // relativeSD, percentile_approx's percentage) stays a literal; min_by's ordering is a value.
        const byOrder = name === 'min_by' || name === 'max_by';
        const only = (arg: Expr, i: number): Expr => (i > 0 && arg.kind === 'literal' && !byOrder ? arg : { kind: 'case', branches: [{ when: filter, then: arg }], pos });
        args = args.map(only);
      }
    }
    let i = aggText.indexOf(text);
    if (i < 0) {
      i = aggregates.length;
      aggText.push(text);
      const expr: Expr = { kind: 'call', name, args: star && !filter ? [{ kind: 'literal', value: '*', type: 'string' }] : args, pos };
      aggregates.push({ expr, name: `${AGG_PREFIX}${i}` });
      if (n.isDistinct) distinctCalls.add(i);
    }
    return ref(`${AGG_PREFIX}${i}`, n.pos);
  };

  // `_metadata.file_name` grouped by `_metadata` (a struct key's field): the field of the key, as
  // Spark reads GetStructField over the grouped attribute. A column key keeps its name, so only a
  // key computed under another name (the hidden `_metadata`) needs this.
  const groupedFieldRead = (n: Expression): Expression | undefined => {
    if (n.kind !== 'UnresolvedAttribute' || n.nameParts.length < 2) return undefined;
    for (let k = n.nameParts.length - 1; k >= 1; k--) {
      let i = -1;
      try {
        i = keyText.indexOf(exprToString(builder.build({ ...n, nameParts: n.nameParts.slice(0, k) })));
      } catch {
        // a qualifier, not an expression on its own
      }
      if (i >= 0 && keyNames[i] !== keyText[i]) return { ...n, nameParts: [keyNames[i], ...n.nameParts.slice(k)] };
    }
    return undefined;
  };

  const rewrite = (e: Expression): Expression =>
    mapExpression(e, (n) => {
      const call = hiveGroupingId(n, childSchema) ?? n;
      if (isGroupingCall(call)) return groupingCall(call, analytics && { sets: analytics, text: groupingText, gid: ref(GROUPING_ID_COLUMN, n.pos) }, builder);
      if (isAggregateCall(n)) return aggregateRef(n);
      const field = groupedFieldRead(n);
      if (field) return field;
      if (!containsAggregate(n) && n.kind !== 'UnresolvedStar' && n.kind !== 'Alias') {
        try {
          const i = keySemantic.indexOf(semanticText(builder.build(n)));
          if (i >= 0) return ref(keyNames[i], n.pos);
        } catch {
          // not an expression on its own (or not yet valid): look inside it
        }
      }
      return undefined;
    });

  const textOf = (e: Expr) =>
    exprToString(e).replace(/__(agg|key)(\d+)/g, (_m, kind: string, i: string) => (kind === 'agg' ? aggText[Number(i)] : keyText[Number(i)]));
  const checkOnlyKeys = (e: Expr, where: string, output: readonly NamedExpr[] = []) => {
    const allowed = new Set([...keyNames, ...aggregates.map((a) => a.name)].map((s) => s.toLowerCase()));
    for (const col of groupedColumns(e)) {
      if (!allowed.has(col.toLowerCase())) {
        // An unknown function (perhaps an aggregate Weir lacks) is what to report, not its argument.
        throwUnknownFunction(e);
        // GROUP BY ALL: HAVING and ORDER BY read the select list's columns, not the input's (Spark
        // adds no missing input column to an Aggregate whose grouping is ALL).
        if (allKeys && output.length > 0) {
          throw new SqlValidationError(
            `${unresolvedColumn(col, output.map((o) => o.name))} With GROUP BY ALL, ${where} reads the select list's columns and aggregates: add ${col} to the select list or aggregate it`,
            e.pos ?? groupPos,
            where,
            'UNRESOLVED_COLUMN.WITH_SUGGESTION',
          );
        }
        throw new SqlValidationError(
          `expression '${col}' in ${where} is neither present in the group by, nor is it an aggregate function. ` +
            `Add it to GROUP BY or wrap it in an aggregate such as min(${col}) or max(${col})`,
          e.pos ?? groupPos,
          where,
          // Spark's classes: HAVING and ORDER BY read the aggregate's output, taking a column of its
          // input only when it is grouped by (ResolveMissingReferences), so another is unresolved
          // there; in the select list, a query without GROUP BY that mixes aggregates and columns,
          // else a column not grouped by.
          where !== 'the select list' ? 'UNRESOLVED_COLUMN.WITH_SUGGESTION' : c.grouping.length === 0 && !c.distinct ? 'MISSING_GROUP_BY' : 'MISSING_AGGREGATION',
        );
      }
    }
  };

  // Spark 3.4's lateral column aliases (the builder's): an item may read an earlier item's alias
  // (`sum(n) AS s, s * 2` reads the same sum), named as written (`(s * 2)`).
  const list: NamedExpr[] = c.items.map((item) => {
    const { expr: written, alias } = unaliased(item);
    if (written.kind === 'UnresolvedWindowExpression') throw builder.nonTimeWindow(written, alias);
    const { expr, named: shown } = builder.selectItem(written, (e) => builder.build(rewrite(e)));
    checkOnlyKeys(expr, 'the select list');
    if (alias) builder.addLateralAlias(alias, expr);
    const internal = shown.kind === 'column' && (shown.name.startsWith(KEY_PREFIX) || shown.name.startsWith(AGG_PREFIX));
    const name = alias ?? (hiveGroupingId(written, childSchema) ? HIVE_GROUPING_ID : isGroupingCall(written) ? groupingCallName(written) : shown.kind === 'column' && !internal ? builder.outputName(shown.name) : shown.kind === 'field' ? shown.field : fieldName(textOf(shown)));
    return { expr, name };
  });
  // HAVING reads the select list's aliases too (`count(*) AS c … HAVING c > 1`, as Spark's
  // UnresolvedHaving resolves against the Aggregate's output); an input column of the name wins.
  let having: Expr | undefined;
  if (c.having) {
    const condition = c.having;
    having = builder.havingCondition(() => builder.build(rewrite(condition)), (e) => extractsWhatIsNotThere(e, probeSchema(), true));
    checkOnlyKeys(having, 'HAVING', list);
  }
  // ORDER BY (Spark's ResolveAggregateFunctions and ResolveMissingReferences on a Sort over an
  // Aggregate): an output column or its position sorts as written; any other expression
  // (grouping(k), sum(x), a key the select list leaves out) is computed beside the select list
  // as a hidden column, sorted on, and dropped again. Like HAVING, it reads the select's aliases.
  const missing = c.sort && !c.distinct && missingSortReferences(c.sort, list, childSchema, (e) => {
    const expr = builder.sortItem(() => {
      const built = builder.build(rewrite(e));
      checkOnlyKeys(built, 'ORDER BY', list);
      return built;
    }, (x) => extractsWhatIsNotThere(x, probeSchema()));
    return expr;
  });
  builder.endSelectList();

  let plan: LogicalPlan = distinctCalls.size > 0
    ? distinctAggregate(groupBy, keyNames, aggregates, distinctCalls, input, childSchema, groupPos)
    : { kind: 'Aggregate', groupBy, aggregates, child: input, pos: groupPos };
  if (having) plan = { kind: 'Filter', condition: having, child: plan };
  if (missing) return sortOverMissingReferences(list, missing, plan);
  plan = { kind: 'Project', list, child: plan };
  return c.sort ? buildSortAndLimit(plan, c.sort, undefined) : plan;
}

/**
 * Whether `e` extracts from a value that holds no such part, as far as `schema` types it: a field
 * (`x.a`) of a value that is no struct or map, or (unless `fieldsOnly`) an element (`x[0]`) of
 * one that is no array or map, which Spark's ExtractValue refuses (INVALID_EXTRACT_BASE_FIELD_TYPE)
 * and its resolution of a name then tries elsewhere. A value `schema` cannot type is no failure.
 */
export function extractsWhatIsNotThere(e: Expr, schema: Schema, fieldsOnly = false): boolean {
  const typeOf = (x: Expr) => {
    try {
      return compileExpression(x, schema).type;
    } catch {
      return undefined;
    }
  };
  const fails = (x: Expr): boolean => {
    if (x.kind === 'field') {
      const t = typeOf(x.arg);
      if (t !== undefined && t !== 'struct' && t !== 'map' && t !== 'null') return true;
    } else if (x.kind === 'call' && x.subscript && !fieldsOnly) {
      const t = typeOf(x.args[0]);
      if (t !== undefined && t !== 'array' && t !== 'map' && t !== 'null') return true;
    }
    return exprChildren(x).some(fails);
  };
  return fails(e);
}

/** An ORDER BY whose items that are no output column are computed as hidden columns (`__sort<i>`), which it sorts on instead. */
interface MissingSortReferences {
  order: SortOrder[];
  hidden: NamedExpr[];
  pos: Position;
}

/**
 * Spark's ResolveMissingReferences for a Sort over a select list: an ORDER BY item that names an
 * output column or its position sorts as written; any other expression is built by `build` (over
 * the select list's input, reading its aliases) as a hidden column the sort reads. Call it before
 * the builder ends the select list.
 */
export function missingSortReferences(sort: SortClause, list: readonly NamedExpr[], input: Schema, build: (e: Expression) => Expr): MissingSortReferences {
  const hidden: NamedExpr[] = [];
  const order = orderByAll(sort, list.map((n) => n.name), input).order.map((o): SortOrder => {
    if (isPosition(o.child) || sortsOutputColumn(o.child, list.map((n) => n.name))) return o;
    // An unaliased item by the name Spark gives it, its text with its strings unquoted
    // (`concat_ws( , a, b)`), where no input column has that name.
    const written = o.child.kind === 'UnresolvedAttribute' && o.child.nameParts.length === 1 ? o.child.nameParts[0].toLowerCase() : undefined;
    const named = written !== undefined && !input.some((f) => f.name.toLowerCase() === written) ? list.find((n) => fieldName(exprToString(prettyStrings(n.expr))).toLowerCase() === written) : undefined;
    if (named) return { ...o, child: { kind: 'UnresolvedAttribute', nameParts: [named.name], pos: o.child.pos, exact: true } };
    const name = `${SORT_PREFIX}${hidden.length}`;
    hidden.push({ expr: build(o.child), name });
    return { ...o, child: { kind: 'UnresolvedAttribute', nameParts: [name], pos: o.child.pos, exact: true } };
  });
  return { order, hidden, pos: sort.pos };
}

/** The select list with the hidden columns beside it over `child`, sorted, and the hidden columns projected away. */
export function sortOverMissingReferences(list: readonly NamedExpr[], m: MissingSortReferences, child: LogicalPlan): LogicalPlan {
  const sorted = buildSortAndLimit({ kind: 'Project', list: [...list, ...m.hidden], child }, { order: m.order, pos: m.pos }, undefined);
  if (m.hidden.length === 0) return sorted;
  return { kind: 'Project', list: list.map((n): NamedExpr => ({ expr: { kind: 'column', name: n.name }, name: n.name })), child: sorted };
}

/**
 * DISTINCT aggregates of a batch plan (a join's static side, a scalar subquery), as Spark plans an
 * aggregation whose aggregates are all DISTINCT over the same arguments (its single distinct
 * group): an Aggregate grouped by the keys and those arguments makes each distinct (keys,
 * arguments) row once, and the Aggregate above it, grouped by the keys, aggregates its rows
 * without DISTINCT. Its output is the one Aggregate's (the keys' names, `__agg<i>`). Any other
 * mix is Spark's RewriteDistinctAggregates (distinctAggregatesExpanded). With GROUPING SETS,
 * CUBE or ROLLUP, `input` is their Expand and the keys are its columns and the grouping id, so
 * each grouping set's rows are made distinct and aggregated apart, as in Spark.
 */
function distinctAggregate(groupBy: Expr[], keyNames: string[], aggregates: NamedExpr[], distinct: ReadonlySet<number>, input: LogicalPlan, childSchema: Schema, pos: SqlPosition | undefined): LogicalPlan {
  const calls = aggregates.map((a) => a.expr as Extract<Expr, { kind: 'call' }>);
  const argsText = (i: number) => calls[i].args.map(exprToString).join(', ');
  const first = [...distinct][0];
  const other = aggregates.findIndex((_a, i) => !distinct.has(i) || argsText(i) !== argsText(first));
  if (other >= 0) return distinctAggregatesExpanded(groupBy, keyNames, aggregates, distinct, input, childSchema, pos);
  // The distinct arguments beside the keys (an argument that is a key already is that key).
  const keyText = groupBy.map(exprToString);
  const distinctArgs: Expr[] = [];
  const argText: string[] = [];
  for (const a of calls[first].args) {
    const t = exprToString(a);
    if (!keyText.includes(t) && !argText.includes(t) && a.kind !== 'literal') {
      distinctArgs.push(a);
      argText.push(t);
    }
  }
  const innerNames = aggregateKeyNames([...groupBy, ...distinctArgs], childSchema);
  const nameOf = (t: string) => innerNames[keyText.includes(t) ? keyText.indexOf(t) : groupBy.length + argText.indexOf(t)];
  const column = (name: string): Expr => ({ kind: 'column', name, pos });
  const distinctRows: LogicalPlan = { kind: 'Aggregate', groupBy: [...groupBy, ...distinctArgs], aggregates: [], child: input, pos };
  const outer = aggregates.map((a, i): NamedExpr => ({ ...a, expr: { ...calls[i], args: calls[i].args.map((x) => (x.kind === 'literal' ? x : column(nameOf(exprToString(x))))) } }));
  return { kind: 'Aggregate', groupBy: keyNames.map(column), aggregates: outer, child: distinctRows, pos };
}

/**
 * Spark's RewriteDistinctAggregates, for DISTINCT aggregates over different arguments or beside
 * other aggregates: its Expand, here a UNION ALL of one projection of the input per group (a
 * Union of Projects, as Weir's batch plans run one), each row tagged with its group's id
 * (`__gid`): one for the regular aggregates' arguments (id 0), and one per distinct set of
 * DISTINCT arguments, each with only its own arguments, the others NULL. An Aggregate grouped by
 * the keys, the id and every DISTINCT argument makes each group's distinct rows once and
 * computes the regular aggregates over id 0's rows; the Aggregate above it, grouped by the keys,
 * computes each DISTINCT aggregate over its group's rows (`f(CASE WHEN __gid = i THEN x END)`,
 * without DISTINCT) and takes each regular aggregate's value from id 0's row
 * (`first(CASE WHEN __gid = 0 THEN r END, true)`). Its output is the one Aggregate's.
 */
function distinctAggregatesExpanded(groupBy: Expr[], keyNames: string[], aggregates: NamedExpr[], distinct: ReadonlySet<number>, input: LogicalPlan, childSchema: Schema, pos: SqlPosition | undefined): LogicalPlan {
  const calls = aggregates.map((a) => a.expr as Extract<Expr, { kind: 'call' }>);
  const column = (name: string): Expr => ({ kind: 'column', name, pos });
  const literal = (value: number): Expr => ({ kind: 'literal', value, type: 'long', integral: 32, pos });
  const typedNull = (e: Expr): Expr => implicitCastExpr({ kind: 'literal', value: null, type: 'null', pos }, typeOfCompiled(compileExpression(e, childSchema)));
  const onlyIn = (gid: number, e: Expr): Expr => ({ kind: 'case', branches: [{ when: { kind: 'binary', op: '=', left: column(GID), right: literal(gid) }, then: e }], pos });
  // The arguments each group projects, by their text: a literal stays in its call.
  const distinctArgs = new Map<string, { expr: Expr; name: string }>();
  const regularArgs = new Map<string, { expr: Expr; name: string }>();
  // Each set of DISTINCT arguments (by their texts) with its group id, from 1.
  const groups = new Map<string, { gid: number; args: Set<string> }>();
  // A call's arguments projected: those not literals; of a DISTINCT one all literals, the first (Spark's foldable children).
  const argsOf = (i: number) => {
    const args = calls[i].args.filter((a) => a.kind !== 'literal');
    return args.length || !distinct.has(i) ? args : calls[i].args.slice(0, 1);
  };
  const groupOf = (i: number) => argsOf(i).map(exprToString).join(', ');
  for (const [i] of calls.entries()) {
    const args = distinct.has(i) ? distinctArgs : regularArgs;
    for (const a of argsOf(i)) {
      const t = exprToString(a);
      if (!args.has(t)) args.set(t, { expr: a, name: `${distinct.has(i) ? DISTINCT_ARG : REGULAR_ARG}${args.size}` });
    }
    if (distinct.has(i) && !groups.has(groupOf(i))) groups.set(groupOf(i), { gid: groups.size + 1, args: new Set(argsOf(i).map(exprToString)) });
  }
  const keys = groupBy.map((e, i): NamedExpr => ({ expr: e, name: keyNames[i] }));
  const projection = (gid: number, distinctArg: (t: string) => boolean): LogicalPlan => ({
    kind: 'Project', child: input,
    list: [
      ...keys, { expr: literal(gid), name: GID },
      ...[...distinctArgs].map(([t, a]): NamedExpr => ({ expr: distinctArg(t) ? a.expr : typedNull(a.expr), name: a.name })),
      ...[...regularArgs.values()].map((a): NamedExpr => ({ expr: gid === 0 ? a.expr : typedNull(a.expr), name: a.name })),
    ],
  });
  const regular = calls.some((_c, i) => !distinct.has(i));
  const expand: LogicalPlan = {
    kind: 'Union', pos,
    branches: [
      ...(regular ? [projection(0, () => false)] : []),
      ...[...groups.values()].map(({ gid, args }) => projection(gid, (t) => args.has(t))),
    ],
  };
  const arg = (args: Map<string, { expr: Expr; name: string }>, a: Expr): Expr => (a.kind === 'literal' ? a : column(args.get(exprToString(a))!.name));
  const first: LogicalPlan = {
    kind: 'Aggregate', pos, child: expand,
    groupBy: [...keyNames, GID, ...[...distinctArgs.values()].map((a) => a.name)].map(column),
    aggregates: aggregates.flatMap((a, i): NamedExpr[] => (distinct.has(i) ? [] : [{ name: `${REGULAR_AGG}${i}`, expr: { ...calls[i], args: calls[i].args.map((x) => arg(regularArgs, x)) } }])),
  };
  const outer = aggregates.map((a, i): NamedExpr => {
    if (!distinct.has(i)) return { ...a, expr: { kind: 'call', name: 'first', args: [onlyIn(0, column(`${REGULAR_AGG}${i}`)), { kind: 'literal', value: true, type: 'boolean', pos }], pos } };
    const { gid, args } = groups.get(groupOf(i))!;
    return { ...a, expr: { ...calls[i], args: calls[i].args.map((x, k) => (args.has(exprToString(x)) && (x.kind !== 'literal' || k === 0) ? onlyIn(gid, column(distinctArgs.get(exprToString(x))!.name)) : x)) } };
  });
  const aggregate: LogicalPlan = { kind: 'Aggregate', groupBy: keyNames.map(column), aggregates: outer, child: first, pos };
  // A count has a value over no rows (Spark's defaultResult, which its rewrite puts in a coalesce):
  // a global aggregation of an empty input has no row of id 0 to take it from.
  const counts = aggregates.filter((_a, i) => !distinct.has(i) && COUNTS.has(calls[i].name));
  if (groupBy.length > 0 || counts.length === 0) return aggregate;
  const zero: Expr = { kind: 'literal', value: 0, type: 'long', pos };
  return { kind: 'Project', child: aggregate, list: aggregates.map((a): NamedExpr => ({ name: a.name, expr: counts.includes(a) ? { kind: 'call', name: 'coalesce', args: [column(a.name), zero], pos } : column(a.name) })) };
}

/** The columns of distinctAggregatesExpanded's rows: the group id, the DISTINCT and the regular aggregates' arguments, the regular aggregates. */
const GID = '__gid';
const DISTINCT_ARG = '__distinct_arg';
const REGULAR_ARG = '__regular_arg';
const REGULAR_AGG = '__regular_agg';
/** The aggregates whose value over no rows is 0, not NULL. */
const COUNTS: ReadonlySet<string> = new Set(['count', 'count_if', 'approx_count_distinct']);

/**
 * The columns an aggregation's output expression reads: its input columns, and Spark's hidden
 * `_metadata` (an attribute of the relation in Spark, a call here), which must be grouped as any
 * column must.
 */
function groupedColumns(e: Expr): Set<string> {
  const out = referencedColumns(e);
  const visit = (x: Expr): void => {
    if (x.kind === 'call' && x.name === METADATA_COLUMN && x.args.length === 0) out.add(METADATA_COLUMN);
    else exprChildren(x).forEach(visit);
  };
  visit(e);
  return out;
}

/**
 * Throws the compiler's own error for the first call in `e` to a function no registry knows
 * (compiling the call without its arguments is what tells); returns otherwise.
 */
function throwUnknownFunction(e: Expr): void {
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (typeof v !== 'object' || v === null || !('kind' in v)) return;
    const x = v as Expr;
    if (x.kind === 'call') {
      try {
        compileExpression({ ...x, args: [] }, []);
      } catch (err) {
        if (err instanceof SqlValidationError && err.errorClass === 'UNRESOLVED_ROUTINE') throw err;
      }
    }
    if (x.kind !== 'literal') for (const [k, c] of Object.entries(x)) if (k !== 'pos') visit(c);
  };
  visit(e);
}

/**
 * `GROUP BY ALL` (Spark's ResolveGroupByAll): the select items that hold no aggregate, when ALL
 * names no input column or select alias (a column or alias named `all` wins, as in Spark). With none, and an item that
 * reads a column outside an aggregate (`i + sum(j)`, not a lateral alias of an aggregate), the grouping cannot be inferred.
 */
function groupByAll(c: AggregationClauses, childSchema: Schema): Expression[] | undefined {
  const [only, ...rest] = c.grouping;
  if (rest.length > 0 || only?.kind !== 'UnresolvedAttribute' || only.nameParts.length !== 1 || only.nameParts[0].toLowerCase() !== 'all') return undefined;
  // A column named all, or a select item aliased so (Spark's groupByAliases), is grouped by.
  if (childSchema.some((f) => f.name.toLowerCase() === 'all') || c.items.some((i) => unaliased(i).alias?.toLowerCase() === 'all')) return undefined;
  const keys = c.items.filter((i) => !containsAggregate(i)).map((i) => unaliased(i).expr);
  // An earlier item's alias that names no input column is a lateral alias (`count(x) AS n, sum(x) + n`),
  // which Spark resolves before it infers the grouping: it reads that item, no column.
  const lateral = (k: number, x: Expression) => x.kind === 'UnresolvedAttribute' && x.nameParts.length === 1 && !childSchema.some((f) => f.name.toLowerCase() === x.nameParts[0].toLowerCase()) &&
    c.items.slice(0, k).some((i) => unaliased(i).alias?.toLowerCase() === x.nameParts[0].toLowerCase());
  const readsColumn = (i: Expression, k: number) => someExpression(i, (x) => x.kind === 'UnresolvedAttribute' && !lateral(k, x), (x) => !isAggregateCall(x));
  // No keys and no column outside an aggregate (`count(id)`): a global aggregation.
  if (keys.length === 0 && c.items.some(readsColumn)) {
    throw new SqlValidationError(
      '[UNRESOLVED_ALL_IN_GROUP_BY] Cannot infer grouping columns for GROUP BY ALL based on the select clause. Please explicitly specify the grouping columns.',
      lineColumn(only.pos),
      'GROUP BY',
      'UNRESOLVED_ALL_IN_GROUP_BY',
    );
  }
  return keys;
}

/** Whether a GROUP BY or ORDER BY item is a position (Spark's IntegerIndex): an integer literal. */
const isPosition = (n: Expression): n is Extract<Expression, { kind: 'Literal' }> & { value: bigint } => n.kind === 'Literal' && typeof n.value === 'bigint';

/**
 * Spark's ResolveReferences refuses a star in the select list (`*`, `struct(*)`) beside a GROUP BY
 * position, before it expands the star. Call it with the select items as written.
 */
export function checkStarWithGroupByPosition(items: readonly Expression[], grouping: readonly Expression[], pos: Position): void {
  if (grouping.some(isPosition) && items.some((i) => someExpression(i, (e) => e.kind === 'UnresolvedStar'))) {
    throw new SqlValidationError('[STAR_GROUP_BY_POS] Star (*) is not allowed in a select list when GROUP BY an ordinal position is used.', lineColumn(pos), 'GROUP BY', 'STAR_GROUP_BY_POS');
  }
}

const isWindowExpression = (e: Expression): boolean => e.kind === 'UnresolvedWindowExpression';

/**
 * A window function grouped by (`GROUP BY rank() OVER (…)`, or a position of one): Spark's
 * CheckAnalysis refuses the Aggregate holding it (UNSUPPORTED_EXPR_FOR_OPERATOR).
 */
export function windowInGrouping(n: Expression, pos: Position | undefined): SqlValidationError {
  return new SqlValidationError(
    `[UNSUPPORTED_EXPR_FOR_OPERATOR] A query operator contains one or more unsupported expressions. Consider to rewrite it to avoid window functions, aggregate functions, and generator functions in the WHERE clause. Invalid expressions: [${expressionSql(n)}]`,
    lineColumn(pos),
    'GROUP BY',
    'UNSUPPORTED_EXPR_FOR_OPERATOR',
  );
}

/**
 * `GROUP BY 2`: the second select item (Spark's groupByOrdinal), checked as Spark checks it: an
 * item with an aggregate anywhere in it (inside a window expression too, `count(*) OVER ()`) is
 * GROUP_BY_POS_AGGREGATE, one with a window function is refused as a window grouped by.
 */
export function groupingItem(n: Expression, items: readonly Expression[]): Expression {
  if (!isPosition(n)) return n;
  const i = Number(n.value);
  if (i < 1 || i > items.length) {
    throw new SqlValidationError(`[GROUP_BY_POS_OUT_OF_RANGE] GROUP BY position ${i} is not in select list (valid range is [1, ${items.length}]).`, lineColumn(n.pos), 'GROUP BY', 'GROUP_BY_POS_OUT_OF_RANGE');
  }
  const { expr } = unaliased(items[i - 1]);
  if (someExpression(expr, isAggregateCall)) {
    throw new SqlValidationError(`[GROUP_BY_POS_AGGREGATE] GROUP BY ${i} refers to an expression that contains an aggregate function. Aggregate functions are not allowed in GROUP BY.`, lineColumn(n.pos), 'GROUP BY', 'GROUP_BY_POS_AGGREGATE');
  }
  if (someExpression(expr, isWindowExpression)) throw windowInGrouping(expr, n.pos);
  return expr;
}

/** A grouping key that is a struct field (`o.region`) is named after the field, as Spark names it. */
/** As Spark's usePrettyExpression names an item: a string literal as its bare text (`concat_ws( , a, b)`). */
const prettyStrings = (e: Expr): Expr => (e.kind === 'literal' && e.type === 'string' && e.value !== null ? { kind: 'column', name: String(e.value) } : mapExprChildren(e, prettyStrings));
const fieldName = (text: string): string => /^[A-Za-z_][A-Za-z0-9_]*\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(text)?.[1] ?? text;

/** Whether an Aggregate's output column is a grouping expression's the planner named (`__key<i>`), not a column's. */
export const isComputedKey = (name: string): boolean => name.startsWith(KEY_PREFIX);

/** Output column name of each grouping expression of an Aggregate node (see the header). */
export function aggregateKeyNames(groupBy: Expr[], childColumns: readonly { name: string }[]): string[] {
  return groupBy.map((e, i) => {
    if (e.kind === 'column') return childColumns.find((f) => f.name.toLowerCase() === e.name.toLowerCase())?.name ?? e.name;
    if (e.kind === 'call' && e.name === 'window') return 'window';
    if (e.kind === 'call' && e.name === 'session_window') return 'session_window';
    return `${KEY_PREFIX}${i}`;
  });
}

/**
 * The output column an ORDER BY item names, by its name or 1-based position; undefined for any
 * other expression. A position is never an expression: out of range, it names nothing.
 */
/**
 * `ORDER BY ALL [ASC|DESC] [NULLS FIRST|LAST]` (Spark 4's ResolveOrderByAll): every output column,
 * left to right, each in that direction. A column named `all`, of the output or of the input
 * (`input`), is sorted on instead, as Spark resolves the name before this rule.
 */
function orderByAll(sort: SortClause, out: readonly string[], input: Schema = []): SortClause {
  const [only, ...rest] = sort.order;
  if (rest.length > 0 || only?.child.kind !== 'UnresolvedAttribute' || only.child.nameParts.length !== 1 || only.child.nameParts[0].toLowerCase() !== 'all') return sort;
  if ([...out, ...input.map((f) => f.name)].some((n) => n.toLowerCase() === 'all')) return sort;
  const pos = only.child.pos;
  return { ...sort, order: out.map((_, i): SortOrder => ({ ...only, child: { kind: 'Literal', value: BigInt(i + 1), dataType: IntegerType, pos } })) };
}

function sortsOutputColumn(e: Expression, out: readonly string[]): string | undefined {
  if (isPosition(e)) return out[Number(e.value) - 1];
  if (e.kind !== 'UnresolvedAttribute') return undefined;
  const name = e.nameParts[e.nameParts.length - 1].toLowerCase();
  // A qualified name of a column the output repeats (`ORDER BY b.f1` over `a.*, b.*`) is that
  // side's column, not the output's first of the name.
  if (e.nameParts.length > 1 && out.filter((n) => writtenColumnName(n).toLowerCase() === name).length > 1) return undefined;
  return out.find((n) => n.toLowerCase() === name);
}

/**
 * LIMIT's or OFFSET's row count (`name`), checked as Spark's CheckAnalysis checks a limit-like
 * expression (checkLimitLikeClause: foldable, an INT, not NULL, not negative:
 * INVALID_LIMIT_LIKE_EXPRESSION, its message naming the clause). The planner has already folded
 * integer arithmetic and casts over literals (QueryPlanner.foldedLimit); Weir evaluates no other
 * expression while it validates a job, so any other foldable one is refused.
 */
function limitValue(e: Expression, pos: SqlPosition | undefined, name: 'limit' | 'offset'): number {
  const clause = name.toUpperCase();
  const invalid = (sub: string, detail: string) => new SqlValidationError(
    `[INVALID_LIMIT_LIKE_EXPRESSION.${sub}] The limit like expression "${expressionSql(e)}" is invalid. ${detail} Write ${clause} n, n a non-negative INT.`,
    lineColumn(e.pos) ?? pos, clause, `INVALID_LIMIT_LIKE_EXPRESSION.${sub}`);
  // A column, or a random function (Spark's foldable is false for a nondeterministic expression).
  const unfoldable = (x: Expression) => x.kind === 'UnresolvedAttribute' || (x.kind === 'UnresolvedFunction' && x.nameParts.length === 1 && isNondeterministicFunction(x.nameParts[0].toLowerCase()));
  if (someExpression(e, unfoldable)) throw invalid('IS_UNFOLDABLE', `The ${name} expression must evaluate to a constant value.`);
  if (e.kind !== 'Literal') throw new SqlValidationError(`${clause} takes an INT literal (${clause} 10): Weir does not evaluate "${expressionSql(e)}" while it validates the job`, pos, clause);
  if (e.dataType.kind !== 'integer') throw invalid('DATA_TYPE', `The ${name} expression must be integer type, but got "${sql(e.dataType)}".`);
  if (typeof e.value !== 'bigint') throw invalid('IS_NULL', `The evaluated ${name} expression must not be null.`);
  if (e.value < 0n) throw invalid('IS_NEGATIVE', `The ${name} expression must be equal to or greater than 0, but got ${e.value}.`);
  return Number(e.value);
}

/**
 * ORDER BY, OFFSET and LIMIT over the query's output (a Project, or `output`, the names of another
 * plan's columns: a set operation's), in that order, as Spark's parser stacks them (`LIMIT 3
 * OFFSET 2`: the Limit of the Offset, rows 3 to 5): ORDER BY may name output columns or
 * their 1-based positions. Whether the shape is legal for the output mode is the analyzer's
 * call (Spark: sorting only after an aggregation in Complete mode; no limit in Update mode).
 */
export function buildSortAndLimit(
  plan: LogicalPlan,
  sort: SortClause | undefined,
  limit: { expr: Expression; pos: Position } | undefined,
  output: readonly string[] = [],
  offset?: { expr: Expression; pos: Position },
): LogicalPlan {
  const out = plan.kind === 'Project' ? plan.list.map((n) => n.name) : output;
  if (sort) {
    const pos = lineColumn(sort.pos);
    const order = orderByAll(sort, out).order.map((o) => {
      const e = o.child;
      const name = sortsOutputColumn(e, out);
      // Spark's ResolveOrdinalInOrderByAndGroupBy: a position names one of the select list's items.
      if (!name && isPosition(e) && plan.kind === 'Project') {
        throw new SqlValidationError(`[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position ${e.value} is not in select list (valid range is [1, ${out.length}]).`, lineColumn(e.pos) ?? pos, 'ORDER BY', 'ORDER_BY_POS_OUT_OF_RANGE');
      }
      if (!name) {
        throw new SqlValidationError(`ORDER BY on a streaming query may only name output columns (${out.join(', ')}) or their positions`, lineColumn(e.pos) ?? pos, 'ORDER BY');
      }
      const expr: Expr = { kind: 'column', name, pos: lineColumn(e.pos) };
      const ascending = o.direction === 'Ascending';
      // NULLS FIRST/LAST against the direction's default is kept; the default stays unwritten.
      const nullsFirst = o.nullOrdering === 'NullsFirst';
      return { expr, ascending, ...(nullsFirst !== ascending ? { nullsFirst } : {}) };
    });
    plan = { kind: 'Sort', order, child: plan, pos };
  }
  if (offset) {
    const pos: SqlPosition | undefined = lineColumn(offset.pos);
    plan = { kind: 'Offset', offset: limitValue(offset.expr, pos, 'offset'), child: plan, pos };
  }
  if (limit) {
    const pos: SqlPosition | undefined = lineColumn(limit.pos);
    plan = { kind: 'Limit', limit: limitValue(limit.expr, pos, 'limit'), child: plan, pos };
  }
  return plan;
}
