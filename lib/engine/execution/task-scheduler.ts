/**
 * Spark's stages and tasks, for the stateful part of a batch. A stateful operator whose state is
 * in N partitions (the job's parallelism, spark.sql.shuffle.partitions) is a stage boundary, as
 * Spark's ShuffleExchangeExec before it: the rows coming to it are shuffled by the hash of its key
 * (StatefulOperator.partitionOf; a join shuffles each side by its own join key) into N
 * partitions, and its stage is a TaskSet of one
 * ReduceTask per partition, each running the operator over its partition's rows with that
 * partition's state stores only. The batch's output is the tasks' outputs in partition order:
 * as in Spark, nothing orders rows within a batch across partitions.
 *
 * A task's input and output are plain data (ids and rows), so that a scheduler may run them
 * anywhere; the LocalTaskScheduler runs them one after the other in this process. A scheduler
 * whose tasks run in other processes (`remote`) has each task open, run and commit its own
 * partition's state there (Spark's StateStoreRDD on an executor, executor.ts), and the driver
 * opens none of those stores.
 */
import type { StateOperatorProgress } from '../operators/physical-operator';
import type { EventTimeStats } from '../operators/watermark';
import type { BadRecord } from '../sources/source';
import type { Offset, Row } from '../types';

/** One partition of a stateful stage: the rows shuffled to state partition `partitionId`. */
export interface ReduceTask {
  batchId: number;
  /** The stage: the index of its stateful operator in the query's operators. */
  stageId: number;
  operatorId: number;
  partitionId: number;
  /** The batch's watermark and timestamp (offsets/N), which the operator reads as the driver's does. */
  batchWatermarkMs: number;
  /** The watermark late input rows are judged by (OperatorContext.lateEventsWatermarkMs). */
  lateEventsWatermarkMs?: number;
  batchTimestampMs: number;
  /** Whom the query runs as (OperatorContext.currentUser), which current_user() reads in the task as on the driver. */
  currentUser?: string;
  /** The partition's rows of each of the operator's inputs (one; a stream-stream join's two sides). */
  inputs: Row[][];
  /**
   * Set when the map tasks aggregated their splits (MapTask.partialAggregation): the one input
   * holds their partial buffers (PartialAggregateBuffer, one per group and map task, in map
   * order), which the aggregation merges into its state (Spark's Final mode), not rows.
   */
  partialAggregation?: true;
  /**
   * The stage is the batch's last (only stateless operators after it) and the sink has a commit
   * protocol: the task runs those operators too, writes the rows with the sink
   * (SinkCommitProtocol.commitTask) and returns the commit message, not the rows.
   */
  writesSink?: boolean;
}

export interface TaskResult {
  partitionId: number;
  rows: Row[];
  /** A remote task's figures of its partition's state, as committed (the driver sums them). */
  progress?: StateOperatorProgress;
  /**
   * A task that wrote the sink (ReduceTask.writesSink): its commit message, how many rows it
   * wrote, and the rows the stateless operators after the stage set aside; `rows` is empty.
   */
  sinkCommit?: { message: unknown; numOutputRows: number; expressionErrors: { row: Row; message: string }[] };
}

/**
 * One split of the batch's source range (Spark's ShuffleMapTask over one InputPartition: a Kafka
 * partition's offsets, a file, or the whole range of a source that cannot be split): read by the
 * task itself, run through the stateless operators before the first stateful stage, and shuffled
 * by that stage's key into its N partitions.
 */
export interface MapTask {
  batchId: number;
  /** The stage its output feeds (the index of the stateful operator in the query's operators). */
  stageId: number;
  operatorId: number;
  /** The split's index in the batch: reduce task p reads the map outputs' partition p in this order. */
  mapId: number;
  /** The split: what `Source.getBatch(start, end)` reads. */
  start: Offset | null;
  end: Offset;
  batchWatermarkMs: number;
  lateEventsWatermarkMs?: number;
  batchTimestampMs: number;
  /** Whom the query runs as (OperatorContext.currentUser), which current_user() reads in the task as on the driver. */
  currentUser?: string;
  /**
   * Spark's partial aggregation before the exchange: the stage is an aggregation whose buffers
   * merge exactly (StatefulAggregateExec.partialAggregation), so the task folds its split's rows
   * (late ones dropped by the watermark first) into one buffer per group and shuffles those.
   */
  partialAggregation?: true;
}

