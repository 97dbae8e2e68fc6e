/**
 * A job's SQL compiled for execution: the logical plan, its output schema, the physical
 * operators (closures) in order, and `explain` text. Everything here runs at validation as well
 * as at start, so every SQL error surfaces before a single batch runs.
 */
import { FILE_METADATA_COLUMN, type OutputMode, type Row, type Schema } from '../types';
import type { StatefulOperatorDescriptor } from '../state/state-schema-compatibility-checker';
import { analyzeStreamingPlan, explainBatch, explainStreamingPlan, type AnalyzerWarning } from './streaming-checker';
import { optimizePlan, scanFilterOf, sourceReads, watermarkConditionOf, type OptimizerRuleApplication, type SourceRead } from './optimizer';
import { StatefulPlanner, withDeduplication } from './stateful-planner';
import type { StaticTableSpec, StreamStaticJoinOptions } from '../operators/stream-static-join';
import { ScalarSubqueryExec } from '../operators/scalar-subquery-exec';
import { CorrelatedScalarSubqueryExec, type PlannedCorrelatedSubquery } from '../operators/correlated-scalar-subquery-exec';
import { boundOuterValues, CorrelatedValues, isCorrelatedSubquery, OuterValues, withCorrelatedValues, withOuterValues } from './correlated-scalar-subquery';
import { boundScalarSubqueryResults, ScalarSubqueryResults, withScalarSubqueryResults } from './scalar-subquery-results';
import { executeBatch } from '../operators/batch-execution';
import { FilterExec } from '../operators/filter-exec';
import type { PhysicalOperator } from '../operators/physical-operator';
import { ProjectExec } from '../operators/project-exec';
import { UnionExec } from '../operators/union-exec';
import { WindowExec } from '../operators/window-exec';
import { compileWindowFunction } from './window-functions';
import { decimalToDouble } from './decimal';
import { dateAddMonths, timestampAddMonths } from './interval-utils';
import { MicroBatchScanExec } from '../operators/micro-batch-scan';
import { checkForOrderingExpr, compileExpression, expressionType, type EvalContext, type Evaluator } from './expression-compiler';
import { callsFunction, children, firstStreamingRelation, groupingId, isStateful, isStreamStreamJoin, nodeCallsFunction, nodeExpressions, relationOutput, scalarSubqueries, type LogicalPlan, type StaticView, type StreamingRelation } from './logical-plan';
import { buildLogicalPlan } from './query-planner';
import { expandOutput, generateOutput, generatorFields, projectOutput, staticSideOf, streamSideOf, unionOutput } from './plan-output';
import { outputSchema as logicalPlanOutput, resolvePlan } from './resolved-plan';
import { fieldOfType, isOrderable, sameType, typeOfField, typeText } from './data-types';
import { SqlValidationError } from './sql-error';
import { exprChildren, exprToString, type Expr } from './expression';
import { DUPLICATE_COLUMN_MARK } from './column-names';
import { FILE_FUNCTIONS } from './misc-functions';
import { mapKeyValue } from './map-keys';
import { castValue } from './sql-values';
import { ExpandExec } from '../operators/expand-exec';
import { GenerateExec, type GenerateSpec } from '../operators/generate-exec';
import { rangeIds, stackRows, variantEntries } from './generators';
import { windowsFor } from '../operators/window';
import { InputWatermarkExec } from '../operators/input-watermark';
import { isStatefulOperator } from '../operators/physical-operator';
import { inputWatermarkDelta } from './watermark-propagation';
import { ValidationError } from '../errors';
import { notSupportedYet } from './sql-error';

