/**
 * The worker's side of a run's ClusterTaskScheduler (cluster-task-scheduler.ts): its engine
 * process hands a stage's map or reduce tasks here (engine-host.ts), and they go to the tasks queue as one job
 * each; this waits for every one to complete and returns what each returned.
 *
 * Retries are the queue's: a task whose worker dies (its lock not renewed) goes back to the queue
 * after WEIR_FAILOVER_MS and another worker takes it with the same input; a task that throws is
 * retried up to TASK_ATTEMPTS times in all. Completion is polled through the Queue API, which both
 * backends have (BullMQ's QueueEvents needs Redis streams).
 */
import type { Queue } from 'bullmq';
import { makeQueue, type QueueConfig } from '@/lib/queue/connection';
import { TASKS_QUEUE } from '@/lib/queue/queues';
import type { TaskOutcome, TaskPayload } from './shuffle';

const TASK_ATTEMPTS = 3;
const MAX_POLL_MS = 50;

export class TaskDispatcher {
  private queue?: Queue<TaskPayload>;

  constructor(private readonly cfg: QueueConfig) {}

  async dispatch(payloads: TaskPayload[], signal?: AbortSignal): Promise<TaskOutcome[]> {
    const queue = (this.queue ??= makeQueue<TaskPayload>(TASKS_QUEUE, this.cfg));
    const jobs = await queue.addBulk(
      payloads.map((data) => ({
        name: taskName(data),
        data,
        opts: {
          attempts: TASK_ATTEMPTS,
          backoff: { type: 'fixed', delay: 200 },
          // Kept a while for inspection; the outcome is read as soon as it completes.
          removeOnComplete: { age: 3600, count: 10_000 },
          removeOnFail: { age: 24 * 3600 },
        },
      })),
    );
    return Promise.all(jobs.map((j) => this.waitFor(queue, j.id!, signal)));
  }

  private async waitFor(queue: Queue<TaskPayload>, id: string, signal?: AbortSignal): Promise<TaskOutcome> {
    let delay = 2;
    for (;;) {
      signal?.throwIfAborted();
      // The state first, then the job: a job read before it completed has no return value yet.
      const state = await queue.getJobState(id);
      if (state === 'completed' || state === 'failed') {
        const job = await queue.getJob(id);
        if (state === 'completed' && job?.returnvalue) return job.returnvalue as unknown as TaskOutcome;
        if (state === 'failed' && job) {
          throw new Error(`${job.name} task of batch ${job.data.task.batchId} failed after ${job.attemptsMade} attempt(s): ${job.failedReason}`);
        }
      } else if (state === 'unknown') {
        throw new Error(`task ${id} vanished from the ${TASKS_QUEUE} queue (the queue lost its contents): the batch is retried`);
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(MAX_POLL_MS, delay * 2);
    }
  }

  async close(): Promise<void> {
    await this.queue?.close();
  }
}

/** The queue job's name: `map-<stage>-<split>` or `reduce-<stage>-<partition>`. */
function taskName(p: TaskPayload): string {
  return p.kind === 'map' ? `map-${p.task.stageId}-${p.task.mapId}` : `reduce-${p.task.stageId}-${p.task.partitionId}`;
}
