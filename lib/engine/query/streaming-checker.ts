/**
 * The streaming checker (Spark's UnsupportedOperationChecker.checkForStreaming, plus Weir's
 * state-bound warnings and a stateful explain). Runs at validation and again at start, before
 * batch 0, so an illegal shape fails before anything is read or written.
 *
 * - Classifies every operator: stateless (Filter, Project, Sort/Limit over a complete result,
 *   a stream-static join) or stateful (Aggregate, Deduplicate, a streaming Limit in Append).
 * - Rejects what Spark rejects, with Spark's messages (reference §2).
 * - Warns, without rejecting, on a stateful operator that nothing bounds (no watermark on its
 *   keys): its state grows with its key space forever.
 */
import { refuseSessionWindowUpdate } from './session-window-planner';
import { readStreamJoin } from './stream-join-planner';
import { inputWatermarkDelta } from './watermark-propagation';
import { unsupportedOperation } from '../errors';
import type { OutputMode, Schema } from '../types';
import { describeWindow } from '../operators/window';
import { describeStaticTable, staticTableName, type StaticTableSpec } from '../operators/stream-static-join';
import { explainExprToString, exprToString, mapExprChildren, type Expr } from './expression';
import { aggregateKeyNames, isComputedKey } from './aggregate-planner';
import { children, isStreamStreamJoin, relationOutput, staticSchema, type LogicalPlan, type NamedExpr, type StreamingRelation } from './logical-plan';
import { analyzeAggregate, type WatermarkSpec } from './stateful-planner';
import { describeWindowNode } from './window-functions';

export interface AnalyzerWarning {
  path: string;
  message: string;
}

export interface StreamingAnalysis {
  warnings: AnalyzerWarning[];
  /** Spark-style tree text with each operator marked `[stateless]` or `[stateful: why]`. */
  explain: string;
}

type Node<K extends LogicalPlan['kind']> = Extract<LogicalPlan, { kind: K }>;

function relationOf(plan: LogicalPlan): StreamingRelation {
  return collect(plan).find((n): n is StreamingRelation => n.kind === 'StreamingRelation')!;
}

/** Schema a stateful node reads: the source, possibly filtered, possibly joined with a static table. */
function inputSchema(plan: LogicalPlan): Schema {
  const rel = relationOf(plan);
  const stat = collect(plan).find((n): n is Node<'StaticRelation'> => n.kind === 'StaticRelation');
  return stat ? [...relationOutput(rel), ...staticSchema(stat).filter((f) => stat.columns.includes(f.name))] : relationOutput(rel);
}

function collect(plan: LogicalPlan, out: LogicalPlan[] = []): LogicalPlan[] {
  out.push(plan);
  for (const c of children(plan)) collect(c, out);
  return out;
}

/** The watermark of the stream(s) below `plan`: the first source with an event time (each source of a union has its own; the global one is chosen by policy at run time). */
function watermarkOf(plan: LogicalPlan): WatermarkSpec | undefined {
  const r = collect(plan).find((n): n is StreamingRelation => n.kind === 'StreamingRelation' && n.eventTime !== undefined);
  if (!r) return undefined;
  return r.eventTime ? { eventTime: r.eventTime, delayMs: r.watermarkDelayMs ?? 0 } : undefined;
}

const outputModeLabel = (m: OutputMode) => m[0].toUpperCase() + m.slice(1);

const fail = (msg: string): never => {
  throw unsupportedOperation(msg);
};

/**
 * @param schemaOf the columns a node outputs (resolved-plan.ts's outputSchema); without it an
 * aggregate is taken to read the source's columns, which holds unless it sits over a subquery.
 */
export function analyzeStreamingPlan(plan: LogicalPlan, outputMode: OutputMode, schemaOf?: (p: LogicalPlan) => Schema): StreamingAnalysis {
  return withSchemaOf(schemaOf, () => analyze(plan, outputMode));
}

/** explainStateful for a whole plan, reading an aggregate's input columns as analyzeStreamingPlan does. */
export function explainStreamingPlan(plan: LogicalPlan, outputMode: OutputMode, schemaOf?: (p: LogicalPlan) => Schema): string {
  return withSchemaOf(schemaOf, () => explainStateful(plan, outputMode));
}

function withSchemaOf<T>(schemaOf: ((p: LogicalPlan) => Schema) | undefined, f: () => T): T {
  if (schemaOf) {
    childSchemaOf = (n) => schemaOf(n.child);
    planSchemaOf = schemaOf;
  }
  try {
    return f();
  } finally {
    childSchemaOf = undefined;
    planSchemaOf = undefined;
  }
}