export interface CompiledStreamingQuery {
  /** The optimized plan, which the operators run. */
  plan: LogicalPlan;
  /** The optimizer's rewrites, in order (shown with the explain). */
  optimizations: OptimizerRuleApplication[];
  /** The source columns the query reads (ColumnPruning); unset: every column. */
  sourceColumns?: string[];
  /** The condition the source may apply as it reads (PushedFilters, see scanFilterOf); the Filter stays in `operators`. */
  scanFilter?: Evaluator;
  /**
   * Spark's EventTimeWatermark nodes over a source's event-time column, in plan order: one per
   * read of such a source (a self-join reads its source twice: two), each with its own
   * watermark, which folds the event times of the rows that pass `filter` (the conjuncts of the
   * read's WHERE or join side Spark pushes below it, watermarkConditionOf; unset: every row).
   */
  eventTimeWatermarks: EventTimeWatermarkNode[];
  /**
   * How many times the plan reads each source, by its name in lower case (a self-union or a
   * self-join: 2). Spark's numInputRows counts the rows of every scan of a source, so a batch of
   * three rows read twice is six input rows.
   */
  readsBySource: ReadonlyMap<string, number>;
  outputSchema: Schema;
  operators: PhysicalOperator[];
  stateful: boolean;
  explain: string;
  /** Analyzer warnings (unbounded state). */
  warnings: AnalyzerWarning[];
  /** What the restart-compatibility check records for each stateful operator. */
  statefulOperators: StatefulOperatorDescriptor[];
  /** The query calls input_file_name() (or a FILE_FUNCTIONS other) or reads `_metadata`: its sources mark each row with its file (SourceContext.fileMetadata). */
  readsFileMetadata: boolean;
}

/** How many times the query's plan reads the source `name` (readsBySource; 0: never), its name matched ignoring case as Spark resolves a relation. */
export const readsOfSource = (query: Pick<CompiledStreamingQuery, 'readsBySource'>, name: string): number => query.readsBySource.get(name.toLowerCase()) ?? 0;

/** Whether the query's plan reads the source `name` at all. */
export const readsSource = (query: Pick<CompiledStreamingQuery, 'readsBySource'>, name: string): boolean => readsOfSource(query, name) > 0;

/** A read of a source with its event time among its columns (CompiledStreamingQuery.eventTimeWatermarks). */
export interface EventTimeWatermarkNode {
  sourceName: string;
  filter?: Evaluator;
}

export interface CompileOptions {
  /** The job's output mode: the analyzer checks Spark's legality rules against it (default append). */
  outputMode?: OutputMode;
  /** The job's `dedup` option: a Deduplicate right above the source. */
  dedup?: { keys: string[]; withinWatermark?: boolean };
  /** The job's `staticTables`, joinable with the stream. */
  staticTables?: StaticTableSpec[];
  /** Run the logical optimizer (default true; the optimizer's own tests compare both). */
  optimize?: boolean;
  /** State partitions of each keyed stateful operator (the job's parallelism, Spark's spark.sql.shuffle.partitions; default 1). */
  numPartitions?: number;
}

/**
 * `relations`: the job's sources in order (one relation: a one-source job). With several, each
 * StreamingRelation of the plan reads its own source's rows (MicroBatchScanExec).
 */
