/**
 * The worker's side of a run's ClusterTaskScheduler (cluster-task-scheduler.ts): its engine
 * process hands a stage's map or reduce tasks here (engine-host.ts), and they go to the tasks queue as one job
 * each; this waits for every one to complete and returns what each returned.
 *
 * Retries are the queue's: a task whose worker dies (its lock not renewed) goes back to the queue
 * after WEIR_FAILOVER_MS and another worker takes it with the same input; a task that throws is
 * retried up to TASK_ATTEMPTS times in all.
 *
 * Completion: the queue's events (QueueEvents: a Redis stream, LISTEN/NOTIFY on Postgres) wake
 * the wait as soon as a task completes or fails, and a completed event carries the job's return
 * value, written by the same atomic step that completes the job (a Lua script on Redis, one
 * transaction on Postgres), so the wait returns it as it is: reading the state and then the job
 * again cost two more round trips and the parse of the whole payload, each task. Otherwise the
 * job's state decides, read through the Queue API: between looks the wait backs off from 2 ms to
 * MAX_POLL_MS, so an event missed (one sent before the listener was subscribed, a dropped
 * connection) costs that much latency, never the outcome. Polling alone cost a stage 10–45 ms of
 * its round trip (the look after a task's end comes up to 50 ms late).
 *
 * Locality (Spark's preferred locations with spark.locality.wait): a reduce task that names a
 * preferred location (the worker that ran its partition's last task and still holds the
 * partition's query, operator and state, ClusterTaskScheduler) goes to that worker's own queue
 * (executorTasksQueue), which only it consumes. Once the locality wait has passed, the dispatcher
 * takes the task back to the shared queue if no worker holds it: still waiting (the worker is
 * busy, or gone), delayed for a retry, or active under a lock that lapsed (the worker died
 * running it, after WEIR_FAILOVER_MS as on the shared queue; the attempt numbers count on). A task
 * its worker is running stays; the dispatcher tries again every TAKE_BACK_MS. Removing a job
 * succeeds only when no live lock holds it, on both backends, so a task runs twice only as a
 * zombie can today (Postgres' remove may in a rare race take a job just claimed), and a second
 * attempt's output is fenced by its attempt id as a zombie's is.
 *
 * The Postgres backend's QueueEvents drops a NOTIFY that lands while it is reading the events
 * after the previous one, so a task that ends a few ms after a sibling often has its event
 * missed (on its own, QueueEvents would deliver it only at its next event or after 10 s). An
 * event therefore also brings every other wait's next look to within NUDGE_MS: tasks of a stage
 * end together, and the look finds the one whose event was lost.
 */
import type { Queue, QueueEvents } from 'bullmq';
import { makeQueue, makeQueueEvents, type QueueConfig } from '@/lib/queue/connection';
import { DEFAULT_LOCALITY_WAIT_MS, executorTasksQueue, TASKS_QUEUE } from '@/lib/queue/queues';
import type { ReduceTaskPayload, TaskOutcome, TaskPayload } from './shuffle';

const TASK_ATTEMPTS = 3;
const MAX_POLL_MS = 50;
const NUDGE_MS = 5;
/**
 * How often, past the wait, the dispatcher tries to take back a task its preferred worker is
 * running: it succeeds only once that worker's lock lapsed (WEIR_FAILOVER_MS, at least 1 s).
 */
const TAKE_BACK_MS = 1000;
/** A worker's queue no task was sent to for this long has its connections closed (the worker may be gone). */
const IDLE_QUEUE_MS = 60_000;

/** A wait's sleep until its next look: woken early by its job's event or a sibling's. */
interface Sleep {
  wake: () => void;
  /** When the next look is due (Date.now() ms). */
  due: number;
  timer: NodeJS.Timeout;
  /** The job's return value, when its completed event woke the sleep. */
  outcome?: TaskOutcome;
}

/** A queue tasks are sent to: the shared one, or one worker's own. */
interface Target {
  name: string;
  queue: Queue<TaskPayload>;
  /** Its events, or none when they cannot be had (its waits then only poll). */
  events: Promise<QueueEvents | undefined>;
  /** Waits on its jobs now, and when the last one ended (IDLE_QUEUE_MS). */
  waits: number;
  usedAt: number;
}

