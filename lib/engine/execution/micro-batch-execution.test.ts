/**
 * MicroBatchExecution beyond the crash matrix: concurrent runners, a deleted checkpoint,
 * watermarks, retention, fencing, triggers, progress, and current_timestamp on a re-run.
 */
import { mkdir, rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { CommitLog } from '../checkpoint/commit-log';
import { OffsetSeqLog } from '../checkpoint/offset-seq-log';
import { ProgressLog, readRecentProgress } from '../checkpoint/progress-log';
import { ManualClock } from '../clock';
import { ConcurrentStreamLogUpdateError, CrashPointError, IncompatibleQueryChangeError, SinkError } from '../errors';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import type { StreamingQueryProgress } from '../progress';
import type { Row } from '../types';
import { MicroBatchExecution } from './micro-batch-execution';
import { AddData, Assert, CheckAnswer, CrashAt, StopStream, testStream, type StreamHarness } from './testing/stream-test';
import { EVENT_SCHEMA, EVENT_SQL, eventGenerator, expectedEvents, filesJob, mustParse, writeInputFile } from './testing/test-fixtures';

const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

let n = 0;
function memoryJob(extra: Record<string, unknown> = {}, sql = EVENT_SQL) {
  const id = `mbe-${++n}-${process.pid}`;
  const spec = mustParse({
    name: id,
    source: { name: 'events', type: 'memory', options: { stream: id }, schema: EVENT_SCHEMA, eventTime: 'ts', watermarkDelay: '1 hour' },
    sql,
    sink: { type: 'memory', options: { table: id } },
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
    ...extra,
  });
  const stream = MemoryStream.named(id);
  const table = MemorySinkTable.named(id);
  const isoTs = (rows: Row[]) => rows.map((r) => ({ ...r, ts: new Date(r.ts as number).toISOString() }));
  const harness: StreamHarness = {
    spec,
    clock: new ManualClock(1_700_000_000_000),
    addData: async (rows) => void stream.addRows(rows),
    readAnswer: async () => isoTs(table.rows),
    expected: expectedEvents,
  };
  return { id, spec, stream, table, harness };
}

describe('concurrent runners on one checkpoint', () => {
  it('the second runner fails with CONCURRENT_STREAM_LOG_UPDATE and writes nothing', async () => {
    const job = memoryJob();
    const gen = eventGenerator(7);
    job.stream.addData(...gen(20));
    const shared = new InMemoryCheckpointFileManager();
    const a = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: shared });
    const b = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: shared });
    await Promise.all([a.start(), b.start()]);
    expect(b.id).toBe(a.id);
    const results = await Promise.allSettled([a.processAllAvailable(), b.processAllAvailable()]);
    const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(failed).toHaveLength(1);
    expect(failed[0].reason).toBeInstanceOf(ConcurrentStreamLogUpdateError);
    expect(failed[0].reason.code).toBe('CONCURRENT_STREAM_LOG_UPDATE');
    // Exactly one batch reached the sink, once.
    expect(job.table.batches.map((x) => x.batchId)).toEqual([0]);
    expect(job.table.rows.length).toBe(expectedEvents(job.stream.rows).length);
    expect(await new CommitLog(shared).batchIds()).toEqual([0]);
  });

  it('a stale runner on the files source loses the race for the next batch before touching the sink', async () => {
    const job = await filesJob('json');
    roots.push(job.root);
    const gen = eventGenerator(8);
    await writeInputFile(job.input, 0, gen(5), 'json');
    const a = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    await a.processAllAvailable();
    const b = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    await b.start();
    await writeInputFile(job.input, 1, gen(5), 'json');
    await a.processAllAvailable();
    const err = await b.processAllAvailable().catch((e) => e);
    expect(err).toBeInstanceOf(ConcurrentStreamLogUpdateError);
    expect(err.message).toMatch(/Multiple streaming jobs detected/);
    expect((await job.harness.readAnswer()).length).toBe(expectedEvents(await readAllAdded(gen)).length);
    await a.stop();
    await b.stop();
  });
});

