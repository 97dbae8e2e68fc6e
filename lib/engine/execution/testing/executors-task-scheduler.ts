/**
 * A remote TaskScheduler for tests: each map and reduce task goes, as a structured clone (what crosses a
 * process boundary), to one of several Executors standing for worker processes, chosen by `pick`;
 * `retry` may run a task twice on different executors (a worker lost mid-task, its task retried
 * elsewhere, the first attempt's result ignored). Map tasks read the source through the
 * registry, as a worker's do (a memory source's named stream is this process's). With
 * `tasksWriteSink`, the last stage's reduce tasks write the spec's sink themselves (a retried
 * task's first attempt too: its output is a zombie's, in no commit message).
 */
import { deserialize, serialize } from 'node:v8';
import type { CheckpointFileManager } from '../../checkpoint/checkpoint-file-manager';
import type { JobSpec } from '../../spec/job-spec';
import { ManualClock } from '../../clock';
import type { Sink } from '../../sinks/sink';
import type { Clock } from '../../clock';
import { Executor, type ExecutorQuery } from '../executor';
import { createSink } from '../query-runtime';
import type { MapOutput, MapStatus, MapTask, ReduceTask, TaskResult, TaskScheduler } from '../task-scheduler';

export class ExecutorsTaskScheduler implements TaskScheduler {
  readonly remote = true;
  constructor(
    private readonly o: {
      executors: Executor[];
      spec: JobSpec;
      checkpoint: CheckpointFileManager;
      queryId: () => string;
      pick: (task: ReduceTask | MapTask) => number;
      retry?: (task: ReduceTask | MapTask) => boolean;
      mapTasks?: boolean;
      /** The last stage's tasks write the sink (the spec's, built here as a worker builds it) with its commit protocol. */
      tasksWriteSink?: boolean;
    },
  ) {
    if (o.mapTasks) this.submitMapStage = (mapTasks, reduceTasks, offsetsLogged) => this.mapStage(mapTasks, reduceTasks, offsetsLogged);
    this.tasksWriteSink = o.tasksWriteSink ?? false;
  }

  readonly tasksWriteSink: boolean;
  private sink?: Sink;

  async submitTasks(taskSet: readonly ReduceTask[]): Promise<TaskResult[]> {
    const q = this.query(taskSet.length);
    const results: TaskResult[] = [];
    for (const task of taskSet) results.push(await this.attempts(task, (e, t) => e.runTask(q, t)));
    return results;
  }

  /** Set with `mapTasks`: the map side runs as map tasks on the executors too. */
  readonly submitMapStage?: TaskScheduler['submitMapStage'];

  private async mapStage(mapTasks: readonly MapTask[], reduceTasks: readonly Omit<ReduceTask, 'inputs'>[], offsetsLogged?: Promise<void>): Promise<{ statuses: MapStatus[]; results: TaskResult[] }> {
    const q = this.query(reduceTasks.length);
    const outputs: MapOutput[] = [];
    for (const task of mapTasks) outputs.push(await this.attempts(task, (e, t) => e.runMapTask(q, t)));
    await offsetsLogged;
    const results = await this.submitTasks(reduceTasks.map((t) => ({ ...t, inputs: [outputs.flatMap((o) => o.partitions[t.partitionId])] })));
    return { statuses: outputs.map((o) => o.status), results };
  }

  private query(numPartitions: number): ExecutorQuery {
    if (this.tasksWriteSink) this.sink ??= createSink(this.o.spec, { clock: new ManualClock(0), queryId: this.o.queryId() });
    return { spec: this.o.spec, queryId: this.o.queryId(), numPartitions, checkpoint: this.o.checkpoint, ...(this.sink ? { sink: this.sink } : {}) };
  }

  /** A task on the executor `pick` says, or run twice (the first attempt's result ignored) when `retry` says so. */
  private async attempts<T extends MapTask | ReduceTask, R>(task: T, run: (e: Executor, task: T) => Promise<R>): Promise<R> {
    const at = this.o.pick(task);
    const on = async (i: number) => {
      const executor = this.o.executors[i % this.o.executors.length];
      try {
        return await run(executor, deserialize(serialize(task)) as T);
      } finally {
        // As a worker does once the task's outcome has gone.
        executor.compileSpares();
      }
    };
    const retried = this.o.retry?.(task) ?? false;
    if (retried) await on(at);
    return deserialize(serialize(await on(retried ? at + 1 : at))) as R;
  }
}

/**
 * `n` executors standing for worker processes on one clock, each pushing the partialAggregation
 * flag of every map task it gets onto `partialFlags` (whether the driver asked for partial buffers).
 */
export function recordingExecutors(clock: Clock, partialFlags: unknown[], n = 2): Executor[] {
  return Array.from({ length: n }, () => {
    const e = new Executor({ clock });
    const runMapTask = e.runMapTask.bind(e);
    e.runMapTask = (eq, task) => {
      partialFlags.push(task.partialAggregation);
      return runMapTask(eq, task);
    };
    return e;
  });
}
