/**
 * A remote TaskScheduler for tests: each reduce task goes, as a structured clone (what crosses a
 * process boundary), to one of several Executors standing for worker processes, chosen by `pick`;
 * `retry` may run a task twice on different executors (a worker lost mid-task, its task retried
 * elsewhere, the first attempt's result ignored).
 */
import { deserialize, serialize } from 'node:v8';
import type { CheckpointFileManager } from '../../checkpoint/checkpoint-file-manager';
import type { JobSpec } from '../../spec/job-spec';
import type { Executor } from '../executor';
import type { ReduceTask, TaskResult, TaskScheduler } from '../task-scheduler';

export class ExecutorsTaskScheduler implements TaskScheduler {
  readonly remote = true;
  constructor(
    private readonly o: {
      executors: Executor[];
      spec: JobSpec;
      checkpoint: CheckpointFileManager;
      queryId: () => string;
      pick: (task: ReduceTask) => number;
      retry?: (task: ReduceTask) => boolean;
    },
  ) {}

  async submitTasks(taskSet: readonly ReduceTask[]): Promise<TaskResult[]> {
    const q = { spec: this.o.spec, queryId: this.o.queryId(), numPartitions: taskSet.length, checkpoint: this.o.checkpoint };
    const results: TaskResult[] = [];
    for (const task of taskSet) {
      const at = this.o.pick(task);
      const run = (i: number) => this.o.executors[i % this.o.executors.length].runTask(q, deserialize(serialize(task)) as ReduceTask);
      const retried = this.o.retry?.(task) ?? false;
      if (retried) await run(at);
      results.push(deserialize(serialize(await run(retried ? at + 1 : at))) as TaskResult);
    }
    return results;
  }
}
