/**
 * Physical operators: what a batch's rows flow through between the source and the sink.
 *
 * A stateless operator maps rows to rows. A StatefulOperator (aggregate, deduplicate, limit) also gets
 * its StateStore(s) for the batch: MicroBatchExecution loads version N of
 * `state/<operatorId>/<partition>` before running batch N, hands the stores in through
 * `ctx.stateStores`, and commits them (to version N+1) beside `sink.addBatch` and before
 * `commits/N`. Operators see `batchWatermarkMs` (from offsets/N) for late-row filtering and
 * eviction.
 *
 * What an operator learns while running batch N (how far it evicted, which decoded groups it
 * may keep) holds only if the batch's stores commit: it keeps it aside in `execute` and makes
 * it its own in `onCommitted`, or drops it in `onAborted`. Exactly one of the two follows
 * every `execute`; `progress()` only reports.
 */
import { RecordExpressionError } from '../errors';
import type { StateStore } from '../state/state-store';
import type { Row, Schema } from '../types';
import type { EvalContext } from '../query/expression-compiler';
import type { StaticTableSpec } from './stream-static-join';

export interface OperatorContext extends EvalContext {
  batchId: number;
  /** The watermark this batch evicts state by (offsets/N's batchWatermarkMs). */
  batchWatermarkMs: number;
  /**
   * The watermark input rows are judged late by: the previous batch's (Spark's
   * eventTimeWatermarkForLateEvents since 3.4). A stateful operator fed by another one receives,
   * in batch N, rows the one below released because batch N's watermark passed them; judged by
   * that same watermark they would all be late. Unset: batchWatermarkMs (a test's context).
   */
  lateEventsWatermarkMs?: number;
  /** Stores for this operator, keyed by `${operatorId}/${partitionId}` (stateful operators only). */
  stateStores?: Map<string, StateStore>;
  /**
   * Set in a reduce task (Spark's TaskContext.partitionId, execution/task-scheduler.ts): the rows
   * are those shuffled to this state partition, and the operator uses this partition's stores
   * only. Unset: the operator is handed the whole batch and routes each key to its partition.
   */
  partitionId?: number;
  /**
   * Takes a row whose expressions failed (a value over its size limit): Filter and Project leave
   * the row out and hand it here, so the execution applies `onBadRecord`. Unset, the error
   * propagates and fails the batch.
   */
  onRecordError?: (row: Row, error: RecordExpressionError) => void;
  /**
   * Event times seen this batch, set by EventTimeWatermarkExec when the watermarked column is one
   * the SQL derives (e.g. a from_json field) rather than a source column.
   */
  eventTimes?: { min: number; max: number; avg: number; count: number };
  /** A query over several sources: each source's rows for this batch, by source name (MicroBatchScanExec). */
  inputs?: ReadonlyMap<string, Row[]>;
  /**
   * Set in a static side's batch plan (executeBatch): how a join in it reads its table, the
   * reader of that one read of the side (StaticTableReads), which then knows every table the side
   * reads and keeps a cached one's rows. Unset: the join reads through its own.
   */
  loadStaticTable?: (t: StaticTableSpec) => Promise<Row[]>;
}

/** Hands a row's record-level error to `ctx.onRecordError`; false (rethrow) for any other error or when unset. */
export function divertBadRow(e: unknown, row: Row, ctx: OperatorContext): boolean {
  if (!(e instanceof RecordExpressionError) || !ctx.onRecordError) return false;
  ctx.onRecordError(row, e);
  return true;
}

export interface PhysicalOperator {
  /** e.g. `Filter`, `Project`, `stateStoreSave`: shown in explain and progress. */
  readonly name: string;
  readonly outputSchema: Schema;
  readonly stateful: boolean;
  execute(rows: Row[], ctx: OperatorContext): Row[] | Promise<Row[]>;
  /**
   * The operators this one runs inside it (a union's branches, a stream-stream join's sides), in
   * plan order: the runtime opens, commits and reports the state of a stateful one among them as
   * of any other.
   */
  readonly children?: readonly PhysicalOperator[];
}

/** Every operator of a plan, the ones run inside others included, in plan order. */
export function allOperators(ops: readonly PhysicalOperator[]): PhysicalOperator[] {
  return ops.flatMap((op) => (op.children ? [...allOperators(op.children), op] : [op]));
}

/** Progress figures a stateful operator reports (Spark's StateOperatorProgress). */
export interface StateOperatorProgress {
  operatorName: string;
  numRowsTotal: number;
  numRowsUpdated: number;
  /** Spark's allUpdatesTimeMs: the batch's time reading its input into state (StateOperatorTimes). */
  allUpdatesTimeMs: number;
  numRowsRemoved: number;
  /** Spark's allRemovalsTimeMs: the batch's time evicting state behind the watermark. */
  allRemovalsTimeMs: number;
  commitTimeMs: number;
  memoryUsedBytes: number;
  numRowsDroppedByWatermark: number;
  /**
   * The state partitions (Spark's numShufflePartitions, spark.sql.shuffle.partitions; Weir's
   * parallelism) and the stores over them (numStateStoreInstances: a join keeps four a
   * partition): the query runtime sets both, from the operator's numPartitions and storeNames.
   */
  numShufflePartitions?: number;
  numStateStoreInstances?: number;
  customMetrics?: Record<string, number>;
}