export function compileStreamingQuery(sql: string, relations: StreamingRelation | readonly StreamingRelation[], opts: CompileOptions = {}): CompiledStreamingQuery {
  const outputMode = opts.outputMode ?? 'append';
  const all: readonly StreamingRelation[] = Array.isArray(relations) ? relations : [relations as StreamingRelation];
  requireSourceEventTimes(all);
  // The stateful operators' watermark column: the first source that declares one (each source's
  // own watermark is tracked at run time, the global one chosen by the multipleWatermarkPolicy).
  const relation = all.find((r) => r.eventTime !== undefined) ?? all[0];
  const scans = all.length > 1;
  // The columns a node outputs, for the streaming checker (resolved-plan.ts), without planning it.
  const schemaOf = logicalPlanOutput;
  const plan = withDeduplication(buildLogicalPlan(sql, all, opts.staticTables), opts.dedup, all[0].sourceName);
  // The analysis first: it types every expression and refuses an unknown column or a type error,
  // the query's own fault in every output mode (the mode's legality is only worth judging on a
  // query that analyses). It reads the plan as written, so a message names what the user wrote
  // (the columns a pruned relation would list are not the query's columns). The streaming
  // checker, the optimizer and the physical planner read the resolved plan.
  const { plan: resolved, output: outputSchema } = resolvePlan(plan);
  const analysis = analyzeStreamingPlan(resolved, outputMode, schemaOf);
  const optimized = opts.optimize === false ? { plan: resolved, applied: [] } : optimizePlan(resolved);
  const operators: PhysicalOperator[] = [];
  const stateful = new StatefulPlanner(outputMode, relation, scans, opts.numPartitions);
  // This compilation's (this run's) values of the scalar subqueries, which its expressions read.
  const results = new ScalarSubqueryResults();
  withScalarSubqueryResults(results, () => planPhysical(optimized.plan, operators, stateful, opts.optimize !== false));
  // Spark runs a scalar subquery's plan before the plan that reads its value: here before the
  // batch's first operator, again at a batch with data whose tables may have changed.
  const subqueries = scalarSubqueries(optimized.plan);
  const uncorrelated = subqueries.filter((s) => !s.correlated);
  if (uncorrelated.length) {
    const planned = uncorrelated.map((subquery) => {
      const run = withScalarSubqueryResults(results, () => staticBatch(subquery.plan));
      return { subquery, column: logicalPlanOutput(subquery.plan)[0].name, run };
    });
    operators.unshift(new ScalarSubqueryExec(planned, results, relationOutput(firstStreamingRelation(optimized.plan) ?? relation)));
  }
  if (operators.some((op) => op.name === 'Filter+Project')) {
    optimized.applied.push({ rule: 'FuseStatelessOperators', detail: 'Filter and the Project above it run in one pass (no intermediate rows)' });
  }
  const scanned = firstStreamingRelation(optimized.plan);
  const reads = sourceReads(optimized.plan);
  // Column pruning and pushed filters reach a source of a one-source plan (several: each reads all its columns).
  const pushed = opts.optimize === false || !scanned || scans ? undefined : scanFilterOf(reads);
  return {
    plan: optimized.plan,
    optimizations: optimized.applied,
    sourceColumns: scans ? undefined : scanned?.requiredColumns,
    scanFilter: pushed && compileExpression(pushed, scanned!.schema).eval,
    // A watermark's condition is the read's WHERE, which may read a scalar subquery's value.
    eventTimeWatermarks: withScalarSubqueryResults(results, () => eventTimeWatermarksOf(reads)),
    readsBySource: reads.reduce((m, r) => m.set(r.relation.sourceName.toLowerCase(), (m.get(r.relation.sourceName.toLowerCase()) ?? 0) + 1), new Map<string, number>()),
    outputSchema,
    operators,
    stateful: isStateful(plan) || stateful.descriptors.length > 0,
    // The optimized plan's subqueries read what they read after pruning: schemaOf types them from the optimized plan.
    // A repeated output name's column is shown as Spark shows an attribute, `region#1`.
    explain: ((optimized.applied.length ? explainStreamingPlan(optimized.plan, outputMode, schemaOf) : analysis.explain) +
      subqueries.map((s) => `\nSubquery scalar-subquery#${s.id} [batch: ${s.correlated ? 'run for each tuple of its outer values, before the operator that reads it' : "run before the batch's operators, whenever its tables are read"}]\n${explainBatch(s.plan, '+- ')}`).join('')).replaceAll(DUPLICATE_COLUMN_MARK, '#'),
    warnings: analysis.warnings,
    statefulOperators: stateful.descriptors,
    readsFileMetadata: FILE_FUNCTIONS.some((f) => callsFunction(optimized.plan, f)),
  };
}

/** With several sources, each watermark tracks a column of its own source (a derived one is for one-source jobs). */
/**
 * Spark's CheckAnalysis of a Window: a PARTITION BY key must have an order (its ORDER BY keys are
 * SortOrders, checked as a sort's), so a map, or an array or struct holding one, is refused.
 */
