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
