/**
 * SELECT AST → LogicalPlan for one streaming source: StreamingRelation → Filter (WHERE) →
 * Project (the select list). Clauses this version cannot run (GROUP BY, aggregates, DISTINCT,
 * ORDER BY, LIMIT, JOIN, UNION, WITH, window functions, subqueries) are rejected here, each
 * naming the construct and where it is, rather than being ignored.
 */
import type { SqlPosition } from './expression';
import { ExpressionBuilder, columnName, posOf, type SqlNode } from './expression-builder';
import { exprToString } from './expression';
import type { LogicalPlan, NamedExpr, StreamingRelation } from './logical-plan';
import { findPosition, notSupportedYet, SqlValidationError } from './sql-error';
import { parseSelect } from './sql-parser';
import { buildAggregation, buildSortAndLimit, isAggregationQuery } from './aggregate-planner';
import { buildStreamStaticJoin } from './join-planner';
import type { StaticTableSpec } from '../operators/stream-static-join';

export function buildLogicalPlan(sql: string, relation: StreamingRelation, staticTables: StaticTableSpec[] = []): LogicalPlan {
  const ast = parseSelect(sql);
  const at = (re: RegExp): SqlPosition | undefined => findPosition(sql, re);

  if (ast.with) throw notSupportedYet('WITH (common table expressions)', at(/\bWITH\b/i));
  if (ast._next || ast.set_op) throw notSupportedYet(`${String(ast.set_op ?? 'UNION').toUpperCase()}`, at(/\b(UNION|INTERSECT|EXCEPT)\b/i));
  const from = (ast.from ?? []) as SqlNode[];
  if (from.length === 0) throw new SqlValidationError(`A streaming query needs FROM ${relation.sourceName}`, { line: 1, column: 1 }, 'FROM');
  // A stream-static join (join-planner.ts): the query then reads the joined rows.
  const join = from.length > 1 ? buildStreamStaticJoin(from, relation, staticTables, (q) => new ExpressionBuilder(q, sql), at) : undefined;
  const f = from.find((x) => String(x.table) === relation.sourceName) ?? from[0];
  if (f.expr) throw notSupportedYet('Subquery in FROM', at(/\bFROM\b/i));
  if (String(f.table) !== relation.sourceName) {
    throw new SqlValidationError(
      `FROM ${f.table}: unknown source; this job's source is named "${relation.sourceName}"`,
      at(new RegExp(`\\b${escape(String(f.table))}\\b`)),
      'FROM',
    );
  }
  const qualifiers = new Set([relation.sourceName, ...(f.as ? [String(f.as)] : []), ...(join?.qualifiers ?? [])]);
  const builder = new ExpressionBuilder(qualifiers, sql);
  const inputSchema = join?.schema ?? relation.schema;

  if (ast.window) throw notSupportedYet('WINDOW clause', at(/\bWINDOW\b/i));

  let plan: LogicalPlan = join?.plan ?? relation;
  if (ast.where) {
    plan = { kind: 'Filter', condition: builder.build(ast.where, at(/\bWHERE\b/i)), child: plan };
  }
  // GROUP BY / aggregates / HAVING / DISTINCT, ORDER BY, LIMIT: aggregate-planner.ts.
  if (isAggregationQuery(ast)) return buildSortAndLimit(ast, buildAggregation(ast, plan, inputSchema, builder, at), at);

  const list: NamedExpr[] = [];
  for (const item of ast.columns as SqlNode[]) {
    const e = item.expr ?? item;
    if (e.type === 'column_ref' && e.column === '*') {
      if (e.table && !qualifiers.has(String(e.table))) throw new SqlValidationError(`Unknown table or alias "${e.table}" in ${e.table}.*`, posOf(e), '*');
      for (const fld of inputSchema) list.push({ expr: { kind: 'column', name: fld.name }, name: fld.name });
      continue;
    }
    const expr = builder.build(e, posOf(e));
    const name = item.as ? String(typeof item.as === 'string' ? item.as : columnName(item.as)) : expr.kind === 'column' ? expr.name : exprToString(expr);
    list.push({ expr, name });
  }
  const seen = new Map<string, NamedExpr>();
  for (const n of list) {
    const key = n.name.toLowerCase();
    if (seen.has(key)) {
      throw new SqlValidationError(`Output column "${n.name}" appears twice; give one of them an alias with AS`, n.expr.pos ?? at(/\bSELECT\b/i), 'select list');
    }
    seen.set(key, n);
  }
  return buildSortAndLimit(ast, { kind: 'Project', list, child: plan }, at);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
