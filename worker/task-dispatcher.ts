/**
 * The worker's side of a run's ClusterTaskScheduler (cluster-task-scheduler.ts): its engine
 * process hands a stage's map or reduce tasks here (engine-host.ts), and they go to the tasks queue as one job
 * each; this waits for every one to complete and returns what each returned.
 *
 * Retries are the queue's: a task whose worker dies (its lock not renewed) goes back to the queue
 * after WEIR_FAILOVER_MS and another worker takes it with the same input; a task that throws is
 * retried up to TASK_ATTEMPTS times in all.
 *
 * Completion: the queue's job state is what decides, read through the Queue API; the queue's
 * events (QueueEvents: a Redis stream, LISTEN/NOTIFY on Postgres) only wake the wait as soon as a
 * task completes or fails. Between looks the wait backs off from 2 ms to MAX_POLL_MS, so an event
 * missed (one sent before the listener was subscribed, a dropped connection) costs that much
 * latency, never the outcome. Polling alone cost a stage 10–45 ms of its round trip (the look
 * after a task's end comes up to 50 ms late); the event brings it to the few ms of a look.
 *
 * The Postgres backend's QueueEvents drops a NOTIFY that lands while it is reading the events
 * after the previous one, so a task that ends a few ms after a sibling often has its event
 * missed (on its own, QueueEvents would deliver it only at its next event or after 10 s). An
 * event therefore also brings every other wait's next look to within NUDGE_MS: tasks of a stage
 * end together, and the look finds the one whose event was lost.
 */
import type { Queue, QueueEvents } from 'bullmq';
import { makeQueue, makeQueueEvents, type QueueConfig } from '@/lib/queue/connection';
import { TASKS_QUEUE } from '@/lib/queue/queues';
import type { TaskOutcome, TaskPayload } from './shuffle';

const TASK_ATTEMPTS = 3;
const MAX_POLL_MS = 50;
const NUDGE_MS = 5;

/** A wait's sleep until its next look: woken early by its job's event or a sibling's. */
interface Sleep {
  wake: () => void;
  /** When the next look is due (Date.now() ms). */
  due: number;
  timer: NodeJS.Timeout;
}

export class TaskDispatcher {
  private queue?: Queue<TaskPayload>;
  private events?: Promise<QueueEvents | undefined>;
  /** The waits' sleeps, by job id, woken by the job's next completed or failed event. */
  private readonly sleeps = new Map<string, Sleep>();

  constructor(private readonly cfg: QueueConfig) {}

  async dispatch(payloads: TaskPayload[], signal?: AbortSignal): Promise<TaskOutcome[]> {
    const queue = (this.queue ??= makeQueue<TaskPayload>(TASKS_QUEUE, this.cfg));
    // Listening before the jobs exist, so their events are not sent before it is.
    await (this.events ??= this.listen());
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

  /** The queue's events, or none when they cannot be had (the waits then only poll). */
  private async listen(): Promise<QueueEvents | undefined> {
    const events = makeQueueEvents(TASKS_QUEUE, this.cfg);
    const wake = ({ jobId }: { jobId: string }) => this.onEvent(jobId);
    events.on('completed', wake);
    events.on('failed', wake);
    // A lost events connection only slows the waits to their polling.
    events.on('error', () => undefined);
    try {
      await events.waitUntilReady();
      return events;
    } catch {
      await events.close().catch(() => undefined);
      return undefined;
    }
  }

  /** Wakes the job's wait, and brings the others' next looks to within NUDGE_MS. */
  private onEvent(jobId: string): void {
    this.sleeps.get(jobId)?.wake();
    const soon = Date.now() + NUDGE_MS;
    for (const [id, sleep] of this.sleeps) {
      if (id === jobId || sleep.due <= soon) continue;
      clearTimeout(sleep.timer);
      sleep.due = soon;
      sleep.timer = setTimeout(sleep.wake, NUDGE_MS);
    }
  }

  private async waitFor(queue: Queue<TaskPayload>, id: string, signal?: AbortSignal): Promise<TaskOutcome> {
    let delay = 2;
    for (;;) {
      signal?.throwIfAborted();
      // Armed before the look, so an event between the look and the sleep still wakes it.
      let sleep: Sleep | undefined;
      const woken = new Promise<void>((resolve) => {
        sleep = { wake: resolve, due: Date.now() + delay, timer: setTimeout(resolve, delay) };
        this.sleeps.set(id, sleep);
      });
      try {
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
        await woken;
      } finally {
        clearTimeout(sleep?.timer);
        this.sleeps.delete(id);
      }
      delay = Math.min(MAX_POLL_MS, delay * 2);
    }
  }

  async close(): Promise<void> {
    await (await this.events)?.close();
    await this.queue?.close();
  }
}

/** The queue job's name: `map-<stage>-<split>` or `reduce-<stage>-<partition>`. */
function taskName(p: TaskPayload): string {
  return p.kind === 'map' ? `map-${p.task.stageId}-${p.task.mapId}` : `reduce-${p.task.stageId}-${p.task.partitionId}`;
}