const jobOptions = (attempts: number) => ({
  attempts,
  backoff: { type: 'fixed' as const, delay: 200 },
  // Kept a while for inspection; the outcome is read as soon as it completes.
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 24 * 3600 },
});

export class TaskDispatcher {
  private readonly targets = new Map<string, Target>();
  /** The waits' sleeps, by queue and job id, woken by the job's next completed or failed event. */
  private readonly sleeps = new Map<string, Sleep>();

  constructor(
    private readonly cfg: QueueConfig,
    private readonly o: { localityWaitMs?: number } = {},
  ) {}

  async dispatch(payloads: TaskPayload[], signal?: AbortSignal): Promise<TaskOutcome[]> {
    this.closeIdle();
    const localityWaitMs = this.o.localityWaitMs ?? DEFAULT_LOCALITY_WAIT_MS;
    const byQueue = new Map<string, number[]>();
    for (const [i, p] of payloads.entries()) {
      const name = p.kind !== 'map' && p.preferredLocation && localityWaitMs > 0 ? executorTasksQueue(p.preferredLocation) : TASKS_QUEUE;
      byQueue.set(name, [...(byQueue.get(name) ?? []), i]);
    }
    const jobs: { target: Target; id: string }[] = [];
    await Promise.all(
      [...byQueue].map(async ([name, indices]) => {
        const target = this.target(name);
        // Listening before the jobs exist, so their events are not sent before it is.
        await target.events;
        const added = await target.queue.addBulk(indices.map((i) => ({ name: taskName(payloads[i]), data: payloads[i], opts: jobOptions(TASK_ATTEMPTS) })));
        for (const [k, j] of added.entries()) jobs[indices[k]] = { target, id: j.id! };
      }),
    );
    const deadline = Date.now() + localityWaitMs;
    return Promise.all(jobs.map(({ target, id }) => this.waitFor(target, id, signal, target.name === TASKS_QUEUE ? undefined : deadline)));
  }

  private target(name: string): Target {
    let t = this.targets.get(name);
    if (!t) this.targets.set(name, (t = { name, queue: makeQueue<TaskPayload>(name, this.cfg), events: this.listen(name), waits: 0, usedAt: Date.now() }));
    t.usedAt = Date.now();
    return t;
  }

  /** The queue's events, or none when they cannot be had (the waits then only poll). */
  private async listen(name: string): Promise<QueueEvents | undefined> {
    const events = makeQueueEvents(name, this.cfg);
    events.on('completed', ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) => this.onEvent(name, jobId, returnvalue as TaskOutcome | undefined));
    events.on('failed', ({ jobId }: { jobId: string }) => this.onEvent(name, jobId));
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

  /** Closes the connections of the workers' queues no task went to lately (a dead worker's, mostly). */
  private closeIdle(): void {
    const cutoff = Date.now() - IDLE_QUEUE_MS;
    for (const [name, t] of this.targets) {
      if (name === TASKS_QUEUE || t.waits > 0 || t.usedAt > cutoff) continue;
      this.targets.delete(name);
      void closeTarget(t).catch(() => undefined);
    }
  }

  /**
   * Wakes the job's wait (with its return value when it completed), and brings the others' next
   * looks to within NUDGE_MS.
   */
  private onEvent(queue: string, jobId: string, returnvalue?: TaskOutcome): void {
    const key = sleepKey(queue, jobId);
    const sleep = this.sleeps.get(key);
    if (sleep && returnvalue) sleep.outcome = returnvalue;
    sleep?.wake();
    const soon = Date.now() + NUDGE_MS;
    for (const [k, sleep] of this.sleeps) {
      if (k === key || sleep.due <= soon) continue;
      clearTimeout(sleep.timer);
      sleep.due = soon;
      sleep.timer = setTimeout(sleep.wake, NUDGE_MS);
    }
  }

