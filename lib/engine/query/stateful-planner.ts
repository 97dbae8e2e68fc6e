/**
 * Physical planning of the stateful logical nodes (Aggregate, Deduplicate): compiles their
 * expressions against the child's schema and builds the exec with its state bound
 * (operator id, watermark key), plus the descriptor the restart-compatibility check stores.
 *
 * The watermark bound: an Aggregate is bounded when one of its grouping keys is the event-time
 * column (the one carrying the watermark metadata, whatever the SQL renamed it to) or a window
 * over it; only then can state be evicted and Append be legal.
 */
import { AnalysisException, ValidationError } from '../errors';
import { aggregateOutputSchema, StatefulAggregateExec, type AggregateSpec, type GroupingKey } from '../operators/aggregate';
import { StreamingDeduplicateExec } from '../operators/deduplicate';
import { EventTimeWatermarkExec } from '../operators/watermark';
import type { PhysicalOperator } from '../operators/physical-operator';
import type { SessionWindowAggregateExec } from '../operators/session-window';
import { SortExec } from '../operators/sort-exec';
import { limitExec, offsetExec } from '../operators/streaming-limit';
import { StreamStaticJoinExec, type StreamStaticJoinOptions } from '../operators/stream-static-join';
import { describeWindow, timeWindowSpec, type TimeWindowSpec } from '../operators/window';
import type { StatefulOperatorDescriptor } from '../state/state-schema-compatibility-checker';
import type { OutputMode, Schema } from '../types';
import { resolveAggregate, type AggregateArg } from './aggregate-functions';
import { aggregateKeyNames } from './aggregate-planner';
import { exprToString, type Expr, type SqlPosition } from './expression';
import { checkForOrderingExpr, compileExpression, expressionType, implicitCastExpr, resolveColumn, typeOfCompiled, type CompiledExpr, type Evaluator, type ImplicitCasts } from './expression-compiler';
import { lazyProperty } from './compiled-expr';
import { floatingNumbersNormalizer, holdsVariant, isOrderable, typeText, type TypeInfo } from './data-types';
import { staticSchema, type LogicalPlan, type StreamingRelation } from './logical-plan';
import { isSessionWindow, planSessionWindow } from './session-window-planner';
import { SqlValidationError } from './sql-error';
import { planStreamStreamJoin } from './stream-join-planner';
import { inputWatermarkDelta } from './watermark-propagation';

export interface WatermarkSpec {
  eventTime: string;
  delayMs: number;
}

type AggregateNode = Extract<LogicalPlan, { kind: 'Aggregate' }>;

export interface AggregateAnalysis {
  /** `session`: the key is session_window(ts, gap) (session-window-planner.ts). */
  keys: { expr: Expr; name: string; window?: TimeWindowSpec; session?: true }[];
  /** Index of the key bounded by the watermark, if any. */
  watermarkKeyIndex?: number;
  /** The watermark delay that key's event time carries (its source's, as Spark's column metadata). */
  watermarkDelayMs?: number;
  windowText?: string;
}

/**
 * The window of a `window(ts, size[, slide[, start]])` call (Spark's TimeWindow), checked as
 * Spark checks it: durations are constants, ts a timestamp. Undefined for any other expression.
 */
export function timeWindowOf(e: Expr, schema: Schema): TimeWindowSpec | undefined {
  if (e.kind !== 'call' || e.name !== 'window') return undefined;
  const [ts, size, slide, start] = e.args;
  const text = exprToString(e);
  if (!ts || !size) throw new SqlValidationError(`${text}: use window(<timestamp column>, '<duration>'[, '<slide duration>'[, '<start time>']])`, e.pos, 'window');
  // A duration is a string ('10 minutes') or, as Spark takes it too, a day-time interval literal.
  const lit = (x: Expr | undefined) => {
    if (x === undefined) return undefined;
    if (x.kind === 'literal' && x.type === 'string') return String(x.value);
    if (x.kind === 'literal' && x.type === 'day_time_interval') return `${Number(x.value) / 1000} milliseconds`;
    if (x.kind === 'unary' && x.op === '-' && x.arg.kind === 'literal' && x.arg.type === 'day_time_interval') return `-${Number(x.arg.value) / 1000} milliseconds`;
    return null;
  };
  const sizeText = lit(size), slideText = lit(slide), startText = lit(start);
  if (sizeText === null || slideText === null || startText === null) throw new SqlValidationError(`${text}: window durations must be string literals such as '10 minutes' or day-time interval literals such as INTERVAL 10 MINUTES`, e.pos, 'window');
  const tsType = expressionType(ts, schema).type;
  if (tsType !== 'timestamp') throw new SqlValidationError(`${text}: window() needs a timestamp, got ${tsType}${tsType === 'struct' ? ' (over a window column w, pass window_time(w))' : ''}`, e.pos, 'window');
  return timeWindowSpec(sizeText!, slideText, startText);
}