/** Set for the duration of one analysis (the analysis is synchronous). */
let childSchemaOf: ((n: Node<'Aggregate'>) => Schema) | undefined;
let planSchemaOf: ((p: LogicalPlan) => Schema) | undefined;

/** A Generate's carried columns as its input spells them (ColumnPruning keeps them lower-cased). */
function carriedNames(plan: Node<'Generate'>): string[] {
  const input = planSchemaOf?.(plan.child) ?? [];
  return (plan.carried ?? []).map((c) => input.find((f) => f.name.toLowerCase() === c)?.name ?? c);
}
const aggInputSchema = (n: Node<'Aggregate'>): Schema => childSchemaOf?.(n) ?? inputSchema(n);

function analyze(plan: LogicalPlan, outputMode: OutputMode): StreamingAnalysis {
  const nodes = collect(plan);
  const aggregates = nodes.filter((n): n is Node<'Aggregate'> => n.kind === 'Aggregate');
  const mode = outputModeLabel(outputMode);
  const warnings: AnalyzerWarning[] = [];

  // Spark 3.5+ runs several aggregations, each its own stateful operator under its own input
  // watermark: aggregating branches of a UNION, an aggregation per stream feeding a join of them,
  // or an aggregation over an aggregation that groups by a window over window_time() of the one
  // below (its windows carry the watermark, so the Append check below finds it bounded). In
  // Update or Complete mode an aggregation may feed no stateful operator:
  // checkGlobalWatermarkLimit, last, as Spark runs it.
  const analyses = aggregates.map((a) => ({ agg: a, analysis: analyzeAggregate(a, aggInputSchema(a), watermarkOf(a)) }));

  // EXCEPT's and INTERSECT's aggregations are the optimizer's, after Spark's checker: none to it here.
  if (outputMode === 'complete' && aggregates.every((a) => a.setOperation !== undefined)) {
    fail('Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets');
  }
  if (outputMode === 'update' && analyses.some((a) => a.analysis.keys.some((k) => k.session))) refuseSessionWindowUpdate();
  if (outputMode === 'append' && analyses.some((a) => a.analysis.watermarkKeyIndex === undefined)) {
    fail('Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark');
  }

  for (const n of nodes) {
    switch (n.kind) {
      case 'Sort': {
        const overAggregate = collect(n.child).some((c) => c.kind === 'Aggregate');
        if (!(overAggregate && outputMode === 'complete')) {
          fail('Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode');
        }
        break;
      }
      case 'Limit':
        if (outputMode === 'update') fail('Limits are not supported on streaming DataFrames/Datasets in Update output mode');
        break;
      // In any output mode: skipping a stream's first rows has no meaning batch after batch. A
      // static side's plan (a StaticRelation's view) is no node here, and runs its Offset as a batch.
      case 'Offset':
        fail('Offset is not supported on streaming DataFrames/Datasets');
        break;
      case 'Deduplicate': {
        const wm = watermarkOf(n);
        if (n.withinWatermark && !wm) fail('dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark');
        break;
      }
      case 'Join': {
        const t = n.joinType;
        if (isStreamStreamJoin(n)) {
          // Spark's UnsupportedOperationChecker for stream-stream joins (checkForStreamStreamJoinWatermark):
          // Append only, and an outer or semi join needs a watermark in its keys or a time range
          // that bounds the side it waits on by the other side's watermark; a full outer join one
          // such side, either.
          if (outputMode !== 'append') fail(`Join between two streaming DataFrames/Datasets is not supported in ${mode} output mode, only in Append output mode`);
          const { rangeStateWatermarks: bounded } = readStreamJoin(n);
          const needs: Partial<Record<string, ('left' | 'right')[]>> = { LeftOuter: ['left'], RightOuter: ['right'], LeftSemi: ['left'] };
          const valid = t === 'FullOuter' ? bounded.left !== undefined || bounded.right !== undefined : (needs[t] ?? []).every((side) => bounded[side] !== undefined);
          if (!valid) {
            fail(`Stream-stream ${t} join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition`);
          }
          break;
        }
        // Spark's UnsupportedOperationChecker for stream-static joins.
        const streamLeft = collect(n.left).some((c) => c.kind === 'StreamingRelation');
        if (t === 'FullOuter') fail(`FullOuter joins with streaming DataFrames/Datasets on the ${streamLeft ? 'left' : 'right'} and a static DataFrame/Dataset on the ${streamLeft ? 'right' : 'left'} is not supported`);
        if (streamLeft && t === 'RightOuter') fail('RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/Dataset on the right is not supported');
        if (!streamLeft && t === 'LeftOuter') fail('LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported');
        break;
      }
      // Every member listed, so that a new one is a lint error until it is handled here.
      case 'Aggregate': case 'Expand': case 'Filter': case 'Generate': case 'Project': case 'StaticRelation': case 'StreamingRelation': case 'Union': case 'Window':
      default:
        break;
    }
  }
  checkGlobalWatermarkLimit(nodes, outputMode);

  // Unbounded state: warn, naming the operator.
  for (const { agg, analysis } of analyses) {
    if (analysis.watermarkKeyIndex !== undefined) continue;
    const keys = agg.groupBy.map(exprToString).join(', ') || '(no keys)';
    warnings.push({
      path: 'sql',
      message: `Unbounded state: the aggregation grouped by [${keys}] keeps one row per group forever, because no grouping key is the watermarked event-time column (or a window over it). ` +
        'Set source.eventTime and source.watermarkDelay and group by that column or window(<eventTime>, ...) to let old groups be evicted, or make sure the key space stays small.',
    });
  }
  if (aggregates.length > 0 && analyses.every((a) => a.analysis.watermarkKeyIndex !== undefined) && outputMode === 'complete') {
    warnings.push({
      path: 'outputMode',
      message: 'Complete output mode keeps every group in state (the watermark never evicts in Complete mode) and re-emits all of them every batch; use Append or Update to let the watermark bound the state.',
    });
  }
  for (const n of nodes) {
    if (n.kind === 'Deduplicate' && !n.withinWatermark) {
      const wm = watermarkOf(n);
      const bounded = wm && n.keys.some((k) => k.toLowerCase() === wm.eventTime.toLowerCase());
      if (!bounded) {
        warnings.push({
          path: 'dedup',
          message: `Unbounded state: deduplication on [${n.keys.join(', ')}] remembers every key it has ever seen. ` +
            'Include the watermarked event-time column in the keys, or use withinWatermark, so old keys are evicted.',
        });
      }
    }
  }

  return { warnings, explain: explainStateful(plan, outputMode) };
}

