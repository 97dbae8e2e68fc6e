/**
 * Where a job's recent reduce tasks ran, read from a real PostgreSQL database of this test's own:
 * per worker over the newest batches, tasks of older batches left out, progress JSON of another
 * shape counted as no tasks.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { NotFoundError } from '../errors';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { taskPlacement } from './task-placement-presenter';

let database: TestDatabase;
let db: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase('weir_task_placement');
  db = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

async function job(name: string, parallelism?: number) {
  return db.job.create({
    data: { name, status: 'RUNNING', spec: parallelism ? { parallelism } : {}, sql: 'SELECT 1', sourceType: 'files', sinkType: 'files', outputMode: 'append', trigger: {}, checkpointLocation: `/tmp/${name}` },
  });
}

const task = (workerId: string, partitionId: number, attempt = 1) => ({ stageId: 0, partitionId, workerId, inputRows: 10 + partitionId, rows: 2, shuffleBytes: 100, durationMs: 5, attempt });

describe('taskPlacement', () => {
  it('sums each worker\'s tasks over the newest batches', async () => {
    const j = await job('spread', 2);
    const progress = [
      { tasks: [task('w-old', 0), task('w-old', 1)] }, // batch 0: older than the 3 read
      { tasks: [task('w1', 0), task('w2', 1)] },
      {}, // ran in the run's own process
      { tasks: [task('w1', 0), task('w1', 1, 2), { workerId: 7 }, 'junk'] },
      { tasks: [task('w2', 0), task('w2', 1)] },
    ];
    await db.batchProgress.createMany({
      data: progress.map((p, i) => ({ jobId: j.id, batchId: i, timestamp: new Date(Date.UTC(2026, 11, 4, 10, 0, i)), numInputRows: 1, inputRowsPerSecond: 1, processedRowsPerSecond: 1, batchDurationMs: 1, durationMs: {}, progress: p })),
    });
    const r = await taskPlacement(db, j.id, { batches: 4 });
    expect(r).toMatchObject({ parallelism: 2, batches: 4, fromBatchId: 1, toBatchId: 4, batchesWithTasks: 3 });
    expect(r.workers).toEqual([
      { workerId: 'w1', tasks: 3, batches: 2, inputRows: 31, rows: 6, durationMs: 15, retries: 1 },
      { workerId: 'w2', tasks: 3, batches: 2, inputRows: 32, rows: 6, durationMs: 15, retries: 0 },
    ]);
    expect((await taskPlacement(db, j.id)).workers.map((w) => w.workerId)).toEqual(['w1', 'w2', 'w-old']);
  });

  it('answers a job without batches, and 404 for no job', async () => {
    const j = await job('fresh');
    expect(await taskPlacement(db, j.id)).toEqual({ parallelism: 1, batches: 0, fromBatchId: null, toBatchId: null, batchesWithTasks: 0, workers: [] });
    await expect(taskPlacement(db, 'no-such-job')).rejects.toThrow(NotFoundError);
  });
});
