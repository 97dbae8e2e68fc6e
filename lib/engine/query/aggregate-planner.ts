/**
 * GROUP BY / aggregate functions / HAVING / SELECT DISTINCT → logical plan:
 *
 *   Project [select list over the aggregate's output]
 *   +- Filter [HAVING]            (when there is one)
 *      +- Aggregate [keys], [aggregates]
 *         +- <child: the source, after WHERE>
 *
 * The aggregate's output columns are the grouping keys (a plain column keeps its name, a
 * window is `window`, any other expression `__key<i>`) and the aggregates (`__agg<i>`). The
 * select list and HAVING are rewritten onto those columns: each aggregate call becomes a
 * reference to its `__agg<i>` (the same call twice shares one), each occurrence of a grouping
 * expression a reference to its key. What is left must only read keys, as Spark requires.
 * SELECT DISTINCT is an Aggregate over all selected expressions with no aggregates (Spark
 * treats `distinct()` the same way, so the same output-mode rules apply).
 */
import { unsupportedOperation } from '../errors';
import type { Schema } from '../types';
import { isAggregateFunctionName } from './aggregate-functions';
import { exprToString, referencedColumns, type Expr, type SqlPosition } from './expression';
import { columnName, functionName, posOf, type ExpressionBuilder, type SqlNode } from './expression-builder';
import type { LogicalPlan, NamedExpr } from './logical-plan';
import { SqlValidationError } from './sql-error';

const AGG_PREFIX = '__agg';
const KEY_PREFIX = '__key';

const isAggNode = (n: SqlNode): boolean =>
  n?.type === 'aggr_func' || (n?.type === 'function' && isAggregateFunctionName(functionName(n)) && !n.over);

function containsAggregate(n: unknown): boolean {
  if (!n || typeof n !== 'object') return false;
  if (Array.isArray(n)) return n.some(containsAggregate);
  if (isAggNode(n as SqlNode)) return true;
  return Object.entries(n).some(([k, v]) => k !== 'loc' && containsAggregate(v));
}

function groupByNodes(ast: SqlNode): SqlNode[] {
  if (Array.isArray(ast.groupby)) return ast.groupby;
  return (ast.groupby?.columns ?? []) as SqlNode[];
}

function distinctOf(ast: SqlNode): boolean {
  return Boolean(ast.distinct?.type ?? (typeof ast.distinct === 'string' ? ast.distinct : null));
}

/** Whether the SELECT aggregates: GROUP BY, an aggregate function, or DISTINCT. */
export function isAggregationQuery(ast: SqlNode): boolean {
  return groupByNodes(ast).length > 0 || distinctOf(ast) || containsAggregate(ast.columns) || containsAggregate(ast.having);
}

/** Spark's default column name of an aggregate call, e.g. `count(1)` for count(*), `sum(amount)`. */
function aggregateText(name: string, star: boolean, args: Expr[], distinct: boolean): string {
  if (star) return `${name}(1)`;
  return `${name}(${distinct ? 'DISTINCT ' : ''}${args.map(exprToString).join(', ')})`;
}

