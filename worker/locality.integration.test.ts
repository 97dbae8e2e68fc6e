/**
 * Spark's preferred locations for state stores (task-dispatcher.ts): a driver with its map and
 * reduce tasks on two task workers over the real queue (Redis, and BullMQ's Postgres backend),
 * as parallel.bench.ts runs it. A reduce task is offered first to the worker that ran its
 * partition's last task, so over many batches the tasks stay with their partitions (the queue's
 * choice alone moved about half of them); and a preferred worker that stops does not stall a
 * batch: its tasks go to the other worker once the locality wait has passed.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointFileManagerFor, MemorySinkTable, MicroBatchExecution, parseJobSpec, SystemClock, type TaskProgress } from '@/lib/engine';
import { makeQueue, queueConfigFrom, type QueueConfig } from '@/lib/queue/connection';
import { executorTasksQueue } from '@/lib/queue/queues';
import { createTestDatabase, type TestDatabase } from '@/lib/testing/pg-test-database';
import { ClusterTaskScheduler } from './cluster-task-scheduler';
import { TaskDispatcher } from './task-dispatcher';
import { startTaskWorker } from './task-worker';

/** Its own Redis database: the other suites' are 0, 9, 11, 12 and 13. */
const REDIS_URL = 'redis://127.0.0.1:6379/14';
const KEYS = 40;
const ROWS_PER_FILE = 200;
const FILES_PER_BATCH = 2;

/** Reduce tasks that ran on another worker than their partition's last task (parallel.bench.ts counts them alike). */
function movedReduceTasks(tasks: TaskProgress[]): number {
  const last = new Map<string, string>();
  let moved = 0;
  for (const t of tasks) {
    if (t.kind === 'map') continue;
    const key = `${t.stageId}/${t.partitionId}`;
    if (last.has(key) && last.get(key) !== t.workerId) moved++;
    last.set(key, t.workerId);
  }
  return moved;
}