  /**
   * Waits for a job's outcome. `takeBackAt`: the job is in a worker's own queue, and from then on
   * it is moved to the shared queue if no worker holds it (takeBack).
   */
  private async waitFor(target: Target, id: string, signal?: AbortSignal, takeBackAt?: number): Promise<TaskOutcome> {
    let delay = 2;
    let fresh = true;
    target.waits++;
    try {
      for (;;) {
        signal?.throwIfAborted();
        const key = sleepKey(target.name, id);
        // Armed before the look, so an event between the look and the sleep still wakes it.
        let sleep: Sleep | undefined;
        const woken = new Promise<void>((resolve) => {
          const ms = takeBackAt === undefined ? delay : Math.max(0, Math.min(delay, takeBackAt - Date.now()));
          sleep = { wake: resolve, due: Date.now() + ms, timer: setTimeout(resolve, ms) };
          this.sleeps.set(key, sleep);
        });
        try {
          // The state first, then the job: a job read before it completed has no return value yet.
          // A job just added has not run: its first look is after the first sleep.
          const state = fresh ? undefined : await target.queue.getJobState(id);
          fresh = false;
          if (state === 'completed' || state === 'failed') {
            const job = await target.queue.getJob(id);
            if (state === 'completed' && job?.returnvalue) return job.returnvalue as unknown as TaskOutcome;
            if (state === 'failed' && job) {
              throw new Error(`${job.name} task of batch ${job.data.task.batchId} failed after ${job.attemptsMade} attempt(s): ${job.failedReason}`);
            }
          } else if (state === 'unknown') {
            throw new Error(`task ${id} vanished from the ${target.name} queue (the queue lost its contents): the batch is retried`);
          } else if (takeBackAt !== undefined && Date.now() >= takeBackAt) {
            const moved = await this.takeBack(target, id);
            if (moved) {
              target.waits--;
              target.usedAt = Date.now();
              ({ target, id } = moved);
              target.waits++;
              takeBackAt = undefined;
              delay = 2;
              fresh = true;
              continue;
            }
            takeBackAt = Date.now() + TAKE_BACK_MS;
          }
          await woken;
          if (sleep?.outcome) return sleep.outcome;
        } finally {
          clearTimeout(sleep?.timer);
          this.sleeps.delete(key);
        }
        delay = Math.min(MAX_POLL_MS, delay * 2);
      }
    } finally {
      target.waits--;
      target.usedAt = Date.now();
    }
  }

  /**
   * Moves a task from a worker's own queue to the shared one, unless a worker holds it: the queue
   * removes a job only while no live lock is on it (waiting, delayed for a retry, or active with
   * its worker dead). The attempts it used there count: the shared queue's job has those left,
   * and its attempt numbers go on from them (ReduceTaskPayload.priorAttempts).
   */
  private async takeBack(from: Target, id: string): Promise<{ target: Target; id: string } | undefined> {
    const job = await from.queue.getJob(id);
    // Finished meanwhile: the next look reads its outcome.
    if (!job || job.finishedOn) return undefined;
    if ((await from.queue.remove(id)) !== 1) return undefined;
    const data = job.data as ReduceTaskPayload;
    const shared = this.target(TASKS_QUEUE);
    await shared.events;
    // One attempt number is skipped: should a worker claim the job in the instant it is removed (a
    // race the Postgres backend allows), that run is attempt attemptsStarted + 1, and the moved
    // task's attempts must still differ from it, so that its output is fenced from this one's.
    const moved = await shared.queue.add(job.name, { ...data, priorAttempts: (data.priorAttempts ?? 0) + job.attemptsStarted + 1 }, jobOptions(Math.max(1, TASK_ATTEMPTS - job.attemptsMade)));
    return { target: shared, id: moved.id! };
  }

  async close(): Promise<void> {
    const targets = [...this.targets.values()];
    this.targets.clear();
    await Promise.all(targets.map(closeTarget));
  }
}

async function closeTarget(t: Target): Promise<void> {
  await (await t.events)?.close();
  await t.queue.close();
}

const sleepKey = (queue: string, jobId: string) => `${queue}\n${jobId}`;

/** The queue job's name: `map-<stage>-<split>` or `reduce-<stage>-<partition>`. */
function taskName(p: TaskPayload): string {
  return p.kind === 'map' ? `map-${p.task.stageId}-${p.task.mapId}` : `reduce-${p.task.stageId}-${p.task.partitionId}`;
}