function checkPartitionOrderable(e: Expr, schema: Schema): void {
  const t = expressionType(e, schema);
  if (isOrderable(t)) return;
  throw new SqlValidationError(`[EXPRESSION_TYPE_IS_NOT_ORDERABLE] Column expression "${exprToString(e)}" cannot be sorted because its type "${typeText(t)}" is not orderable. Partition by map_keys(…), map_values(…) or an element_at(…) instead`,
    e.pos, 'PARTITION BY', 'EXPRESSION_TYPE_IS_NOT_ORDERABLE');
}

function requireSourceEventTimes(relations: readonly StreamingRelation[]): void {
  if (relations.length < 2) return;
  relations.forEach((r, i) => {
    if (r.eventTime !== undefined && !r.schema.some((f) => f.name === r.eventTime)) {
      throw new ValidationError(`sources.${i}.eventTime "${r.eventTime}" must be a column of sources.${i}.schema: with several sources, each watermark tracks a column of its own source`, { path: `sources.${i}.eventTime` });
    }
  });
}

/**
 * Whether the node's own expressions read the row's file (input_file_name(), `_metadata`).
 */
const readsFile = (plan: LogicalPlan) => FILE_FUNCTIONS.some((f) => nodeCallsFunction(plan, f));

/**
 * Appends the operators for `plan` (children first) and returns its output schema (the same as
 * outputSchema's, which plan-output.differential.test.ts checks; exported for that test).
 *
 * `fileAbove`: an operator above this one, before any aggregation or join, reads the row's file
 * (input_file_name(), `_metadata`). Spark's is the file of the row its scan is reading, wherever
 * the call sits in the stage, so the projections and generators below it carry the row's hidden
 * file column (FILE_METADATA_COLUMN) into their rows. A stateful operator's or join's rows are
 * new rows, as past Spark's shuffle, where input_file_name() is ''.
 */
