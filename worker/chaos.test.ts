/**
 * Chaos: two worker processes, six running jobs with exactly-once sinks, and one worker killed
 * with SIGKILL at random (seeded) moments, several times, while input keeps arriving. Every job
 * keeps running and every sink ends with each input row exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactlyOnce, waitFor, WorkerHarness, type SpawnedWorker } from './testing/harness';

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

describe('chaos: SIGKILL a worker at random moments', () => {
  const h = new WorkerHarness('postgres');
  beforeAll(async () => h.setup(), 60_000);
  afterAll(async () => h.teardown(), 60_000);

  it(`keeps ${JOBS} jobs running and every sink exactly-once through ${KILLS} kills (seed ${SEED})`, async () => {
    const random = rng(SEED);
    const workers: SpawnedWorker[] = [h.spawnWorker(), h.spawnWorker()];
    await Promise.all(workers.map((w) => w.id));
    const jobs = await Promise.all(Array.from({ length: JOBS }, (_, i) => h.createFilesJob(`chaos-${i}`)));
    const written = new Array(JOBS).fill(0);
    const feed = () =>
      jobs.forEach((j, i) => {
        j.addRows(written[i], ROWS_PER_FILE);
        written[i] += ROWS_PER_FILE;
      });
    feed();
    for (const j of jobs) await h.start(j.job.id);
    await waitFor('all jobs RUNNING', async () => (await h.db.job.count({ where: { status: 'RUNNING' } })) === JOBS, 60_000);

    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 500 + random() * 2500));
      feed();
      const victimIndex = Math.floor(random() * workers.length);
      const victim = workers[victimIndex];
      victim.child.kill('SIGKILL');
      await victim.exited;
      feed();
      workers[victimIndex] = h.spawnWorker();
      await workers[victimIndex].id;
    }
    feed();

    // Every job is back to RUNNING on a live worker and catches up with all of its input.
    await waitFor(
      'every sink to hold all input',
      async () => {
        for (let i = 0; i < JOBS; i++) if (exactlyOnce(await jobs[i].sinkIds(), written[i]).missing.length) return false;
        return true;
      },
      120_000,
    );
    for (let i = 0; i < JOBS; i++) {
      expect(exactlyOnce(await jobs[i].sinkIds(), written[i]), `job ${i}`).toEqual({ missing: [], duplicated: [] });
    }
    const running = await h.db.job.findMany({ where: { status: 'RUNNING' } });
    expect(running).toHaveLength(JOBS);
    // The run history shows the recoveries.
    expect(await h.db.run.count({ where: { recoveredFromRunId: { not: null } } })).toBeGreaterThan(0);
  }, 300_000);
});
