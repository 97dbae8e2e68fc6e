import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Queues whose jobs move when the test says (a job with a live lock cannot be removed, as on both
// backends), and QueueEvents that deliver only the events the test emits: the Postgres backend's
// QueueEvents can lose one.
interface FakeJob {
  id: string;
  name: string;
  data: Record<string, unknown>;
  opts: { attempts: number };
  state: string;
  locked: boolean;
  attemptsStarted: number;
  attemptsMade: number;
}
/** By queue and id. */
const jobs = new Map<string, FakeJob>();
const looks = new Map<string, number>();
let moved = 0;
const events = Object.assign(new EventEmitter(), { waitUntilReady: async () => undefined, close: async () => undefined });
vi.mock('@/lib/queue/connection', () => ({
  makeQueue: (queue: string) => {
    const put = (id: string, job: Pick<FakeJob, 'name' | 'data' | 'opts'>) => {
      jobs.set(`${queue}/${id}`, { id, state: 'waiting', locked: false, attemptsStarted: 0, attemptsMade: 0, ...job });
      return { id };
    };
    return {
      addBulk: async (list: Pick<FakeJob, 'name' | 'data' | 'opts'>[]) => list.map((job, i) => put(`${queue === 'weir-tasks' ? 'j' : 'w'}${i}`, job)),
      add: async (name: string, data: FakeJob['data'], opts: FakeJob['opts']) => put(`moved${moved++}`, { name, data, opts }),
      getJobState: async (id: string) => {
        looks.set(id, (looks.get(id) ?? 0) + 1);
        return jobs.get(`${queue}/${id}`)?.state ?? 'unknown';
      },
      getJob: async (id: string) => {
        const job = jobs.get(`${queue}/${id}`);
        return job && { ...job, returnvalue: job.state === 'completed' ? { rows: 1, id } : undefined, finishedOn: job.state === 'completed' ? 1 : undefined };
      },
      remove: async (id: string) => {
        const job = jobs.get(`${queue}/${id}`);
        if (!job || job.locked) return 0;
        jobs.delete(`${queue}/${id}`);
        return 1;
      },
      close: async () => undefined,
    };
  },
  makeQueueEvents: () => events,
}));
const { TaskDispatcher } = await import('./task-dispatcher');

const CFG = { backend: 'postgres' as const, url: 'postgres://unused' };
const OWN = 'weir-tasks-on-w-1';
const reduce = (partitionId: number) => ({ kind: 'reduce', task: { stageId: 0, partitionId, batchId: 3 }, preferredLocation: 'w-1' }) as never;

describe('TaskDispatcher', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    jobs.clear();
    looks.clear();
    moved = 0;
  });
  afterEach(() => vi.useRealTimers());

  it("looks again soon at a task whose sibling's event came, in case its own was lost", async () => {
    const d = new TaskDispatcher(CFG);
    let outcomes: unknown;
    const done = d.dispatch([0, 1].map((mapId) => ({ kind: 'map', task: { stageId: 0, mapId } })) as never).then((o) => (outcomes = o));
    // Both waits back off to their longest sleep between looks.
    await vi.advanceTimersByTimeAsync(200);
    const before = looks.get('j1')!;
    jobs.get('weir-tasks/j0')!.state = 'completed';
    jobs.get('weir-tasks/j1')!.state = 'completed';
    events.emit('completed', { jobId: 'j0' });
    // Well under the longest sleep: without the nudge j1 is not looked at again yet.
    await vi.advanceTimersByTimeAsync(10);
    expect(looks.get('j1')).toBe(before + 1);
    expect(outcomes).toEqual([{ rows: 1, id: 'j0' }, { rows: 1, id: 'j1' }]);
    await done;
    await d.close();
  });

  it("returns the outcome a completed event carries, without reading the job's state or the job again", async () => {
    const d = new TaskDispatcher(CFG);
    let outcomes: unknown;
    const done = d.dispatch([{ kind: 'map', task: { stageId: 0, mapId: 0 } }] as never).then((o) => (outcomes = o));
    await vi.advanceTimersByTimeAsync(200);
    const before = looks.get('j0')!;
    // The fake job still looks active: only the event can give this outcome.
    events.emit('completed', { jobId: 'j0', returnvalue: { rows: 7, id: 'from the event' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(outcomes).toEqual([{ rows: 7, id: 'from the event' }]);
    expect(looks.get('j0')).toBe(before);
    await done;
    await d.close();
  });

  it('looks at a task first after its first sleep, never as it is added', async () => {
    const d = new TaskDispatcher(CFG);
    const done = d.dispatch([{ kind: 'map', task: { stageId: 0, mapId: 0 } }] as never);
    await vi.advanceTimersByTimeAsync(1);
    expect(looks.get('j0')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2);
    expect(looks.get('j0')).toBe(1);
    jobs.get('weir-tasks/j0')!.state = 'completed';
    await vi.advanceTimersByTimeAsync(10);
    await done;
    await d.close();
  });

  it('offers a reduce task to its preferred worker, and moves it to the shared queue when that worker has not taken it after the wait', async () => {
    const d = new TaskDispatcher(CFG, { localityWaitMs: 10 });
    let outcomes: unknown;
    const done = d.dispatch([reduce(0)]).then((o) => (outcomes = o));
    await vi.advanceTimersByTimeAsync(5);
    expect([...jobs.keys()]).toEqual([`${OWN}/w0`]);
    await vi.advanceTimersByTimeAsync(10);
    // Taken back: the shared queue has it, with all its attempts, numbered past any that a worker
    // claiming it as it was removed would run (attempt 1).
    expect([...jobs.keys()]).toEqual(['weir-tasks/moved0']);
    expect(jobs.get('weir-tasks/moved0')).toMatchObject({ name: 'reduce-0-0', data: { preferredLocation: 'w-1', priorAttempts: 1 }, opts: { attempts: 3 } });
    jobs.get('weir-tasks/moved0')!.state = 'completed';
    events.emit('completed', { jobId: 'moved0' });
    await vi.advanceTimersByTimeAsync(5);
    expect(outcomes).toEqual([{ rows: 1, id: 'moved0' }]);
    await done;
    await d.close();
  });

  it('leaves a task its preferred worker runs, and takes it back once that worker died holding it (its lock lapsed)', async () => {
    const d = new TaskDispatcher(CFG, { localityWaitMs: 10 });
    let outcomes: unknown;
    const done = d.dispatch([reduce(0), reduce(1)]).then((o) => (outcomes = o));
    await vi.advanceTimersByTimeAsync(2);
    // The worker takes both; it completes the first, and dies running the second.
    Object.assign(jobs.get(`${OWN}/w0`)!, { state: 'completed' });
    Object.assign(jobs.get(`${OWN}/w1`)!, { state: 'active', locked: true, attemptsStarted: 1 });
    await vi.advanceTimersByTimeAsync(5_000);
    expect([...jobs.keys()]).toEqual([`${OWN}/w0`, `${OWN}/w1`]);
    jobs.get(`${OWN}/w1`)!.locked = false;
    await vi.advanceTimersByTimeAsync(1_100);
    expect([...jobs.keys()]).toEqual([`${OWN}/w0`, 'weir-tasks/moved0']);
    // Its attempt there counts: the retry is attempt 3 (task-worker.ts adds priorAttempts; one
    // number is skipped, as a claim racing the removal would be attempt 2).
    expect(jobs.get('weir-tasks/moved0')).toMatchObject({ data: { priorAttempts: 2 }, opts: { attempts: 3 } });
    jobs.get('weir-tasks/moved0')!.state = 'completed';
    await vi.advanceTimersByTimeAsync(100);
    expect(outcomes).toEqual([{ rows: 1, id: 'w0' }, { rows: 1, id: 'moved0' }]);
    await done;
    await d.close();
  });

  it('sends every task to the shared queue with a locality wait of 0, and map tasks always', async () => {
    const d = new TaskDispatcher(CFG, { localityWaitMs: 0 });
    const done = d.dispatch([reduce(0)]);
    await vi.advanceTimersByTimeAsync(2);
    expect([...jobs.keys()]).toEqual(['weir-tasks/j0']);
    jobs.get('weir-tasks/j0')!.state = 'completed';
    await vi.advanceTimersByTimeAsync(100);
    await done;
    await d.close();
  });
});
