/**
 * SELECT AST → LogicalPlan for one streaming source: StreamingRelation → Filter (WHERE) →
 * Project (the select list), with aggregation, sort and limit from aggregate-planner.ts and a
 * stream-static join from join-planner.ts.
 *
 * A subquery in FROM and a CTE (`WITH t AS (…) SELECT … FROM t`) are planned as the plan of
 * their own SELECT under the outer one, as Spark inlines them: a stateless one is just more
 * Filter/Project nodes, a stateful one is analyzed with the rest (so an aggregation over an
 * aggregation meets Spark's "Multiple streaming aggregations" rule in the analyzer). The outer
 * SELECT reads the inner one's output columns, which `schemaOf` computes (the physical planner
 * knows the types). Clauses this version cannot run (UNION, window functions, subqueries in
 * expressions) are rejected here, each naming the construct and where it is.
 */
import type { Expr, SqlPosition } from './expression';
import { compileExpression } from './expression-compiler';
import { generatorOutput, GENERATORS } from './generators';
import { ExpressionBuilder, columnName, functionName, posOf, tableName, type SqlNode } from './expression-builder';
import { exprToString } from './expression';
import { isStateful, type LogicalPlan, type NamedExpr, type StreamingRelation } from './logical-plan';
import { findPosition, notSupportedYet, SqlValidationError } from './sql-error';
import { parseSelect } from './sql-parser';
import { buildAggregation, buildSortAndLimit, isAggregationQuery } from './aggregate-planner';
import { buildStreamStaticJoin } from './join-planner';
import type { StaticTableSpec } from '../operators/stream-static-join';
import type { Schema } from '../types';

/** The output columns of a plan (the physical planner's answer). */
export type SchemaOf = (plan: LogicalPlan) => Schema;

interface PlanContext {
  sql: string;
  relation: StreamingRelation;
  staticTables: StaticTableSpec[];
  schemaOf?: SchemaOf;
  /** CTEs in scope, by lower-cased name. */
  ctes: Map<string, LogicalPlan>;
}

export function buildLogicalPlan(sql: string, relation: StreamingRelation, staticTables: StaticTableSpec[] = [], schemaOf?: SchemaOf): LogicalPlan {
  return planSelect(parseSelect(sql), { sql, relation, staticTables, schemaOf, ctes: new Map() });
}