// The generator is deterministic: regenerate what was added from a fresh one with the same seed.
async function readAllAdded(_g: unknown): Promise<Row[]> {
  const g = eventGenerator(8);
  return [...g(5), ...g(5)];
}

describe('a deleted checkpoint', () => {
  it('makes a new query with a new id that reprocesses everything from the source start', async () => {
    const job = memoryJob();
    const gen = eventGenerator(11);
    const first = await testStream(job.harness, [AddData(gen(10)), CheckAnswer(), AddData(gen(10)), CheckAnswer(), StopStream()]);
    const rowsBefore = job.table.rows.length;
    // rm -rf the checkpoint; keep writing into a fresh table to see what the new query does.
    const fm = new MicroBatchExecution({ spec: job.spec }).checkpoint as InMemoryCheckpointFileManager;
    fm.store.clear();
    const fresh = MemorySinkTable.named(`${job.id}-after-rm`);
    const spec2 = { ...job.spec, sink: { type: 'memory', options: { table: fresh.name } } };
    const q = new MicroBatchExecution({ spec: spec2, clock: job.harness.clock });
    await q.processAllAvailable();
    expect(q.id).not.toBe(first.queryIds[0]);
    expect(q.lastProgress!.batchId).toBe(0);
    // Every row the old query already delivered is delivered again: the reprocessing a deleted checkpoint causes.
    expect(fresh.rows.length).toBe(rowsBefore);
    expect(fresh.rows).toEqual(job.table.rows);
    await q.stop();
  });

  it('into the same files sink, refuses to mix queries instead of silently skipping their batches', async () => {
    const job = await filesJob('json');
    roots.push(job.root);
    const gen = eventGenerator(12);
    await testStream(job.harness, [AddData(gen(10)), CheckAnswer(), StopStream()]);
    await rm(job.checkpoint, { recursive: true, force: true });
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    const err = await q.processAllAvailable().catch((e) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(err.message).toMatch(/already holds batch 0 written by query .* but this is query/);
    expect(q.id).toBeTruthy();
    await q.stop();
  });
});

describe('watermark', () => {
  it('is max(event time) - delay at the end of batch N, recorded in commits/N, used by offsets/N+1, never moving back', async () => {
    const job = memoryJob();
    const hour = 3_600_000;
    const base = Date.UTC(2024, 0, 1);
    const row = (id: number, ts: number) => ({ id, name: 'a', amount: 10, keep: true, ts });
    const fm = new InMemoryCheckpointFileManager();
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm });
    job.stream.addData(row(0, base + 5 * hour), row(1, base + 2 * hour));
    await q.processAllAvailable();
    job.stream.addData(row(2, base + 1 * hour)); // older: the watermark must not move back
    await q.processAllAvailable();
    job.stream.addData(row(3, base + 9 * hour));
    await q.processAllAvailable();
    const commits = new CommitLog(fm);
    const offsets = new OffsetSeqLog(fm);
    const wm = async (i: number) => (await commits.get(i))!.nextBatchWatermarkMs;
    expect(await wm(0)).toBe(base + 4 * hour);
    expect(await wm(1)).toBe(base + 4 * hour);
    expect(await wm(2)).toBe(base + 8 * hour);
    expect((await offsets.get(0))!.metadata.batchWatermarkMs).toBe(0);
    expect((await offsets.get(1))!.metadata.batchWatermarkMs).toBe(await wm(0));
    expect((await offsets.get(2))!.metadata.batchWatermarkMs).toBe(await wm(1));
    expect(q.lastProgress!.eventTime).toEqual({
      avg: new Date(base + 9 * hour).toISOString(),
      max: new Date(base + 9 * hour).toISOString(),
      min: new Date(base + 9 * hour).toISOString(),
      watermark: new Date(base + 4 * hour).toISOString(),
    });
    await q.stop();
  });

  it('after a restart, a no-data batch runs only if the last committed batch moved the watermark past what it evicted', async () => {
    const job = memoryJob({ outputMode: 'append', trigger: { type: 'once' } }, "SELECT window.start AS start, count(*) AS n FROM events GROUP BY window(ts, '1 hour')");
    const hour = 3_600_000;
    const base = Date.UTC(2024, 0, 1);
    const fm = new InMemoryCheckpointFileManager();
    const offsets = new OffsetSeqLog(fm);
    const run = () => new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm }).run();
    job.stream.addData({ id: 0, name: 'a', amount: 1, keep: true, ts: base + hour / 2 }, { id: 1, name: 'b', amount: 1, keep: true, ts: base + 3 * hour });
    // One batch per run: batch 0 moves the watermark to 2 h, past the window [0 h, 1 h), which
    // only the next batch closes; the run stops before it.
    await run();
    expect(await offsets.batchIds()).toEqual([0]);
    expect(job.table.rows).toEqual([]);
    // The restart finds no new data, but the watermark batch 0 left is past what it evicted.
    await run();
    expect(await offsets.batchIds()).toEqual([0, 1]);
    expect(job.table.rows).toEqual([{ start: base, n: 1 }]);
    // Batch 1 evicted up to that watermark: another restart has nothing to run.
    await run();
    expect(await offsets.batchIds()).toEqual([0, 1]);
    expect(job.table.rows).toEqual([{ start: base, n: 1 }]);
  });
});