/**
 * Spark's allUpdatesTimeMs and allRemovalsTimeMs of a stateful operator's batch, in wall-clock
 * milliseconds as Spark measures them: `begin` starts a span, `endUpdates` (or `endRemovals`)
 * counts it; `reset` at the batch's start.
 */
export class StateOperatorTimes {
  private updates = 0;
  private removals = 0;
  private started = 0;

  reset(): void {
    this.updates = 0;
    this.removals = 0;
  }

  begin(): void {
    this.started = performance.now();
  }

  endUpdates(): void {
    this.updates += performance.now() - this.started;
  }

  endRemovals(): void {
    this.removals += performance.now() - this.started;
  }

  /** The progress's two fields, whole milliseconds as Spark reports them. */
  get progress(): Pick<StateOperatorProgress, 'allUpdatesTimeMs' | 'allRemovalsTimeMs'> {
    return { allUpdatesTimeMs: Math.round(this.updates), allRemovalsTimeMs: Math.round(this.removals) };
  }
}

export interface StatefulOperator extends PhysicalOperator {
  readonly stateful: true;
  readonly operatorId: number;
  /** Partitions whose stores this operator uses (default [0]). */
  readonly numPartitions?: number;
  /**
   * Spark's ClusteredDistribution over the operator's key: the state partition a row of input
   * `child` belongs to (partitionForKey of its key, 0..numPartitions-1), by which the rows are
   * shuffled to the reduce tasks. Unset: the operator keeps one partition and runs as one task.
   */
  partitionOf?(row: Row, ctx: OperatorContext, child: number): number;
  /**
   * An operator over several inputs (a stream-stream join's two sides): the map side, each input
   * from the batch's rows, before the shuffle. Unset: one input, the rows themselves.
   */
  mapInputs?(rows: Row[], ctx: OperatorContext): Promise<Row[][]>;
  /**
   * `execute` with the batch's input given in pieces (a source read piece by piece, the pipelined
   * stage of query-runtime.ts): `add` takes each piece in order, `finish` returns what `execute`
   * of the pieces joined would. Unset: the operator needs its whole input at once.
   */
  consumeInput?(ctx: OperatorContext): { add(rows: Row[]): void; finish(): Row[] };
  /** With mapInputs: the reduce side, over one partition's share of each input (ctx.partitionId). */
  reduceInputs?(inputs: Row[][], ctx: OperatorContext): Row[] | Promise<Row[]>;
  /**
   * Named stores per partition (Spark's store names, e.g. a join's `left-keyToNumValues`), under
   * `state/<operatorId>/<partitionId>/<name>/`, handed in as `${operatorId}/${partitionId}/${name}`.
   * Default: the one unnamed store, handed in as `${operatorId}/${partitionId}`.
   */
  readonly storeNames?: readonly string[];
  /**
   * Every store this operator used for the batch is durable at `version` (the batch's N+1):
   * what `execute` did to the state is now what a re-run would start from, so the operator
   * confirms its bookkeeping (eviction watermark, caches valid for that version). Called before
   * `commits/N` is written and before `progress()`.
   */
  onCommitted(version: number): void;
  /**
   * The batch failed before all its stores committed; they are aborted and a re-run of the
   * batch starts from version N again. The operator forgets what it kept aside in `execute`.
   */
  onAborted(): void;
  /** Figures for progress, after `onCommitted` (no side effects). */
  progress(): StateOperatorProgress;
  /**
   * Spark's shouldRunAnotherBatch: given the next batch's watermark, whether a batch without new
   * data would emit or evict something (closing windows in Append mode). Default: no.
   */
  shouldRunAnotherBatch?(newWatermarkMs: number): boolean;
}

export function isStatefulOperator(op: PhysicalOperator): op is StatefulOperator {
  return op.stateful;
}

/** The watermark an operator drops late input rows by (OperatorContext.lateEventsWatermarkMs). */
export function lateEventsWatermark(ctx: Pick<OperatorContext, 'batchWatermarkMs' | 'lateEventsWatermarkMs'>): number {
  return ctx.lateEventsWatermarkMs ?? ctx.batchWatermarkMs;
}

/**
 * A keyed operator's stores for this call: a reduce task's one partition (ctx.partitionId), or
 * every partition's when the operator is handed the whole batch.
 */
export function partitionStores(ctx: OperatorContext, operatorId: number, numPartitions: number): StateStore[] {
  const first = ctx.partitionId ?? 0;
  const last = ctx.partitionId ?? numPartitions - 1;
  const out: StateStore[] = [];
  for (let p = first; p <= last; p++) {
    const s = ctx.stateStores?.get(`${operatorId}/${p}`);
    if (!s) throw new Error(`Internal: no state store for operator ${operatorId} partition ${p} in batch ${ctx.batchId}`);
    out.push(s);
  }
  return out;
}
