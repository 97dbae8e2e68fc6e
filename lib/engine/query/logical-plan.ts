/**
 * The logical plan of a streaming query (Spark's LogicalPlan, reduced). Its explain, with each
 * node marked stateless or stateful, is the analyzer's (`explainStateful` in streaming-checker.ts).
 */
import type { Schema } from '../types';
import type { TypeInfo } from './data-types';
import { exprChildren, type Expr, type SqlPosition } from './expression';
import type { StaticTableSpec } from '../operators/stream-static-join';

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
  /**
   * The source reads files, and its rows have Spark's hidden `_metadata` column (a file-based
   * relation's metadata output); on any other source the name is no column, as in Spark.
   */
  metadataColumn?: boolean;
  /**
   * Set by the optimizer's ColumnPruning: the only columns the query reads (then also `schema`);
   * the source may materialize just these. Unset: every column of the schema.
   */
  requiredColumns?: string[];
}

/**
 * A stream-static join's key pair: a stream column equal to a static column, and, when their types
 * differ, the common type the analysis reads both as (Spark's implicit casts of the comparison).
 * A side that is an expression over its side's columns (`upper(e.region) = r.code`, Spark's
 * hash join keys may be any) carries it, `stream` or `static` then naming it as written.
 */
interface StaticJoinKey {
  stream: string;
  static: string;
  type?: TypeInfo;
  streamExpr?: Expr;
  staticExpr?: Expr;
  /** `<=>` (Spark's EqualNullSafe, which its hash join takes as a key too): a NULL matches a NULL. */
  nullSafe?: true;
}

