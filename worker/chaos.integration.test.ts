/**
 * Chaos: two worker processes, six running jobs with exactly-once sinks, and one worker killed
 * with SIGKILL at random (seeded) moments, several times, while input keeps arriving; twice a job
 * running on the killed worker is stopped within a second of the kill (a stop during failover),
 * and once PostgreSQL itself is SIGKILLed for 10 s. Every job ends in the state it was asked for,
 * every sink holds each row it took exactly once (all input, for the jobs left running), and no
 * committed batch is missing from any history.
 *
 * PostgreSQL is this test's own embedded instance (testing/test-postgres.ts), never the shared one.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitLog, LocalCheckpointFileManager } from '@/lib/engine';
import { enqueueRun } from '@/lib/queue/run-queue';
import { startJob, stopJob, type JobServiceContext } from '@/lib/server/services/job-service';
import { waitFor } from '@/lib/testing/wait-for';
import { exactlyOnce, WorkerHarness, type SpawnedWorker } from './testing/harness';
import { TestPostgres } from './testing/test-postgres';

/** mulberry32: a seeded generator, so a failing schedule replays the same way. */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.WEIR_CHAOS_SEED ?? 20261129);
const JOBS = 6;
const KILLS = 4;
const ROWS_PER_FILE = 5;
const STOPS_IN_FAILOVER = 2;
const PG_OUTAGE_MS = 10_000;