describe.each(['redis', 'postgres'] as const)('reduce tasks at their preferred locations (queue on %s)', (backend) => {
  let dir: string;
  let database: TestDatabase | undefined;
  let queue: QueueConfig;
  const workers = new Map<string, { close(): Promise<void> }>();

  const startWorker = async (workerId: string) => {
    const input = (jobId: string) => [{ path: jobId, format: 'json', maxFilesPerTrigger: FILES_PER_BATCH }];
    workers.set(
      workerId,
      await startTaskWorker({
        config: { ...(backend === 'redis' ? { REDIS_URL } : { DATABASE_URL: database!.url }), dataDir: path.join(dir, workerId), WEIR_FAILOVER_MS: 2000, WEIR_TASK_CONCURRENCY: 1, WEIR_TEST_TASK_DELAY_MS: 0 },
        workerId,
        log: pino({ level: 'warn' }),
        // No database of jobs here: the "job id" is the input folder.
        sourceOptions: async (jobId) => input(jobId),
      }),
    );
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'weir-locality-'));
    if (backend === 'postgres') database = await createTestDatabase('weir_locality');
    queue = queueConfigFrom(backend === 'redis' ? { REDIS_URL } : { DATABASE_URL: database!.url });
    const suffix = `${backend}-${process.pid}`;
    await startWorker(`a-${suffix}`);
    await startWorker(`b-${suffix}`);
  }, 120_000);

  afterAll(async () => {
    for (const w of workers.values()) await w.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  /**
   * A count per key over parallelism 2, `batches` batches of two files each; `between(b, n)` runs
   * before batch b, n reduce tasks having run. Returns the reduce tasks as the driver recorded them.
   */
  const runQuery = async (name: string, dispatcher: TaskDispatcher, batches: number, between?: (b: number, reducesSoFar: number) => Promise<void>) => {
    const base = path.join(dir, name);
    const input = path.join(base, 'in');
    await mkdir(input, { recursive: true });
    const parsed = parseJobSpec({
      name,
      source: { name: 'events', type: 'files', options: { path: input, format: 'json', maxFilesPerTrigger: FILES_PER_BATCH }, schema: [{ name: 'k', type: 'string' }, { name: 'v', type: 'long' }] },
      sql: 'SELECT k, count(*) AS n FROM events GROUP BY k',
      sink: { type: 'memory', options: { table: `${name}-${backend}` } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(base, 'checkpoint'),
      parallelism: 2,
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const spec = parsed.spec;
    const scheduler = new ClusterTaskScheduler({
      spec,
      checkpoint: checkpointFileManagerFor(spec.checkpointLocation),
      queryId: () => q.id,
      submit: (p) => dispatcher.dispatch(p.map((t) => ({ ...t, jobId: input }))),
    });
    const q: MicroBatchExecution = new MicroBatchExecution({ spec, clock: new SystemClock(), taskScheduler: scheduler });
    await q.start();
    const tasks: TaskProgress[] = [];
    for (let b = 0; b < batches; b++) {
      await between?.(b, tasks.filter((t) => t.kind !== 'map').length);
      for (let f = 0; f < FILES_PER_BATCH; f++) {
        const file = `part-${String(b * FILES_PER_BATCH + f).padStart(5, '0')}.json`;
        const rows = Array.from({ length: ROWS_PER_FILE }, (_, i) => JSON.stringify({ k: `k${i % KEYS}`, v: i }));
        await writeFile(path.join(input, `.${file}`), rows.join('\n') + '\n');
        await rename(path.join(input, `.${file}`), path.join(input, file));
      }
      await q.processAllAvailable();
      tasks.push(...scheduler.takeTasks());
    }
    await q.stop();
    const counts = new Map<string, number>();
    for (const r of MemorySinkTable.named(`${name}-${backend}`).rows) counts.set(String(r.k), Number(r.n));
    MemorySinkTable.drop(`${name}-${backend}`);
    // Every key counted over every batch: ROWS_PER_FILE / KEYS a file.
    expect(counts.size).toBe(KEYS);
    for (const n of counts.values()) expect(n).toBe((batches * FILES_PER_BATCH * ROWS_PER_FILE) / KEYS);
    return tasks.filter((t) => t.kind !== 'map');
  };

  it("keeps each reduce task on its partition's last worker while both workers are up", async () => {
    // A wait no loaded machine outlasts, so the count says what the routing does, not the load.
    const dispatcher = new TaskDispatcher(queue, { localityWaitMs: 1000 });
    try {
      const reduces = await runQuery('stays', dispatcher, 10);
      // Data batches and the no-data batches after them: two reduce tasks each.
      expect(reduces.length).toBeGreaterThanOrEqual(20);
      // Both workers ran reduce tasks (so a task could have moved), yet at most the one move that
      // spreads a stage whose two partitions both landed on one worker (each worker's share).
      expect(new Set(reduces.map((t) => t.workerId)).size).toBe(2);
      expect(movedReduceTasks(reduces)).toBeLessThanOrEqual(1);
    } finally {
      await dispatcher.close();
    }
  }, 240_000);

  it('runs a stopped preferred worker’s reduce tasks on the other worker after the locality wait', async () => {
    const dispatcher = new TaskDispatcher(queue, { localityWaitMs: 300 });
    const stopped = `b-${backend}-${process.pid}`;
    try {
      let before = 0;
      const tasks = await runQuery('stopped', dispatcher, 8, async (b, reducesSoFar) => {
        if (b !== 4) return;
        // Stop b once it holds a partition: its queue keeps the tasks offered to it, unconsumed.
        before = reducesSoFar;
        await workers.get(stopped)!.close();
        workers.delete(stopped);
      });
      // b held a partition before it stopped (else nothing was offered to it)...
      expect(tasks.slice(0, before).some((t) => t.workerId === stopped)).toBe(true);
      // ...and after, every task ran on a, the partitions b held having moved there.
      expect(tasks.slice(before).every((t) => t.workerId !== stopped)).toBe(true);
      expect(movedReduceTasks(tasks)).toBeGreaterThanOrEqual(1);
      // Nothing is left in b's queue: its tasks were taken back to the shared one.
      const own = makeQueue(executorTasksQueue(stopped), queue);
      try {
        expect(await own.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 0, active: 0, delayed: 0 });
      } finally {
        await own.close();
      }
    } finally {
      await dispatcher.close();
      await startWorker(stopped);
    }
  }, 240_000);
});