function planSelect(ast: SqlNode, outer: PlanContext): LogicalPlan {
  const { sql, relation, staticTables } = outer;
  const at = (re: RegExp): SqlPosition | undefined => findPosition(sql, re);
  const ctx: PlanContext = { ...outer, ctes: new Map(outer.ctes) };

  for (const cte of (Array.isArray(ast.with) ? ast.with : []) as SqlNode[]) {
    const name = String(cte.name?.value ?? cte.name);
    if (cte.stmt?.type !== 'select' && cte.stmt?.ast?.type !== 'select') throw notSupportedYet(`WITH ${name} (a CTE that is not a SELECT)`, at(/\bWITH\b/i));
    ctx.ctes.set(name.toLowerCase(), planSelect(cte.stmt.ast ?? cte.stmt, ctx));
  }
  if (ast._next || ast.set_op) return planUnion(ast, ctx);
  const from = (ast.from ?? []) as SqlNode[];
  if (from.length === 0) throw new SqlValidationError(`A streaming query needs FROM ${relation.sourceName}`, { line: 1, column: 1 }, 'FROM');
  const sub = from.length === 1 ? subqueryOf(from[0], ctx) : undefined;
  // A stream-static join (join-planner.ts): the query then reads the joined rows.
  const join = from.length > 1 ? buildStreamStaticJoin(from, relation, staticTables, (q) => new ExpressionBuilder(q, sql), at) : undefined;
  const f = from.find((x) => String(x.table) === relation.sourceName) ?? from[0];
  if (!sub && f.expr) throw notSupportedYet('Subquery in FROM of a join', at(/\bFROM\b/i));
  if (!sub && String(f.table) !== relation.sourceName) {
    throw new SqlValidationError(
      `FROM ${f.table}: unknown source; this job's source is named "${relation.sourceName}"${ctx.ctes.size ? ` (CTEs in scope: ${[...ctx.ctes.keys()].join(', ')})` : ''}`,
      at(new RegExp(`\\b${escape(String(f.table))}\\b`)),
      'FROM',
    );
  }
  const qualifiers = new Set([...(sub ? sub.qualifiers : [relation.sourceName]), ...(f.as ? [columnName(f.as)] : []), ...(join?.qualifiers ?? [])]);
  const builder = new ExpressionBuilder(qualifiers, sql);
  const inputSchema = join?.schema ?? sub?.schema ?? relation.schema;

  if (ast.window) throw notSupportedYet('WINDOW clause', at(/\bWINDOW\b/i));

  let plan: LogicalPlan = join?.plan ?? sub?.plan ?? relation;
  if (ast.where) {
    plan = { kind: 'Filter', condition: builder.build(ast.where, at(/\bWHERE\b/i)), child: plan };
  }
  // GROUP BY / aggregates / HAVING / DISTINCT, ORDER BY, LIMIT: aggregate-planner.ts.
  if (isAggregationQuery(ast)) return buildSortAndLimit(ast, buildAggregation(ast, plan, inputSchema, builder, at), at);

  const list: NamedExpr[] = [];
  let generate: Extract<LogicalPlan, { kind: 'Generate' }> | undefined;
  for (const item of ast.columns as SqlNode[]) {
    const e = item.expr ?? item;
    if (e.type === 'column_ref' && e.column === '*') {
      const t = tableName(e.table);
      if (t !== undefined && !qualifiers.has(t)) {
        // `s.*` of a struct column s: one output column per field (Spark's star expansion).
        const struct = inputSchema.find((x) => x.name.toLowerCase() === t.toLowerCase());
        const fields = struct?.type === 'window' ? [{ name: 'start' }, { name: 'end' }] : struct?.type === 'struct' ? (struct.fields ?? []) : undefined;
        if (!struct || !fields) throw new SqlValidationError(`Unknown table, alias or struct column "${t}" in ${t}.*`, posOf(e) ?? at(new RegExp(`\\b${escape(t)}\\s*\\.\\s*\\*`)), '*');
        for (const fld of fields) list.push({ expr: { kind: 'field', arg: { kind: 'column', name: struct.name }, field: fld.name }, name: fld.name });
        continue;
      }
      for (const fld of inputSchema) list.push({ expr: { kind: 'column', name: fld.name }, name: fld.name });
      continue;
    }
    // json_tuple(json, 'k1', 'k2', …) as a select item: Spark's generator, one column per key
    // (c0, c1, … as Spark names them), each the key's value as a string.
    if (e.type === 'function' && functionName(e).toLowerCase() === 'json_tuple') {
      const args = (e.args?.type === 'expr_list' ? e.args.value : []) as SqlNode[];
      if (args.length < 2) throw new SqlValidationError('json_tuple() takes (json, key1[, key2, …])', posOf(e) ?? at(/\bjson_tuple\b/i), 'json_tuple');
      const json = builder.build(args[0], posOf(e));
      args.slice(1).forEach((k, i) => list.push({ expr: { kind: 'call', name: 'json_tuple_item', args: [json, builder.build(k, posOf(e))] }, name: `c${i}` }));
      continue;
    }
    if (e.type === 'function' && GENERATORS.has(functionName(e).toLowerCase()) && !e.array_index) {
      if (generate) {
        throw new SqlValidationError(
          `The generator is not supported: only one generator allowed per SELECT clause but found 2: ${exprToString(generate.generator)}, ${functionName(e).toLowerCase()}(…). Generate in a subquery and the other in the outer SELECT`,
          posOf(e) ?? at(new RegExp(`\\b${functionName(e)}\\b`, 'i')), 'generator', 'UNSUPPORTED_GENERATOR.MULTI_GENERATOR',
        );
      }
      generate = planGenerate(builder.build(e, posOf(e)) as Extract<Expr, { kind: 'call' }>, item.as ? columnName(item.as) : undefined, inputSchema, plan);
      for (const name of generate.output) list.push({ expr: { kind: 'column', name }, name });
      continue;
    }
    const expr = builder.build(e, posOf(e));
    // Spark names `parsed.id` (a struct field) `id`.
    const name = item.as ? columnName(item.as) : expr.kind === 'column' ? expr.name : expr.kind === 'field' ? expr.field : exprToString(expr);
    list.push({ expr, name });
  }
  if (generate) plan = generate;
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

/**
 * A generator select item as a Generate over `child`: its output columns are Spark's (or the
 * alias), and must not be named like a column of its input, which the other items may read.
 */
function planGenerate(call: Extract<Expr, { kind: 'call' }>, alias: string | undefined, inputSchema: Schema, child: LogicalPlan): Extract<LogicalPlan, { kind: 'Generate' }> {
  if (call.args.length !== 1) throw new SqlValidationError(`${call.name}() takes one argument (an array or a map), got ${call.args.length}`, call.pos, call.name);
  const fields = generatorOutput(call.name, compileExpression(call.args[0], inputSchema));
  if (typeof fields === 'string') throw new SqlValidationError(`${fields} in ${exprToString(call)}`, call.pos, call.name);
  if (alias !== undefined && fields.length !== 1) {
    throw new SqlValidationError(
      `The number of aliases supplied in the AS clause does not match the number of columns output by the UDTF. Expected ${fields.length} aliases, but got ${alias}. ` +
        `Leave ${call.name}() unaliased (its columns are ${fields.map((f) => f.name).join(', ')}) and rename them in an outer SELECT`,
      call.pos, call.name, 'UDTF_ALIAS_NUMBER_MISMATCH',
    );
  }
  for (const f of alias !== undefined ? [{ name: alias }] : fields) {
    if (inputSchema.some((c) => c.name.toLowerCase() === f.name.toLowerCase())) {
      throw new SqlValidationError(`${exprToString(call)} outputs a column ${f.name}, and its input has a column ${f.name} too: alias the generator (AS another name) or rename that column in a subquery`, call.pos, call.name);
    }
  }
  return { kind: 'Generate', generator: call, output: alias !== undefined ? [alias] : fields.map((f) => f.name), child };
}

/**
 * UNION ALL of SELECTs over the same stream, each stateless. Spark runs a union of stateful
 * branches as separate stateful operators; Weir plans only the stateless shape (the usual one:
 * the same stream filtered and projected two ways), and says so for the rest.
 */
function planUnion(ast: SqlNode, ctx: PlanContext): LogicalPlan {
  const at = (re: RegExp): SqlPosition | undefined => findPosition(ctx.sql, re);
  const branches: LogicalPlan[] = [];
  for (let n: SqlNode | undefined = ast; n; n = n._next as SqlNode | undefined) {
    const op = String(n.set_op ?? '').toLowerCase();
    if (n._next && op !== 'union all') {
      if (op === 'union' || op === 'union distinct') throw notSupportedYet('UNION (distinct)', at(/\bUNION\b/i), 'write UNION ALL, and deduplicate with the job\'s dedup option if needed');
      throw notSupportedYet(op.toUpperCase() || 'UNION', at(/\b(UNION|INTERSECT|EXCEPT|MINUS)\b/i), 'Spark refuses INTERSECT and EXCEPT on streams too');
    }
    const branch = planSelect({ ...n, _next: undefined, set_op: undefined }, ctx);
    if (isStateful(branch)) throw notSupportedYet('UNION ALL of a stateful query', at(/\bUNION\b/i), 'each branch may filter and project the stream; aggregate over the union instead (SELECT … FROM (… UNION ALL …) GROUP BY …)');
    branches.push(branch);
  }
  return { kind: 'Union', branches, pos: at(/\bUNION\b/i) };
}

/** The plan and output columns of FROM's subquery or CTE, or undefined when FROM names the source. */
function subqueryOf(f: SqlNode, ctx: PlanContext): { plan: LogicalPlan; schema: Schema; qualifiers: string[] } | undefined {
  let plan: LogicalPlan | undefined;
  if (f.expr?.ast) plan = planSelect(f.expr.ast as SqlNode, ctx);
  else if (typeof f.table === 'string' && ctx.ctes.has(f.table.toLowerCase())) plan = ctx.ctes.get(f.table.toLowerCase());
  if (!plan) return undefined;
  if (!ctx.schemaOf) throw new SqlValidationError('Internal: a subquery needs the physical planner to know its columns', undefined, 'FROM');
  return { plan, schema: ctx.schemaOf(plan), qualifiers: typeof f.table === 'string' ? [f.table] : [] };
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