/**
 * The value of an aggregate's option argument when it is a constant: a literal, or an array of
 * literals (percentile_approx's percentages); undefined otherwise.
 */
function constantValue(e: Expr, c: CompiledExpr): { v: unknown } | undefined {
  if (e.kind === 'literal') return { v: e.value };
  if (e.kind === 'call' && e.name === 'array' && e.args.every((x) => x.kind === 'literal')) return { v: c.eval({}, { batchTimestampMs: 0 }) };
  return undefined;
}

/**
 * Whether `e` is the watermarked event-time column, by the watermark metadata the column carries
 * (as Spark's analyzer reads the attribute's), whatever it is named by now.
 */
function isEventTime(e: Expr, schema: Schema, wm?: WatermarkSpec): boolean {
  if (!wm) return false;
  if (e.kind === 'column') return resolveColumn(schema, e.name)?.watermarkDelayMs !== undefined;
  // window_time(w) of a watermarked window (the output of an aggregation below this one).
  return e.kind === 'call' && e.name === 'window_time' && expressionType(e, schema).watermarkDelayMs !== undefined;
}

/**
 * Spark's WatermarkSupport.findEventTimeColumn as Spark 3.5+ calls it (the default
 * spark.sql.streaming.statefulOperator.allowMultiple): a stateful operator whose input carries
 * two different event-time columns (a join's output keeps both sides') cannot tell which one the
 * watermark bounds, so the query is refused rather than evicting by the first. One column read
 * twice (GROUP BY ts, ts) is one column.
 */
function assertOneEventTimeColumn(keys: { expr: Expr; name: string }[], childSchema: Schema): void {
  const identity = (e: Expr) => (e.kind === 'column' ? (resolveColumn(childSchema, e.name)?.name ?? e.name) : exprToString(e));
  const distinct = [...new Map(keys.map((k) => [identity(k.expr), k])).values()];
  if (distinct.length <= 1) return;
  const cols = distinct.map((k) => `${k.name}-T${expressionType(k.expr, childSchema).watermarkDelayMs ?? 0}ms`).join(',');
  throw new AnalysisException(
    `More than one event time columns are available. Please ensure there is at most one event time column per stream. event time columns: (${cols})`,
    undefined,
    '_LEGACY_ERROR_TEMP_3077',
  );
}

export function analyzeAggregate(node: AggregateNode, childSchema: Schema, wm?: WatermarkSpec): AggregateAnalysis {
  const names = aggregateKeyNames(node.groupBy, childSchema);
  const keys = node.groupBy.map((expr, i) => ({ expr, name: names[i], window: timeWindowOf(expr, childSchema), ...(isSessionWindow(expr) ? { session: true as const } : {}) }));
  const windows = keys.filter((k) => k.window);
  if (windows.length + keys.filter((k) => k.session).length > 1) throw new AnalysisException('Multiple time window expressions would result in a cartesian product of rows, therefore they are currently not supported.');
  const isEventTimeKey = (k: (typeof keys)[number]) => (k.window || k.session ? k.expr.kind === 'call' && isEventTime(k.expr.args[0], childSchema, wm) : isEventTime(k.expr, childSchema, wm));
  assertOneEventTimeColumn(keys.filter(isEventTimeKey), childSchema);
  const watermarkKeyIndex = keys.findIndex(isEventTimeKey);
  const bound = keys[watermarkKeyIndex] as (typeof keys)[number] | undefined;
  const time = bound && ((bound.window || bound.session) && bound.expr.kind === 'call' ? bound.expr.args[0] : bound.expr);
  return {
    keys,
    watermarkKeyIndex: watermarkKeyIndex >= 0 ? watermarkKeyIndex : undefined,
    ...(time ? { watermarkDelayMs: expressionType(time, childSchema).watermarkDelayMs } : {}),
    windowText: windows[0] ? `${exprToString(windows[0].expr)} (${describeWindow(windows[0].window!)})` : undefined,
  };
}