describe('retention', () => {
  it('keeps the last minBatchesToRetain offsets and commits, and still recovers', async () => {
    const job = memoryJob({ minBatchesToRetain: 3 });
    const gen = eventGenerator(13);
    const fm = new InMemoryCheckpointFileManager();
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm });
    for (let i = 0; i < 7; i++) {
      job.stream.addData(...gen(2));
      await q.processAllAvailable();
    }
    expect(await new OffsetSeqLog(fm).batchIds()).toEqual([4, 5, 6]);
    expect(await new CommitLog(fm).batchIds()).toEqual([4, 5, 6]);
    expect(await new ProgressLog(fm).batchIds()).toEqual([4, 5, 6]);
    await q.stop();
    job.stream.addData(...gen(2));
    const crashing = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm, crash: { point: 'after-sink', batchId: 7 } });
    await expect(crashing.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
    const again = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm });
    await again.processAllAvailable();
    expect(job.table.rows.length).toBe(expectedEvents(job.stream.rows).length);
    await again.stop();
  });
});

describe('progress/N', () => {
  it('is written after commits/N, before the listener hears of the batch, and reads back as the progress', async () => {
    const job = memoryJob();
    job.stream.addData(...eventGenerator(15)(4));
    const fm = new InMemoryCheckpointFileManager();
    const seen: string[] = [];
    const q = new MicroBatchExecution({
      spec: job.spec, clock: job.harness.clock, checkpoint: fm,
      onProgress: (p) => void seen.push(`${p.batchId}:${fm.store.has(`commits/${p.batchId}`)}:${fm.store.has(`progress/${p.batchId}`)}`),
    });
    await q.processAllAvailable();
    expect(seen).toEqual(['0:true:true']);
    const kept = await readRecentProgress(fm);
    expect(kept).toEqual([JSON.parse(JSON.stringify(q.lastProgress))]);
    await q.stop();
  });

  it('a failed progress write is logged and the run goes on (the batch is committed)', async () => {
    const job = memoryJob();
    const gen = eventGenerator(16);
    job.stream.addData(...gen(3));
    const fm = new InMemoryCheckpointFileManager();
    const create = fm.createAtomic.bind(fm);
    fm.createAtomic = async (path, data, opts) => {
      if (path.startsWith('progress/')) throw new Error('EIO: i/o error');
      return create(path, data, opts);
    };
    const warnings: string[] = [];
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm, log: (e) => e.level === 'warn' && warnings.push(e.msg) });
    await q.processAllAvailable();
    job.stream.addData(...gen(3));
    await q.processAllAvailable();
    expect(await new CommitLog(fm).batchIds()).toEqual([0, 1]);
    expect(warnings).toEqual(['Could not write progress/0: EIO: i/o error', 'Could not write progress/1: EIO: i/o error']);
    expect(await readRecentProgress(fm)).toEqual([]);
    await q.stop();
  });
  it('a committed batch whose progress/N was never written is rebuilt from offsets/N, marked reconstructed', async () => {
    const job = memoryJob();
    const gen = eventGenerator(17);
    const fm = new InMemoryCheckpointFileManager();
    const create = fm.createAtomic.bind(fm);
    fm.createAtomic = async (path, data, opts) => {
      if (path === 'progress/1') throw new Error('the runner died here');
      return create(path, data, opts);
    };
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm, log: () => undefined });
    const seen: StreamingQueryProgress[] = [];
    for (let i = 0; i < 3; i++) {
      job.stream.addData(...gen(3));
      await q.processAllAvailable();
      seen.push(JSON.parse(JSON.stringify(q.lastProgress)));
    }
    await q.stop();
    const kept = await readRecentProgress(fm);
    expect(kept.map((p) => [p.batchId, p.reconstructed ?? false])).toEqual([[0, false], [1, true], [2, false]]);
    expect(kept[0]).toEqual(seen[0]);
    expect(kept[2]).toEqual(seen[2]);
    const offsets = new OffsetSeqLog(fm);
    const rebuilt = kept[1];
    expect(rebuilt).toMatchObject({
      id: seen[1].id,
      name: seen[1].name,
      batchId: 1,
      timestamp: new Date((await offsets.get(1))!.metadata.batchTimestampMs).toISOString(),
      numInputRows: 0,
      contract: seen[1].contract,
      sources: [{ description: seen[1].sources[0].description, startOffset: seen[1].sources[0].startOffset, endOffset: seen[1].sources[0].endOffset, numInputRows: 0 }],
    });
    expect(rebuilt.eventTime?.watermark).toBe(seen[1].eventTime?.watermark);
    // With none kept there is nothing to take the query's identity from: nothing is rebuilt.
    for (const id of [0, 2]) await fm.delete(`progress/${id}`);
    expect(await readRecentProgress(fm)).toEqual([]);
  });
});