/**
 * Spark's checkStreamingQueryGlobalWatermarkLimit (3.5+): no stateful operator may read what an
 * aggregation emits in Update or Complete mode (rows the watermark has passed, late to it). A
 * deduplication is stateful here only with the event time among its keys, or within the
 * watermark. Spark's other such operators (flatMapGroupsWithState with an event-time timeout)
 * Weir does not have.
 */
function checkGlobalWatermarkLimit(nodes: LogicalPlan[], outputMode: OutputMode): void {
  if (outputMode === 'append') return;
  // EXCEPT's and INTERSECT's aggregations are the optimizer's: Spark's check, on the analyzed plan, does not see them.
  const stateful = (n: LogicalPlan): boolean => {
    if (n.kind === 'Aggregate') return n.setOperation === undefined;
    if (n.kind === 'Join') return isStreamStreamJoin(n);
    if (n.kind !== 'Deduplicate') return false;
    const wm = watermarkOf(n);
    return n.withinWatermark || (wm !== undefined && n.keys.some((k) => k.toLowerCase() === wm.eventTime.toLowerCase()));
  };
  for (const n of nodes) {
    if (stateful(n) && children(n).some((c) => collect(c).some((d) => d.kind === 'Aggregate' && d.setOperation === undefined))) {
      fail(`Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, which are "late rows" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details. (${outputModeLabel(outputMode)} output mode)`);
    }
  }
}