/** The aggregate calls of an Aggregate node, compiled against its input (for the aggregation and the session window). */
/** `count(*)`: its star (the builder's '*' literal) is no expression. */
export const isCountStar = (e: Expr): boolean => e.kind === 'call' && e.args.length === 1 && e.args[0].kind === 'literal' && e.args[0].value === '*';

/** With `types` (and `casts`), the type of each subexpression of the arguments (and the implicit casts) are recorded there (compileExpression). */
function compileAggregates(node: AggregateNode, childSchema: Schema, types?: Map<Expr, TypeInfo>, casts?: ImplicitCasts): AggregateSpec[] {
  return node.aggregates.map((a) => compileAggregateCall(a.name, a.expr, childSchema, types, casts));
}

/** One aggregate call compiled against its input (an aggregation's, or a window function's over its frame). */
export function compileAggregateCall(name: string, expr: Expr, childSchema: Schema, types?: Map<Expr, TypeInfo>, casts?: ImplicitCasts): AggregateSpec {
  if (expr.kind !== 'call') throw new AnalysisException(`Internal: aggregate ${name} is not a call`);
  const star = isCountStar(expr);
  const argExprs = star ? [] : expr.args;
  const compiled = argExprs.map((x) => compileExpression(x, childSchema, types, casts));
  const args = compiled.map((c, i): AggregateArg => {
    const type = typeOfCompiled(c);
    const value = constantValue(argExprs[i], c);
    return value === undefined ? type : { ...type, literal: { value: value.v } };
  });
  const fn = resolveAggregate({ name: expr.name, args, star, distinct: false }, exprToString(expr));
  const inputs = fn.inputs ?? (compiled.length > 0 ? [0] : []);
  const prepare = fn.prepare;
  if (inputs.length === 0) return { name, fn };
  if (inputs.length === 1 && !prepare) {
    const x = argExprs[inputs[0]];
    return lazyProperty<AggregateSpec, 'arg'>({ name, fn, argColumn: x.kind === 'column' ? resolveColumn(childSchema, x.name)?.name : undefined }, 'arg', () => compiled[inputs[0]].eval);
  }
  // The argument's evaluator is built by physical planning, when it first reads it.
  return lazyProperty<AggregateSpec, 'arg'>({ name, fn }, 'arg', (): Evaluator => {
    const evals = inputs.map((i) => compiled[i].eval);
    const [e0, e1] = evals;
    return evals.length === 1 ? (r, c) => prepare!(e0(r, c))
      : evals.length === 2 ? (r, c) => prepare!(e0(r, c), e1(r, c))
        : (r, c) => prepare!(...evals.map((e) => e(r, c)));
  });
}

/**
 * An Aggregate's output (Spark's Aggregate.output): its keys and aggregates as the aggregation
 * planned here types them, the watermarked key keeping its watermark (Spark's grouping attribute
 * keeps the time column's metadata) so that an aggregation above can be bounded by it.
 */
export function aggregateOutput(node: AggregateNode, childSchema: Schema, watermark: WatermarkSpec | undefined, types?: Map<Expr, TypeInfo>, casts?: ImplicitCasts): Schema {
  const analysis = analyzeAggregate(node, childSchema, watermark);
  const schema = aggregateOutputSchema(compileGroupingKeys(analysis, childSchema, types, casts), compileAggregates(node, childSchema, types, casts));
  return node.groupBy.some(isSessionWindow) ? schema : withWatermarkedKey(schema, analysis);
}

/**
 * The watermarked key carries its event time's watermark on; a session window key does not (its
 * exec closes sessions by the event time itself), so it is not passed here.
 */
function withWatermarkedKey(schema: Schema, analysis: AggregateAnalysis): Schema {
  return schema.map((f, i) => (i === analysis.watermarkKeyIndex ? { ...f, watermarkDelayMs: analysis.watermarkDelayMs } : f));
}

/** The stream-static join each join type runs as; the analyzer has refused the others (a static table on the preserved side). */
const STATIC_JOIN_EXEC: Record<string, StreamStaticJoinOptions['joinType']> = { Inner: 'inner', LeftOuter: 'left', RightOuter: 'left', LeftSemi: 'semi', LeftAnti: 'anti' };

