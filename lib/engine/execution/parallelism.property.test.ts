/**
 * Differential property test of the job's parallelism (Spark's spark.sql.shuffle.partitions):
 * random rows, random batches, restarts and runs killed at any crash point give, batch by
 * batch, the same output (up to row order within a batch) with the state in 2 to 4 partitions,
 * one reduce task each, as with one partition, and with the map side as map tasks over the source's splits (an
 * aggregation whose buffers merge exactly aggregated in the map tasks first, Spark's partial
 * aggregation, or its rows shuffled when they do not). Over an aggregation, a windowed aggregation
 * whose windows slide (a row's windows must all be in its partition), a deduplication, and a
 * deduplication under an aggregation (two shuffles in one batch), and stream-stream joins
 * (each side shuffled by its own join key).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inspectCheckpoint } from '../checkpoint/checkpoint-inspector';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { CrashPointError } from '../errors';
import { MemoryStream } from '../sources/memory-source';
import type { Row } from '../types';
import { CRASH_POINTS, type CrashPointName } from './crash-points';
import { Executor } from './executor';
import { MicroBatchExecution } from './micro-batch-execution';
import { ExecutorsTaskScheduler } from './testing/executors-task-scheduler';
import { BatchCapture, canonical } from './testing/stream-test';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { FileStreamSinkLog } from '../sinks/file-stream-sink-log';
import { readCommittedRows } from '../sinks/files-sink';
import { mustParse } from './testing/test-fixtures';
import { propertyRuns } from '@/lib/testing/property-runs';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);


interface Query {
  sql: string;
  outputMode: 'append' | 'update' | 'complete';
  dedup?: { keys: string[] };
  /** Two sources: `left` (k, v, ts) and `right` (rk, rv, rts); a row goes to the right when its v is odd. */
  join?: boolean;
  /** An aggregation whose map tasks aggregate their splits (true) or shuffle its rows (false). */
  partial?: boolean;
}

const QUERIES: Record<string, Query> = {
  aggregation: { sql: 'SELECT k, count(*) AS c, sum(v) AS s, max(ts) AS last FROM events GROUP BY k', outputMode: 'update', partial: true },
  'aggregation over two keys, complete': { sql: 'SELECT k, v % 3 AS r, count(*) AS c FROM events GROUP BY k, v % 3', outputMode: 'complete' },
  // Every aggregate's buffers merge exactly: map tasks aggregate their splits (partial aggregation), late rows dropped first.
  'windowed aggregation of merged partial buffers, update': {
    sql: "SELECT window(ts, '10 minutes') AS w, k, count(*) AS c, count(CASE WHEN v > 2 THEN v END) AS cv, sum(v) AS s, min(v) AS lo, max(ts) AS last, " +
      'sum(CAST(v AS DECIMAL(10,2))) AS ds, avg(CAST(v AS DECIMAL(10,2))) AS da, first(id) AS f, last(v) AS l, count_if(v = 0) AS zeros, ' +
      "bool_or(v > 4) AS big, bool_and(v > 0) AS pos, bit_xor(v) AS x FROM events GROUP BY window(ts, '10 minutes'), k",
    outputMode: 'update', partial: true,
  },
  'aggregation of merged partial buffers, append': { sql: "SELECT k, window(ts, '5 minutes') AS w, count(*) AS c, max(v) AS hi, last(id) AS l FROM events GROUP BY k, window(ts, '5 minutes')", outputMode: 'append', partial: true },
  // avg of a BIGINT sums doubles, whose addition is not associative: the rows are shuffled, not buffers.
  'aggregation whose buffers do not merge (rows shuffled)': { sql: 'SELECT k, avg(v) AS a, sum(CAST(v AS DOUBLE)) AS ds, count(*) AS c FROM events GROUP BY k', outputMode: 'update', partial: false },
  'sliding windows, append': { sql: "SELECT window(ts, '10 minutes', '5 minutes') AS w, k, count(*) AS c FROM events GROUP BY window(ts, '10 minutes', '5 minutes'), k", outputMode: 'append' },
  deduplication: { sql: 'SELECT id, k, v FROM events', outputMode: 'append', dedup: { keys: ['k', 'v'] } },
  'deduplication under an aggregation': { sql: 'SELECT v, count(*) AS c FROM events GROUP BY v', outputMode: 'update', dedup: { keys: ['k'] } },
  'stream-stream inner join with a time range': {
    sql: 'SELECT * FROM lefts JOIN rights ON rk = k AND rts >= ts - INTERVAL 10 MINUTES AND rts <= ts + INTERVAL 10 MINUTES',
    outputMode: 'append', join: true,
  },
  'stream-stream full outer join': {
    sql: 'SELECT * FROM lefts FULL OUTER JOIN rights ON rk = k AND rts >= ts - INTERVAL 10 MINUTES AND rts <= ts + INTERVAL 10 MINUTES',
    outputMode: 'append', join: true,
  },
};