export type LogicalPlan =
  | StreamingRelation
  | { kind: 'Filter'; condition: Expr; child: LogicalPlan }
  | { kind: 'Project'; list: NamedExpr[]; child: LogicalPlan }
  | {
      kind: 'Aggregate'; groupBy: Expr[]; aggregates: NamedExpr[]; child: LogicalPlan; pos?: SqlPosition;
      /**
       * The set operation the aggregation was rewritten from by Spark's optimizer (the Distinct of
       * ReplaceExceptWithAntiJoin or ReplaceIntersectWithSemiJoin), which Spark's
       * UnsupportedOperationChecker, reading the analyzed plan, does not count as an aggregation.
       */
      setOperation?: 'Except' | 'Intersect';
    }
  | { kind: 'Deduplicate'; keys: string[]; withinWatermark: boolean; child: LogicalPlan; pos?: SqlPosition }
  /**
   * `nullsFirst`: where NULLs go when written against the direction's default (ASC NULLS FIRST,
   * DESC NULLS LAST); unset: that default.
   */
  | { kind: 'Sort'; order: { expr: Expr; ascending: boolean; nullsFirst?: boolean }[]; child: LogicalPlan; pos?: SqlPosition }
  | { kind: 'Limit'; limit: number; child: LogicalPlan; pos?: SqlPosition }
  /**
   * Spark's Offset: the child's rows after its first `offset` (in its order). A LIMIT of it
   * (`LIMIT n OFFSET m`) is the Limit above, taking n of what is left, as Spark's parser builds it.
   * Batch plans only: Spark's UnsupportedOperationChecker refuses it over a stream.
   */
  | { kind: 'Offset'; offset: number; child: LogicalPlan; pos?: SqlPosition }
  | {
      kind: 'Join'; joinType: string; left: LogicalPlan; right: LogicalPlan; condition?: Expr; pos?: SqlPosition;
      /**
       * A stream-static join's ON conjuncts other than its key equalities (`e.ts BETWEEN d.valid_from
       * AND d.valid_to`, `d.active`), checked on each pair the keys match, over the stream's row and
       * the static one: a pair failing it is no match (Spark's hash join condition).
       */
      otherCondition?: Expr;
      /** A stream-static LEFT ANTI join of `x NOT IN (SELECT c …)`: Spark's null-aware anti join (see the operator). */
      nullAware?: boolean;
      /** A join of `(x, y) IN (SELECT a, b …)`: key pairs whose types do not compare are Spark's IN_SUBQUERY_DATA_TYPE_MISMATCH. */
      inSubquery?: boolean;
      /** Set by ColumnPruning: the stream columns carried past the join (unset: all of them). */
      streamColumns?: string[];
      /**
       * Set by PushPredicateThroughJoin when it moved conjuncts of `condition` below a side: the
       * condition before, which names the join's state in the checkpoint (its state schema's
       * `condition`), so that a checkpoint written before the move still restarts.
       */
      stateCondition?: Expr;
    }
  /** UNION ALL: the branches' rows one after the other (by position, named as the first branch's). */
  | { kind: 'Union'; branches: LogicalPlan[]; pos?: SqlPosition }
  /**
   * Spark's Generate: `generator` (explode(x), posexplode(x), inline(x), stack(n, …)) turns each
   * child row into one row per element of the array x (or entry of the map x): the child's
   * columns, then `output` (Spark's `pos`, `col`, or `key` and `value`, unless aliased).
   */
  | {
      kind: 'Generate'; generator: Extract<Expr, { kind: 'call' }>; output: string[]; child: LogicalPlan;
      /** Set by ColumnPruning: the child columns read above, the only ones copied into each generated row (Spark's unrequiredChildIndex). */
      carried?: string[];
    }
  /**
   * Spark's Expand, as ResolveGroupingAnalytics builds it for GROUP BY CUBE, ROLLUP and GROUPING
   * SETS: each child row once per grouping set, with the child's columns, then one column per
   * grouping expression (`groupBy[i]`, named `output[i]`; NULL in the rows of a set that leaves it
   * out), then `spark_grouping_id` (the set's bitmask: bit n-1-i set where it leaves out
   * groupBy[i]) and, when a set is listed twice, `_gen_grouping_pos` (the set's position), which
   * the Aggregate above groups by too. Stateless.
   */
  | { kind: 'Expand'; groupBy: Expr[]; groupingSets: number[][]; output: string[]; child: LogicalPlan }
  /**
   * A static table from the job's staticTables, joined with the stream (join-planner.ts); with
   * `view`, the table as a subquery of the join's selects and filters it, `JOIN (SELECT … FROM t
   * WHERE …) r`, its output the columns `keys` and `columns` name.
   */
  | { kind: 'StaticRelation'; table: StaticTableSpec; keys: StaticJoinKey[]; columns: string[]; view?: StaticView }
  /**
   * Spark's Window: the child's rows, each with the window functions' columns added, computed
   * over its partition (rows equal on `partitionSpec`) sorted by `orderSpec`. One node per
   * distinct specification (ExtractWindowExpressions); run in a batch plan only (a static side).
   */
  | { kind: 'Window'; functions: WindowFunctionCall[]; partitionSpec: Expr[]; orderSpec: { expr: Expr; ascending: boolean; nullsFirst: boolean }[]; child: LogicalPlan };

/** A frame's bound: a row count or RANGE offset is signed (negative: PRECEDING); `months`: calendar months added to a DATE or TIMESTAMP key. */
export type WindowFrameBound = 'UnboundedPreceding' | 'CurrentRow' | 'UnboundedFollowing' | { offset: number; months?: true };

/** Spark's SpecifiedWindowFrame, resolved: a RANGE offset in the order key's units (ms for a timestamp, days for a date). */
export interface WindowFrameSpec {
  frameType: 'Rows' | 'Range';
  lower: WindowFrameBound;
  upper: WindowFrameBound;
}

/** A window function of a Window node: its output column, the function and its arguments, its frame, and Spark's text of it. */
export interface WindowFunctionCall {
  name: string;
  /** Lower-cased: a ranking or offset function (window-functions.ts), or an aggregate's name. */
  fn: string;
  args: Expr[];
  ignoreNulls?: true;
  frame: WindowFrameSpec;
  sql: string;
}