/**
 * What a map task tells the driver (Spark's MapStatus, with what the batch needs from the read:
 * its input figures, event times and bad records). Plain data.
 */
export interface MapStatus {
  mapId: number;
  /** Rows the split read (before a pushed filter). */
  numInputRows: number;
  /**
   * Per watermark node of the query (CompiledStreamingQuery.eventTimeWatermarks, in order), its
   * event-time figures over the rows read (null: no row had one), weighted by `count`.
   */
  watermarkEventTimes?: ((EventTimeStats & { count: number }) | null)[];
  /** Event times a derived event-time column collected (OperatorContext.eventTimes). */
  derivedEventTimes?: { min: number; max: number; avg: number; count: number };
  /** Records the source could not parse; the driver applies `onBadRecord`. */
  badRecords: BadRecord[];
  /** Rows the stateless operators set aside (OperatorContext.onRecordError), with the error's message. */
  expressionErrors: { row: Row; message: string }[];
  warnings: string[];
  /** Rows (partial buffers, with partialAggregation) written to each reduce partition. */
  partitionRows: number[];
}

/** A map task's status and its shuffled rows (or partial buffers), one array per reduce partition. */
export interface MapOutput {
  status: MapStatus;
  partitions: Row[][];
}

/** Runs a reduce task where the scheduler puts it (Spark's Executor running a task's iterator). */
export type TaskRunner = (task: ReduceTask) => Promise<TaskResult>;

/** Spark's TaskScheduler: runs a stage's TaskSet and returns the results in partition order. */
export interface TaskScheduler {
  /**
   * The tasks run in other processes, each committing its partition's state at N+1 before it
   * returns (a re-run of the batch loads N again and rewrites N+1). Unset: the driver's process
   * runs them, and the driver commits the state with the batch.
   */
  readonly remote?: boolean;
  /**
   * Its reduce tasks can write the batch's output with the sink's commit protocol where they run
   * (the executor builds the job's sink), so the driver commits the batch from their messages.
   */
  readonly tasksWriteSink?: boolean;
  submitTasks(taskSet: readonly ReduceTask[], run: TaskRunner): Promise<TaskResult[]>;
  /**
   * Runs a stage's map tasks where it puts them (each reads its split from the source), then the
   * stage's reduce tasks, reduce task p over partition p of every map output in map order.
   * Unset: the driver reads the source and runs the map side itself (submitTasks).
   *
   * `offsetsLogged`: the batch's offsets/N write, which the map tasks overlap (they write nothing
   * a restart could see, as the driver's own read of the batch). The reduce tasks commit state
   * N+1 and may write the sink, so they start only once it has succeeded; if it fails, they never do.
   */
  submitMapStage?(mapTasks: readonly MapTask[], reduceTasks: readonly Omit<ReduceTask, 'inputs'>[], offsetsLogged?: Promise<void>): Promise<{ statuses: MapStatus[]; results: TaskResult[] }>;
}

/**
 * Spark's local mode: every task in this process, one at a time (the stores of a partition are
 * only ever used by its own task, and one core is what a run has).
 */
export class LocalTaskScheduler implements TaskScheduler {
  async submitTasks(taskSet: readonly ReduceTask[], run: TaskRunner): Promise<TaskResult[]> {
    const results: TaskResult[] = [];
    for (const task of taskSet) results.push(await run(task));
    return results.sort((a, b) => a.partitionId - b.partitionId);
  }
}

/**
 * The map side of the shuffle (Spark's ShuffleExchangeExec with HashPartitioning): each row to
 * the partition its key hashes to, in input order within a partition.
 */
export function shuffleRows(rows: readonly Row[], numPartitions: number, partitionOf: (row: Row) => number): Row[][] {
  // Two passes, so that each partition's array is allocated once at its size (growing arrays of
  // a batch's rows cost more than hashing their keys).
  const ids = new Int32Array(rows.length);
  const sizes = new Int32Array(numPartitions);
  for (let i = 0; i < rows.length; i++) sizes[(ids[i] = partitionOf(rows[i]))]++;
  const out: Row[][] = Array.from(sizes, (n) => new Array<Row>(n));
  const filled = new Int32Array(numPartitions);
  for (let i = 0; i < rows.length; i++) out[ids[i]][filled[ids[i]]++] = rows[i];
  return out;
}
