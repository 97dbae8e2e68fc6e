/**
 * A batch's figures on the plan graph's boxes, as Spark's SQL tab writes its metrics in each
 * operator's box: each stateful operator's state (rows total, updated and removed, memory, late
 * rows dropped; a join's rows by side), each source's input rows and the sink's output rows.
 *
 * Which progress entry is which operator: the progress has no operator id (Spark's
 * StateOperatorProgress has none either), but its `stateOperators` are in a fixed order. The
 * query runtime lists them as `allOperators(query.operators).filter(isStatefulOperator)`
 * (query-runtime.ts): each operator after its inputs, a join's left side before its right one,
 * a union's branches in order. The stateful planner numbers the operators' state (their
 * operatorId, stateful-planner.ts) in that same order, children first, as Spark's
 * IncrementalExecution does. So the n-th stateful operator of the explain tree walked children
 * first (post-order) is the n-th entry; plan-graph-figures.test.ts checks that against the
 * engine. A progress whose count of stateful operators differs (a batch of an earlier query)
 * annotates nothing rather than the wrong box.
 */
import type { StateOperatorProgress } from '@/lib/engine/operators/physical-operator';
import { formatBytes, formatNumber } from './format';
import { inputsFirst, type PlanNode } from './plan-graph-layout';

/** The parts of a batch's StreamingQueryProgress read here; stored JSON, so every field is optional. */
export interface BatchFigures {
  batchId?: number;
  stateOperators?: Partial<StateOperatorProgress>[];
  sources?: { numInputRows?: number }[];
  sink?: { numOutputRows?: number };
}

/** Each stateful node's progress entry, by node id (empty when the counts disagree). */
export function stateOperatorsByNode(nodes: readonly PlanNode[], stateOperators: readonly Partial<StateOperatorProgress>[] | undefined): Map<number, Partial<StateOperatorProgress>> {
  const stateful = inputsFirst(nodes).filter((n) => n.kind === 'stateful');
  if (!stateOperators || stateOperators.length !== stateful.length) return new Map();
  return new Map(stateful.map((n, i) => [n.id, stateOperators[i]]));
}

const rows = (n: number | undefined) => `${formatNumber(n, 0)} row${n === 1 ? '' : 's'}`;

function stateLines(o: Partial<StateOperatorProgress>): string[] {
  const m = o.customMetrics;
  return [
    `state: ${rows(o.numRowsTotal)}`,
    `updated ${formatNumber(o.numRowsUpdated, 0)} · removed ${formatNumber(o.numRowsRemoved, 0)}`,
    `memory ${formatBytes(o.memoryUsedBytes)} · dropped late ${formatNumber(o.numRowsDroppedByWatermark, 0)}`,
    // A join's state by side: which input's buffer grows.
    ...(m?.leftBufferedRows !== undefined && m.rightBufferedRows !== undefined ? [`left ${formatNumber(m.leftBufferedRows, 0)} · right ${formatNumber(m.rightBufferedRows, 0)} buffered`] : []),
  ];
}

/**
 * The lines of figures under each box, by node id, from one batch's progress. `sourceNames`: the
 * job's sources in spec order, the order of the progress's `sources`; a source node is found by
 * the name the plan reads it by (a source read twice, a self-join, shows its rows on both).
 */
export function planFigures(nodes: readonly PlanNode[], progress: BatchFigures | undefined, sourceNames: readonly string[]): Map<number, string[]> {
  const figures = new Map<number, string[]>();
  if (!progress) return figures;
  for (const [id, o] of stateOperatorsByNode(nodes, progress.stateOperators)) figures.set(id, stateLines(o));
  const index = new Map(sourceNames.map((name, i) => [name.toLowerCase(), i]));
  for (const n of nodes) {
    if (n.kind === 'source') {
      const source = progress.sources?.[index.get(n.args.split(' ')[0].toLowerCase()) ?? -1];
      if (source) figures.set(n.id, [`${rows(source.numInputRows)} in`]);
    }
    if (n.kind === 'sink' && progress.sink) figures.set(n.id, [`${rows(progress.sink.numOutputRows)} out`]);
  }
  return figures;
}
