/**
 * Queue names and job payloads. Payloads carry ids, never whole definitions: the worker reads the
 * job from the database, so an edit between enqueue and start is seen.
 */
import { z } from 'zod';

export const RUNS_QUEUE = 'weir-runs';

export const runPayloadSchema = z.object({
  jobId: z.string().uuid(),
  /** Why this run was enqueued: a start, a restart, a restart-policy retry. */
  reason: z.enum(['start', 'restart', 'retry', 'recover', 'drill']),
  attempt: z.number().int().min(0).default(0),
});

export type RunPayload = z.infer<typeof runPayloadSchema>;

/**
 * Reduce tasks of runs whose parallelism is spread over the workers (WEIR_TASK_SCHEDULER=cluster):
 * every worker consumes it (worker/task-worker.ts). Its payloads (worker/shuffle.ts) carry the
 * run's spec, as Spark ships a task's closure: the task must run the plan its driver runs, not an
 * edit made since.
 */
export const TASKS_QUEUE = 'weir-tasks';

/**
 * One worker's own tasks queue, which only that worker consumes (worker/task-worker.ts): where the
 * driver offers a reduce task first to the worker that holds its state partition (Spark's
 * preferred locations), for the locality wait, before moving it to TASKS_QUEUE
 * (worker/task-dispatcher.ts). Named by the worker's id, with what a queue name may not hold
 * replaced.
 */
export function executorTasksQueue(workerId: string): string {
  return `${TASKS_QUEUE}-on-${workerId.replace(/[^\w.-]/g, '_')}`;
}

/**
 * spark.locality.wait for reduce tasks, WEIR_LOCALITY_WAIT_MS's default (worker/task-dispatcher.ts).
 * Spark's 3 s is for tasks of seconds; a reduce task here takes 5–20 ms and what it saves on its partition's worker, the
 * state's reload (and the query's compile), is about half of that. An idle worker takes a task
 * from its queue in 1–3 ms, so 10 ms covers its pickup on a loaded machine, while a task whose
 * worker is busy or gone loses no more than a reload's worth before it goes to any worker.
 */
export const DEFAULT_LOCALITY_WAIT_MS = 10;
