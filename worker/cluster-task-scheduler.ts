/**
 * The driver's side of WEIR_TASK_SCHEDULER=cluster, in the run's engine process: Spark's
 * TaskSchedulerImpl on a cluster. A stateful stage's map tasks (one per split of the source,
 * each reading it on its worker) and reduce tasks go, by the worker that hosts
 * this run (engine-host.ts, task-dispatcher.ts), to the tasks queue that every worker consumes;
 * each runs where a worker takes it, with its partition's state (task-worker.ts), a reduce task
 * being offered first to the worker that ran its partition's last task (its preferred location).
 * Their rows travel through the checkpoint store (shuffle.ts), except the last stage's output when the sink
 * has a commit protocol: its tasks write it to the sink and return commit messages. A task whose worker dies is retried by the
 * queue on another; one that keeps failing fails the batch, which the run's restart policy then
 * retries from offsets/N as any failed batch.
 */
import type { CheckpointFileManager, JobSpec, MapStatus, MapTask, ReduceTask, TaskProgress, TaskResult, TaskScheduler } from '@/lib/engine';
import { mapOutputBlock, MAX_DIRECT_RESULT_BYTES, newDriverRun, readReduceTaskOutput, shuffleDir, TASK_PAYLOAD_VERSION, taskSpec, writeBlock, type MapTaskOutcome, type MapTaskPayload, type ReduceTaskOutcome, type ReduceTaskPayload, type TaskOutcome, type TaskPayload } from './shuffle';

/** A worker that completed none of this driver's tasks for this long no longer counts in a worker's share of a stage. */
const EXECUTOR_TIMEOUT_MS = 60_000;

export class ClusterTaskScheduler implements TaskScheduler {
  readonly remote = true;
  /**
   * The batch's last stage's tasks write the job's sink where they run (each worker builds it
   * from the job's sink options, task-worker.ts) when it has a commit protocol; the driver then
   * commits the batch once with the messages of the attempts that completed.
   */
  readonly tasksWriteSink = true;
  /** A fresh id per driver process: a re-run of a batch by another driver never reads this one's blocks. */
  private readonly driverRun = newDriverRun();
  /** The tasks of the batch running now, taken by whoever reports its progress (takeTasks). */
  private tasks: TaskProgress[] = [];
  /**
   * Where each state partition (`<stage>/<partition>`) is loaded: the worker its last reduce task
   * completed on (Spark's StateStoreCoordinator, which executors tell of the stores they load).
   * A reduce task names it as its preferred location; unknown at a driver's start, so a new
   * driver's first batch goes wherever the queue puts it.
   */
  private readonly stateStoreLocations = new Map<string, string>();
  /** The workers that completed this driver's tasks lately, with when (Spark's live executors). */
  private readonly executors = new Map<string, number>();

  constructor(
    private readonly o: {
      spec: JobSpec;
      checkpoint: CheckpointFileManager;
      queryId: () => string;
      submit: (payloads: TaskPayload[]) => Promise<TaskOutcome[]>;
    },
  ) {}

  async submitTasks(taskSet: readonly ReduceTask[]): Promise<TaskResult[]> {
    if (taskSet.length === 0) return [];
    const dir = shuffleDir(taskSet[0], this.driverRun);
    return this.inStageDir(dir, async () => {
      const payloads: ReduceTaskPayload[] = [];
      for (const { inputs, ...task } of taskSet) {
        const input = `${dir}/${task.partitionId}.in`;
        await writeBlock(this.o.checkpoint, input, inputs);
        payloads.push({ ...this.payloadBase(dir, taskSet.length), task, input });
      }
      return this.runReduceTasks(payloads);
    });
  }

  /**
   * The stage's map tasks, then its reduce tasks over the blocks of the map attempts that
   * completed (a zombie attempt's blocks bear another attempt id and are never named).
   */
  async submitMapStage(mapTasks: readonly MapTask[], reduceTasks: readonly Omit<ReduceTask, 'inputs'>[], offsetsLogged?: Promise<void>): Promise<{ statuses: MapStatus[]; results: TaskResult[] }> {
    const dir = shuffleDir(reduceTasks[0], this.driverRun);
    return this.inStageDir(dir, async () => {
      const base = this.payloadBase(dir, reduceTasks.length);
      const maps = mapTasks.length ? ((await this.o.submit(mapTasks.map((task): MapTaskPayload => ({ ...base, kind: 'map', task })))) as MapTaskOutcome[]) : [];
      for (const [i, o] of maps.entries()) {
        this.executors.set(o.workerId, Date.now());
        this.tasks.push({ stageId: mapTasks[i].stageId, partitionId: mapTasks[i].mapId, kind: 'map', workerId: o.workerId, inputRows: o.inputRows, rows: o.rows, shuffleBytes: o.shuffleBytes, durationMs: o.durationMs, attempt: o.attempt });
      }
      // The reduce tasks commit state N+1: only once offsets/N is durable (TaskScheduler.submitMapStage).
      await offsetsLogged;
      const payloads = reduceTasks.map((task): ReduceTaskPayload => ({
        ...base,
        task,
        input: { mapOutputs: maps.flatMap((o) => (o.status.partitionRows[task.partitionId] > 0 ? [mapOutputBlock(dir, o.status.mapId, o.attemptId, task.partitionId)] : [])) },
      }));
      return { statuses: maps.map((o) => o.status), results: await this.runReduceTasks(payloads) };
    });
  }