export function buildAggregation(
  ast: SqlNode,
  child: LogicalPlan,
  childSchema: Schema,
  builder: ExpressionBuilder,
  at: (re: RegExp) => SqlPosition | undefined,
): LogicalPlan {
  const groupPos = at(/\bGROUP\s+BY\b/i);
  const columns = ast.columns as SqlNode[];
  for (const item of columns) {
    const e = item.expr ?? item;
    if (e.type === 'column_ref' && e.column === '*') {
      throw new SqlValidationError('SELECT * cannot be combined with GROUP BY, aggregates or DISTINCT; list the grouping columns and aggregates', posOf(e) ?? at(/\*/), '*');
    }
  }
  const hasGroupBy = groupByNodes(ast).length > 0 || containsAggregate(columns) || containsAggregate(ast.having);
  if (distinctOf(ast) && hasGroupBy) {
    throw unsupportedOperation('Multiple streaming aggregations are not supported with streaming DataFrames/Datasets (SELECT DISTINCT over an aggregation); remove DISTINCT or the GROUP BY.');
  }

  // Grouping expressions; a bare name that is not a source column may be a select alias (Spark's groupByAliases).
  const aliases = new Map<string, SqlNode>();
  for (const item of columns) if (item.as) aliases.set(columnName(item.as).toLowerCase(), item.expr);
  const keyNodes = distinctOf(ast) ? columns.map((c) => c.expr) : groupByNodes(ast);
  const groupBy: Expr[] = keyNodes.map((n) => {
    if (n.type === 'number') throw new SqlValidationError('GROUP BY position (a number) is not supported; name the column or repeat the expression', posOf(n) ?? groupPos, 'GROUP BY');
    if (containsAggregate(n)) throw new SqlValidationError('Aggregate functions are not allowed in GROUP BY', posOf(n) ?? groupPos, 'GROUP BY');
    if (n.type === 'function' && ['rollup', 'cube', 'grouping sets'].includes(functionName(n).toLowerCase())) {
      throw unsupportedOperation('Grouping Sets is not supported on streaming DataFrames/Datasets');
    }
    if (n.type === 'column_ref') {
      const name = columnName(n.column);
      const inSource = childSchema.some((f) => f.name.toLowerCase() === name.toLowerCase());
      const alias = aliases.get(name.toLowerCase());
      if (!inSource && alias && !containsAggregate(alias)) return builder.build(alias, posOf(alias) ?? groupPos);
    }
    return builder.build(n, posOf(n) ?? groupPos);
  });
  const keyText = groupBy.map(exprToString);
  const keyNames = aggregateKeyNames(groupBy, childSchema);
  const seenKey = new Set<string>();
  keyNames.forEach((k, i) => {
    if (seenKey.has(k)) throw new SqlValidationError(`GROUP BY lists ${keyText[i]} twice`, groupBy[i].pos ?? groupPos, 'GROUP BY');
    seenKey.add(k);
  });

  const aggregates: NamedExpr[] = [];
  const aggText: string[] = [];
  const colRef = (name: string): SqlNode => ({ type: 'column_ref', table: null, column: name });

  const aggregateRef = (n: SqlNode): SqlNode => {
    const pos = posOf(n);
    const name = (n.type === 'aggr_func' ? String(n.name) : functionName(n)).toLowerCase();
    let star: boolean;
    let distinct = false;
    let args: Expr[];
    if (n.type === 'aggr_func') {
      star = n.args?.expr?.type === 'star';
      distinct = String(n.args?.distinct ?? '').toUpperCase() === 'DISTINCT';
      const argNode = n.args?.expr;
      if (argNode && containsAggregate(argNode)) throw new SqlValidationError('Aggregate functions cannot be nested', pos, name);
      args = star || !argNode ? [] : [builder.build(argNode, pos)];
    } else {
      const list = n.args?.type === 'expr_list' ? (n.args.value as SqlNode[]) : n.args ? [n.args] : [];
      if (list.some(containsAggregate)) throw new SqlValidationError('Aggregate functions cannot be nested', pos, name);
      star = list.length === 1 && list[0].type === 'star';
      args = star ? [] : list.map((a) => builder.build(a, pos));
    }
    if (distinct) {
      throw unsupportedOperation('Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.', { aggregate: aggregateText(name, star, args, true) });
    }
    const text = aggregateText(name, star, args, false);
    let i = aggText.indexOf(text);
    if (i < 0) {
      i = aggregates.length;
      aggText.push(text);
      const expr: Expr = { kind: 'call', name, args: star ? [{ kind: 'literal', value: '*', type: 'string' }] : args, pos };
      aggregates.push({ expr, name: `${AGG_PREFIX}${i}` });
    }
    return colRef(`${AGG_PREFIX}${i}`);
  };

  const rewrite = (n: unknown): unknown => {
    if (!n || typeof n !== 'object') return n;
    if (Array.isArray(n)) return n.map(rewrite);
    const node = n as SqlNode;
    if (isAggNode(node)) return aggregateRef(node);
    if (typeof node.type === 'string' && !containsAggregate(node) && !['default', 'expr_list', 'star'].includes(node.type)) {
      try {
        const i = keyText.indexOf(exprToString(builder.build(node)));
        if (i >= 0) return colRef(keyNames[i]);
      } catch {
        // not an expression on its own (or not yet valid): look inside it
      }
    }
    const out: SqlNode = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === 'loc' ? v : rewrite(v);
    return out;
  };

  const textOf = (e: Expr) =>
    exprToString(e).replace(/__(agg|key)(\d+)/g, (_m, kind: string, i: string) => (kind === 'agg' ? aggText[Number(i)] : keyText[Number(i)]));
  const checkOnlyKeys = (e: Expr, where: string) => {
    const allowed = new Set([...keyNames, ...aggregates.map((a) => a.name)].map((s) => s.toLowerCase()));
    for (const c of referencedColumns(e)) {
      if (!allowed.has(c.toLowerCase())) {
        throw new SqlValidationError(
          `expression '${c}' in ${where} is neither present in the group by, nor is it an aggregate function. ` +
            `Add it to GROUP BY or wrap it in an aggregate such as min(${c}) or max(${c})`,
          e.pos ?? groupPos,
          where,
        );
      }
    }
  };

  const list: NamedExpr[] = columns.map((item) => {
    const rewritten = rewrite(item.expr) as SqlNode;
    const expr = builder.build(rewritten, posOf(item.expr));
    checkOnlyKeys(expr, 'the select list');
    const internal = expr.kind === 'column' && (expr.name.startsWith(KEY_PREFIX) || expr.name.startsWith(AGG_PREFIX));
    const name = item.as ? columnName(item.as) : expr.kind === 'column' && !internal ? expr.name : expr.kind === 'field' ? expr.field : fieldName(textOf(expr));
    return { expr, name };
  });
  let having: Expr | undefined;
  if (ast.having) {
    having = builder.build(rewrite(ast.having) as SqlNode, at(/\bHAVING\b/i));
    checkOnlyKeys(having, 'HAVING');
  }

  let plan: LogicalPlan = { kind: 'Aggregate', groupBy, aggregates, child, pos: groupPos ?? at(/\bDISTINCT\b/i) ?? at(/\bSELECT\b/i) };
  if (having) plan = { kind: 'Filter', condition: having, child: plan };
  return { kind: 'Project', list, child: plan };
}