function statefulNote(n: LogicalPlan, outputMode: OutputMode): string {
  switch (n.kind) {
    case 'Aggregate': {
      const a = analyzeAggregate(n, aggInputSchema(n), watermarkOf(n));
      // Over an Expand, a grouping column is shown as the grouping expression it holds.
      const expanded = n.child.kind === 'Expand' ? n.child : undefined;
      const shown = (name: string, text: string) => {
        const i = expanded ? expanded.output.indexOf(name) : -1;
        return expanded && i >= 0 && i < expanded.groupBy.length ? exprToString(expanded.groupBy[i]) : text;
      };
      const keys = a.keys.map((k) => (k.window ? `window ${describeWindow(k.window)}` : shown(k.name, exprToString(k.expr)))).join(', ') || 'one global group';
      const bound = a.watermarkKeyIndex === undefined
        ? 'UNBOUNDED: no watermark on its keys'
        : outputMode === 'complete'
          ? 'never evicted in Complete mode'
          : `evicted when the watermark passes ${a.keys[a.watermarkKeyIndex].window ? 'the window end' : a.keys[a.watermarkKeyIndex].session ? 'the session end' : shown(a.keys[a.watermarkKeyIndex].name, a.keys[a.watermarkKeyIndex].name)}`;
      const lag = inputWatermarkDelta(n);
      return `[stateful: one row per group of (${keys}); ${bound}${lag < 0 ? `; reads the watermark ${-lag} ms behind the global one, as the join below may still emit rows that old` : ''}]`;
    }
    case 'Deduplicate': {
      const wm = watermarkOf(n);
      const bounded = n.withinWatermark || (wm && n.keys.some((k) => k.toLowerCase() === wm.eventTime.toLowerCase()));
      return `[stateful: remembers every key (${n.keys.join(', ')}) seen; ${bounded ? 'evicted by the watermark' : 'UNBOUNDED: no watermark on its keys'}]`;
    }
    case 'Limit':
      return outputMode === 'append' ? '[stateful: counts the rows emitted so far]' : '[stateless: applied to each complete result]';
    case 'Join': {
      if (n.left.kind === 'StaticRelation' || n.right.kind === 'StaticRelation') return '[stateless: each streaming row looks up the static table]';
      const { stateWatermarks: w } = readStreamJoin(n);
      const bound = (side: 'left' | 'right') => (w[side] === undefined ? `${side} side UNBOUNDED (no watermark and time range bound it)` : `${side} side evicted ${w[side]! <= 0 ? `${-w[side]!} ms` : `-${w[side]} ms`} behind the watermark`);
      const lag = inputWatermarkDelta(n);
      return `[stateful: buffers both streams by join key; ${bound('left')}; ${bound('right')}${lag < 0 ? `; reads the watermark ${-lag} ms behind the global one, as the join below may still emit rows that old` : ''}]`;
    }
    case 'StreamingRelation':
      return '[source]';
    case 'StaticRelation':
      if (!n.view) return staticTableNote(n);
      return staticTablesOf(n.view.plan).every((t) => t.cache)
        ? '[static: the batch plan below, run once per run: its tables are cached]'
        : '[static: the batch plan below, run again at each batch with data]';
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'Expand': case 'Filter': case 'Generate': case 'Offset': case 'Project': case 'Sort': case 'Union': case 'Window':
    default:
      return '[stateless]';
  }
}

/** The logical plan as a tree, each line marked stateless or stateful (and why). */
export function explainStateful(plan: LogicalPlan, outputMode: OutputMode, indent = ''): string {
  const base = describe(plan);
  const kids = children(plan);
  const below = indent.replace(/\+- $/, '   ') + '+- ';
  return [
    `${indent}${base} ${statefulNote(plan, outputMode)}`,
    ...kids.map((k) => explainStateful(k, outputMode, below)),
    ...(plan.kind === 'StaticRelation' && plan.view ? [explainBatch(plan.view.plan, below)] : []),
  ].join('\n');
}

/**
 * How a static table is read (StaticTableReads): again at each batch with data, as Spark re-runs a
 * static DataFrame's plan, or once per run where the table is `cache: true` (Spark's `.cache()`).
 */
function staticTableNote(n: Node<'StaticRelation'>): string {
  return n.table.cache ? '[static table, cached: read once per run]' : '[static table, read at each batch with data]';
}

/** The tables a static side's batch plan reads. */
function staticTablesOf(plan: LogicalPlan): StaticTableSpec[] {
  const own = plan.kind === 'StaticRelation' ? (plan.view ? staticTablesOf(plan.view.plan) : [plan.table]) : [];
  return [...own, ...children(plan).flatMap(staticTablesOf)];
}

/** A static side's batch plan (Spark's batch query there): its nodes keep no state; each table read as staticTableNote says. */
export function explainBatch(plan: LogicalPlan, indent: string): string {
  const below = indent.replace(/\+- $/, '   ') + '+- ';
  const note = plan.kind === 'StaticRelation' ? (plan.view ? '[batch: the plan below]' : staticTableNote(plan)) : '[batch]';
  return [
    `${indent}${describe(plan)} ${note}`,
    ...children(plan).map((k) => explainBatch(k, below)),
    ...(plan.kind === 'StaticRelation' && plan.view ? [explainBatch(plan.view.plan, below)] : []),
  ].join('\n');
}

/**
 * A select item as Spark's explain shows it: a column passed through by its name, anything else
 * as its expression (with the implicit casts the analysis wrote) `AS` its name, `(cast(i as
 * bigint) + id) AS total`. Above an Aggregate, the planner's own columns (`__key0`, `__agg0`)
 * mean nothing to a reader: each is shown as the grouping expression or aggregate it holds,
 * `upper(user) AS u`, `(count(*) + 1) AS n1`.
 */
