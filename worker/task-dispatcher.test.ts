import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// A queue whose jobs complete when the test says, and QueueEvents that deliver only the events
// the test emits: the Postgres backend's QueueEvents can lose one.
const states = new Map<string, string>();
const looks = new Map<string, number>();
const events = Object.assign(new EventEmitter(), { waitUntilReady: async () => undefined, close: async () => undefined });
vi.mock('@/lib/queue/connection', () => ({
  makeQueue: () => ({
    addBulk: async (jobs: unknown[]) => jobs.map((_, i) => {
      states.set(`j${i}`, 'active');
      return { id: `j${i}` };
    }),
    getJobState: async (id: string) => {
      looks.set(id, (looks.get(id) ?? 0) + 1);
      return states.get(id);
    },
    getJob: async (id: string) => ({ id, returnvalue: { rows: 1, id } }),
    close: async () => undefined,
  }),
  makeQueueEvents: () => events,
}));
const { TaskDispatcher } = await import('./task-dispatcher');

describe('TaskDispatcher', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("looks again soon at a task whose sibling's event came, in case its own was lost", async () => {
    const d = new TaskDispatcher({ backend: 'postgres', url: 'postgres://unused' });
    let outcomes: unknown;
    const done = d.dispatch([0, 1].map((mapId) => ({ kind: 'map', task: { stageId: 0, mapId } })) as never).then((o) => (outcomes = o));
    // Both waits back off to their longest sleep between looks.
    await vi.advanceTimersByTimeAsync(200);
    const before = looks.get('j1')!;
    states.set('j0', 'completed');
    states.set('j1', 'completed');
    events.emit('completed', { jobId: 'j0' });
    // Well under the longest sleep: without the nudge j1 is not looked at again yet.
    await vi.advanceTimersByTimeAsync(10);
    expect(looks.get('j1')).toBe(before + 1);
    expect(outcomes).toEqual([{ rows: 1, id: 'j0' }, { rows: 1, id: 'j1' }]);
    await done;
    await d.close();
  });
});
