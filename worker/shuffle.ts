/**
 * The shuffle between a run's driver and the workers that run its map and reduce tasks
 * (WEIR_TASK_SCHEDULER=cluster): what a task's queue payload says, where its rows are, and how.
 * A map task reads its split of the source itself and writes one block per reduce partition; a
 * reduce task reads its partition's block of every map output (or, when the driver ran the map
 * side, the one input block the driver wrote).
 *
 * A task's input and output rows are blocks in the job's checkpoint store, under
 * `shuffle/<batchId>/<stageId>/<driverRun>/`, never in the queue payload (but a reduce task's
 * output of at most MAX_DIRECT_RESULT_BYTES, which comes back in its outcome): a task's share of a
 * batch is MBs, and every worker that may run the job can reach its checkpoint already (failover
 * needs it). Measured on this machine (docs/engine.md, Scaling): a 1.8 MB block (20,000 YSB rows)
 * cost 40-115 ms written, read and deleted in the local checkpoint against 93-220 ms through Redis,
 * whose single thread and memory every run's queue traffic shares. Blocks are V8's structured
 * clone serialization, which keeps every engine value as it is (bigint, Date, Buffer), as JSON
 * would not.
 *
 * A task's output goes to a file named by its attempt (a random id per attempt): the driver reads
 * only the block the completed attempt returned, so a zombie attempt (its worker thought dead, the
 * task retried elsewhere) writes where nobody reads. Its state commit is the same version with the
 * same contents as the retry's (a task is deterministic in its input and state version N).
 */
import { createHash, randomUUID } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import type { CheckpointFileManager, JobSpec, MapStatus, MapTask, ReduceTask, Row, StateOperatorProgress, TaskProgress, TaskResult } from '@/lib/engine';

/**
 * The task payload's format: raised when a payload changes meaning (a new flag that changes what
 * a task does with its input, as partialAggregation did), so that during a rolling upgrade a
 * worker never runs a newer driver's task as an older one would. A payload without it is version 1.
 */
export const TASK_PAYLOAD_VERSION = 1;

interface TaskPayloadBase {
  /** TASK_PAYLOAD_VERSION of the driver that sent it. */
  version?: number;
  spec: JobSpec;
  queryId: string;
  /**
   * The job whose run sent the task, set by the worker hosting the run: a map task's worker reads
   * the source's options (credentials) from the job, never from the queue.
   */
  jobId?: string;
  /**
   * The version of the job's spec the run started with (specVersionOf), stamped beside jobId: a
   * worker reuses the options it last read for the job while the version matches, so a task reads
   * the database only when the job changed (an edit, which is refused while a run is going, then
   * a new run) or the worker has not seen it. Unset (a driver before it): read for every task.
   */
  specVersion?: string;
  /** The checkpoint's parallelism (spark.sql.shuffle.partitions). */
  numPartitions: number;
  /** Checkpoint directory of the stage's blocks, where each attempt writes its output. */
  outputDir: string;
}

export interface ReduceTaskPayload extends TaskPayloadBase {
  kind?: 'reduce';
  task: Omit<ReduceTask, 'inputs'>;
  /**
   * Checkpoint paths of the task's input: one block of its `inputs` (the driver ran the map side),
   * or, after map tasks, each map output's block for this partition, in map order (its one input).
   */
  input: string | { mapOutputs: string[] };
  /**
   * Spark's spark.task.maxDirectResultSize: output rows whose serialized size is at most this
   * many bytes come back in the task's outcome (ReduceTaskOutcome.directResult), not as a block.
   * Unset (a driver before it): the task always writes a block, which such a driver reads.
   */
  maxDirectResultBytes?: number;
  /**
   * Spark's preferred location of a state store's task: the worker that ran the partition's last
   * task and so holds its compiled query, operator and loaded state (the driver knows it from the
   * task outcomes, ClusterTaskScheduler). The dispatcher offers the task to that worker first,
   * for the locality wait; a worker ignores the field.
   */
  preferredLocation?: string;
  /**
   * Attempts the task already started in its preferred worker's queue before the dispatcher moved
   * it to the shared queue (that worker died holding it): its attempts there count on from them.
   */
  priorAttempts?: number;
}

export interface MapTaskPayload extends TaskPayloadBase {
  kind: 'map';
  task: MapTask;
}

export type TaskPayload = ReduceTaskPayload | MapTaskPayload;

/**
 * Refuses a payload from a driver newer than this worker: the attempt fails with the way out, and
 * the queue retries the task, perhaps on an upgraded worker; failing all its attempts fails the
 * batch, which the run re-runs from offsets/N.
 */
export function checkPayloadVersion(p: Pick<TaskPayloadBase, 'version'>): void {
  const v = p.version ?? 1;
  if (v > TASK_PAYLOAD_VERSION) {
    throw new Error(
      `this task comes from a newer Weir (task payload version ${v}; this worker understands up to ${TASK_PAYLOAD_VERSION}): ` +
        'upgrade this worker; the task is retried, on another worker if one is upgraded',
    );
  }
}