describe('fencing', () => {
  it('calls fence before offsets, sink and commit; a failing fence stops the zombie before it writes', async () => {
    const job = memoryJob();
    job.stream.addData(...eventGenerator(14)(5));
    const fm = new InMemoryCheckpointFileManager();
    const calls: string[] = [];
    const q1 = new MicroBatchExecution({
      spec: job.spec, clock: job.harness.clock, checkpoint: fm,
      fence: async () => void calls.push([...fm.store.keys()].filter((k) => /^(offsets|commits)\//.test(k)).join(',')),
    });
    await q1.processAllAvailable();
    // Before planning, before offsets/0, before addBatch (offsets/0 written), before commits/0;
    // the next (idle) trigger at the same instant does not fence again.
    expect(calls).toEqual(['', '', 'offsets/0', 'offsets/0']);
    (job.harness.clock as ManualClock).advance(1000);
    await q1.processAllAvailable();
    expect(calls.at(-1)).toBe('offsets/0,commits/0');
    expect(calls).toHaveLength(5);
    await q1.stop();
    job.stream.addData(...eventGenerator(15)(5));
    const lost = new Error('lease lost');
    const q2 = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm, fence: async () => { throw lost; } });
    await expect(q2.processAllAvailable()).rejects.toBe(lost);
    expect(await new OffsetSeqLog(fm).batchIds()).toEqual([0]);
    expect(job.table.batches).toHaveLength(1);
  });

  it('a stop requested by the fence before planning starts no new batch; the next run takes that input', async () => {
    // As a worker's lease renewal does when it sees a stop (or a drill) request.
    const job = memoryJob({ trigger: { type: 'processing-time', interval: '1 second' } });
    const fm = new InMemoryCheckpointFileManager();
    const input = eventGenerator(18)(3);
    job.stream.addData(...input);
    let q: MicroBatchExecution;
    let fences = 0;
    q = new MicroBatchExecution({
      spec: job.spec, clock: job.harness.clock, checkpoint: fm,
      fence: async () => {
        // First fence: before planning batch 0, a stop arrives with data waiting.
        if (++fences === 1) void q.stop();
      },
    });
    await q.run();
    expect(await new OffsetSeqLog(fm).batchIds()).toEqual([]);
    expect(job.table.batches).toHaveLength(0);
    q = new MicroBatchExecution({ spec: { ...job.spec, trigger: { type: 'available-now' } }, clock: job.harness.clock, checkpoint: fm });
    await q.run();
    expect(await new OffsetSeqLog(fm).batchIds()).toEqual([0]);
    expect(await job.harness.readAnswer()).toEqual(expectedEvents(input));
  });
});

