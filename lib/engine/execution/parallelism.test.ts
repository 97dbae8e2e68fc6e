/**
 * The job's parallelism (Spark's spark.sql.shuffle.partitions): recorded in offsets/N conf, the
 * state split into that many partitions, the checkpoint's value winning over the spec's on a
 * restart, and an edit that changes it refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { OffsetSeqLog } from '../checkpoint/offset-seq-log';
import { ManualClock } from '../clock';
import { CorruptCheckpointError, IncompatibleQueryChangeError } from '../errors';
import type { StreamingQueryProgress } from '../progress';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { JobSpecSchema } from '../spec/job-spec';
import type { EngineLogEvent } from './micro-batch-execution';
import { MicroBatchExecution } from './micro-batch-execution';
import { recordedParallelism, SHUFFLE_PARTITIONS_CONF } from './populate-start-offsets';
import { checkRestartCompatibility } from './restart-compatibility';
import { LocalTaskScheduler, shuffleRows, type ReduceTask, type TaskScheduler } from './task-scheduler';
import { compileQuery, sinkStageOf } from './query-runtime';
import { mustParse } from './testing/test-fixtures';

let n = 0;
function countJob(extra: Record<string, unknown> = {}, stateLocalDir?: string) {
  const id = `parallelism-unit-${++n}-${process.pid}`;
  const stream = MemoryStream.named(id);
  const table = MemorySinkTable.named(id);
  const checkpoint = new InMemoryCheckpointFileManager();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const spec = (parallelism?: number) => mustParse({
    name: id,
    source: { name: 'events', type: 'memory', options: { stream: id }, schema: [{ name: 'k', type: 'string' }] },
    sql: 'SELECT k, count(*) AS c FROM events GROUP BY k',
    sink: { type: 'memory', options: { table: id } },
    outputMode: 'complete',
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
    ...(parallelism === undefined ? {} : { parallelism }),
    ...extra,
  });
  const logs: EngineLogEvent[] = [];
  const progress: StreamingQueryProgress[] = [];
  const run = async (parallelism?: number) => {
    const q = new MicroBatchExecution({ spec: spec(parallelism), checkpoint, clock, stateLocalDir, log: (e) => logs.push(e), onProgress: (p) => void progress.push(p) });
    await q.processAllAvailable();
    await q.stop();
  };
  const answer = () => Object.fromEntries(table.rows.map((r) => [r.k, r.c]));
  return { stream, checkpoint, spec, run, logs, progress, answer };
}

const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ k: `key-${i}` }));

describe('parallelism in the job spec', () => {
  it('is an integer from 1 to 64, default 1', () => {
    const base = { name: 'j', source: { name: 's', type: 'memory', options: {} }, sql: 'SELECT * FROM s', sink: { type: 'memory' }, checkpointLocation: '/tmp/x' };
    expect(JobSpecSchema.parse(base).parallelism).toBe(1);
    expect(JobSpecSchema.parse({ ...base, parallelism: 64 }).parallelism).toBe(64);
    for (const bad of [0, 65, 1.5, '2']) expect(JobSpecSchema.safeParse({ ...base, parallelism: bad }).success).toBe(false);
  });
});

describe('parallelism of a running query', () => {
  it('records spark.sql.shuffle.partitions in offsets/N and keeps each partition\'s state in state/<op>/<partition>', async () => {
    const j = countJob();
    j.stream.addRows(keys(40));
    await j.run(3);
    const seq = await new OffsetSeqLog(j.checkpoint).get(0);
    expect(seq!.metadata.conf[SHUFFLE_PARTITIONS_CONF]).toBe('3');
    expect(await j.checkpoint.list('state/0')).toEqual(expect.arrayContaining(['0', '1', '2']));
    expect(await j.checkpoint.list('state/0')).not.toContain('3');
    // Each partition holds some of the 40 groups; progress sums them, and counts the partitions
    // and their stores as Spark's numShufflePartitions and numStateStoreInstances.
    expect(j.progress.at(-1)!.stateOperators[0].numRowsTotal).toBe(40);
    expect(j.progress.at(-1)!.stateOperators[0]).toMatchObject({ numShufflePartitions: 3, numStateStoreInstances: 3 });
    expect(Object.keys(j.answer())).toHaveLength(40);
  });

  it('runs on the lmdb provider too, one environment per partition, across a restart', async () => {
    const local = await mkdtemp(path.join(tmpdir(), 'weir-parallelism-lmdb-'));
    try {
      const j = countJob({ stateStore: { provider: 'lmdb' } }, local);
      j.stream.addRows([...keys(30), ...keys(10)]);
      await j.run(3);
      j.stream.addRows(keys(5));
      await j.run(3);
      const want = Object.fromEntries(keys(30).map(({ k }, i) => [k, i < 5 ? 3 : i < 10 ? 2 : 1]));
      expect(j.answer()).toEqual(want);
      expect(await j.checkpoint.list('state/0')).toEqual(expect.arrayContaining(['0', '1', '2']));
      expect(j.progress.at(-1)!.stateOperators[0].customMetrics).toHaveProperty('lmdbLocalBytes');
    } finally {
      await rm(local, { recursive: true, force: true });
    }
  });

  it('keeps the checkpoint\'s parallelism on a restart whose spec asks for another, and warns', async () => {
    const j = countJob();
    j.stream.addRows([{ k: 'a' }, { k: 'b' }, { k: 'c' }]);
    await j.run(4);
    j.stream.addRows([{ k: 'a' }, { k: 'c' }, { k: 'c' }]);
    await j.run(1);
    expect(j.answer()).toEqual({ a: 2, b: 1, c: 3 });
    expect((await new OffsetSeqLog(j.checkpoint).get(1))!.metadata.conf[SHUFFLE_PARTITIONS_CONF]).toBe('4');
    expect(j.logs.some((e) => e.level === 'warn' && /parallelism 1 of the spec is ignored: the checkpoint was written with 4/.test(e.msg))).toBe(true);
  });

  it('reads a checkpoint without the conf key as parallelism 1', async () => {
    expect(recordedParallelism({}, 'offsets/0')).toBe(1);
    expect(recordedParallelism({ [SHUFFLE_PARTITIONS_CONF]: '8' }, 'offsets/0')).toBe(8);
    expect(() => recordedParallelism({ [SHUFFLE_PARTITIONS_CONF]: 'x' }, 'offsets/0')).toThrow(CorruptCheckpointError);
    // Written before the key existed: the offsets/N conf has no spark.sql.shuffle.partitions.
    const j = countJob();
    j.stream.addRows([{ k: 'a' }, { k: 'b' }]);
    await j.run(1);
    const log = new OffsetSeqLog(j.checkpoint);
    const lines = (await j.checkpoint.read(log.pathOf(0))).toString('utf8').split('\n');
    const metadata = JSON.parse(lines[1]) as { conf: Record<string, string> };
    delete metadata.conf[SHUFFLE_PARTITIONS_CONF];
    lines[1] = JSON.stringify(metadata);
    await j.checkpoint.createAtomic(log.pathOf(0), lines.join('\n'), { overwrite: true });
    expect((await log.get(0))!.metadata.conf[SHUFFLE_PARTITIONS_CONF]).toBeUndefined();
    await expect(checkRestartCompatibility(j.spec(2), j.checkpoint)).rejects.toThrow(/written with parallelism 1/);
    j.stream.addRows([{ k: 'a' }]);
    await j.run(3);
    expect(j.answer()).toEqual({ a: 2, b: 1 });
    expect((await log.get(1))!.metadata.conf[SHUFFLE_PARTITIONS_CONF]).toBe('1');
  });

  it('refuses an edit that changes the parallelism of a checkpoint, saying the way out', async () => {
    const j = countJob();
    j.stream.addRows([{ k: 'a' }]);
    await j.run(2);
    await expect(checkRestartCompatibility(j.spec(2), j.checkpoint)).resolves.toMatchObject({ checkpointHasBatches: true });
    const refused = await checkRestartCompatibility(j.spec(3), j.checkpoint).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((refused as Error).message).toMatch(/written with parallelism 2 \(spark\.sql\.shuffle\.partitions\) and the job now asks for 3/);
    expect((refused as Error).message).toMatch(/new checkpointLocation/);
    expect((refused as Error).message).toMatch(/weir checkpoint repartition --to 3 <checkpoint>`/);
  });
});

describe('what runs after a stateful stage sees the whole batch', () => {
  it('sorts the whole result (ORDER BY in Complete mode) and hands the tasks to the given scheduler', async () => {
    const id = `parallelism-sort-${process.pid}`;
    const stream = MemoryStream.named(id);
    const table = MemorySinkTable.named(id);
    const spec = mustParse({
      name: id,
      source: { name: 'events', type: 'memory', options: { stream: id }, schema: [{ name: 'k', type: 'string' }] },
      sql: 'SELECT k, count(*) AS c FROM events GROUP BY k ORDER BY c DESC, k',
      sink: { type: 'memory', options: { table: id } },
      outputMode: 'complete',
      trigger: { type: 'available-now' },
      checkpointLocation: `memory://${id}`,
      parallelism: 4,
    });
    const submitted: number[][] = [];
    const local = new LocalTaskScheduler();
    const taskScheduler: TaskScheduler = {
      submitTasks: (tasks, run) => {
        submitted.push(tasks.map((t) => t.partitionId));
        return local.submitTasks(tasks, run);
      },
    };
    const q = new MicroBatchExecution({ spec, checkpoint: new InMemoryCheckpointFileManager(), clock: new ManualClock(0), taskScheduler });
    stream.addRows(['x', 'y', 'y', 'z', 'z', 'z', 'w', 'v', 'v'].map((k) => ({ k })));
    await q.processAllAvailable();
    await q.stop();
    expect(table.rows).toEqual([{ k: 'z', c: 3 }, { k: 'v', c: 2 }, { k: 'y', c: 2 }, { k: 'w', c: 1 }, { k: 'x', c: 1 }]);
    expect(submitted).toEqual([[0, 1, 2, 3]]);
  });
});

describe('LocalTaskScheduler and the shuffle', () => {
  it('routes every row to its partition in input order and returns the results in partition order', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({ i }));
    const parts = shuffleRows(rows, 3, (r) => (r.i as number) % 3);
    expect(parts.map((p) => p.map((r) => r.i))).toEqual([[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]);
    const tasks: ReduceTask[] = parts.map((p, partitionId) => ({ batchId: 0, stageId: 0, operatorId: 0, partitionId, batchWatermarkMs: 0, batchTimestampMs: 0, inputs: [p] })).reverse();
    // Plain data in and out: what a remote scheduler would send.
    const results = await new LocalTaskScheduler().submitTasks(tasks, async (t) => JSON.parse(JSON.stringify({ partitionId: t.partitionId, rows: t.inputs[0].slice(0, 1) })));
    expect(results).toEqual([{ partitionId: 0, rows: [{ i: 0 }] }, { partitionId: 1, rows: [{ i: 1 }] }, { partitionId: 2, rows: [{ i: 2 }] }]);
  });
});

describe('sinkStageOf: the stage whose reduce tasks may write the sink', () => {
  const compiled = (sql: string, outputMode: 'append' | 'complete', parallelism = 2) =>
    compileQuery(mustParse({
      name: 'sink-stage',
      source: { name: 'events', type: 'memory', options: { stream: 'sink-stage' }, schema: [{ name: 'k', type: 'string' }, { name: 'v', type: 'long' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '1 minute' },
      sql, sink: { type: 'memory', options: { table: 'sink-stage' } }, outputMode, trigger: { type: 'available-now' }, checkpointLocation: 'memory://sink-stage', parallelism,
    }), parallelism);
  it('is the last stateful stage when only row-at-a-time operators follow it', () => {
    const q = compiled("SELECT k, window(ts, '5 minutes') AS w, count(*) * 2 AS c FROM events GROUP BY k, window(ts, '5 minutes')", 'append');
    expect(q.operators.slice(sinkStageOf(q)!).map((op) => op.name)).toEqual(['stateStoreSave', 'Project']);
  });
  it('is none when an operator over the whole batch follows it (a Sort), or the stage is not partitioned', () => {
    const sorted = compiled('SELECT k, count(*) AS c FROM events GROUP BY k ORDER BY c DESC', 'complete');
    expect(sorted.operators.map((op) => op.name)).toContain('Sort');
    expect(sinkStageOf(sorted)).toBeUndefined();
    expect(sinkStageOf(compiled('SELECT k, count(*) AS c FROM events GROUP BY k', 'complete', 1))).toBeUndefined();
  });
});
