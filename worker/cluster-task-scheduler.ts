/**
 * The driver's side of WEIR_TASK_SCHEDULER=cluster, in the run's engine process: Spark's
 * TaskSchedulerImpl on a cluster. A stateful stage's reduce tasks go, by the worker that hosts
 * this run (engine-host.ts, task-dispatcher.ts), to the tasks queue that every worker consumes;
 * each runs where a worker takes it, with its partition's state (task-worker.ts). Their rows
 * travel through the checkpoint store (shuffle.ts). A task whose worker dies is retried by the
 * queue on another; one that keeps failing fails the batch, which the run's restart policy then
 * retries from offsets/N as any failed batch.
 */
import type { CheckpointFileManager, JobSpec, ReduceTask, Row, TaskProgress, TaskResult, TaskScheduler } from '@/lib/engine';
import { newDriverRun, readBlock, shuffleDir, taskSpec, writeBlock, type ReduceTaskOutcome, type ReduceTaskPayload } from './shuffle';

export class ClusterTaskScheduler implements TaskScheduler {
  readonly remote = true;
  /** A fresh id per driver process: a re-run of a batch by another driver never reads this one's blocks. */
  private readonly driverRun = newDriverRun();
  /** The tasks of the batch running now, taken by whoever reports its progress (takeTasks). */
  private tasks: TaskProgress[] = [];

  constructor(
    private readonly o: {
      spec: JobSpec;
      checkpoint: CheckpointFileManager;
      queryId: () => string;
      submit: (payloads: ReduceTaskPayload[]) => Promise<ReduceTaskOutcome[]>;
    },
  ) {}

  async submitTasks(taskSet: readonly ReduceTask[]): Promise<TaskResult[]> {
    if (taskSet.length === 0) return [];
    const cp = this.o.checkpoint;
    const dir = shuffleDir(taskSet[0], this.driverRun);
    const payloads: ReduceTaskPayload[] = [];
    const spec = taskSpec(this.o.spec);
    for (const { inputs, ...task } of taskSet) {
      const input = `${dir}/${task.partitionId}.in`;
      await writeBlock(cp, input, inputs);
      payloads.push({ spec, queryId: this.o.queryId(), numPartitions: taskSet.length, task, input, outputDir: dir });
    }
    try {
      const outcomes = await this.o.submit(payloads);
      const results: TaskResult[] = [];
      for (const [i, o] of outcomes.entries()) {
        const { value: rows } = await readBlock<Row[]>(cp, o.output);
        const { partitionId, stageId } = payloads[i].task;
        results.push({ partitionId, rows, progress: o.progress });
        this.tasks.push({ stageId, partitionId, workerId: o.workerId, inputRows: o.inputRows, rows: o.rows, shuffleBytes: o.shuffleBytes, durationMs: o.durationMs, attempt: o.attempt });
      }
      return results.sort((a, b) => a.partitionId - b.partitionId);
    } finally {
      // The stage's blocks: inputs, the outputs read, and any a zombie attempt wrote before now.
      // (One that writes later is left behind; no reader ever names it.)
      const names = await cp.list(dir).catch(() => []);
      for (const name of names) await cp.delete(`${dir}/${name}`).catch(() => undefined);
      await cp.delete(dir).catch(() => undefined);
    }
  }

  /** The tasks run since the last call (one batch's, when called as its progress is reported). */
  takeTasks(): TaskProgress[] {
    const t = this.tasks;
    this.tasks = [];
    return t;
  }
}