/**
 * A subquery over one static table on a join's static side: its plan (Projects and Filters over
 * the StaticRelation of the table, resolved), its alias and its output, which the join reads as the
 * table's. Spark runs such a side as a batch plan; Weir runs it once, over the rows it loads.
 */
export interface StaticView {
  name: string;
  plan: LogicalPlan;
  schema: Schema;
}

/**
 * An uncorrelated scalar subquery over static tables (Spark's ScalarSubquery): its batch plan of
 * one column, that column's type, and the value ScalarSubqueryExec gives it before the batch's
 * operators read it (again at a batch whose tables may have changed, StaticTableReads) (no row: NULL; more than one: SCALAR_SUBQUERY_TOO_MANY_ROWS).
 * Expressions copied by the optimizer share the one object, and so its value.
 */
export interface ScalarSubquery {
  id: number;
  plan: LogicalPlan;
  type: TypeInfo;
  /**
   * Its plan reads outer references (the expression's `outer` values): run for each tuple of
   * them by the operator before the one that reads it (correlated-scalar-subquery.ts), not once.
   */
  correlated?: true;
}

/**
 * The scalar subqueries a plan's expressions read, each once, those a subquery reads before it,
 * including those of its static sides' plans: the order in which they are evaluated (the
 * uncorrelated ones, before the batch's operators).
 */
export function scalarSubqueries(plan: LogicalPlan, out: ScalarSubquery[] = []): ScalarSubquery[] {
  const inExpr = (e: Expr): void => {
    if (e.kind === 'scalarSubquery' && !out.includes(e.subquery)) {
      scalarSubqueries(e.subquery.plan, out);
      out.push(e.subquery);
    }
    exprChildren(e).forEach(inExpr);
  };
  for (const c of children(plan)) scalarSubqueries(c, out);
  if (plan.kind === 'StaticRelation' && plan.view) scalarSubqueries(plan.view.plan, out);
  nodeExpressions(plan).forEach(inExpr);
  if (plan.kind === 'Join' && plan.otherCondition) inExpr(plan.otherCondition);
  return out;
}

/** The columns a static side offers the join: its subquery's output, or the table's. */
export function staticSchema(stat: Extract<LogicalPlan, { kind: 'StaticRelation' }>): Schema {
  return stat.view?.schema ?? stat.table.schema;
}

/** How a static side is named in the query: its subquery's alias, or the table's name. */
export function staticName(stat: Extract<LogicalPlan, { kind: 'StaticRelation' }>): string {
  return stat.view?.name ?? stat.table.name;
}

/** The grouping id column of an Expand (Spark's VirtualColumn.groupingIdName). */
export const GROUPING_ID_COLUMN = 'spark_grouping_id';
/** The column an Expand adds when a grouping set is listed twice (Spark's Expand). */
export const GROUPING_POS_COLUMN = '_gen_grouping_pos';

/**
 * A grouping set's spark_grouping_id (Spark's Expand.buildBitmask): of the n grouping
 * expressions, bit n-1-i set where the set leaves out expression i, so (a, b) is 0, (a) 1, () 3.
 */
export function groupingId(set: readonly number[], n: number): number | bigint {
  let id = (1n << BigInt(n)) - 1n;
  for (const i of set) id &= ~(1n << BigInt(n - 1 - i));
  return id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : BigInt.asIntN(64, id);
}

/**
 * Operators that keep state across batches (they need a StateStore and a commit per batch). A
 * stream-static join keeps none; a join of two streams buffers both sides (isStateful).
 */
const STATEFUL_KINDS: ReadonlySet<LogicalPlan['kind']> = new Set(['Aggregate', 'Deduplicate']);

/**
 * A relation's columns as the plan reads them: its event-time column carries the watermark
 * metadata (Spark's withWatermark marks the attribute), which follows the column through aliases.
 */