export function planPhysical(plan: LogicalPlan, ops: PhysicalOperator[], stateful: StatefulPlanner, fuse = false, fileAbove = false): Schema {
  // What this node's children plan with: whether they or it read the file.
  const carry = fileAbove || readsFile(plan);
  if (plan.kind !== 'Filter' && plan.kind !== 'Project' && plan.kind !== 'Generate') refuseCorrelatedSubqueries(plan);
  switch (plan.kind) {
    case 'StreamingRelation':
    {
      const schema = relationOutput(plan);
      if (stateful.scans) ops.push(new MicroBatchScanExec(plan.sourceName, schema));
      return schema;
    }
    case 'Filter': {
      // A Filter passes its rows on as they are: the file column with them.
      const schema = planPhysical(plan.child, ops, stateful, fuse, carry);
      ops.push(new FilterExec(withCorrelatedSubqueries([plan.condition], schema, ops, () => compileExpression(plan.condition, schema).eval), schema));
      return schema;
    }
    case 'Project': {
      const schema = planPhysical(plan.child, ops, stateful, fuse, carry);
      const compiled = withCorrelatedSubqueries(plan.list.map((n) => n.expr), schema, ops, () => plan.list.map((n) => compileExpression(n.expr, schema)));
      const out = projectOutput(plan.list, schema, compiled);
      const below = ops.at(-1);
      if (fuse && plan.child.kind === 'Filter' && below instanceof FilterExec) {
        // One pass for both: no array of filtered rows between them.
        ops.pop();
        ops.push(new ProjectExec(compiled.map((c) => c.eval), out, below.predicate, fileAbove));
      } else {
        ops.push(new ProjectExec(compiled.map((c) => c.eval), out, undefined, fileAbove));
      }
      const watermark = stateful.watermarkAfter(out);
      if (watermark) ops.push(watermark);
      return out;
    }
    case 'Generate': {
      const schema = planPhysical(plan.child, ops, stateful, fuse, carry);
      const g = plan.generator;
      // A LATERAL subquery's rows are a correlated scalar subquery's value (parser/lateral-subquery.ts).
      const generator = withCorrelatedSubqueries(g.args, schema, ops, () => generatorOf(g, schema));
      // ColumnPruning narrows what is copied into each row to the columns read above.
      const { carried, output: out } = generateOutput(plan, schema, generator.fields);
      const names = carried.map((f) => f.name);
      ops.push(new GenerateExec({ ...generator.spec, output: plan.output, carried: fileAbove ? [...names, FILE_METADATA_COLUMN] : names }, out, `Generate ${exprToString(g)}`));
      const watermark = stateful.watermarkAfter(out);
      if (watermark) ops.push(watermark);
      return out;
    }
    case 'Expand': {
      const schema = planPhysical(plan.child, ops, stateful, fuse, carry);
      const keys = plan.groupBy.map((e) => compileExpression(e, schema));
      const out = expandOutput(plan, schema, keys);
      // Per grouping set: its grouping expressions, NULL for those it leaves out, its bitmask (and position).
      const n = plan.groupBy.length;
      const duplicates = plan.output.length > n + 1;
      const projections = plan.groupingSets.map((set, p) => [
        ...keys.map((k, i) => (set.includes(i) ? k.eval : { value: null })),
        { value: groupingId(set, n) },
        ...(duplicates ? [{ value: p }] : []),
      ]);
      const carried = schema.map((f) => f.name);
      ops.push(new ExpandExec(projections, fileAbove ? [...carried, FILE_METADATA_COLUMN] : carried, plan.output, out));
      const watermark = stateful.watermarkAfter(out);
      if (watermark) ops.push(watermark);
      return out;
    }
    case 'Union': {
      // Each branch that defines a derived event-time column gets its own watermark operator.
      const placedBefore = stateful.watermarkPlaced;
      let placed = placedBefore;
      const branches = plan.branches.map((b) => {
        const operators: PhysicalOperator[] = [];
        stateful.watermarkPlaced = placedBefore;
        const schema = planPhysical(b, operators, stateful, false, fileAbove);
        placed ||= stateful.watermarkPlaced;
        return { operators, schema };
      });
      stateful.watermarkPlaced = placed;
      // A branch whose values are of another type than the column's widened one converts them first.
      const { output: out, widened } = unionOutput(branches.map((b) => b.schema), plan.pos);
      widened.forEach((w, i) => {
        if (!w) return;
        branches.forEach((b, k) => {
          if (sameType(b.schema[i], fieldOfType(out[i].name, w.type))) return;
          const reads = b.schema.map((g, j) => (j === i ? w.read[k] : (row: Row) => row[g.name] ?? null));
          const schema = b.schema.map((g, j) => (j === i ? fieldOfType(g.name, w.type) : g));
          b.operators.push(new ProjectExec(reads, schema, undefined, fileAbove));
          b.schema = schema;
        });
      });
      ops.push(new UnionExec(branches, out));
      return out;
    }
    case 'Window': {
      const schema = planPhysical(plan.child, ops, stateful, fuse, carry);
      const functions = plan.functions.map((f) => compileWindowFunction(f, schema));
      plan.partitionSpec.forEach((e) => checkPartitionOrderable(e, schema));
      const order = plan.orderSpec.map((o) => ({ ...compileExpression(o.expr, schema), ascending: o.ascending, nullsFirst: o.nullsFirst }));
      order.forEach((o, i) => checkForOrderingExpr(plan.orderSpec[i].expr, o, 'sortorder', `${exprToString(plan.orderSpec[i].expr)} ${o.ascending ? 'ASC' : 'DESC'} NULLS ${o.nullsFirst ? 'FIRST' : 'LAST'}`));
      const key = order.length ? order[0] : undefined;
      // A RANGE offset compares the one ORDER BY key by value: a DECIMAL's unscaled bigint, a BIGINT's bigint, as numbers.
      const rangeKey = key && (key.type === 'decimal' ? (v: unknown) => decimalToDouble(v as bigint, key.decimal!.scale) : (v: unknown) => Number(v));
      const out = [...schema, ...functions.map((f) => f.field)];
      const addMonths = key?.type === 'date' ? dateAddMonths : key?.type === 'timestamp' ? timestampAddMonths : undefined;
      ops.push(new WindowExec({ partition: plan.partitionSpec.map((e) => compileExpression(e, schema).eval), order: order.map((o) => ({ eval: o.eval, ascending: o.ascending, nullsFirst: o.nullsFirst })), ...(rangeKey ? { rangeKey } : {}), ...(addMonths ? { addMonths } : {}), ...(key?.float32 ? { float32: true as const } : {}), functions }, out));
      return out;
    }
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'Aggregate': case 'Deduplicate': case 'Join': case 'Limit': case 'Offset': case 'Sort': case 'StaticRelation':
    default: {
      // A join of two streams: each side's operators (its scan first) run inside the join.
      if (plan.kind === 'Join' && isStreamStreamJoin(plan)) {
        const side = (p: LogicalPlan) => {
          const operators: PhysicalOperator[] = [];
          return { operators, schema: planPhysical(p, operators, stateful, fuse, readsFile(plan)) };
        };
        const planned = stateful.streamJoin(plan, { left: side(plan.left), right: side(plan.right) });
        ops.push(planned.op);
        return planned.schema;
      }
      // Aggregate, Deduplicate, Sort, Limit, Offset: stateful-planner.ts.
      // A join reads the stream side; the static side is loaded by the join operator itself.
      const input = plan.kind === 'Join' ? streamSideOf(plan) : children(plan)[0];
      const schema = planPhysical(input, ops, stateful, fuse, readsFile(plan));
      const view = plan.kind === 'Join' ? staticSideOf(plan).view : undefined;
      const planned = stateful.plan(plan, schema, view && staticBatch(view.plan));
      // Above a join of streams, the input's watermark lags the global one.
      const delta = inputWatermarkDelta(plan);
      ops.push(delta < 0 && isStatefulOperator(planned.op) ? new InputWatermarkExec(planned.op, delta) : planned.op);
      return planned.schema;
    }
  }
}