describe('triggers', () => {
  it('available-now honours maxFilesPerTrigger and stops; once takes everything in one batch', async () => {
    const job = await filesJob('json', { sourceOptions: { maxFilesPerTrigger: 2 } });
    roots.push(job.root);
    const spec = job.spec;
    const gen = eventGenerator(16);
    for (let i = 0; i < 5; i++) await writeInputFile(job.input, i, gen(3), 'json');
    const seen: number[] = [];
    await new MicroBatchExecution({ spec, clock: job.harness.clock, onProgress: (p) => void seen.push(p.numInputRows) }).run();
    expect(seen).toEqual([6, 6, 3]);
    for (let i = 5; i < 10; i++) await writeInputFile(job.input, i, gen(3), 'json');
    const once: number[] = [];
    await new MicroBatchExecution({ spec: { ...spec, trigger: { type: 'once' } }, clock: job.harness.clock, onProgress: (p) => void once.push(p.numInputRows) }).run();
    expect(once).toEqual([15]);
  });

  it('processing-time runs a batch per interval when there is data, and stop() ends it gracefully', async () => {
    const job = memoryJob({ trigger: { type: 'processing-time', interval: '5 seconds' } });
    const clock = new ManualClock(0);
    const gen = eventGenerator(17);
    let notify: () => void = () => {};
    const progress: number[] = [];
    const q = new MicroBatchExecution({
      spec: job.spec, clock,
      onProgress: (p) => { progress.push(p.batchId); notify(); },
    });
    const nextProgress = () => new Promise<void>((r) => (notify = r));
    let wait = nextProgress();
    job.stream.addData(...gen(3));
    const running = q.run();
    await wait;
    expect(progress).toEqual([0]);
    job.stream.addData(...gen(3));
    wait = nextProgress();
    // Let the loop reach its sleep, then cross the interval boundary.
    while (q.status.message !== 'Waiting for next trigger') await new Promise((r) => setImmediate(r));
    clock.advance(5000);
    await wait;
    expect(progress).toEqual([0, 1]);
    await q.stop();
    await running;
    expect(q.status.message).toBe('Stopped');
  });
});

describe('progress', () => {
  it('has Spark’s keys in Spark’s order, plus commit lag, bad-record counts and the contract', async () => {
    const job = memoryJob();
    job.stream.addData(...eventGenerator(18)(4));
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    await q.start();
    job.stream.addData(...eventGenerator(19)(3));
    await q.processAllAvailable();
    const p = q.lastProgress!;
    expect(Object.keys(p)).toEqual([
      'id', 'runId', 'name', 'timestamp', 'batchId', 'batchDuration', 'numInputRows', 'processedRowsPerSecond',
      'durationMs', 'eventTime', 'stateOperators', 'sources', 'sink', 'commitLag', 'numBadRecords', 'numDeadLetterRecords', 'contract',
    ]);
    expect(Object.keys(p.durationMs)).toEqual(['addBatch', 'commitOffsets', 'getBatch', 'latestOffset', 'queryPlanning', 'triggerExecution', 'walCommit']);
    expect(p.numInputRows).toBe(7);
    expect(p.sources[0]).toMatchObject({ description: `MemoryStream[${job.id}]`, startOffset: null, endOffset: 7, latestOffset: 7 });
    expect(p.commitLag).toBe(0);
    expect(p.contract.guarantee).toBe('exactly-once');
    expect(p.sink.numOutputRows).toBe(expectedEvents(job.stream.rows).length);
    await q.stop();
  });
});

