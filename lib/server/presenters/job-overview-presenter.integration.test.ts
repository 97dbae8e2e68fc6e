/**
 * The jobs list's figures, read from a real PostgreSQL database of this test's own: the input
 * rate over the last minute, the latest batch's lag, the state-rows sparkline (last
 * SPARKLINE_BATCHES, oldest first), firing alerts only. Paging, filters and sort:
 * job-page-presenter.integration.test.ts.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { jobsQuerySchema } from '../http/api-schemas';
import { INPUT_RATE_WINDOW_MS, SPARKLINE_BATCHES } from './job-overview-presenter';
import { listJobPage } from './job-page-presenter';

/** Every job (one page of up to 500, by name) with its figures at `now`. */
const jobOverviews = async (d: PrismaClient, now?: number) => (await listJobPage(d, jobsQuerySchema.parse({ limit: '500' }), now)).items;

let database: TestDatabase;
let db: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase('weir_ui_overview');
  db = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

async function job(name: string, status: 'RUNNING' | 'STOPPED' | 'FAILED' = 'STOPPED') {
  return db.job.create({
    data: { name, status, spec: {}, sql: 'SELECT 1', sourceType: 'files', sinkType: 'files', outputMode: 'append', trigger: {}, checkpointLocation: `/tmp/${name}` },
  });
}

describe('jobOverviews', () => {
  it('is empty without jobs', async () => {
    expect(await jobOverviews(db)).toEqual([]);
  });

  it('reports the latest batch, the last batches as a sparkline, and firing alerts only', async () => {
    const busy = await job('busy', 'RUNNING');
    const idle = await job('idle');
    const n = SPARKLINE_BATCHES + 12;
    await db.batchProgress.createMany({
      data: Array.from({ length: n }, (_, i) => ({
        jobId: busy.id,
        batchId: i,
        timestamp: new Date(Date.UTC(2026, 10, 29, 9, 0, i)),
        numInputRows: 10,
        inputRowsPerSecond: i * 1.5,
        processedRowsPerSecond: 100,
        batchDurationMs: 10,
        durationMs: {},
        stateRowsTotal: BigInt(i * i),
        commitLag: i === n - 1 ? BigInt(42) : null,
        progress: {},
      })),
    });
    await db.alert.createMany({
      data: [
        { jobId: busy.id, kind: 'commit-lag', state: 'FIRING', dedupKey: 'a', message: 'lag is 42' },
        { jobId: busy.id, kind: 'state-rows', state: 'RESOLVED', dedupKey: 'b', message: 'was big' },
      ],
    });
    // Half a second after the last batch: all n batches (10 rows each, one a second) are in the
    // last minute and the job is younger than that, so the rate is over its n - 1 + 0.5 seconds.
    const now = Date.UTC(2026, 10, 29, 9, 0, n - 1) + 500;
    const [b, i] = await jobOverviews(db, now);
    expect(b.name).toBe('busy');
    expect(b.inputRowsPerSecond).toBeCloseTo((n * 10) / (n - 0.5), 9);
    expect(b.commitLag).toBe(42);
    expect(b.stateRowsTotal).toBe((n - 1) ** 2);
    expect(b.stateRowsSparkline).toEqual(Array.from({ length: SPARKLINE_BATCHES }, (_, k) => (n - SPARKLINE_BATCHES + k) ** 2));
    expect(b.firingAlerts).toEqual([{ kind: 'commit-lag', message: 'lag is 42' }]);
    expect(i).toMatchObject({ name: 'idle', inputRowsPerSecond: null, commitLag: null, stateRowsTotal: null, stateRowsSparkline: [], firingAlerts: [] });
    expect(idle.id).toBe(i.id);

  }, 60_000);

  it('the input rate is the last minute\'s rows over the minute, and falls to 0 when the source goes quiet (no batches run)', async () => {
    const steady = await job('steady', 'RUNNING');
    const t0 = Date.UTC(2026, 10, 29, 12, 0, 0);
    // 200 batches, one every 2 s, batch k with k rows: 400 s of history.
    await db.batchProgress.createMany({
      data: Array.from({ length: 200 }, (_, k) => ({
        jobId: steady.id,
        batchId: k,
        timestamp: new Date(t0 + k * 2000),
        numInputRows: k,
        inputRowsPerSecond: 999, // the per-batch figure is not what the list shows
        processedRowsPerSecond: 100,
        batchDurationMs: 10,
        durationMs: {},
        stateRowsTotal: BigInt(0),
        progress: {},
      })),
    });
    const at = async (now: number) => (await jobOverviews(db, now)).find((j) => j.id === steady.id)!.inputRowsPerSecond;
    // A hand-written loop over the same batches: those that triggered in [now - window, now].
    const expected = (now: number) => {
      let rows = 0;
      for (let k = 0; k < 200; k++) if (t0 + k * 2000 >= now - INPUT_RATE_WINDOW_MS && t0 + k * 2000 <= now) rows += k;
      return rows / (INPUT_RATE_WINDOW_MS / 1000);
    };
    // Read as the list is, at times after the newest batch (the counters keep the newest minute).
    for (const now of [t0 + 399_000, t0 + 398_000 + 12_345, t0 + 398_000 + 30_000]) expect(await at(now)).toBeCloseTo(expected(now), 9);
    // Five minutes after the last batch: nothing came in during the last minute.
    expect(await at(t0 + 398_000 + 300_000)).toBe(0);
  }, 60_000);
});