/**
 * A static side's subquery as its join runs it (Spark's batch plan there): each read of a static
 * table a scan of the table's rows (the lookup side of a join of static tables is loaded by that
 * join itself), the plan's operators the streaming ones in Complete mode, run once over the rows
 * the join loads when it loads its table (executeBatch). Planned here, so that validation
 * reports what would fail, and again for each run, whose operators keep no state between runs.
 */
function staticBatch(plan: LogicalPlan): StaticBatch {
  const scans: { name: string; table: StaticTableSpec; cte?: { view: StaticView; run: StaticBatch } }[] = [];
  // A nondeterministic CTE's relation (query-planner.ts's cteRelation): one scan of its rows for
  // every read of it, computed once per run (cteRowsOf).
  const shared = new Map<StaticView, string>();
  const scanned = (p: LogicalPlan): LogicalPlan => {
    switch (p.kind) {
      case 'StaticRelation': {
        if (p.view) {
          let name = shared.get(p.view);
          if (name === undefined) {
            name = `${p.view.name}#${scans.length}`;
            shared.set(p.view, name);
            scans.push({ name, table: p.table, cte: { view: p.view, run: staticBatch(p.view.plan) } });
          }
          return { kind: 'StreamingRelation', sourceName: name, schema: p.view.schema };
        }
        const name = `${p.table.name}#${scans.length}`;
        scans.push({ name, table: p.table });
        return { kind: 'StreamingRelation', sourceName: name, schema: p.table.schema };
      }
      case 'StreamingRelation':
        return p;
      case 'Join':
        return { ...p, left: scanned(p.left) };
      case 'Union':
        return { ...p, branches: p.branches.map(scanned) };
      // Every member listed, so that a new one is a lint error until it is handled here.
      case 'Aggregate': case 'Deduplicate': case 'Expand': case 'Filter': case 'Generate': case 'Limit': case 'Offset': case 'Project': case 'Sort': case 'Window':
      default:
        return { ...p, child: scanned(p.child) };
    }
  };
  const batch = scanned(plan);
  // Planned again at run time: its expressions read the values of the query's scalar subqueries,
  // and in a correlated subquery's plan its outer references the outer values of the run.
  const results = boundScalarSubqueryResults();
  const outer = boundOuterValues();
  const operators = () => {
    const ops: PhysicalOperator[] = [];
    const plan = () => withOuterValues(outer, () => planPhysical(batch, ops, new StatefulPlanner('complete', firstStreamingRelation(batch)!, true), true));
    if (results) withScalarSubqueryResults(results, plan);
    else plan();
    return ops;
  };
  operators();
  return async (load, ctx) => {
    const { cteRows, runLoad } = cteRowsOf(load);
    const rowsOf = (s: (typeof scans)[number]) => {
      if (!s.cte) return load(s.table);
      let rows = cteRows.get(s.cte.view);
      if (!rows) cteRows.set(s.cte.view, (rows = s.cte.run(runLoad, ctx)));
      return rows;
    };
    const inputs = new Map(await Promise.all(scans.map(async (s) => [s.name, await rowsOf(s)] as const)));
    return executeBatch(operators(), inputs, ctx, runLoad);
  };
}