/** A grouping key that is a struct field (`o.region`) is named after the field, as Spark names it. */
const fieldName = (text: string): string => /^[A-Za-z_][A-Za-z0-9_]*\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(text)?.[1] ?? text;

/** Output column name of each grouping expression of an Aggregate node (see the header). */
export function aggregateKeyNames(groupBy: Expr[], childSchema: Schema): string[] {
  return groupBy.map((e, i) => {
    if (e.kind === 'column') return childSchema.find((f) => f.name.toLowerCase() === e.name.toLowerCase())?.name ?? e.name;
    if (e.kind === 'call' && e.name === 'window') return 'window';
    return `${KEY_PREFIX}${i}`;
  });
}

/**
 * ORDER BY and LIMIT over the query's output (a Project): ORDER BY may name output columns or
 * their 1-based positions. Whether the shape is legal for the output mode is the analyzer's
 * call (Spark: sorting only after an aggregation in Complete mode; no limit in Update mode).
 */
export function buildSortAndLimit(ast: SqlNode, plan: LogicalPlan, at: (re: RegExp) => SqlPosition | undefined): LogicalPlan {
  const out = plan.kind === 'Project' ? plan.list.map((n) => n.name) : [];
  if (Array.isArray(ast.orderby) && ast.orderby.length) {
    const pos = at(/\bORDER\s+BY\b/i);
    const order = (ast.orderby as SqlNode[]).map((o) => {
      const e = o.expr as SqlNode;
      let name: string | undefined;
      if (e.type === 'number' && Number.isInteger(Number(e.value))) name = out[Number(e.value) - 1];
      else if (e.type === 'column_ref') name = out.find((n) => n.toLowerCase() === columnName(e.column).toLowerCase());
      if (!name) {
        throw new SqlValidationError(`ORDER BY on a streaming query may only name output columns (${out.join(', ')}) or their positions`, posOf(e) ?? pos, 'ORDER BY');
      }
      const expr: Expr = { kind: 'column', name, pos: posOf(e) ?? pos };
      return { expr, ascending: String(o.type ?? 'ASC').toUpperCase() !== 'DESC' };
    });
    plan = { kind: 'Sort', order, child: plan, pos };
  }
  const limit = ast.limit?.value as SqlNode[] | undefined;
  if (limit?.length) {
    const pos = at(/\bLIMIT\b|\bOFFSET\b/i);
    if (limit.length > 1 || String(ast.limit.seperator ?? '').toLowerCase() === 'offset') {
      throw unsupportedOperation('OFFSET is not supported on streaming DataFrames/Datasets');
    }
    const n = Number(limit[0].value);
    if (limit[0].type !== 'number' || !Number.isInteger(n) || n < 0) throw new SqlValidationError('LIMIT needs a non-negative integer', pos, 'LIMIT');
    plan = { kind: 'Limit', limit: n, child: plan, pos };
  }
  return plan;
}
