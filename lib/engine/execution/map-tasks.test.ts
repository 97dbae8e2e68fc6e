/**
 * Map tasks (task-scheduler.ts) over a files source, one per file: the batch's output, input
 * figures, event-time watermark and bad records are what the driver reading the files itself
 * gives. A bad record under `fail` fails the batch; under `dead-letter` each lands once.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { BadRecordError } from '../errors';
import type { StreamingQueryProgress } from '../progress';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { MicroBatchExecution } from './micro-batch-execution';
import type { MapTask, ReduceTask } from './task-scheduler';
import { ExecutorsTaskScheduler, recordingExecutors } from './testing/executors-task-scheduler';
import { canonical } from './testing/stream-test';
import { mustParse } from './testing/test-fixtures';
import type { JobSpec } from '../spec/job-spec';

const T0 = Date.UTC(2026, 0, 1);
const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function input(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'weir-map-tasks-'));
  roots.push(root);
  const line = (id: number, k: string, minute: number) => JSON.stringify({ id, k, ts: new Date(T0 + minute * 60_000).toISOString() });
  await writeFile(path.join(root, 'a.json'), [line(1, 'x', 1), line(2, 'y', 2), '{"id": "not a number"}', line(3, 'x', 9)].join('\n') + '\n');
  await writeFile(path.join(root, 'b.json'), [line(4, 'z', 3), line(5, 'x', 4), 'not json'].join('\n') + '\n');
  return root;
}

let n = 0;

async function run(dir: string, o: { mapTasks: boolean; onBadRecord: 'fail' | 'dead-letter' }) {
  const name = `map-tasks-${++n}-${process.pid}`;
  const spec = mustParse({
    name,
    source: {
      name: 'events', type: 'files', options: { path: dir, format: 'json' },
      schema: [{ name: 'id', type: 'long' }, { name: 'k', type: 'string' }, { name: 'ts', type: 'timestamp' }],
      eventTime: 'ts', watermarkDelay: '1 minute',
      onBadRecord: o.onBadRecord, ...(o.onBadRecord === 'dead-letter' ? { badRecordsPath: path.join(dir, '..', `${path.basename(dir)}-bad-${name}`) } : {}),
    },
    sql: "SELECT k, window(ts, '5 minutes') AS w, count(*) AS c, max(id) AS last FROM events WHERE id > 1 GROUP BY k, window(ts, '5 minutes')",
    sink: { type: 'memory', options: { table: name } },
    outputMode: 'update',
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${name}`,
    parallelism: 2,
  });
  const { q, progress, stop } = onTwoExecutors(spec, o.mapTasks);
  try {
    await q.processAllAvailable();
    // The first batch read the files (a no-data batch for the watermark may follow).
    return { rows: canonical(MemorySinkTable.named(name).rows), progress: progress[0], badRecordsPath: spec.source.badRecordsPath, id: q.id };
  } finally {
    await stop();
  }
}

/**
 * The query with its tasks on two executors in turn (map tasks too when `mapTasks`), or whole in
 * the driver; its progress, and each map task's partialAggregation flag as the executors got it.
 */
function onTwoExecutors(spec: JobSpec, mapTasks: boolean, checkpoint = new InMemoryCheckpointFileManager()) {
  const clock = new ManualClock(T0);
  const partialFlags: (true | undefined)[] = [];
  const executors = recordingExecutors(clock, partialFlags);
  let i = 0;
  const taskScheduler = mapTasks ? new ExecutorsTaskScheduler({ executors, spec, checkpoint, queryId: () => q.id, pick: () => i++, mapTasks: true }) : undefined;
  // Every stage the driver submits, by batch: its map tasks and its reduce tasks.
  const stages: { batchId: number; mapTasks: number; reduceTasks: number }[] = [];
  if (taskScheduler) {
    const [mapStage, reduceStage] = [taskScheduler.submitMapStage!.bind(taskScheduler), taskScheduler.submitTasks.bind(taskScheduler)];
    let inMapStage = false;
    Object.assign(taskScheduler, {
      submitMapStage: async (maps: readonly MapTask[], reduces: readonly Omit<ReduceTask, 'inputs'>[], offsetsLogged?: Promise<void>) => {
        stages.push({ batchId: reduces[0].batchId, mapTasks: maps.length, reduceTasks: reduces.length });
        inMapStage = true;
        try {
          return await mapStage(maps, reduces, offsetsLogged);
        } finally {
          inMapStage = false;
        }
      },
      // (The test scheduler's map stage hands its reduce tasks to submitTasks: not another stage.)
      submitTasks: (reduces: readonly ReduceTask[]) => {
        if (!inMapStage) stages.push({ batchId: reduces[0].batchId, mapTasks: 0, reduceTasks: reduces.length });
        return reduceStage(reduces);
      },
    });
  }
  const progress: StreamingQueryProgress[] = [];
  const q: MicroBatchExecution = new MicroBatchExecution({ spec, clock, checkpoint, taskScheduler, onProgress: (p) => void progress.push(p) });
  const stop = async () => {
    await q.stop();
    for (const e of executors) await e.close();
  };
  return { q, progress, partialFlags, stages, stop, executors };
}