describe('chaos: SIGKILL a worker at random moments', () => {
  const pg = new TestPostgres();
  const h = new WorkerHarness('postgres');
  beforeAll(async () => h.setup({ databaseUrl: await pg.start() }), 120_000);
  afterAll(async () => {
    await h.teardown();
    await pg.stop();
  }, 60_000);

  it(`${JOBS} jobs through ${KILLS} worker kills, ${STOPS_IN_FAILOVER} stops during failover and a PostgreSQL kill: each in its asked state, sinks exactly-once, no history lost (seed ${SEED})`, async () => {
    const random = rng(SEED);
    const api: JobServiceContext = {
      db: h.db,
      principal: { actor: 'test:chaos', role: 'operator', via: 'bearer' },
      checkpointRoot: h.dir,
      filesRoots: [h.dir],
      enqueue: async (p) => enqueueRun(h.queue, { ...p, attempt: 0 }),
    };
    const stopped = new Set<number>();
    const timings: string[] = [];
    const workers: SpawnedWorker[] = [h.spawnWorker(), h.spawnWorker()];
    await Promise.all(workers.map((w) => w.id));
    const jobs = await Promise.all(Array.from({ length: JOBS }, (_, i) => h.createFilesJob(`chaos-${i}`)));
    const written = new Array(JOBS).fill(0);
    const feed = () =>
      jobs.forEach((j, i) => {
        if (stopped.has(i)) return; // a stopped job takes no more input
        j.addRows(written[i], ROWS_PER_FILE);
        written[i] += ROWS_PER_FILE;
      });
    feed();
    for (const j of jobs) await startJob(api, j.job.id);
    await waitFor('all jobs RUNNING', async () => (await h.db.job.count({ where: { status: 'RUNNING' } })) === JOBS, 60_000);

    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 500 + random() * 2500));
      feed();
      let victimIndex = Math.floor(random() * workers.length);
      // While stops during failover are still to come, kill a worker that runs a job to stop. Right
      // after a kill neither may (the killed worker's jobs wait for their failover, and one worker
      // can have taken every job): wait for one that does, rather than kill one that runs none.
      const runsOn = async (w: SpawnedWorker) => h.db.run.count({ where: { workerId: await w.id, endedAt: null, job: { desiredState: 'RUNNING' } } });
      if (stopped.size < STOPS_IN_FAILOVER) {
        const first = victimIndex;
        victimIndex = await waitFor('a live worker running a job to stop', async () => {
          for (const i of [first, 1 - first]) if ((await runsOn(workers[i])) > 0) return { i };
          return undefined;
        }, 120_000).then(({ i }) => i);
      }
      const victim = workers[victimIndex];
      const victimId = await victim.id;
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedAt = Date.now();
      if (stopped.size < STOPS_IN_FAILOVER) {
        // Stop a job whose run was on the killed worker, within a second: nobody may take it over.
        const onVictim = await h.db.run.findFirst({ where: { workerId: victimId, endedAt: null, job: { desiredState: 'RUNNING' } } });
        const i = onVictim ? jobs.findIndex((j) => j.job.id === onVictim.jobId) : -1;
        if (i >= 0) {
          stopped.add(i);
          await stopJob(api, jobs[i].job.id);
          void waitFor(`job ${i} STOPPED`, async () => (await h.db.job.findUnique({ where: { id: jobs[i].job.id } }))?.status === 'STOPPED', 120_000).then(
            () => timings.push(`job ${i} STOPPED ${Date.now() - killedAt} ms after the kill`),
            () => undefined,
          );
        }
      }
      feed();
      workers[victimIndex] = h.spawnWorker();
      await workers[victimIndex].id;
    }
    feed();
    const down = await pg.blink(PG_OUTAGE_MS);
    feed();

    // Every job left running is back to RUNNING on a live worker and catches up with all of its input.
    await waitFor(
      'every running job’s sink to hold all input',
      async () => {
        for (let i = 0; i < JOBS; i++) if (!stopped.has(i) && exactlyOnce(await jobs[i].sinkIds(), written[i]).missing.length) return false;
        return true;
      },
      180_000,
    );
    // Each job in the state it was asked for.
    await waitFor(
      'every job in its asked state',
      async () => {
        for (const [i, j] of jobs.entries()) {
          const job = await h.db.job.findUnique({ where: { id: j.job.id } });
          if (job?.status !== (stopped.has(i) ? 'STOPPED' : 'RUNNING')) return false;
        }
        return true;
      },
      120_000,
    );
    const committed = (i: number) => new CommitLog(new LocalCheckpointFileManager(path.join(jobs[i].base, 'cp'))).batchIds();
    await waitFor(
      'the history of every committed batch',
      async () => {
        for (let i = 0; i < JOBS; i++) {
          const ids = new Set((await h.db.batchProgress.findMany({ where: { jobId: jobs[i].job.id }, select: { batchId: true } })).map((b) => b.batchId));
          const last = Math.max(-1, ...(await committed(i)));
          const missing = Array.from({ length: last + 1 }, (_, b) => b).filter((b) => !ids.has(b));
          if (missing.length) {
            // Thrown, not returned: a timeout then says which job lacks which batches, and its runs.
            const runs = await h.db.run.findMany({ where: { jobId: jobs[i].job.id }, orderBy: { startedAt: 'asc' }, select: { status: true, exitReason: true } });
            throw new Error(`job ${i}${stopped.has(i) ? ' (stopped)' : ''} has no history for batches [${missing.join(', ')}] of 0..${last}; runs ${runs.map((r) => `${r.status} (${r.exitReason ?? ''})`).join(', ')}`);
          }
        }
        return true;
      },
      120_000,
    );
    for (let i = 0; i < JOBS; i++) {
      const ids = await jobs[i].sinkIds();
      // A stopped job holds a prefix of its input (files are taken in order), each row once.
      const expected = stopped.has(i) ? Math.max(0, ...ids.map((id) => id + 1)) : written[i];
      expect(exactlyOnce(ids, expected), `job ${i}${stopped.has(i) ? ' (stopped)' : ''}`).toEqual({ missing: [], duplicated: [] });
    }
    expect(stopped.size).toBe(STOPS_IN_FAILOVER);
    for (const i of stopped) {
      const runs = await h.db.run.findMany({ where: { jobId: jobs[i].job.id }, orderBy: { startedAt: 'asc' } });
      // Its run on the killed worker ended LOST (or, had it stopped first, STOPPED); nothing took it over.
      expect(runs.at(-1)?.status, JSON.stringify(runs.map((r) => [r.status, r.exitReason]))).toMatch(/^(LOST|STOPPED)$/);
      expect(runs.every((r) => r.endedAt !== null)).toBe(true);
    }
    // A run ended FAILED only because its worker was killed and another run took it over: the
    // PostgreSQL kill failed none.
    const failed = await h.db.run.findMany({ where: { status: 'FAILED' }, select: { exitReason: true } });
    expect(failed.filter((r) => !/^worker .* lost \(lease expired\); recovered by run/.test(r.exitReason ?? '')), JSON.stringify(failed)).toEqual([]);
    // The run history shows the recoveries.
    expect(await h.db.run.count({ where: { recoveredFromRunId: { not: null } } })).toBeGreaterThan(0);
    const byStatus = await h.db.run.groupBy({ by: ['status'], _count: true });
    console.log(
      `chaos (seed ${SEED}): PostgreSQL down ${down} ms; ${timings.join('; ')}; rows per job ${written.join(', ')}; runs ${byStatus.map((r) => `${r.status} ${r._count}`).join(', ')}`,
    );
  }, 600_000);
});
