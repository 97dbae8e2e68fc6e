/**
 * The jobs list's figures, read from a real PostgreSQL database of this test's own: the latest
 * batch's rate and lag, the state-rows sparkline (last SPARKLINE_BATCHES, oldest first), firing
 * alerts only; and the list's filter and sort (nulls last both ways).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterAndSortJobs } from '@/components/job-sorting';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { jobOverviews, SPARKLINE_BATCHES } from './job-overview-presenter';

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
    const [b, i] = await jobOverviews(db);
    expect(b.name).toBe('busy');
    expect(b.inputRowsPerSecond).toBe((n - 1) * 1.5);
    expect(b.commitLag).toBe(42);
    expect(b.stateRowsTotal).toBe((n - 1) ** 2);
    expect(b.stateRowsSparkline).toEqual(Array.from({ length: SPARKLINE_BATCHES }, (_, k) => (n - SPARKLINE_BATCHES + k) ** 2));
    expect(b.firingAlerts).toEqual([{ kind: 'commit-lag', message: 'lag is 42' }]);
    expect(i).toMatchObject({ name: 'idle', inputRowsPerSecond: null, commitLag: null, stateRowsTotal: null, stateRowsSparkline: [], firingAlerts: [] });
    expect(idle.id).toBe(i.id);

    // Sorting by rate puts the job without batches last in both directions.
    expect(filterAndSortJobs([i, b], { sort: 'inputRowsPerSecond', dir: 'desc' }).map((j) => j.name)).toEqual(['busy', 'idle']);
    expect(filterAndSortJobs([b, i], { sort: 'inputRowsPerSecond', dir: 'asc' }).map((j) => j.name)).toEqual(['busy', 'idle']);
    expect(filterAndSortJobs([b, i], { sort: 'alerts', dir: 'desc' }).map((j) => j.name)).toEqual(['busy', 'idle']);
    expect(filterAndSortJobs([b, i], { status: 'STOPPED' }).map((j) => j.name)).toEqual(['idle']);
    expect(filterAndSortJobs([b, i], { q: 'BU' }).map((j) => j.name)).toEqual(['busy']);
    expect(filterAndSortJobs([b, i], { sort: 'name', dir: 'desc' }).map((j) => j.name)).toEqual(['idle', 'busy']);
  }, 60_000);
});