/**
 * A stream-static join's output: the stream's columns it carries (ColumnPruning may narrow them),
 * then the static table's, nullable (none for a semi or anti join).
 */
export function streamStaticJoinOutput(node: Extract<LogicalPlan, { kind: 'Join' }>, streamSchema: Schema): Schema {
  const stat = node.left.kind === 'StaticRelation' ? node.left : node.right;
  if (stat.kind !== 'StaticRelation') throw new AnalysisException('Stream-stream joins are not supported; join the stream with a static table from staticTables');
  const carried = node.streamColumns ? streamSchema.filter((f) => node.streamColumns!.includes(f.name)) : streamSchema;
  return [...carried, ...staticRelationOutput(stat).map((f) => ({ ...f, nullable: true }))];
}

/** The columns a StaticRelation reads of its table. */
export function staticRelationOutput(stat: Extract<LogicalPlan, { kind: 'StaticRelation' }>): Schema {
  return staticSchema(stat).filter((f) => stat.columns.includes(f.name));
}

/**
 * A Project's output with the derived event-time column marked with the watermark, or undefined
 * when the Project does not define that column; it must be a timestamp.
 */
export function withDerivedEventTime(projectOutput: Schema, derivedEventTime: string, delayMs: number): Schema | undefined {
  const f = resolveColumn(projectOutput, derivedEventTime);
  if (!f) return undefined;
  if (f.type !== 'timestamp') {
    throw new ValidationError(`source.eventTime "${derivedEventTime}" must be a timestamp, the SQL makes it ${f.type}; CAST it AS TIMESTAMP`, { path: 'source.eventTime' });
  }
  // From here on the column carries the watermark, as withWatermark marks it in Spark.
  return projectOutput.map((g) => (g === f ? { ...f, watermarkDelayMs: delayMs } : g));
}

interface PlannedAggregate {
  exec: StatefulAggregateExec;
  descriptor: StatefulOperatorDescriptor;
  analysis: AggregateAnalysis;
}

/**
 * Spark's SortOrder type check: a sort key of a type with no order (a map, or an array or struct
 * holding one) is refused, named as written (a hidden ORDER BY column by the expression it holds).
 */
function checkSortOrder(o: { expr: Expr; ascending: boolean; nullsFirst?: boolean }, child: LogicalPlan, schema: Schema): void {
  const t = expressionType(o.expr, schema);
  const hidden = o.expr.kind === 'column' && child.kind === 'Project' ? child.list.find((n) => n.name === (o.expr as { name: string }).name && n.name.startsWith('__sort')) : undefined;
  const nullsFirst = o.nullsFirst ?? o.ascending;
  const text = `${exprToString(hidden?.expr ?? o.expr)} ${o.ascending ? 'ASC' : 'DESC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`;
  checkForOrderingExpr(o.expr, t, 'sortorder', text);
}

