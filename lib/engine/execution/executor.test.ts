/**
 * An Executor (a worker's) keeps a partition's operator instance and compiled query between
 * batches; a run restarted with an edited spec must not run the tasks of its next batch with the
 * plan compiled from the spec before the edit, though the worker committed that partition's
 * previous version itself.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { readCommittedRows } from '../sinks/files-sink';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { XORShiftRandom } from '../query/xorshift-random';
import type { JobSpec } from '../spec/job-spec';
import { partitionForKey } from '../state/state-store';
import { encodeKey } from '../state/state-value-codec';
import { Executor } from './executor';
import { MicroBatchExecution } from './micro-batch-execution';
import { compileQuery } from './query-runtime';
import { ExecutorsTaskScheduler } from './testing/executors-task-scheduler';
import { mustParse } from './testing/test-fixtures';

const T0 = Date.UTC(2026, 0, 1);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('Executor', () => {
  it('runs the next batch after a restart with an edited spec with the edited plan (map and reduce tasks)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-executor-edit-'));
    dirs.push(dir);
    const name = `executor-edit-${process.pid}`;
    const specOf = (select: string) =>
      mustParse({
        name,
        source: { name: 'events', type: 'memory', options: { stream: name }, schema: [{ name: 'k', type: 'string' }, { name: 'v', type: 'long' }] },
        sql: `SELECT k, ${select} AS c FROM events WHERE v > 0 GROUP BY k`,
        sink: { type: 'files', options: { path: path.join(dir, 'out'), format: 'json' } },
        outputMode: 'update',
        trigger: { type: 'available-now' },
        checkpointLocation: `memory://${name}`,
        parallelism: 2,
      });
    const clock = new ManualClock(T0);
    const checkpoint = new InMemoryCheckpointFileManager();
    // One worker, which keeps every partition open from one batch to the next.
    const executors = [new Executor({ clock })];
    const run = async (select: string) => {
      const spec = specOf(select);
      const taskScheduler = new ExecutorsTaskScheduler({ executors, spec, checkpoint, queryId: () => q.id, pick: () => 0, mapTasks: true, tasksWriteSink: true });
      const q: MicroBatchExecution = new MicroBatchExecution({ spec, checkpoint, clock, taskScheduler });
      await q.processAllAvailable();
      await q.stop();
    };
    const stream = MemoryStream.named(name);
    try {
      stream.addRows([{ k: 'a', v: 1 }, { k: 'b', v: 2 }, { k: 'a', v: 3 }]);
      await run('count(*)');
      // The edit: the aggregation's state is the same, the projection after it is not.
      stream.addRows([{ k: 'a', v: 4 }]);
      await run('count(*) * 10');
    } finally {
      await executors[0].close();
    }
    const batches = await readCommittedRows(path.join(dir, 'out'), 'json');
    expect(batches.map((b) => [b.batchId, b.rows.map((r) => `${String(r.k)}=${String(r.c)}`).sort()])).toEqual([
      [0, ['a=2', 'b=1']],
      [1, ['a=30']],
    ]);
  });

  // Spark's Project after the aggregation runs in the aggregation's task: rand(7) there draws
  // from seed 7 + partition index. One group per partition (k = b, a, c in partitions 0, 1, 2):
  // each row has the first value of XORShiftRandom(7 + p), not XORShiftRandom(7)'s three times.
  it('evaluates the operators after the stage in a reduce task writing the sink as that partition (rand(seed) draws from seed + p)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-executor-rand-'));
    dirs.push(dir);
    const name = `executor-rand-${process.pid}`;
    const spec = mustParse({
      name,
      source: { name: 'events', type: 'memory', options: { stream: name }, schema: [{ name: 'k', type: 'string' }, { name: 'v', type: 'long' }] },
      sql: 'SELECT k, count(*) AS c, rand(7) AS r FROM events GROUP BY k',
      sink: { type: 'files', options: { path: path.join(dir, 'out'), format: 'json' } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${name}`,
      parallelism: 3,
    });
    const clock = new ManualClock(T0);
    const executors = [new Executor({ clock })];
    const checkpoint = new InMemoryCheckpointFileManager();
    const taskScheduler = new ExecutorsTaskScheduler({ executors, spec, checkpoint, queryId: () => q.id, pick: () => 0, mapTasks: true, tasksWriteSink: true });
    const q: MicroBatchExecution = new MicroBatchExecution({ spec, checkpoint, clock, taskScheduler });
    MemoryStream.named(name).addRows([{ k: 'a', v: 1 }, { k: 'b', v: 2 }, { k: 'c', v: 3 }]);
    try {
      await q.processAllAvailable();
      await q.stop();
    } finally {
      await executors[0].close();
    }
    const [batch] = await readCommittedRows(path.join(dir, 'out'), 'json');
    const partitionOf = { b: 0, a: 1, c: 2 };
    for (const [k, p] of Object.entries(partitionOf)) expect(partitionForKey(encodeKey([k]), 3)).toBe(p);
    expect(Object.fromEntries(batch.rows.map((r) => [r.k, r.r]))).toEqual(Object.fromEntries(Object.entries(partitionOf).map(([k, p]) => [k, new XORShiftRandom(BigInt(7 + p)).nextDouble()])));
  });

  it('opens a partition whose last task ran elsewhere with a spare compiled after a task, not by compiling on its task’s path', async () => {
    const name = `executor-spares-${process.pid}`;
    const spec = mustParse({
      name,
      source: { name: 'events', type: 'memory', options: { stream: name }, schema: [{ name: 'k', type: 'string' }, { name: 'v', type: 'long' }] },
      sql: 'SELECT k, count(*) AS c, sum(v) AS s FROM events GROUP BY k',
      sink: { type: 'memory', options: { table: name } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${name}`,
      parallelism: 2,
    });
    const clock = new ManualClock(T0);
    // Where each compile happened: on a task's path, or after it (compileSpares).
    const compiles: ('in task' | 'after')[] = [];
    let inTask = false;
    const compile = (s: JobSpec, n: number) => {
      compiles.push(inTask ? 'in task' : 'after');
      return compileQuery(s, n);
    };
    const executors = [new Executor({ clock, compile }), new Executor({ clock, compile })];
    for (const e of executors) {
      const runTask = e.runTask.bind(e);
      e.runTask = async (eq, task) => {
        inTask = true;
        try {
          return await runTask(eq, task);
        } finally {
          inTask = false;
        }
      };
    }
    // Every partition on the other executor than its last task: each task reopens its partition.
    const taskScheduler = new ExecutorsTaskScheduler({ executors, spec, checkpoint: new InMemoryCheckpointFileManager(), queryId: () => q.id, pick: (t) => t.batchId + ('partitionId' in t ? t.partitionId : 0) });
    const q: MicroBatchExecution = new MicroBatchExecution({ spec, clock, taskScheduler, checkpoint: new InMemoryCheckpointFileManager() });
    const stream = MemoryStream.named(name);
    try {
      for (let b = 0; b < 4; b++) {
        stream.addRows([{ k: 'a', v: b }, { k: 'b', v: 10 }, { k: 'c', v: 1 }, { k: 'd', v: b }]);
        await q.processAllAvailable();
      }
    } finally {
      await q.stop();
      for (const e of executors) await e.close();
    }
    // The state carried over every move: the last batch's counts and sums are the whole input's.
    const last = new Map(MemorySinkTable.named(name).rows.map((r) => [r.k, `${String(r.c)}/${String(r.s)}`]));
    expect(Object.fromEntries(last)).toEqual({ a: '4/6', b: '4/40', c: '4/4', d: '4/6' });
    // Each executor's first task compiles on its path (nothing spare yet); every later reopen takes a spare.
    expect(compiles.filter((c) => c === 'in task')).toHaveLength(2);
    expect(compiles.filter((c) => c === 'after').length).toBeGreaterThanOrEqual(6);
  });
});

describe('Executor and scalar subqueries', () => {
  it('evaluates a scalar subquery that a reduce task reads in its own process (its compiled query is not the driver\'s)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-executor-subquery-'));
    dirs.push(dir);
    const name = `executor-subquery-${process.pid}`;
    await writeFile(path.join(dir, 'weights.json'), '{"w":10}\n{"w":7}\n');
    const spec = mustParse({
      name,
      source: { name: 'events', type: 'memory', options: { stream: name }, schema: [{ name: 'k', type: 'string' }, { name: 'v', type: 'long' }] },
      staticTables: [{ name: 'weights', path: path.join(dir, 'weights.json'), format: 'json', schema: [{ name: 'w', type: 'long' }] }],
      sql: 'SELECT k, count(*) * (SELECT max(w) FROM weights) AS c FROM events GROUP BY k',
      sink: { type: 'files', options: { path: path.join(dir, 'out'), format: 'json' } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${name}`,
      parallelism: 2,
    });
    const clock = new ManualClock(T0);
    const checkpoint = new InMemoryCheckpointFileManager();
    const executors = [new Executor({ clock })];
    try {
      const taskScheduler = new ExecutorsTaskScheduler({ executors, spec, checkpoint, queryId: () => q.id, pick: () => 0, mapTasks: false, tasksWriteSink: true });
      const q: MicroBatchExecution = new MicroBatchExecution({ spec, checkpoint, clock, taskScheduler });
      MemoryStream.named(name).addRows([{ k: 'a', v: 1 }, { k: 'b', v: 2 }, { k: 'a', v: 3 }]);
      await q.processAllAvailable();
      await q.stop();
    } finally {
      await executors[0].close();
    }
    const batches = await readCommittedRows(path.join(dir, 'out'), 'json');
    expect(batches.flatMap((b) => b.rows.map((r) => `${String(r.k)}=${String(r.c)}`)).sort()).toEqual(['a=20', 'b=10']);
  });
});
