/**
 * Spark's executor in every worker: consumes the tasks queue (WEIR_TASK_SCHEDULER=cluster runs'
 * map and reduce tasks, task-dispatcher.ts), WEIR_TASK_CONCURRENCY at a time, and its own queue
 * (executorTasksQueue), where a reduce task waits a moment for it when it holds the task's state
 * partition. A map task reads
 * its split of the source (with the job's source options, read from the job, never from the
 * queue), runs the stateless operators and writes one block per reduce partition under a name of
 * its attempt. A reduce task reads its input blocks from the job's checkpoint, runs it with lib/engine's Executor (which keeps the
 * partition's state stores open between batches and reloads a partition that ran elsewhere in
 * between), writes the output block under a name of its own attempt and returns where it is
 * (shuffle.ts); or, when its stage is the batch's last and the job's sink has a commit protocol
 * (`task.writesSink`), builds the job's sink with its options from the job, writes its rows with
 * it (a part file of its attempt for the files sink) and returns the commit message instead.
 *
 * A worker killed mid-task stops renewing the task's lock: after WEIR_FAILOVER_MS the queue hands
 * the task to another worker, with the same input.
 */
import '@/lib/connectors'; // registers the connectors' source and checkpoint types (s3://)
import type { Processor, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { checkpointFileManagerFor, createSink, Executor, SystemClock, type CheckpointFileManager, type JobSpec, type PathRoots, type Row, type Sink, type TaskResult } from '@/lib/engine';
import type { Env } from '@/lib/env';
import { failoverLock, makeWorker, queueConfigFrom } from '@/lib/queue/connection';
import { executorTasksQueue, TASKS_QUEUE } from '@/lib/queue/queues';
import type { PrismaClient } from '@/lib/server/db';
import { stateCacheDirOf } from './local-state-caches';
import { workerSpec } from './run-processor';
import { checkPayloadVersion, reduceTaskOutput, specVersionOf, mapOutputBlock, newAttemptId, readBlock, writeBlock, type MapTaskOutcome, type MapTaskPayload, type ReduceTaskOutcome, type ReduceTaskPayload, type TaskOutcome, type TaskPayload } from './shuffle';

export interface TaskWorkerDeps {
  config: Pick<Env, 'REDIS_URL' | 'DATABASE_URL' | 'dataDir' | 'WEIR_FAILOVER_MS' | 'WEIR_TASK_CONCURRENCY' | 'WEIR_TEST_TASK_DELAY_MS'> & Partial<Pick<Env, 'WEIR_TEST_TASK_HOLD_SIGNAL'>>;
  workerId: string;
  log: Logger;
  /**
   * The options of a job's sources, in order, as its runs read them (the job's spec in the
   * database, per the spec version the task names: jobOptions' rule): a map task reads its split
   * with them. The queue payload never carries them (they hold credentials).
   */
  sourceOptions?: JobOptionsReader<Record<string, unknown>[]>;
  /** The options of a job's sink, likewise: a reduce task that writes the sink builds it with them. */
  sinkOptions?: JobOptionsReader<Record<string, unknown>>;
}

export async function startTaskWorker({ config, workerId, log, sourceOptions, sinkOptions }: TaskWorkerDeps): Promise<{ close(): Promise<void> }> {
  const clock = new SystemClock();
  const executor = new Executor({
    clock,
    stateLocalDir: stateCacheDirOf(config.dataDir),
    onMaintenanceError: (e) => log.warn({ err: e }, 'state maintenance of a task partition failed; retried after its next task'),
  });
  const checkpoints = new Map<string, CheckpointFileManager>();
  const checkpointOf = (location: string) => {
    let cp = checkpoints.get(location);
    if (!cp) checkpoints.set(location, (cp = checkpointFileManagerFor(location)));
    return cp;
  };
  /** The task's spec with its sources' options, which the payload leaves out. */
  const withSourceOptions = async (p: MapTaskPayload): Promise<JobSpec> => {
    if (!p.jobId || !sourceOptions) throw new Error(`map task ${p.task.mapId} of batch ${p.task.batchId} names no job whose source options this worker can read; run the job's tasks on workers with the database`);
    const options = await sourceOptions(p.jobId, p.specVersion);
    const sources = p.spec.sources.map((s, i) => ({ ...s, options: options[i] ?? {} }));
    return { ...p.spec, source: sources[0], sources };
  };
  const runMap = async (p: MapTaskPayload, cp: CheckpointFileManager, attempt: number, t0: number): Promise<MapTaskOutcome> => {
    const spec = await withSourceOptions(p);
    const { status, partitions } = await executor.runMapTask({ spec, queryId: p.queryId, numPartitions: p.numPartitions, checkpoint: cp }, p.task);
    const attemptId = newAttemptId();
    // The blocks written together (a file each, not forced to disk: shuffle.ts).
    const written = await Promise.all(partitions.map((rows, partitionId) => (rows.length ? writeBlock(cp, mapOutputBlock(p.outputDir, p.task.mapId, attemptId, partitionId), rows) : 0)));
    const bytes = written.reduce((n, b) => n + b, 0);
    const rows = partitions.reduce((n, r) => n + r.length, 0);
    return { attemptId, status, workerId, inputRows: status.numInputRows, rows, shuffleBytes: bytes, durationMs: Math.round(performance.now() - t0), attempt };
  };
  /** The job's sink, built with its options from the job (never from the queue), as the run builds it. */
  const jobSink = async (p: ReduceTaskPayload): Promise<Sink> => {
    if (!p.jobId || !sinkOptions) throw new Error(`reduce task ${p.task.partitionId} of batch ${p.task.batchId} names no job whose sink options this worker can read; run the job's tasks on workers with the database`);
    const sink = createSink({ ...p.spec, sink: { type: p.spec.sink.type, options: await sinkOptions(p.jobId, p.specVersion) } }, { clock, queryId: p.queryId });
    await sink.open?.();
    return sink;
  };
  const runReduce = async (p: ReduceTaskPayload, cp: CheckpointFileManager, attempt: number, t0: number): Promise<ReduceTaskOutcome> => {
    let inputs: Row[][];
    let inBytes = 0;
    if (typeof p.input === 'string') ({ value: inputs, bytes: inBytes } = await readBlock<Row[][]>(cp, p.input));
    else {
      // The map outputs' blocks for this partition, read together, in map order: the operator's one input.
      const input: Row[] = [];
      for (const { value, bytes } of await Promise.all(p.input.mapOutputs.map((block) => readBlock<Row[]>(cp, block)))) {
        for (const r of value) input.push(r);
        inBytes += bytes;
      }
      inputs = [input];
    }
    const sink = p.task.writesSink ? await jobSink(p) : undefined;
    let result: TaskResult;
    try {
      result = await executor.runTask({ spec: p.spec, queryId: p.queryId, numPartitions: p.numPartitions, checkpoint: cp, ...(sink ? { sink } : {}) }, { ...p.task, inputs });
    } finally {
      await sink?.close();
    }
    // A task that wrote the sink returns its commit message; otherwise its rows go back, in the
    // outcome when they are small, else as a block.
    const { bytes: outBytes, ...output } = result.sinkCommit ? { bytes: 0, sinkCommit: result.sinkCommit } : await reduceTaskOutput(cp, p, result.rows);
    return {
      ...output,
      workerId,
      inputRows: inputs.reduce((n, rows) => n + rows.length, 0),
      rows: result.sinkCommit?.numOutputRows ?? result.rows.length,
      shuffleBytes: inBytes + outBytes,
      durationMs: Math.round(performance.now() - t0),
      attempt,
      progress: result.progress,
    };
  };
  const processor: Processor<TaskPayload, TaskOutcome> = async (job) => {
    const p = job.data;
    const t0 = performance.now();
    // A task moved from its preferred worker's queue after that worker died holding it counts on.
    const attempt = (p.kind === 'map' ? 0 : (p.priorAttempts ?? 0)) + job.attemptsStarted;
    const kind = p.kind ?? 'reduce';
    const split = p.kind === 'map' ? { mapId: p.task.mapId } : { partitionId: p.task.partitionId };
    const tlog = log.child({ bullJobId: job.id, queue: job.queueName, queryId: p.queryId, batchId: p.task.batchId, stageId: p.task.stageId, ...split, attempt });
    tlog.info(`${kind} task started`);
    checkPayloadVersion(p);
    if (config.WEIR_TEST_TASK_DELAY_MS) await new Promise((r) => setTimeout(r, config.WEIR_TEST_TASK_DELAY_MS));
    const cp = checkpointOf(p.spec.checkpointLocation);
    const outcome = p.kind === 'map' ? await runMap(p, cp, attempt, t0) : await runReduce(p, cp, attempt, t0);
    tlog.info({ rows: outcome.rows, durationMs: outcome.durationMs }, `${kind} task done`);
    // After the outcome has gone to the queue (its completion is sent in this turn's microtasks).
    setImmediate(() => executor.compileSpares());
    return outcome;
  };
  const options = {
    concurrency: config.WEIR_TASK_CONCURRENCY,
    // A task lasts a batch's share at most; a killed worker's task goes back to the queue.
    ...failoverLock(config.WEIR_FAILOVER_MS),
    maxStalledCount: 3,
  };
  // The shared queue, and this worker's own, where a reduce task waits for it while it holds the
  // task's state partition (its preferred location; task-dispatcher.ts moves the task to the
  // shared queue after the locality wait). Each takes up to the concurrency: the own queue's
  // reduce tasks come after a stage's map tasks, so for one query the two seldom overlap.
  const workers = [TASKS_QUEUE, executorTasksQueue(workerId)].map((name) => {
    const worker = makeWorker<TaskPayload, TaskOutcome>(name, processor, queueConfigFrom(config), options);
    worker.on('error', (e) => log.error({ err: e, queue: name }, 'tasks queue worker error'));
    worker.on('failed', (job, e) => log.warn({ err: e, bullJobId: job?.id, queue: name }, 'task failed'));
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  if (config.WEIR_TEST_TASK_HOLD_SIGNAL) holdOnSignal(workers, log);
  return {
    close: async () => {
      await Promise.all(workers.map((w) => w.close()));
      await executor.close();
    },
  };
}

/**
 * Test-only seam (WEIR_TEST_TASK_HOLD_SIGNAL, refused unless NODE_ENV=test): SIGUSR2 holds this
 * worker from taking tasks (its consumers of the shared queue and of its own pause once their
 * running tasks end) and the next SIGUSR2 lets it take them again; each logs once it took effect.
 * While it is held, the tasks go to the other workers: a reduce task offered to it goes back to the
 * shared queue after the locality wait (task-dispatcher.ts), as when it is busy. Which worker takes
 * a task is otherwise the queue's choice, which a test cannot wait on.
 */
function holdOnSignal(workers: Worker<TaskPayload, TaskOutcome>[], log: Logger): void {
  let held = false;
  let turn = Promise.resolve();
  process.on('SIGUSR2', () => {
    held = !held;
    const hold = held;
    turn = turn.then(async () => {
      await Promise.all(workers.map((w) => (hold ? w.pause() : w.resume())));
      log.info(hold ? 'tasks held (test seam)' : 'tasks released (test seam)');
    });
  });
}

/** A job's options as a task reads them: by its id and the spec version its run stamped (TaskPayloadBase.specVersion). */
type JobOptionsReader<T> = (jobId: string, specVersion?: string) => Promise<T>;

/**
 * A job's source options as its runs read them: its spec from the database, validated and
 * confined to this worker's roots as a run's is (run-processor.ts).
 */
export function jobSourceOptions(db: PrismaClient, roots: PathRoots): JobOptionsReader<Record<string, unknown>[]> {
  const options = jobOptions(db, roots);
  return async (jobId, specVersion) => (await options(jobId, specVersion)).sources;
}

/** A job's sink options as its runs read them (validated and confined as jobSourceOptions'): a reduce task that writes the sink builds it with them. */
export function jobSinkOptions(db: PrismaClient, roots: PathRoots): JobOptionsReader<Record<string, unknown>> {
  const options = jobOptions(db, roots);
  return async (jobId, specVersion) => (await options(jobId, specVersion)).sink;
}

/**
 * The rule for option changes: a task uses the options of the spec version its run stamped on it
 * (specVersionOf of the job's stored spec when the run started). The worker keeps, per job, the
 * options it last read with their version, and reads the database again only when a task names
 * another version: an edit of the job changes its spec's version, and since an edit is refused
 * while a run is going, the next run (and so the next batch's tasks) carries the new version and
 * gets the new options. A task whose version is not the stored spec's (a zombie of a run from
 * before an edit) or that names none (a driver before this rule) reads the database every time
 * and uses what it finds, as every task did before.
 */
function jobOptions(db: PrismaClient, roots: PathRoots): JobOptionsReader<{ sources: Record<string, unknown>[]; sink: Record<string, unknown> }> {
  const cache = new Map<string, { version: string; options: { sources: Record<string, unknown>[]; sink: Record<string, unknown> } }>();
  return async (jobId, specVersion) => {
    const hit = cache.get(jobId);
    if (specVersion !== undefined && hit?.version === specVersion) return hit.options;
    const job = await db.job.findUnique({ where: { id: jobId }, select: { spec: true } });
    if (!job) throw new Error(`job ${jobId} is gone: its task cannot read the source or write the sink`);
    const version = specVersionOf(job.spec);
    if (hit?.version === version) return hit.options;
    const spec = workerSpec(job.spec, roots);
    const options = { sources: spec.sources.map((s) => s.options as Record<string, unknown>), sink: spec.sink.options as Record<string, unknown> };
    cache.delete(jobId);
    cache.set(jobId, { version, options });
    if (cache.size > 1000) cache.delete(cache.keys().next().value!);
    return options;
  };
}