describe('current_timestamp on a re-run', () => {
  it('is the batch timestamp recorded in offsets/N, so the re-run writes the same value', async () => {
    const job = memoryJob({}, 'SELECT id, current_timestamp AS at_ts, now() AS also FROM events');
    const clock = job.harness.clock as ManualClock;
    const fm = new InMemoryCheckpointFileManager();
    job.stream.addData(...eventGenerator(20)(2));
    const crashing = new MicroBatchExecution({ spec: job.spec, clock, checkpoint: fm, crash: { point: 'after-offsets', batchId: 0 } });
    await expect(crashing.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
    const recorded = (await new OffsetSeqLog(fm).get(0))!.metadata.batchTimestampMs;
    clock.advance(60_000);
    const q = new MicroBatchExecution({ spec: job.spec, clock, checkpoint: fm });
    await q.processAllAvailable();
    expect(job.table.rows.map((r) => [r.at_ts, r.also])).toEqual([[recorded, recorded], [recorded, recorded]]);
    expect(clock.now()).not.toBe(recorded);
    await q.stop();
  });
});

describe('StreamTest over memory source and sink', () => {
  it('crash after the sink, restart: the replayed batch is skipped by the idempotent sink', async () => {
    const job = memoryJob();
    const gen = eventGenerator(21);
    await testStream(job.harness, [
      AddData(gen(8)), CheckAnswer(),
      AddData(gen(8)), CrashAt('after-sink', 1),
      Assert(() => expect(job.table.batches.map((b) => b.batchId)).toEqual([0, 1])),
      CheckAnswer(),
      Assert(() => expect(job.table.skippedReplays).toBe(1)),
      StopStream(),
    ]);
  });
});

describe('a checkpoint is married to its source', () => {
  it('refuses to restart on another source, naming both, and records the source in offsets/N conf', async () => {
    const job = await filesJob('json');
    roots.push(job.root);
    await writeInputFile(job.input, 0, eventGenerator(40)(3), 'json');
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock });
    await q.processAllAvailable();
    await q.stop();
    const offsets = new OffsetSeqLog(q.checkpoint);
    expect((await offsets.get(0))!.metadata.conf).toEqual({ 'weir.source': `FileSource[${job.input}]`, 'weir.statefulOperators': '', 'spark.sql.shuffle.partitions': '1' });
    // The other folder exists: a missing one fails first, with PATH_NOT_FOUND.
    await mkdir(`${job.input}-elsewhere`, { recursive: true });
    const moved = mustParse({ ...job.spec, source: { ...job.spec.source, options: { ...job.spec.source.options, path: `${job.input}-elsewhere` } } });
    const err = await new MicroBatchExecution({ spec: moved, clock: job.harness.clock }).processAllAvailable().catch((e) => e);
    expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
    expect(err.code).toBe('INCOMPATIBLE_QUERY_CHANGE');
    expect(err.message).toContain(`reading FileSource[${job.input}]; this job reads FileSource[${job.input}-elsewhere]`);
    expect(await offsets.batchIds()).toEqual([0]);
  });
});