type StaticBatch = NonNullable<StreamStaticJoinOptions['view']>;
type StaticLoad = Parameters<StaticBatch>[0];

/** The rows of the nondeterministic CTEs a run of a batch plan computed, by the loader it passes down. */
const CTE_ROWS = new WeakMap<StaticLoad, Map<StaticView, Promise<Row[]>>>();

/**
 * A run's CTE rows and the loader that carries them down: a join of static tables inside the plan
 * runs its side's own batch plan with that loader (ctx.loadStaticTable), and so reads the rows the
 * run computed for a CTE both read (`FROM q a JOIN q b`). A new run, of a new batch, starts afresh.
 */
function cteRowsOf(load: StaticLoad): { cteRows: Map<StaticView, Promise<Row[]>>; runLoad: StaticLoad } {
  const cteRows = CTE_ROWS.get(load) ?? new Map<StaticView, Promise<Row[]>>();
  const runLoad: StaticLoad = (t) => load(t);
  CTE_ROWS.set(runLoad, cteRows);
  return { cteRows, runLoad };
}

/**
 * What a Generate's generator makes of each row: explode's elements or entries, stack's rows (as
 * structs of its columns, which the operator reads as inline's), or the windows
 * containing a row's time (time-windowing.ts), latest first as Spark's Expand lists them.
 */
function generatorOf(g: Extract<LogicalPlan, { kind: 'Generate' }>['generator'], schema: Schema): { fields: Schema; spec: Pick<GenerateSpec, 'collection' | 'mapKey' | 'structFields' | 'position' | 'outer'> } {
  const args = g.args.map((a) => compileExpression(a, schema));
  const arg = args[0];
  const { window, fields } = generatorFields(g, schema, args);
  if (window) {
    const ts = arg.eval;
    const collection = (row: Row, ctx: EvalContext) => {
      const t = ts(row, ctx);
      return t === null || t === undefined ? null : windowsFor(t as number, window).reverse();
    };
    return { fields, spec: { collection, position: false, outer: false } };
  }
  if (g.name === 'range') {
    // Spark's Range: its arguments evaluated (over the one VALUES row) and cast to BIGINT.
    const collection = (row: Row, ctx: EvalContext) => rangeIds(args.map((a) => castValue(a.eval(row, ctx), a.type, 'long', a.decimal)), g.args);
    return { fields, spec: { collection, position: false, outer: false } };
  }
  if (g.name === 'stack') {
    // Spark's Stack: the values row by row, n rows of the columns' width, NULL past the last.
    const rows = stackRows(g.args[0], arg) as number;
    const values = args.slice(1).map((a) => a.eval);
    const names = fields.map((f) => f.name);
    const collection = (row: Row, ctx: EvalContext) => {
      const out: Row[] = [];
      for (let r = 0; r < rows; r++) {
        const o: Row = {};
        names.forEach((name, c) => (o[name] = values[r * names.length + c]?.(row, ctx) ?? null));
        out.push(o);
      }
      return out;
    };
    return { fields, spec: { collection, structFields: names, position: false, outer: false } };
  }
  if (g.name.startsWith('variant_explode')) {
    const get = arg.eval;
    const collection = (row: Row, ctx: EvalContext) => variantEntries(get(row, ctx));
    return { fields, spec: { collection, structFields: fields.map((f) => f.name), position: false, outer: g.name.endsWith('_outer') } };
  }
  const keyType = arg.type === 'map' ? typeOfField(arg.keyType!) : undefined;
  const mapKey = keyType && ((k: string) => mapKeyValue(k, keyType));
  const structFields = g.name.startsWith('inline') ? fields.map((f) => f.name) : undefined;
  return { fields, spec: { collection: arg.eval, mapKey, ...(structFields ? { structFields } : {}), position: g.name.startsWith('pos'), outer: g.name.endsWith('_outer') } };
}