/** What a completed task returns through the queue (its rows are in `output`): its progress figures, less the ids the driver knows. */
export interface ReduceTaskOutcome extends Omit<TaskProgress, 'stageId' | 'partitionId'> {
  /** The block of its output rows; unset when the task wrote them to the sink (sinkCommit) or returned them (directResult). */
  output?: string;
  /**
   * Its output rows themselves (Spark's DirectTaskResult), V8-serialized and base64-encoded, when
   * they fit in the payload's maxDirectResultBytes. They come from the completed attempt's own
   * outcome, so a zombie attempt's rows are never read, as with a block named by its attempt.
   */
  directResult?: string;
  progress?: StateOperatorProgress;
  /** A task that wrote the sink (ReduceTask.writesSink): its commit message for the driver's commitJob. */
  sinkCommit?: TaskResult['sinkCommit'];
}

/** What a completed map task returns: its status, and the attempt its output blocks are named by (mapOutputBlock). */
export interface MapTaskOutcome extends Omit<TaskProgress, 'stageId' | 'partitionId'> {
  attemptId: string;
  status: MapStatus;
}

export type TaskOutcome = ReduceTaskOutcome | MapTaskOutcome;

/**
 * Where one attempt of a map task writes its rows for reduce partition p (none when it has none):
 * named by the attempt, so a zombie attempt's blocks are never read.
 */
export function mapOutputBlock(outputDir: string, mapId: number, attemptId: string, partitionId: number): string {
  return `${outputDir}/map-${mapId}.${attemptId}.${partitionId}`;
}

export function newAttemptId(): string {
  return randomUUID();
}

export function shuffleDir(task: Pick<ReduceTask, 'batchId' | 'stageId'>, driverRun: string): string {
  return `shuffle/${task.batchId}/${task.stageId}/${driverRun}`;
}

export function newDriverRun(): string {
  return randomUUID();
}

/**
 * Not forced to disk (sync: false): a block is read within its stage or never, and a machine that
 * restarts re-runs the batch under a new driver run whose blocks are named apart. The two fsyncs
 * (file, directory) were 5–40 ms of a map task's write of its two blocks here.
 */
export async function writeBlock(cp: CheckpointFileManager, path: string, value: Row[] | Row[][]): Promise<number> {
  const bytes = serialize(value);
  await publishBlock(cp, path, bytes);
  return bytes.length;
}

const publishBlock = (cp: CheckpointFileManager, path: string, bytes: Buffer) => cp.createAtomic(path, bytes, { overwrite: true, sync: false });

export async function readBlock<T extends Row[] | Row[][]>(cp: CheckpointFileManager, path: string): Promise<{ value: T; bytes: number }> {
  const buf = await cp.read(path);
  return { value: deserialize(buf) as T, bytes: buf.length };
}

/**
 * A job's stored spec's version: a digest of its JSON as the database returns it (jsonb keeps one
 * key order, so two reads of an unchanged spec give the same digest). Any edit of the spec, its
 * options included, changes it; nothing else does (the job row's updatedAt moves with every batch).
 */
export function specVersionOf(storedSpec: unknown): string {
  return createHash('sha256').update(JSON.stringify(storedSpec)).digest('base64url').slice(0, 22);
}

/**
 * The spec as a task needs it (its SQL, schemas, state settings, checkpoint) without the sources'
 * and sink's options: those hold credentials (connection strings, SASL passwords), and a task's
 * payload sits in the queue (Redis, or the queue's tables) for a while after it ran.
 */
export function taskSpec(spec: JobSpec): JobSpec {
  const sources = spec.sources.map((s) => ({ ...s, options: {} }));
  return { ...spec, source: sources[0], sources, sink: { type: spec.sink.type, options: {} } };
}

/**
 * A reduce task's output rows up to this size come back in its outcome (ReduceTaskOutcome.directResult):
 * a block costs the task a write, the driver a read and the stage a delete (1–2 ms each on this
 * machine, on the batch's path for the read), twice a batch with the no-data batch's stage. Spark's
 * default is 1 MB; this is lower because the queue keeps a completed task's outcome for an hour
 * (task-dispatcher.ts), in Redis's memory or the queue's tables. An update-mode aggregation's
 * partition of a few hundred changed groups fits; a larger output still goes through a block.
 */
export const MAX_DIRECT_RESULT_BYTES = 64 * 1024;

/** The rows of a reduce task's outcome as it returns them: in the outcome when they fit, else the block's name. */
export async function reduceTaskOutput(cp: CheckpointFileManager, p: Pick<ReduceTaskPayload, 'outputDir' | 'task' | 'maxDirectResultBytes'>, rows: Row[]): Promise<({ output: string } | { directResult: string }) & { bytes: number }> {
  const bytes = serialize(rows);
  if (p.maxDirectResultBytes !== undefined && bytes.length <= p.maxDirectResultBytes) return { directResult: bytes.toString('base64'), bytes: bytes.length };
  const output = attemptOutput(p);
  await publishBlock(cp, output, bytes);
  return { output, bytes: bytes.length };
}

/** The rows a reduce task returned: from its outcome, or from its output block. */
export async function readReduceTaskOutput(cp: CheckpointFileManager, o: Pick<ReduceTaskOutcome, 'output' | 'directResult'>): Promise<Row[] | undefined> {
  if (o.directResult !== undefined) return deserialize(Buffer.from(o.directResult, 'base64')) as Row[];
  return o.output === undefined ? undefined : (await readBlock<Row[]>(cp, o.output)).value;
}

/** Where one attempt of a reduce task writes its output. */
export function attemptOutput(p: Pick<ReduceTaskPayload, 'outputDir' | 'task'>): string {
  return `${p.outputDir}/${p.task.partitionId}.out.${newAttemptId()}`;
}