/** The grouping keys of an analysed Aggregate, compiled against its input. */
function compileGroupingKeys(analysis: AggregateAnalysis, childSchema: Schema, types?: Map<Expr, TypeInfo>, casts?: ImplicitCasts): GroupingKey[] {
  return analysis.keys.map((k): GroupingKey => {
    // A window or session key is computed from its event time.
    const source = (k.window || k.session) && k.expr.kind === 'call' ? k.expr.args[0] : k.expr;
    const c = compileExpression(source, childSchema, types, casts);
    if (!isOrderable(c)) {
      // Spark 3.5 refuses it: a map and a CalendarInterval have no order (an array groups by its elements).
      const instead = holdsVariant(c) ? 'Group by a value read from it, variant_get(v, \'$.path\', \'type\'), or by to_json(v), instead'
        : c.type === 'calendar_interval' ? 'Group by CAST(… AS STRING), or an ANSI interval, instead' : 'Group by map_keys(…), map_values(…) or an element_at(…) instead';
      throw new SqlValidationError(
        `The expression ${exprToString(k.expr)} cannot be used as a grouping expression because its data type ${typeText(c)} is not an orderable data type. ${instead}`,
        k.expr.pos, 'GROUP BY', 'GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE',
      );
    }
    // Spark normalizes the grouping keys' floating numbers (StatefulAggregationStrategy); the
    // key is then computed, not a column read as it is.
    const normalize = k.window || k.session ? undefined : floatingNumbersNormalizer(c);
    const column = !k.window && !normalize && k.expr.kind === 'column' ? resolveColumn(childSchema, k.expr.name)?.name : undefined;
    // The key's evaluator is built by physical planning, when it first reads it.
    return lazyProperty<GroupingKey, 'eval'>({
      name: k.name, type: k.window || k.session ? 'window' : c.type === 'null' ? 'string' : c.type, window: k.window, column,
      ...(c.decimal && !k.window ? { decimal: c.decimal } : {}), ...(c.elementType ? { elementType: c.elementType } : {}), ...(c.fields && !k.window && !k.session ? { fields: c.fields } : {}),
      ...(c.integral ? { integral: c.integral } : {}), ...(c.float32 ? { float32: true as const } : {}), ...(c.ntz ? { ntz: true as const } : {}), ...(c.interval ? { interval: c.interval } : {}),
      ...(c.type === 'null' && !k.window && !k.session ? { void: true as const } : {}),
    } as GroupingKey, 'eval', () => {
      const evaluate = c.eval;
      return normalize ? (row, ctx) => normalize(evaluate(row, ctx)) : evaluate;
    });
  });
}

function planAggregate(
  node: AggregateNode,
  childSchema: Schema,
  opts: { operatorId: number; outputMode: OutputMode; watermark?: WatermarkSpec; numPartitions?: number },
): PlannedAggregate {
  const analysis = analyzeAggregate(node, childSchema, opts.watermark);
  const keys = compileGroupingKeys(analysis, childSchema);
  const aggregates = compileAggregates(node, childSchema);
  const exec = new StatefulAggregateExec({
    operatorId: opts.operatorId,
    keys,
    aggregates,
    outputMode: opts.outputMode,
    watermarkKeyIndex: analysis.watermarkKeyIndex,
    numPartitions: opts.numPartitions,
  });
  const keyText = (k: AggregateAnalysis['keys'][number]) => (k.window ? 'window' : exprToString(k.expr));
  const descriptor: StatefulOperatorDescriptor = {
    operatorId: opts.operatorId,
    operatorName: 'aggregate',
    parts: {
      'grouping keys': analysis.keys.map(keyText).join(', ') || '(none)',
      aggregates: node.aggregates.map((a) => exprToString(a.expr).replace("('*')", '(*)')).join(', ') || '(none)',
      window: analysis.windowText ?? '(none)',
    },
    keySchema: exec.outputSchema.slice(0, keys.length),
    valueSchema: exec.outputSchema.slice(keys.length),
  };
  return { exec, descriptor, analysis };
}

/** GROUP BY session_window(…): the keys and aggregates compiled here, the exec built by session-window-planner.ts. */
function planSessionAggregate(
  node: AggregateNode,
  childSchema: Schema,
  opts: { operatorId: number; outputMode: OutputMode; watermark?: WatermarkSpec; numPartitions?: number },
): { exec: SessionWindowAggregateExec; descriptor: StatefulOperatorDescriptor } {
  const analysis = analyzeAggregate(node, childSchema, opts.watermark);
  return planSessionWindow({ ...opts, node, analysis, childSchema, keys: compileGroupingKeys(analysis, childSchema), aggregates: compileAggregates(node, childSchema) });
}

/**
 * Plans the nodes beyond Filter/Project for one query: assigns operator ids in plan order
 * (children first, as Spark's IncrementalExecution does) and collects the descriptors that the
 * restart-compatibility check stores.
 */
export class StatefulPlanner {
  readonly descriptors: StatefulOperatorDescriptor[] = [];
  private nextOperatorId = 0;
  private readonly watermark?: WatermarkSpec;

  constructor(
    readonly outputMode: OutputMode,
    relation: StreamingRelation,
    /** Several sources: each StreamingRelation is planned as a MicroBatchScanExec of its source's rows. */
    readonly scans = false,
    /** State partitions of a keyed operator (a global aggregate or limit keeps one, as Spark's AllTuples). */
    readonly numPartitions = 1,
  ) {
    this.watermark = relation.eventTime ? { eventTime: relation.eventTime, delayMs: relation.watermarkDelayMs ?? 0 } : undefined;
    // Exact names, as job-spec.ts and the runtime match a source eventTime column.
    const et = relation.eventTime;
    if (et !== undefined && !relation.schema.some((f) => f.name === et)) this.derivedEventTime = et;
  }

