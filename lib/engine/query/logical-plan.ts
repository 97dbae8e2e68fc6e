/**
 * The logical plan of a streaming query (Spark's LogicalPlan, reduced). This issue implements
 * StreamingRelation, Filter and Project; the node kinds Aggregate, Deduplicate, Sort, Limit and
 * Join are declared so the stateful work (issue 4) fills them in without reshaping the tree.
 * Until then the planner rejects them with a "not supported yet" error.
 */
import type { Schema } from '../types';
import { exprToString, type Expr, type SqlPosition } from './expression';
import { describeStaticTable, type StaticTableSpec } from '../operators/stream-static-join';

export interface NamedExpr {
  expr: Expr;
  /** Output column name: the alias, the column name, or the expression's text. */
  name: string;
}

export interface StreamingRelation {
  kind: 'StreamingRelation';
  sourceName: string;
  schema: Schema;
  eventTime?: string;
  watermarkDelayMs?: number;
}

export type LogicalPlan =
  | StreamingRelation
  | { kind: 'Filter'; condition: Expr; child: LogicalPlan }
  | { kind: 'Project'; list: NamedExpr[]; child: LogicalPlan }
  | { kind: 'Aggregate'; groupBy: Expr[]; aggregates: NamedExpr[]; child: LogicalPlan; pos?: SqlPosition }
  | { kind: 'Deduplicate'; keys: string[]; withinWatermark: boolean; child: LogicalPlan; pos?: SqlPosition }
  | { kind: 'Sort'; order: { expr: Expr; ascending: boolean }[]; child: LogicalPlan; pos?: SqlPosition }
  | { kind: 'Limit'; limit: number; child: LogicalPlan; pos?: SqlPosition }
  | { kind: 'Join'; joinType: string; left: LogicalPlan; right: LogicalPlan; condition?: Expr; pos?: SqlPosition }
  /** A static table from the job's staticTables, joined with the stream (issue 4, join-planner.ts). */
  | { kind: 'StaticRelation'; table: StaticTableSpec; keys: { stream: string; static: string }[]; columns: string[] };

/**
 * Operators that keep state across batches (they need a StateStore and a commit per batch).
 * Joins are stream-static only, which carry no state (stream-stream joins are not supported).
 */
export const STATEFUL_KINDS: ReadonlySet<LogicalPlan['kind']> = new Set(['Aggregate', 'Deduplicate']);

export function children(plan: LogicalPlan): LogicalPlan[] {
  switch (plan.kind) {
    case 'StreamingRelation':
    case 'StaticRelation':
      return [];
    case 'Join':
      return [plan.left, plan.right];
    default:
      return [plan.child];
  }
}

export function isStateful(plan: LogicalPlan): boolean {
  return STATEFUL_KINDS.has(plan.kind) || children(plan).some(isStateful);
}

/** Spark-style tree text: `Project [a, (a + 1) AS b]` / `+- Filter (a > 1)` / `   +- StreamingRelation …`. */
export function explainPlan(plan: LogicalPlan, indent = ''): string {
  const line = describeNode(plan);
  const kids = children(plan);
  return [indent + line, ...kids.map((k) => explainPlan(k, indent.replace(/\+- $/, '   ') + '+- '))].join('\n');
}

function describeNode(plan: LogicalPlan): string {
  switch (plan.kind) {
    case 'StreamingRelation':
      return `StreamingRelation ${plan.sourceName} [${plan.schema.map((f) => `${f.name}: ${f.type}`).join(', ')}]` +
        (plan.eventTime ? ` watermark(${plan.eventTime}, ${plan.watermarkDelayMs ?? 0} ms)` : '');
    case 'Filter':
      return `Filter ${exprToString(plan.condition)}`;
    case 'Project':
      return `Project [${plan.list.map((n) => (n.expr.kind === 'column' && n.expr.name === n.name ? n.name : `${exprToString(n.expr)} AS ${n.name}`)).join(', ')}]`;
    case 'Aggregate':
      return `Aggregate [${plan.groupBy.map(exprToString).join(', ')}], [${plan.aggregates.map((a) => a.name).join(', ')}]`;
    case 'Deduplicate':
      return `Deduplicate${plan.withinWatermark ? 'WithinWatermark' : ''} [${plan.keys.join(', ')}]`;
    case 'Sort':
      return `Sort [${plan.order.map((o) => `${exprToString(o.expr)} ${o.ascending ? 'ASC' : 'DESC'}`).join(', ')}]`;
    case 'Limit':
      return `Limit ${plan.limit}`;
    case 'Join':
      return `Join ${plan.joinType}${plan.condition ? ` ${exprToString(plan.condition)}` : ''}`;
    case 'StaticRelation':
      return `StaticRelation ${plan.table.name} ${describeStaticTable(plan.table)} [${plan.table.schema.map((f) => `${f.name}: ${f.type}`).join(', ')}]`;
  }
}