type Step = { rows: { k: string | null; v: number; minute: number }[]; restart: boolean; crash: CrashPointName | null };

const stepArb: fc.Arbitrary<Step> = fc.record({
  rows: fc.array(fc.record({ k: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', null), v: fc.integer({ min: 0, max: 5 }), minute: fc.integer({ min: 0, max: 60 }) }), { maxLength: 12 }),
  restart: fc.boolean(),
  crash: fc.option(fc.constantFrom(...CRASH_POINTS), { freq: 3 }),
});

let n = 0;

/**
 * Two executors (workers) that outlive the driver's restarts; each task goes to one chosen by
 * `seed`, and some are run twice (a retry on the other executor after a lost first attempt).
 */
interface Remote {
  seed: number;
  /** The map side as map tasks on the executors too, each reading its split of the source. */
  mapTasks: boolean;
  /** The last stage's reduce tasks write the files sink's part files themselves (Sink.commitProtocol). */
  tasksWriteSink?: boolean;
}

/** Part files the driver logged that reduce tasks wrote (part-<batch>-<partition>-<attempt id>): the task path ran. */
let taskFilesLogged = 0;

/**
 * Runs the steps with `parallelism` (its tasks on two executors if `remote`) and returns each
 * batch's output: as the sink received it, or with `filesDir`, as the files sink there committed it.
 */
async function runSteps(q: Query, parallelism: number, steps: Step[], remote?: Remote, filesDir?: string): Promise<Map<number, string[]>> {
  const id = `parallelism-${++n}-${process.pid}`;
  const source = (name: string, prefix: string) => ({
    name, type: 'memory', options: { stream: `${id}-${name}` },
    schema: [{ name: `${prefix}id`, type: 'long' }, { name: `${prefix}k`, type: 'string' }, { name: `${prefix}v`, type: 'long' }, { name: `${prefix}ts`, type: 'timestamp' }],
    eventTime: `${prefix}ts`, watermarkDelay: '5 minutes',
  });
  const spec = mustParse({
    name: id,
    ...(q.join ? { sources: [source('lefts', ''), source('rights', 'r')] } : { source: source('events', '') }),
    sql: q.sql,
    sink: filesDir ? { type: 'files', options: { path: filesDir, format: 'json' } } : { type: 'memory', options: { table: id } },
    outputMode: q.outputMode,
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
    parallelism,
    ...(q.dedup ? { dedup: q.dedup } : {}),
  });
  const add = (rows: Row[]) => {
    if (!q.join) return void MemoryStream.named(`${id}-events`).addRows(rows);
    MemoryStream.named(`${id}-lefts`).addRows(rows.filter((r) => (r.v as number) % 2 === 0));
    MemoryStream.named(`${id}-rights`).addRows(rows.filter((r) => (r.v as number) % 2 === 1).map((r) => ({ rid: r.id, rk: r.k, rv: r.v, rts: r.ts })));
  };
  const checkpoint = new InMemoryCheckpointFileManager();
  const clock = new ManualClock(T0);
  const sink = new BatchCapture();
  const executors = [new Executor({ clock }), new Executor({ clock })];
  // Whether the map tasks aggregated their splits (partial aggregation) or shuffled rows.
  const partialFlags = new Set<boolean>();
  for (const e of executors) {
    const runMapTask = e.runMapTask.bind(e);
    e.runMapTask = (eq, task) => {
      partialFlags.add(task.partialAggregation === true);
      return runMapTask(eq, task);
    };
  }
  let seed = remote?.seed ?? 0;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16;
  const start = (crash?: { point: CrashPointName; batchId: number }): MicroBatchExecution => {
    const taskScheduler: ExecutorsTaskScheduler | undefined = remote && new ExecutorsTaskScheduler({
      executors, spec, checkpoint, queryId: (): string => started.id, pick: () => next() % 2, retry: () => next() % 5 === 0, mapTasks: remote.mapTasks,
      tasksWriteSink: remote.tasksWriteSink ?? false,
    });
    const started: MicroBatchExecution = new MicroBatchExecution({ spec, checkpoint, clock, ...(filesDir ? {} : { sink }), crash, taskScheduler });
    return started;
  };
  let query = start();
  let rowId = 0;
  for (const step of steps) {
    add(step.rows.map((r) => ({ id: rowId++, k: r.k, v: r.v, ts: T0 + r.minute * MIN })));
    clock.advance(1000);
    if (step.restart || step.crash) {
      await query.stop();
      const info = await inspectCheckpoint(checkpoint);
      const next = info.pendingBatch ?? (info.latestOffsetsBatch ?? -1) + 1;
      query = start(step.crash ? { point: step.crash, batchId: next } : undefined);
    }
    const err = await query.processAllAvailable().then(() => undefined, (e: unknown) => e);
    if (err) {
      // Killed: abandoned without cleanup; the next run resumes from the checkpoint.
      expect(err).toBeInstanceOf(CrashPointError);
      query = start();
      await query.processAllAvailable();
    }
  }
  await query.stop();
  for (const e of executors) await e.close();
  if (q.partial !== undefined && parallelism > 1 && partialFlags.size > 0) expect([...partialFlags]).toEqual([q.partial]);
  if (!filesDir) return sink.batches;
  const logged = await new FileStreamSinkLog(new LocalCheckpointFileManager(filesDir, { fsync: false })).all();
  taskFilesLogged += logged.flatMap((b) => b.entry.files).filter((f) => /^part-\d{5}-\d{5}-[0-9a-f-]{36}\.json$/.test(f.path)).length;
  return new Map((await readCommittedRows(filesDir, 'json')).map((b) => [b.batchId, canonical(b.rows)]));
}

describe('parallelism N gives the output of parallelism 1 (up to row order within a batch)', () => {
  for (const [name, q] of Object.entries(QUERIES)) {
    it(name, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 6 }), fc.integer({ min: 2, max: 4 }), async (steps, parallelism) => {
          const one = await runSteps(q, 1, steps);
          const many = await runSteps(q, parallelism, steps);
          expect([...many.entries()].sort((a, b) => a[0] - b[0])).toEqual([...one.entries()].sort((a, b) => a[0] - b[0]));
        }),
        { numRuns: propertyRuns(12, 60), seed: 2026 + name.length },
      );
    });
  }
});

