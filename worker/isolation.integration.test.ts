/**
 * One run can never take down another: a real worker process runs two jobs, one of which blows
 * its memory limit (an aggregation over millions of distinct keys a second, against a 128 MB
 * heap). That run ends FAILED with RESOURCE_EXHAUSTED naming the limit, its restart policy
 * applies as for any failure, and meanwhile the worker keeps heartbeating and the other job keeps
 * committing batches in the same run it had before.
 *
 * And a run's planning never stalls the worker: a query whose constant expressions take minutes
 * to evaluate (regexp_replace over a million characters) is planned without evaluating them, so
 * the worker's heartbeats keep their interval while the run starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRuns } from '@/lib/server/presenters/runs-presenter';
import { waitFor } from '@/lib/testing/wait-for';
import { exactlyOnce, WorkerHarness } from './testing/harness';

const LIMIT_MB = 128;

describe('run isolation: a run that exhausts its memory fails alone', () => {
  const h = new WorkerHarness('postgres');
  beforeAll(async () => h.setup(), 60_000);
  afterAll(async () => h.teardown(), 60_000);

  it('ends the greedy run FAILED with RESOURCE_EXHAUSTED while the worker and its other run go on', async () => {
    const w = h.spawnWorker({ WEIR_RUN_MEMORY_MB: String(LIMIT_MB) });
    const workerId = await w.id;

    const steady = await h.createFilesJob('steady');
    steady.addRows(0, 5);
    await h.start(steady.job.id);
    await waitFor('the steady job commits a batch', async () => (await h.db.batchProgress.count({ where: { jobId: steady.job.id } })) >= 1);
    const steadyRun = await h.db.run.findFirstOrThrow({ where: { jobId: steady.job.id } });

    // Every row a new key: the aggregation's state (and each batch's rows) grow past any heap.
    const spec = {
      name: 'greedy',
      source: {
        name: 'ticks',
        type: 'rate',
        options: { rowsPerSecond: 2_000_000 },
        schema: [
          { name: 'timestamp', type: 'timestamp' },
          { name: 'value', type: 'long' },
        ],
      },
      sql: 'SELECT value, count(*) AS n FROM ticks GROUP BY value',
      sink: { type: 'console', options: { numRows: 1 } },
      outputMode: 'update',
      trigger: { type: 'processing-time', interval: '1 second' },
      checkpointLocation: `${h.dir}/greedy/cp`,
    };
    const greedy = await h.db.job.create({
      data: {
        name: spec.name,
        spec,
        sql: spec.sql,
        sourceType: 'rate',
        sinkType: 'console',
        outputMode: 'update',
        trigger: spec.trigger,
        checkpointLocation: spec.checkpointLocation,
        restartPolicy: { maxRestarts: 1, backoffMs: 200 },
      },
    });
    await h.start(greedy.id);

    // Two runs (the first and its one restart), both out of memory; then the job stays FAILED.
    const failed = await waitFor(
      'the greedy job FAILED after its restart',
      async () => {
        const job = await h.db.job.findUnique({ where: { id: greedy.id } });
        return job?.status === 'FAILED' && job.desiredState === 'STOPPED' && job;
      },
      120_000,
    );
    const failedAt = new Date();
    const err = failed.lastError as { code: string; message: string; details?: Record<string, unknown> };
    expect(err.code, JSON.stringify(err)).toBe('RESOURCE_EXHAUSTED');
    expect(err.message).toContain(`memory limit of ${LIMIT_MB} MB (WEIR_RUN_MEMORY_MB)`);
    expect(err.details).toMatchObject({ resource: 'memory', memoryLimitMb: LIMIT_MB });
    const runs = await h.db.run.findMany({ where: { jobId: greedy.id }, orderBy: { startedAt: 'asc' } });
    expect(runs.map((r) => [r.status, r.attempt, (r.error as { code?: string } | null)?.code, r.workerId])).toEqual([
      ['FAILED', 0, 'RESOURCE_EXHAUSTED', workerId],
      ['FAILED', 1, 'RESOURCE_EXHAUSTED', workerId],
    ]);
    // The job page's runs show the limit that applied.
    expect((await listRuns(h.db, greedy.id)).items.map((r) => r.memoryLimitMb)).toEqual([LIMIT_MB, LIMIT_MB]);
    expect(w.output()).toMatch(/heap out of memory/);

    // The worker lives and heartbeats; the steady job's run is the one it had and still commits.
    expect(w.child.exitCode).toBeNull();
    await waitFor('a heartbeat after the failure', async () => {
      const worker = await h.db.worker.findUnique({ where: { id: workerId } });
      return worker && worker.lastHeartbeatAt > failedAt;
    });
    const before = await h.db.batchProgress.count({ where: { jobId: steady.job.id } });
    steady.addRows(5, 5);
    await waitFor('the steady job commits after the failure', async () => (await h.db.batchProgress.count({ where: { jobId: steady.job.id } })) > before);
    await waitFor('all of the steady rows', async () => exactlyOnce(await steady.sinkIds(), 10).missing.length === 0);
    expect(exactlyOnce(await steady.sinkIds(), 10)).toEqual({ missing: [], duplicated: [] });
    const steadyNow = await h.db.job.findUniqueOrThrow({ where: { id: steady.job.id } });
    expect(steadyNow.status).toBe('RUNNING');
    expect(await h.db.run.findMany({ where: { jobId: steady.job.id } })).toMatchObject([{ id: steadyRun.id, status: 'RUNNING', endedAt: null }]);

    await h.stop(steady.job.id);
    await waitFor('the steady job STOPPED', async () => (await h.db.job.findUnique({ where: { id: steady.job.id } }))?.status === 'STOPPED');
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
  }, 180_000);

  it('starts a run whose constant expressions are expensive without stalling the worker', async () => {
    const BEAT_MS = 100;
    const w = h.spawnWorker({ WEIR_WORKER_HEARTBEAT_MS: String(BEAT_MS) });
    const workerId = await w.id;
    // No input: the run only plans and waits for data, so all the work is the planning.
    const j = await h.createFilesJob('expensive-constant', { sql: "SELECT id, length(regexp_replace(repeat('a', 1000000), 'a', repeat('b', 100))) AS c FROM events" });
    const beats: number[] = [];
    let last = 0;
    const watch = setInterval(() => {
      void h.db.worker.findUnique({ where: { id: workerId }, select: { lastHeartbeatAt: true } }).then((x) => {
        const t = x?.lastHeartbeatAt.getTime() ?? 0;
        if (t > last) beats.push((last = t));
      });
    }, BEAT_MS / 2);
    try {
      const startedAt = Date.now();
      await h.start(j.job.id);
      await waitFor('the run RUNNING', async () => (await h.db.job.findUnique({ where: { id: j.job.id } }))?.status === 'RUNNING', 120_000);
      const runningAt = Date.now();
      await waitFor('ten heartbeats after RUNNING', async () => beats.filter((t) => t > runningAt).length >= 10);
      const during = beats.filter((t) => t >= startedAt - 1000);
      const gaps = during.slice(1).map((t, i) => t - during[i]);
      console.log(`[isolation figures] heartbeat every ${BEAT_MS} ms while the run started: largest gap ${Math.max(...gaps)} ms over ${gaps.length} beats`);
      // A stalled event loop shows as a gap of the stall's length (on the old planner, 55–91 s).
      expect(Math.max(...gaps)).toBeLessThan(1000);
    } finally {
      clearInterval(watch);
      w.child.kill('SIGKILL');
      await w.exited;
    }
  }, 180_000);
});