  /**
   * The event-time column when it is not a source column but one the SQL's projection defines
   * (Spark's withWatermark on a projection): its watermark operator goes above that Project.
   */
  readonly derivedEventTime?: string;
  /** Whether the watermark operator for `derivedEventTime` has been planned. */
  watermarkPlaced = false;

  /**
   * After a Project: the watermark operator for a derived event-time column, if this Project is
   * the first (innermost) to define it; it must be a timestamp.
   */
  watermarkAfter(projectOutput: Schema): PhysicalOperator | undefined {
    if (this.derivedEventTime === undefined || this.watermarkPlaced) return undefined;
    const marked = withDerivedEventTime(projectOutput, this.derivedEventTime, this.watermark!.delayMs);
    if (!marked) return undefined;
    this.watermarkPlaced = true;
    projectOutput.splice(0, projectOutput.length, ...marked);
    return new EventTimeWatermarkExec(resolveColumn(marked, this.derivedEventTime)!.name, projectOutput);
  }

  /** A join of two streams over each side's planned operators (stream-join-planner.ts). */
  streamJoin(node: Extract<LogicalPlan, { kind: 'Join' }>, sides: Record<'left' | 'right', { operators: PhysicalOperator[]; schema: Schema }>): { op: PhysicalOperator; schema: Schema } {
    const planned = planStreamStreamJoin(node, sides, this.nextOperatorId++, inputWatermarkDelta(node));
    this.descriptors.push(planned.descriptor);
    return { op: planned.op.withNumPartitions(this.numPartitions), schema: planned.schema };
  }

  /** `view`: a stream-static join's static side run as its batch plan (streaming-query.ts's staticBatch). */
  plan(node: LogicalPlan, childSchema: Schema, view?: StreamStaticJoinOptions['view']): { op: PhysicalOperator; schema: Schema } {
    switch (node.kind) {
      case 'Aggregate': {
        const opts = { operatorId: this.nextOperatorId++, outputMode: this.outputMode, watermark: this.watermark, numPartitions: node.groupBy.length ? this.numPartitions : 1 };
        const planned = node.groupBy.some(isSessionWindow) ? planSessionAggregate(node, childSchema, opts) : planAggregate(node, childSchema, opts);
        this.descriptors.push(planned.descriptor);
        // The watermarked key keeps its watermark in the output (Spark's grouping attribute keeps
        // the time column's metadata), so an aggregation above can be bounded by it.
        const schema = 'analysis' in planned ? withWatermarkedKey(planned.exec.outputSchema, planned.analysis) : planned.exec.outputSchema;
        return { op: planned.exec, schema };
      }
      case 'Deduplicate': {
        // The analysis (resolved-plan.ts) has checked the keys are columns.
        const keys = node.keys.map((k) => resolveColumn(childSchema, k)!.name);
        const operatorId = this.nextOperatorId++;
        const exec = new StreamingDeduplicateExec(
          { operatorId, keys, withinWatermark: node.withinWatermark, eventTime: this.watermark?.eventTime, delayMs: this.watermark?.delayMs, numPartitions: this.numPartitions },
          childSchema,
        );
        this.descriptors.push({
          operatorId,
          operatorName: exec.name,
          parts: { 'dedup keys': keys.join(', ') },
          keySchema: keys.map((k) => childSchema.find((f) => f.name === k)!),
          valueSchema: [{ name: 'expiresAt', type: 'long' }],
        });
        return { op: exec, schema: childSchema };
      }
      case 'Sort':
        node.order.forEach((o) => checkSortOrder(o, node.child, childSchema));
        return {
          op: new SortExec(node.order.map((o) => ({ column: o.expr.kind === 'column' ? resolveColumn(childSchema, o.expr.name)?.name ?? o.expr.name : exprToString(o.expr), ascending: o.ascending, nullsFirst: o.nullsFirst ?? o.ascending })), childSchema),
          schema: childSchema,
        };
      case 'Limit': {
        if (this.outputMode !== 'append') return { op: limitExec(this.outputMode, -1, node.limit, childSchema), schema: childSchema };
        const operatorId = this.nextOperatorId++;
        this.descriptors.push({ operatorId, operatorName: 'globalLimit', parts: { limit: String(node.limit) }, keySchema: [], valueSchema: [{ name: 'count', type: 'long' }] });
        return { op: limitExec('append', operatorId, node.limit, childSchema), schema: childSchema };
      }
      // A batch plan's only (the streaming checker refuses it over a stream): the rows are the whole input.
      case 'Offset':
        return { op: offsetExec(node.offset, childSchema), schema: childSchema };
      case 'Join': {
        // Stream-static only; the analyzer has already refused the join types Spark refuses.
        const stat = (node.left.kind === 'StaticRelation' ? node.left : node.right) as Extract<LogicalPlan, { kind: 'StaticRelation' }>;
        const schema = streamStaticJoinOutput(node, childSchema);
        const joinType = STATIC_JOIN_EXEC[node.joinType];
        const condition = node.otherCondition && compileExpression(node.otherCondition, [...childSchema, ...staticSchema(stat)]).eval;
        return { op: new StreamStaticJoinExec({ joinType, table: stat.table, ...(view ? { view } : {}), ...(condition ? { condition } : {}), ...(node.nullAware ? { nullAware: true } : {}), keys: stat.keys, ...staticJoinKeyValues(stat, childSchema), staticColumns: stat.columns, streamColumns: node.streamColumns }, schema), schema };
      }
      // Every member listed, so that a new one is a lint error until it is handled here.
      case 'Expand': case 'Filter': case 'Generate': case 'Project': case 'StaticRelation': case 'StreamingRelation': case 'Union': case 'Window':
      default:
        throw new SqlValidationError(`${node.kind} is not supported yet in streaming queries`, 'pos' in node ? (node.pos as SqlPosition | undefined) : undefined, node.kind);
    }
  }
}