describe('map tasks over a files source, one per file', () => {
  it('give the output, input figures, event times and dead letters of the driver reading the files', async () => {
    const dir = await input();
    const local = await run(dir, { mapTasks: false, onBadRecord: 'dead-letter' });
    const mapped = await run(dir, { mapTasks: true, onBadRecord: 'dead-letter' });
    expect(mapped.rows).toEqual(local.rows);
    expect(mapped.rows.length).toBeGreaterThan(0);
    for (const p of [local.progress, mapped.progress]) {
      expect(p.numInputRows).toBe(5);
      expect(p.numBadRecords).toBe(2);
      expect(p.eventTime?.max).toBe(new Date(T0 + 9 * 60_000).toISOString());
    }
    const dead = async (r: typeof local) => (await readFile(path.join(r.badRecordsPath!, r.id, (await readdir(path.join(r.badRecordsPath!, r.id)))[0]), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l).record);
    expect(await dead(mapped)).toEqual(await dead(local));
  });

  it('run one stage a batch: a data batch a map task per file, a no-data batch no map task; one reduce task per state partition', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-map-tasks-'));
    roots.push(dir);
    const line = (id: number, k: string, minute: number) => JSON.stringify({ id, k, ts: new Date(T0 + minute * 60_000).toISOString() });
    await writeFile(path.join(dir, 'a.json'), [line(1, 'x', 1), line(2, 'y', 2), line(3, 'x', 9)].join('\n') + '\n');
    await writeFile(path.join(dir, 'b.json'), [line(4, 'z', 3), line(5, 'x', 4)].join('\n') + '\n');
    const name = `map-tasks-stages-${++n}-${process.pid}`;
    const spec = mustParse({
      name,
      source: {
        name: 'events', type: 'files', options: { path: dir, format: 'json' },
        schema: [{ name: 'id', type: 'long' }, { name: 'k', type: 'string' }, { name: 'ts', type: 'timestamp' }],
        eventTime: 'ts', watermarkDelay: '1 minute',
      },
      sql: "SELECT k, window(ts, '5 minutes') AS w, count(*) AS c FROM events GROUP BY k, window(ts, '5 minutes')",
      sink: { type: 'memory', options: { table: name } },
      outputMode: 'append',
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${name}`,
      parallelism: 3,
    });
    const { q, progress, stages, stop } = onTwoExecutors(spec, true);
    try {
      await q.processAllAvailable();
    } finally {
      await stop();
    }
    // The data batch, then the no-data batch that the moved watermark asks for (it closes windows).
    expect(progress.map((p) => p.numInputRows)).toEqual([5, 0]);
    expect(stages).toEqual([
      { batchId: 0, mapTasks: 2, reduceTasks: 3 },
      { batchId: 1, mapTasks: 0, reduceTasks: 3 },
    ]);
  });

  describe('overlap the write of offsets/N; the reduce tasks wait for it', () => {
    /**
     * A run whose offsets/0 write is held until both map tasks ran, then `publish`ed (or failed):
     * the order of the map tasks, the write, the reduce tasks and the state files.
     */
    async function held(publish: 'publish' | 'fail') {
      const dir = await input();
      const name = `map-tasks-wal-${++n}-${process.pid}`;
      const spec = mustParse({
        name,
        source: { name: 'events', type: 'files', options: { path: dir, format: 'json' }, schema: [{ name: 'id', type: 'long' }, { name: 'k', type: 'string' }, { name: 'ts', type: 'timestamp' }], onBadRecord: 'dead-letter', badRecordsPath: `${dir}-bad-${name}` },
        sql: 'SELECT k, count(*) AS c FROM events GROUP BY k',
        sink: { type: 'memory', options: { table: name } },
        outputMode: 'update',
        trigger: { type: 'available-now' },
        checkpointLocation: `memory://${name}`,
        parallelism: 2,
      });
      const events: string[] = [];
      let mapsRan = 0;
      let release!: () => void;
      const mapsDone = new Promise<void>((r) => (release = r));
      const checkpoint = new InMemoryCheckpointFileManager();
      const createAtomic = checkpoint.createAtomic.bind(checkpoint);
      checkpoint.createAtomic = async (p, data, opts) => {
        if (p === 'offsets/0') {
          // Held until the map tasks ran (or a while, should they wait for it: the test then fails on the order).
          await Promise.race([mapsDone, new Promise((r) => setTimeout(r, 500))]);
          if (publish === 'fail') throw new Error('offsets/0: disk full');
        }
        await createAtomic(p, data, opts);
        // A state version (the schema is written at start).
        if (!p.includes('/_metadata/')) events.push(p.startsWith('state/') ? 'state' : p.split('/')[0]);
      };
      const { q, stop, executors } = onTwoExecutors(spec, true, checkpoint);
      for (const e of executors) {
        const [runMapTask, runTask] = [e.runMapTask.bind(e), e.runTask.bind(e)];
        e.runMapTask = async (eq, task) => {
          events.push('map');
          const out = await runMapTask(eq, task);
          if (++mapsRan === 2) release();
          return out;
        };
        e.runTask = async (eq, task) => (events.push('reduce'), runTask(eq, task));
      }
      try {
        await q.processAllAvailable();
        return { events, rows: MemorySinkTable.named(name).rows.length };
      } catch (e) {
        return { events, error: e as Error };
      } finally {
        await stop();
      }
    }
    const batch0 = (events: string[]) => events.slice(0, events.indexOf('commits'));

    it('map tasks run before offsets/0 is durable; reduce tasks and state commits only after', async () => {
      const { events, rows } = await held('publish');
      expect(rows).toBeGreaterThan(0);
      const order = batch0(events).filter((e) => ['map', 'offsets', 'reduce', 'state'].includes(e));
      expect(order.slice(0, 3)).toEqual(['map', 'map', 'offsets']);
      expect(order.slice(3).every((e) => e === 'reduce' || e === 'state')).toBe(true);
      expect(order.filter((e) => e === 'reduce')).toHaveLength(2);
    });

    it('a failed offsets/0 write fails the batch with its own error, no reduce task run and no state written', async () => {
      const { events, error } = await held('fail');
      expect(error?.message).toContain('offsets/0: disk full');
      expect(events.filter((e) => e === 'map')).toHaveLength(2);
      expect(events.filter((e) => ['reduce', 'state', 'offsets', 'commits'].includes(e))).toEqual([]);
    });
  });

  it('fail: a bad record read by a map task fails the batch as the driver’s read does', async () => {
    const dir = await input();
    await expect(run(dir, { mapTasks: true, onBadRecord: 'fail' })).rejects.toBeInstanceOf(BadRecordError);
  });
});