/** A watermark node per read of a source whose event time is one of its columns (CompiledStreamingQuery.eventTimeWatermarks). */
function eventTimeWatermarksOf(reads: readonly SourceRead[]): EventTimeWatermarkNode[] {
  return reads.flatMap((read) => {
    const { relation } = read;
    const eventTime = relation.eventTime?.toLowerCase();
    if (eventTime === undefined || !relation.schema.some((f) => f.name.toLowerCase() === eventTime)) return [];
    const condition = watermarkConditionOf(read);
    return [{ sourceName: relation.sourceName, ...(condition ? { filter: compileExpression(condition, relation.schema).eval } : {}) }];
  });
}

/**
 * `compile` (of a Filter's or Project's expressions, `exprs`, over `schema`) with the correlated
 * scalar subqueries they hold (correlated-scalar-subquery.ts) read from a
 * CorrelatedScalarSubqueryExec pushed onto `ops` first, which computes their values for the rows
 * the operator gets: each subquery's plan planned as a static side's (staticBatch), its outer
 * references reading the values of the run under way.
 */
function withCorrelatedSubqueries<T>(exprs: readonly Expr[], schema: Schema, ops: PhysicalOperator[], compile: () => T): T {
  const found = new Map<string, Extract<Expr, { kind: 'scalarSubquery' }> & { outer: Expr[] }>();
  const collect = (e: Expr): void => {
    if (isCorrelatedSubquery(e)) found.set(`${e.subquery.id} ${e.outer.map(exprToString).join(', ')}`, e);
    exprChildren(e).forEach(collect);
  };
  exprs.forEach(collect);
  if (found.size === 0) return compile();
  const planned = [...found.values()].map((e): PlannedCorrelatedSubquery => {
    const outerValues = new OuterValues();
    const run = withOuterValues(outerValues, () => staticBatch(e.subquery.plan));
    return { subquery: e.subquery, outer: e.outer.map((o) => compileExpression(o, schema).eval), outerValues, column: logicalPlanOutput(e.subquery.plan)[0].name, run };
  });
  const values = new CorrelatedValues();
  ops.push(new CorrelatedScalarSubqueryExec(planned, values, schema));
  return withCorrelatedValues(values, compile);
}

/** A correlated scalar subquery elsewhere than in a Filter or a Project (the analyzer puts them there): refused, naming where. */
function refuseCorrelatedSubqueries(plan: LogicalPlan): void {
  const holds = (e: Expr): boolean => isCorrelatedSubquery(e) || exprChildren(e).some(holds);
  const where: Partial<Record<LogicalPlan['kind'], string>> = { Aggregate: "an aggregate function's argument or GROUP BY", Sort: 'ORDER BY', Join: "a join's ON", Window: 'a window function', Generate: "a generator's argument", Expand: 'GROUPING SETS' };
  if (nodeExpressions(plan).some(holds)) throw notSupportedYet(`A correlated scalar subquery in ${where[plan.kind] ?? plan.kind}`, undefined, 'write it in the select list, WHERE or HAVING of a SELECT (a subquery in FROM can compute it as a column)');
}