/**
 * Puts a Deduplicate (the job's `dedup` option) right above the source `sourceName` (the job's
 * first; unset: the first stream the plan reads), under the SQL: at its first read, left before
 * right, wherever it sits (a UNION's second branch, a join's side).
 */
export function withDeduplication(plan: LogicalPlan, dedup: { keys: string[]; withinWatermark?: boolean } | undefined, sourceName?: string): LogicalPlan {
  if (!dedup) return plan;
  let done = false;
  const wrap = (p: LogicalPlan): LogicalPlan => {
    if (done) return p;
    switch (p.kind) {
      case 'StreamingRelation':
        if (sourceName !== undefined && p.sourceName !== sourceName) return p;
        done = true;
        return { kind: 'Deduplicate', keys: dedup.keys, withinWatermark: dedup.withinWatermark ?? false, child: p };
      case 'StaticRelation':
        return p;
      case 'Join': {
        const left = wrap(p.left);
        return { ...p, left, right: wrap(p.right) };
      }
      case 'Union':
        return { ...p, branches: p.branches.map(wrap) };
      // Every member listed, so that a new one is a lint error until it is handled here.
      case 'Aggregate': case 'Deduplicate': case 'Expand': case 'Filter': case 'Generate': case 'Limit': case 'Offset': case 'Project': case 'Sort': case 'Window':
      default:
        return { ...p, child: wrap(p.child) };
    }
  };
  return wrap(plan);
}

/**
 * A stream-static join's key values as its pairs' common types (StaticJoinKey.type), each side's
 * column cast to it by the compiled implicit cast the explain shows; none when no pair needs one.
 */
function staticJoinKeyValues(stat: Extract<LogicalPlan, { kind: 'StaticRelation' }>, streamSchema: Schema): Pick<StreamStaticJoinOptions, 'keyValues'> {
  if (stat.keys.every((k) => k.type === undefined && !k.streamExpr && !k.staticExpr)) return {};
  const read = (e: Expr | undefined, name: string, schema: Schema, type: TypeInfo | undefined) => {
    const value: Expr = e ?? { kind: 'column', name };
    return compileExpression(type ? implicitCastExpr(value, type) : value, schema).eval;
  };
  return {
    keyValues: {
      stream: stat.keys.map((k) => read(k.streamExpr, k.stream, streamSchema, k.type)),
      static: stat.keys.map((k) => read(k.staticExpr, k.static, staticSchema(stat), k.type)),
    },
  };
}