export function relationOutput(r: StreamingRelation): Schema {
  const et = r.eventTime;
  if (et === undefined) return r.schema;
  return r.schema.map((f) => (f.name === et && f.type === 'timestamp' ? { ...f, watermarkDelayMs: r.watermarkDelayMs ?? 0 } : f));
}

export function children(plan: LogicalPlan): LogicalPlan[] {
  switch (plan.kind) {
    case 'StreamingRelation':
    case 'StaticRelation':
      return [];
    case 'Join':
      return [plan.left, plan.right];
    case 'Union':
      return plan.branches;
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'Aggregate': case 'Deduplicate': case 'Expand': case 'Filter': case 'Generate': case 'Limit': case 'Offset': case 'Project': case 'Sort': case 'Window':
    default:
      return [plan.child];
  }
}

/** The first stream in `plan` (children in order, left before right) that `p` accepts; any stream without `p`. */
export function firstStreamingRelation(plan: LogicalPlan, p: (r: StreamingRelation) => boolean = () => true): StreamingRelation | undefined {
  if (plan.kind === 'StreamingRelation') return p(plan) ? plan : undefined;
  for (const c of children(plan)) {
    const r = firstStreamingRelation(c, p);
    if (r) return r;
  }
  return undefined;
}

/** A join of two streams (neither side a static table): Spark's stream-stream join, which buffers both sides. */
export function isStreamStreamJoin(n: Extract<LogicalPlan, { kind: 'Join' }>): boolean {
  return n.left.kind !== 'StaticRelation' && n.right.kind !== 'StaticRelation';
}

export function isStateful(plan: LogicalPlan): boolean {
  return STATEFUL_KINDS.has(plan.kind) || (plan.kind === 'Join' && isStreamStreamJoin(plan)) || children(plan).some(isStateful);
}


/** The expressions a node holds itself (its children's not included). */
export function nodeExpressions(plan: LogicalPlan): Expr[] {
  switch (plan.kind) {
    case 'Filter': return [plan.condition];
    case 'Project': return plan.list.map((n) => n.expr);
    case 'Aggregate': return [...plan.groupBy, ...plan.aggregates.map((a) => a.expr)];
    case 'Sort': return plan.order.map((o) => o.expr);
    case 'Join': return plan.condition ? [plan.condition] : [];
    case 'Generate': return [plan.generator];
    case 'Expand': return plan.groupBy;
    case 'Window': return [...plan.partitionSpec, ...plan.orderSpec.map((o) => o.expr), ...plan.functions.flatMap((f) => f.args)];
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'StreamingRelation': case 'StaticRelation': case 'Deduplicate': case 'Limit': case 'Offset': case 'Union':
    default:
      return [];
  }
}

/** Whether an expression of the node itself (not of its children) calls the function `name` (lower case). */
export function nodeCallsFunction(plan: LogicalPlan, name: string): boolean {
  const inExpr = (e: Expr): boolean => (e.kind === 'call' && e.name === name) || exprChildren(e).some(inExpr);
  return nodeExpressions(plan).some(inExpr);
}

/**
 * Whether the plan evaluates no nondeterministic expression (Spark's LogicalPlan.deterministic),
 * its static sides' batch plans included: `isDeterministic` says which expression is.
 */
export function isDeterministicPlan(plan: LogicalPlan, isDeterministic: (e: Expr) => boolean): boolean {
  if (plan.kind === 'StaticRelation' && plan.view && !isDeterministicPlan(plan.view.plan, isDeterministic)) return false;
  return nodeExpressions(plan).every(isDeterministic) && children(plan).every((c) => isDeterministicPlan(c, isDeterministic));
}

/** Whether any expression of the plan calls the function `name` (lower case). */
export function callsFunction(plan: LogicalPlan, name: string): boolean {
  return nodeCallsFunction(plan, name) || children(plan).some((c) => callsFunction(c, name));
}