describe('map tasks that aggregate their splits (partial aggregation)', () => {
  /** Two batches over a memory stream, the second with four rows behind the watermark, in three groups; each batch's output and dropped rows. */
  async function lateRows(mapTasks: boolean) {
    const name = `map-tasks-late-${++n}-${process.pid}`;
    const spec = mustParse({
      name,
      source: {
        name: 'events', type: 'memory', options: { stream: name },
        schema: [{ name: 'id', type: 'long' }, { name: 'k', type: 'string' }, { name: 'ts', type: 'timestamp' }],
        eventTime: 'ts', watermarkDelay: '5 minutes',
      },
      sql: "SELECT k, window(ts, '10 minutes') AS w, count(*) AS c, sum(id) AS s FROM events GROUP BY k, window(ts, '10 minutes')",
      sink: { type: 'memory', options: { table: name } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${name}`,
      parallelism: 2,
    });
    const { q, progress, partialFlags: flags, stop } = onTwoExecutors(spec, mapTasks);
    const stream = MemoryStream.named(name);
    const row = (id: number, k: string, minute: number) => ({ id, k, ts: T0 + minute * 60_000 });
    try {
      stream.addRows([row(1, 'a', 30), row(2, 'b', 31)]);
      await q.processAllAvailable();
      // The watermark is now 26 minutes: windows ending at 10 and 20 are behind it.
      stream.addRows([row(3, 'a', 1), row(4, 'b', 12), row(5, 'a', 32), row(6, 'a', 19), row(7, 'c', 45), row(8, 'a', 3)]);
      await q.processAllAvailable();
      const batches = progress.filter((p) => p.numInputRows > 0);
      return { rows: canonical(MemorySinkTable.named(name).rows), dropped: batches.map((p) => p.stateOperators[0].numRowsDroppedByWatermark), flags };
    } finally {
      await stop();
    }
  }

  // Spark's partial aggregation takes late rows too; StateStoreSaveExec drops them once merged
  // and counts the aggregated rows: (a, [0, 10)) twice is one dropped row.
  it('aggregate late rows too; the reduce side drops their groups and counts them as Spark does', async () => {
    const local = await lateRows(false);
    const mapped = await lateRows(true);
    expect(mapped.flags.length).toBeGreaterThan(0);
    expect(new Set(mapped.flags)).toEqual(new Set([true]));
    expect(local.dropped).toEqual([0, 3]);
    expect(mapped.dropped).toEqual(local.dropped);
    expect(mapped.rows).toEqual(local.rows);
  });
});