describe('onQueryIdle (Spark QueryIdleEvent): a quiet source is told apart from a stuck query', () => {
  it('reports a trigger that found no new data, at once after a batch, then at most every noDataProgressEventIntervalMs', async () => {
    const job = memoryJob();
    const clock = job.harness.clock as ManualClock;
    const idle: number[] = [];
    const exec = new MicroBatchExecution({ spec: job.spec, clock, checkpoint: new InMemoryCheckpointFileManager(), onQueryIdle: (e) => idle.push(e.timestampMs), noDataProgressEventIntervalMs: 10_000 });
    const gen = eventGenerator(3);
    job.stream.addData(...gen(5));
    await exec.processAllAvailable(); // batch 0, then an idle trigger
    expect(idle).toEqual([clock.now()]);
    const t0 = clock.now();
    clock.advance(9_999);
    await exec.processAllAvailable(); // idle again, within the interval: not reported
    expect(idle).toEqual([t0]);
    clock.advance(1);
    await exec.processAllAvailable();
    expect(idle).toEqual([t0, t0 + 10_000]);
    // New data: a batch runs (no idle report for it), and the first idle trigger after it reports at once.
    job.stream.addData(...gen(5));
    clock.advance(1);
    await exec.processAllAvailable();
    expect(idle).toEqual([t0, t0 + 10_000, t0 + 10_001]);
    expect(exec.lastProgress?.batchId).toBe(1);
    await exec.stop();
  });
});

describe('rand(seed) in a streaming Project (Spark seeds each task with seed + partitionIndex)', () => {
  it('draws the same values for a batch and for its re-run after a crash; each batch starts the sequence anew, as each is a new task in Spark', async () => {
    const run = async (crash: boolean) => {
      const job = memoryJob({ outputMode: 'append' }, 'SELECT id, rand(42) AS r, randn(42) AS g FROM events');
      const gen = eventGenerator(3);
      const fm = new InMemoryCheckpointFileManager();
      job.stream.addData(...gen(3));
      const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm });
      await q.processAllAvailable();
      await q.stop();
      job.stream.addData(...gen(3));
      if (crash) {
        // Batch 1 is planned and logged, then the run dies before its rows are written.
        const crashing = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm, crash: { point: 'after-offsets', batchId: 1 } });
        await expect(crashing.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
      }
      const again = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm });
      await again.processAllAvailable();
      await again.stop();
      return job.table.rows;
    };
    const clean = await run(false);
    expect(await run(true)).toEqual(clean);
    expect(clean).toHaveLength(6);
    // Batch 1's rows draw what batch 0's drew: rand(42)'s sequence from its start.
    expect(clean.slice(3).map((r) => [r.r, r.g])).toEqual(clean.slice(0, 3).map((r) => [r.r, r.g]));
    expect(new Set(clean.slice(0, 3).map((r) => r.r)).size).toBe(3);
  });
});

describe('GROUP BY ROLLUP end to end (an Expand below the aggregation)', () => {
  it('in map tasks and after a crash before the commit, every grouping set counts each row once', async () => {
    const job = memoryJob({ outputMode: 'complete', parallelism: 2 }, 'SELECT name, keep, count(*) AS n, grouping_id() AS g FROM events GROUP BY ROLLUP(name, keep)');
    const gen = eventGenerator(11);
    const fm = new InMemoryCheckpointFileManager();
    job.stream.addData(...gen(20));
    const q = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm });
    await q.processAllAvailable();
    await q.stop();
    job.stream.addData(...gen(20));
    const crashing = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm, crash: { point: 'after-sink', batchId: 1 } });
    await expect(crashing.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
    const again = new MicroBatchExecution({ spec: job.spec, clock: job.harness.clock, checkpoint: fm });
    await again.processAllAvailable();
    await again.stop();
    const rows = job.stream.rows;
    const count = (p: (r: Row) => boolean) => rows.filter(p).length;
    const expected: Row[] = [{ name: null, keep: null, n: rows.length, g: 3 }];
    for (const name of new Set(rows.map((r) => r.name as string))) {
      expected.push({ name, keep: null, n: count((r) => r.name === name), g: 1 });
      for (const keep of [true, false]) if (count((r) => r.name === name && r.keep === keep)) expected.push({ name, keep, n: count((r) => r.name === name && r.keep === keep), g: 0 });
    }
    const canon = (rs: Row[]) => rs.map((r) => JSON.stringify([r.name, r.keep, r.n, r.g])).sort();
    expect(canon(job.table.rows)).toEqual(canon(expected));
  });
});