describe('with its tasks on two executors (workers), moved and retried between them, parallelism N gives the output of parallelism 1', () => {
  // With mapTasks, a one-source query's map side runs as map tasks (memory splits of 4 rows) on the executors too.
  for (const [name, q] of Object.entries(QUERIES)) {
    it(name, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 4 }), fc.nat(), fc.boolean(), async (steps, parallelism, seed, mapTasks) => {
          const one = await runSteps(q, 1, steps);
          const many = await runSteps(q, parallelism, steps, { seed, mapTasks });
          expect([...many.entries()].sort((a, b) => a[0] - b[0])).toEqual([...one.entries()].sort((a, b) => a[0] - b[0]));
        }),
        { numRuns: propertyRuns(12, 60), seed: 4052 + name.length },
      );
    });
  }
});

describe('with the files sink written by the last stage\'s reduce tasks (part file per task attempt, one _weir_metadata entry per batch), parallelism N commits the output of parallelism 1', () => {
  // A task retried on the other executor leaves its first (zombie) attempt's part file in the
  // directory: only the completed attempts' files may be logged, or a batch's rows double.
  const appendQueries = Object.entries(QUERIES).filter(([, q]) => q.outputMode === 'append');
  for (const [name, q] of appendQueries) {
    it(name, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 6 }), fc.integer({ min: 2, max: 4 }), fc.nat(), fc.boolean(), async (steps, parallelism, seed, mapTasks) => {
          const dir = await mkdtemp(path.join(tmpdir(), 'weir-ptasks-'));
          try {
            const one = await runSteps(q, 1, steps, undefined, path.join(dir, 'one'));
            const many = await runSteps(q, parallelism, steps, { seed, mapTasks, tasksWriteSink: true }, path.join(dir, 'many'));
            expect([...many.entries()].sort((a, b) => a[0] - b[0])).toEqual([...one.entries()].sort((a, b) => a[0] - b[0]));
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        }),
        { numRuns: propertyRuns(12, 60), seed: 6078 + name.length },
      );
    });
  }
  it('ran the task path (some batches were committed from the tasks\' part files)', () => {
    expect(taskFilesLogged).toBeGreaterThan(0);
  });
});