  private payloadBase(outputDir: string, numPartitions: number) {
    return { version: TASK_PAYLOAD_VERSION, spec: taskSpec(this.o.spec), queryId: this.o.queryId(), numPartitions, outputDir };
  }

  private async runReduceTasks(payloads: ReduceTaskPayload[]): Promise<TaskResult[]> {
    // A worker is the preferred location of at most its share of the stage's tasks: otherwise a
    // stage whose partitions all last ran on one worker (one took a task another was slow to)
    // would wait for that worker, one task after another, every batch from then on.
    const now = Date.now();
    for (const [w, at] of this.executors) if (now - at > EXECUTOR_TIMEOUT_MS) this.executors.delete(w);
    const share = Math.ceil(payloads.length / Math.max(1, this.executors.size));
    const offered = new Map<string, number>([...this.executors.keys()].map((w) => [w, 0]));
    const located: ReduceTaskPayload[] = payloads.map((task) => {
      const p = { ...task, maxDirectResultBytes: MAX_DIRECT_RESULT_BYTES };
      const preferredLocation = this.stateStoreLocations.get(`${p.task.stageId}/${p.task.partitionId}`);
      if (!preferredLocation || (offered.get(preferredLocation) ?? 0) >= share) return p;
      offered.set(preferredLocation, (offered.get(preferredLocation) ?? 0) + 1);
      return { ...p, preferredLocation };
    });
    // The tasks left (a partition new to this driver, or over its worker's share) are offered to
    // the live workers with room in the stage, as Spark's resource offers spread a task set over
    // the executors' free cores: sent to the shared queue, two of them could be taken by one
    // worker (its own queue's task and the shared queue's run side by side in its one thread)
    // while another worker waits, and the next batch would prefer that worker for both again.
    // A worker that does not take its offer within the locality wait loses it to the shared queue.
    for (const [i, p] of located.entries()) {
      if (p.preferredLocation) continue;
      const roomiest = [...offered].reduce<[string, number] | undefined>((best, o) => (o[1] < share && (!best || o[1] < best[1]) ? o : best), undefined);
      if (!roomiest) break;
      offered.set(roomiest[0], roomiest[1] + 1);
      located[i] = { ...p, preferredLocation: roomiest[0] };
    }
    const outcomes = (await this.o.submit(located)) as ReduceTaskOutcome[];
    // The tasks' rows, read together (a block each, or none when they came in the outcome).
    const outputs = await Promise.all(outcomes.map((o) => (o.sinkCommit ? undefined : readReduceTaskOutput(this.o.checkpoint, o))));
    const results: TaskResult[] = [];
    for (const [i, o] of outcomes.entries()) {
      const { partitionId, stageId } = payloads[i].task;
      const rows = outputs[i];
      if (o.sinkCommit) results.push({ partitionId, rows: [], progress: o.progress, sinkCommit: o.sinkCommit });
      else if (rows) results.push({ partitionId, rows, progress: o.progress });
      else throw new Error(`Internal: reduce task ${partitionId} of stage ${stageId} returned neither its rows nor a sink commit`);
      this.stateStoreLocations.set(`${stageId}/${partitionId}`, o.workerId);
      this.executors.set(o.workerId, Date.now());
      this.tasks.push({ stageId, partitionId, workerId: o.workerId, inputRows: o.inputRows, rows: o.rows, shuffleBytes: o.shuffleBytes, durationMs: o.durationMs, attempt: o.attempt });
    }
    return results.sort((a, b) => a.partitionId - b.partitionId);
  }

  /**
   * Runs a stage whose blocks are under `dir`, and deletes them after, off the batch's path: the
   * deletion (a listing and a delete per block, several ms a stage under load) overlaps the
   * driver's commit of the batch instead of delaying it. The next stage starts only once it is
   * done, so no deletion ever runs beside a stage (a batch re-run by this driver reuses its dirs).
   */
  private async inStageDir<T>(dir: string, run: () => Promise<T>): Promise<T> {
    await this.blocksDeleted;
    try {
      return await run();
    } finally {
      this.blocksDeleted = this.deleteStageDir(dir);
    }
  }

  /** The deletion of the last stage's blocks (never fails: a block left behind is never read). */
  private blocksDeleted: Promise<void> = Promise.resolve();

  private async deleteStageDir(dir: string): Promise<void> {
    const cp = this.o.checkpoint;
    // The stage's blocks: inputs, the outputs read, and any a zombie attempt wrote before now.
    // (One that writes later is left behind; no reader ever names it.)
    const names = await cp.list(dir).catch(() => []);
    await Promise.all(names.map((name) => cp.delete(`${dir}/${name}`).catch(() => undefined)));
    await cp.delete(dir).catch(() => undefined);
  }

  /** Waits for the last stage's blocks to be deleted (nothing needs to: a block left behind is never read). */
  async idle(): Promise<void> {
    await this.blocksDeleted;
  }

  /** The tasks run since the last call (one batch's, when called as its progress is reported). */
  takeTasks(): TaskProgress[] {
    const t = this.tasks;
    this.tasks = [];
    return t;
  }
}
