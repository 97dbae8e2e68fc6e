/**
 * The metadata database blinks: PostgreSQL (and every backend of it) is SIGKILLed during runs and
 * comes back 10 s later. The runs go on (none fails), every sink holds each row once, and every
 * batch committed in a checkpoint has its history row afterwards (filled in from progress/N
 * where the write could not be made at the time).
 *
 * The database is this test's own embedded PostgreSQL (scripts/embedded-postgres.ts, as `npm start`
 * runs it) on a port and data directory of its own: killing the machine's shared PostgreSQL would
 * break every other test.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitLog, LocalCheckpointFileManager } from '@/lib/engine';
import { waitFor } from '@/lib/testing/wait-for';
import { exactlyOnce, WorkerHarness } from './testing/harness';
import { TestPostgres } from './testing/test-postgres';

const JOBS = 3;
const OUTAGE_MS = 10_000;

describe('PostgreSQL killed for 10 s during runs', () => {
  const pg = new TestPostgres();
  const h = new WorkerHarness('postgres');

  beforeAll(async () => {
    await h.setup({ databaseUrl: await pg.start() });
  }, 120_000);
  afterAll(async () => {
    await h.teardown();
    await pg.stop();
  }, 60_000);

  it('no run fails, every sink holds each row once, every committed batch is in the history', async () => {
    // A lease TTL longer than the outage's first seconds: batches commit while the database is
    // down (fence() passes for half a TTL after the last renewal), so their history writes fail
    // and are retried by the listener bus.
    const longLease = { WEIR_LEASE_TTL_MS: '20000' };
    const workers = [h.spawnWorker(longLease), h.spawnWorker(longLease)];
    await Promise.all(workers.map((w) => w.id));
    const jobs = await Promise.all(Array.from({ length: JOBS }, (_, i) => h.createFilesJob(`outage-${i}`)));
    const written = new Array(JOBS).fill(0);
    const feed = () =>
      jobs.forEach((j, i) => {
        j.addRows(written[i], 3);
        written[i] += 3;
      });
    feed();
    for (const j of jobs) await h.start(j.job.id);
    await waitFor('all jobs RUNNING', async () => (await h.db.job.count({ where: { status: 'RUNNING' } })) === JOBS, 60_000);
    // Input keeps arriving through the outage: batches commit while the database is down.
    const feeder = setInterval(feed, 400);
    await new Promise((r) => setTimeout(r, 1500));

    console.log(`PostgreSQL down ${await pg.blink(OUTAGE_MS)} ms (SIGKILL, ${OUTAGE_MS} ms, restart)`);
    await new Promise((r) => setTimeout(r, 3000));
    clearInterval(feeder);
    feed();

    await waitFor(
      'every sink to hold all input',
      async () => {
        for (let i = 0; i < JOBS; i++) if (exactlyOnce(await jobs[i].sinkIds(), written[i]).missing.length) return false;
        return true;
      },
      120_000,
    );
    const committed = async (i: number) => new CommitLog(new LocalCheckpointFileManager(path.join(jobs[i].base, 'cp'))).batchIds();
    // Every batch committed in the checkpoint is in the history (0..last, none missing).
    await waitFor(
      'the history of every committed batch',
      async () => {
        for (let i = 0; i < JOBS; i++) {
          const ids = (await h.db.batchProgress.findMany({ where: { jobId: jobs[i].job.id }, select: { batchId: true } })).map((b) => b.batchId);
          const last = Math.max(...(await committed(i)));
          for (let b = 0; b <= last; b++) if (!ids.includes(b)) return false;
        }
        return true;
      },
      120_000,
    );
    for (let i = 0; i < JOBS; i++) {
      expect(exactlyOnce(await jobs[i].sinkIds(), written[i]), `job ${i}`).toEqual({ missing: [], duplicated: [] });
      const history = (await h.db.batchProgress.findMany({ where: { jobId: jobs[i].job.id }, orderBy: { batchId: 'asc' } })).map((b) => b.batchId);
      const last = Math.max(...(await committed(i)));
      expect(history.filter((b) => b <= last), `job ${i}`).toEqual(Array.from({ length: last + 1 }, (_, b) => b));
    }
    const runs = await h.db.run.findMany({ select: { status: true, exitReason: true, error: true } });
    expect(runs.filter((r) => r.status === 'FAILED'), JSON.stringify(runs)).toEqual([]);
    expect(await h.db.job.count({ where: { status: 'RUNNING', desiredState: 'RUNNING' } })).toBe(JOBS);
    const logs = workers.map((w) => w.output()).join('');
    const count = (re: RegExp) => (logs.match(re) ?? []).length;
    console.log(`history writes retried: ${count(/history write failed/g)}; backfills: ${count(/history: filled in/g)}; fences that waited for the database: ${count(/cannot renew the lease/g)}`);
    expect(count(/history write failed/g), 'batches committed during the outage (else this test proves less than it says)').toBeGreaterThan(0);
    console.log(`runs: ${runs.map((r) => `${r.status}${r.exitReason ? ` (${r.exitReason})` : ''}`).join(', ')}`);
  }, 400_000);
});