function describeNamed(n: NamedExpr, outputs: ReadonlyMap<string, Expr>): string {
  const text = explainExprToString(inlineOutputs(n.expr, outputs)).replaceAll(COUNT_STAR_TEXT, 'count(*)');
  return n.expr.kind === 'column' && text === n.name ? text : `${text} AS ${n.name}`;
}

const inlineOutputs = (e: Expr, outputs: ReadonlyMap<string, Expr>): Expr =>
  e.kind === 'column' ? (outputs.get(e.name) ?? e) : mapExprChildren(e, (c) => inlineOutputs(c, outputs));

/** The columns an Aggregate below a Project makes of expressions: its computed keys and its aggregates, by name. */
function aggregateOutputs(child: LogicalPlan): ReadonlyMap<string, Expr> {
  if (child.kind !== 'Aggregate') return new Map();
  const keys = aggregateKeyNames(child.groupBy, []).map((name, i) => [name, child.groupBy[i]] as const);
  // Over an Expand (grouping sets), its grouping columns are the grouping expressions.
  const expand = child.child.kind === 'Expand' ? child.child : undefined;
  const expanded = expand ? expand.groupBy.map((e, i) => [expand.output[i], e] as const) : [];
  return new Map([...keys.filter(([name]) => isComputedKey(name)), ...expanded, ...child.aggregates.map((a) => [a.name, a.expr] as const)]);
}

/** count(*) is count('*') to the planner; shown as written. */
const COUNT_STAR_TEXT = "count('*')";

const aggregateText = (e: Expr): string => explainExprToString(e).replace(COUNT_STAR_TEXT, 'count(*)');

function describe(plan: LogicalPlan): string {
  switch (plan.kind) {
    case 'StreamingRelation':
      return `StreamingRelation ${plan.sourceName}` + (plan.requiredColumns ? ` [${plan.requiredColumns.join(', ')}]` : '') + (plan.eventTime ? ` watermark(${plan.eventTime}${plan.schema.some((f) => f.name === plan.eventTime) ? '' : ' as the SQL derives it'}, ${plan.watermarkDelayMs ?? 0} ms)` : '');
    case 'Filter':
      return `Filter ${explainExprToString(plan.condition)}`;
    case 'Project': {
      const outputs = aggregateOutputs(plan.child);
      return `Project [${plan.list.map((n) => describeNamed(n, outputs)).join(', ')}]`;
    }
    case 'Generate':
      return `Generate ${explainExprToString(plan.generator)}, [${plan.output.join(', ')}]${plan.carried ? ` carries [${carriedNames(plan).join(', ')}]` : ''}`;
    case 'Expand': {
      const names = plan.groupBy.map((e, i) => (e.kind === 'column' && e.name === plan.output[i] ? e.name : `${explainExprToString(e)} AS ${plan.output[i]}`));
      const sets = plan.groupingSets.map((set) => `(${set.map((i) => explainExprToString(plan.groupBy[i])).join(', ')})`);
      return `Expand [${[...names, ...plan.output.slice(plan.groupBy.length)].join(', ')}], grouping sets [${sets.join(', ')}]`;
    }
    case 'Aggregate':
      return `Aggregate [${plan.groupBy.map(explainExprToString).join(', ')}], [${plan.aggregates.map((a) => aggregateText(a.expr)).join(', ')}]`;
    case 'Deduplicate':
      return `Deduplicate${plan.withinWatermark ? 'WithinWatermark' : ''} [${plan.keys.join(', ')}]`;
    case 'Sort':
      return `Sort [${plan.order.map((o) => `${explainExprToString(o.expr)} ${o.ascending ? 'ASC' : 'DESC'}${o.nullsFirst === undefined ? '' : o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST'}`).join(', ')}]`;
    case 'Limit':
      return `Limit ${plan.limit}`;
    case 'Offset':
      return `Offset ${plan.offset}`;
    case 'Join':
      // Spark's explain of a null-aware anti join: `((x = c) OR isnull((x = c)))`.
      return `Join ${plan.joinType}${plan.condition ? ` ${plan.nullAware ? `(${explainExprToString(plan.condition)} OR isnull(${explainExprToString(plan.condition)}))` : explainExprToString(plan.condition)}` : ''}${plan.streamColumns ? ` emits stream [${plan.streamColumns.join(', ')}]` : ''}`;
    case 'StaticRelation':
      return `StaticRelation ${plan.view ? plan.view.name : staticTableName(plan.table)} [${plan.columns.join(', ')}]${plan.view ? '' : ` (${describeStaticTable(plan.table)})`}`;
    case 'Union':
      return `Union (${plan.branches.length} branches)`;
    case 'Window':
      return describeWindowNode(plan);
  }
}
