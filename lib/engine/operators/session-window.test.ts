/**
 * Session windows (session_window(ts, gap) in GROUP BY). The action scripts are Spark's own
 * (StreamingSessionWindowSuite and DataFrameSessionWindowingSuite, Spark 3.5), with Spark's
 * answers: timestamps there are seconds cast to TIMESTAMP, here the same seconds in Weir's
 * milliseconds, and `CAST(session_window.start AS LONG)` gives the seconds back.
 */
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { ManualClock } from '../clock';
import { IncompatibleQueryChangeError } from '../errors';
import { CRASH_POINTS } from '../execution/crash-points';
import { AddData, CheckAnswer, CrashAt, StartStream, StopStream, testStream } from '../execution/testing/stream-test';
import { mustParse, seededRandom, tempDir } from '../execution/testing/test-fixtures';
import { MicroBatchExecution } from '../execution/micro-batch-execution';
import type { StreamingRelation } from '../query/logical-plan';
import { compileStreamingQuery } from '../query/streaming-query';
import { mergeSessions, sessionEnd } from './session-window';
import { StatefulQueryRunner } from '../query/testing/stateful-test-harness';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import type { OutputMode, Row } from '../types';

const SEC = 1000;
const lines: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [{ name: 'value', type: 'string' }, { name: 'eventTime', type: 'timestamp' }],
  eventTime: 'eventTime',
  watermarkDelayMs: 30 * SEC,
};
const line = (value: string, seconds: number): Row => ({ value, eventTime: seconds * SEC });
const session = (sessionId: string, s: number, e: number, durationMs: number, numEvents: number) => ({ sessionId, s, e, durationMs, numEvents });
const sorted = (rows: Row[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** Spark's sessionWindowQuery: the words of a line are session ids, a 10-second gap by default. */
const SQL = (gap = "'10 seconds'") =>
  'SELECT sessionId, CAST(session_window.start AS LONG) AS s, CAST(session_window.end AS LONG) AS e, ' +
  'CAST(session_window.end AS LONG) - CAST(session_window.start AS LONG) AS durationMs, count(*) AS numEvents ' +
  "FROM (SELECT explode(split(value, ' ')) AS sessionId, eventTime FROM events) " +
  `GROUP BY session_window(eventTime, ${gap}), sessionId`;

const runner = (sql: string, mode: OutputMode, rel = lines, fm = new InMemoryCheckpointFileManager()) => new StatefulQueryRunner(fm, sql, rel, mode);

describe('session windows: Spark\'s action scripts', () => {
  it('complete mode: sessions before, between and after the kept ones; a row bridging two kept sessions merges them (restart midway)', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const q = runner(SQL(), 'complete', lines, fm);
    const b0 = await q.runBatch([line('hello world spark streaming', 40), line('world hello structured streaming', 41)]);
    expect(sorted(b0.output)).toEqual(sorted([
      session('hello', 40, 51, 11, 2), session('world', 40, 51, 11, 2), session('streaming', 40, 51, 11, 2),
      session('spark', 40, 50, 10, 1), session('structured', 41, 51, 10, 1),
    ]));
    // Placing new sessions "before" the kept ones.
    const b1 = await q.runBatch([line('spark streaming', 25)]);
    expect(sorted(b1.output)).toEqual(sorted([
      session('spark', 25, 35, 10, 1), session('streaming', 25, 35, 10, 1),
      session('hello', 40, 51, 11, 2), session('world', 40, 51, 11, 2), session('streaming', 40, 51, 11, 2),
      session('spark', 40, 50, 10, 1), session('structured', 41, 51, 10, 1),
    ]));
    q.restart();
    // Concatenating two kept sessions into one.
    const b2 = await q.runBatch([line('spark streaming', 30)]);
    const afterMerge = [
      session('spark', 25, 50, 25, 3), session('streaming', 25, 51, 26, 4),
      session('hello', 40, 51, 11, 2), session('world', 40, 51, 11, 2), session('structured', 41, 51, 10, 1),
    ];
    expect(sorted(b2.output)).toEqual(sorted(afterMerge));
    // Placing new sessions after the kept ones.
    const b3 = await q.runBatch([line('hello apache spark', 60)]);
    const after60 = [...afterMerge, session('hello', 60, 70, 10, 1), session('apache', 60, 70, 10, 1), session('spark', 60, 70, 10, 1)];
    expect(sorted(b3.output)).toEqual(sorted(after60));
    const b4 = await q.runBatch([line('structured streaming', 90)]);
    expect(sorted(b4.output)).toEqual(sorted([...after60, session('structured', 90, 100, 10, 1), session('streaming', 90, 100, 10, 1)]));
  });

  /** Spark's "append mode - session window" script; `restartAt` restarts the process before that batch. */
  async function appendScript(sql: string, restartAt: number) {
    const q = runner(sql, 'append');
    const batches = [
      [line('hello world spark streaming', 40), line('world hello structured streaming', 41)],
      [line('spark streaming', 25)],
      // Late: the sessions would end at 10, at or before the watermark 11.
      [line('spark streaming', 0)],
      [line('spark streaming', 30)],
      [line('hello apache spark', 60)],
      [line('structured streaming', 90)],
      // The no-data batch Spark runs once the watermark (60) has moved.
      [],
    ];
    const outputs: Row[][] = [];
    const dropped: number[] = [];
    for (const [i, rows] of batches.entries()) {
      if (i === restartAt) q.restart();
      const b = await q.runBatch(rows);
      outputs.push(b.output);
      dropped.push(b.progress[0].numRowsDroppedByWatermark);
    }
    return { outputs, dropped, watermarkMs: q.watermarkMs };
  }

  it.each([99, 3, 5])('append mode: a session is emitted once, when the watermark passes its end; late rows are dropped (restart before batch %i)', async (restartAt) => {
    const { outputs, dropped } = await appendScript(SQL(), restartAt);
    expect(outputs.slice(0, 6).every((o) => o.length === 0)).toBe(true);
    expect(dropped[2]).toBe(2);
    expect(sorted(outputs[6])).toEqual(sorted([
      session('spark', 25, 50, 25, 3), session('streaming', 25, 51, 26, 4),
      session('hello', 40, 51, 11, 2), session('world', 40, 51, 11, 2), session('structured', 41, 51, 10, 1),
    ]));
  });

  it('a gap per row (CASE): zero and negative gaps leave the row out, as Spark\'s SPARK-36465 script', async () => {
    const gap = "CASE WHEN sessionId = 'hello' THEN '1 second' WHEN sessionId = 'structured' THEN '0 second' " +
      "WHEN sessionId = 'world' THEN '-10 seconds' ELSE '10 seconds' END";
    const { outputs, dropped } = await appendScript(SQL(gap), 4);
    expect(outputs.slice(0, 6).every((o) => o.length === 0)).toBe(true);
    expect(dropped[2]).toBe(2);
    expect(sorted(outputs[6])).toEqual(sorted([session('spark', 25, 50, 25, 3), session('streaming', 25, 51, 26, 4), session('hello', 40, 42, 2, 2)]));
  });

  it('other aggregates fold over the whole merged session (Spark\'s "more aggregation functions" script)', async () => {
    const sql = 'SELECT value AS sessionId, CAST(session_window.start AS LONG) AS s, CAST(session_window.end AS LONG) AS e, ' +
      'CAST(avg(CAST(eventTime AS LONG)) AS LONG) AS mean, CAST(median(CAST(eventTime AS LONG)) AS LONG) AS med, ' +
      'CAST(stddev(CAST(eventTime AS LONG)) AS LONG) AS sd, CAST(variance(CAST(eventTime AS LONG)) AS LONG) AS var, ' +
      'sum(CAST(eventTime AS LONG)) AS total, CAST(min(eventTime) AS LONG) AS lo, CAST(max(eventTime) AS LONG) AS hi, ' +
      'CAST(first(eventTime) AS LONG) AS f, collect_list(CAST(eventTime AS LONG)) AS l ' +
      "FROM events GROUP BY session_window(eventTime, '10 seconds'), value";
    const q = runner(sql, 'append');
    const out: Row[] = [];
    for (const rows of [[line('a', 41)], [line('a', 42)], [line('a', 40)], [line('b', 100)], [line('b', 101)]]) out.push(...(await q.runBatch(rows)).output);
    // The rows fold in event-time order, whatever batch they came in (Spark sorts by session start).
    expect(out).toEqual([{ sessionId: 'a', s: 40, e: 52, mean: 41, med: 41, sd: 1, var: 1, total: 123, lo: 40, hi: 42, f: 40, l: [40, 41, 42] }]);
  });

  it('session_window is a struct<start, end> column named session_window; NULL times, NULL and unreadable gaps leave the row out', async () => {
    const rel: StreamingRelation = { ...lines, schema: [...lines.schema, { name: 'gap', type: 'string' }] };
    const q = runner("SELECT value, session_window, count(*) AS n FROM events GROUP BY value, session_window(eventTime, gap)", 'complete', rel);
    expect(q.outputSchema().map((f) => [f.name, f.type])).toEqual([['value', 'string'], ['session_window', 'window'], ['n', 'long']]);
    const b = await q.runBatch([
      { value: 'a', eventTime: 10 * SEC, gap: '5 seconds' },
      { value: 'a', eventTime: 15 * SEC, gap: 'interval 1 minute' },
      { value: 'a', eventTime: null, gap: '5 seconds' },
      { value: 'a', eventTime: 20 * SEC, gap: null },
      { value: 'a', eventTime: 20 * SEC, gap: 'x sec' },
    ]);
    expect(b.output).toEqual([{ value: 'a', session_window: { start: 10 * SEC, end: 75 * SEC }, n: 2 }]);
  });

  it('a gap per row of the type interval (Spark: session_window(ts, CAST(gap AS INTERVAL)))', async () => {
    const rel: StreamingRelation = { ...lines, schema: [...lines.schema, { name: 'gap', type: 'string' }] };
    const q = runner('SELECT value, session_window, count(*) AS n FROM events GROUP BY value, session_window(eventTime, CAST(gap AS INTERVAL))', 'complete', rel);
    const b = await q.runBatch([
      { value: 'a', eventTime: 10 * SEC, gap: '5 seconds' },
      { value: 'a', eventTime: 15 * SEC, gap: 'interval 1 minute' },
      { value: 'a', eventTime: 20 * SEC, gap: 'x sec' },
    ]);
    expect(b.output).toEqual([{ value: 'a', session_window: { start: 10 * SEC, end: 75 * SEC }, n: 2 }]);
  });

  it('an interval gap, session_window.start in the select list, and the explain', async () => {
    const sql = "SELECT value, session_window.start AS st, count(*) AS n FROM events GROUP BY value, session_window(eventTime, INTERVAL 5 SECONDS)";
    const q = runner(sql, 'complete');
    expect((await q.runBatch([line('a', 10), line('a', 15), line('a', 21)])).output).toEqual([{ value: 'a', st: 10 * SEC, n: 2 }, { value: 'a', st: 21 * SEC, n: 1 }]);
    const { explain } = compileStreamingQuery(sql, lines, { outputMode: 'append' });
    expect(explain).toContain('evicted when the watermark passes the session end');
  });

  it('Spark\'s output-mode and shape checks, with Spark\'s messages', () => {
    const by = "FROM events GROUP BY session_window(eventTime, '10 seconds')";
    expect(() => runner(`SELECT value, count(*) ${by}, value`, 'update')).toThrow('Update output mode not supported for session window on streaming DataFrames/DataSets');
    expect(() => runner(`SELECT count(*) ${by}`, 'complete')).toThrow('Global aggregation with session window in streaming query is not supported.');
    expect(() => runner("SELECT value, count(*) FROM events GROUP BY session_window(eventTime, 1.0), value", 'complete')).toThrow('Gap duration expression used in session window must be CalendarIntervalType, but got DECIMAL(2,1)');
    expect(() => runner(`SELECT value, count(*) ${by}, value`, 'append', { ...lines, eventTime: undefined, watermarkDelayMs: undefined }))
      .toThrow('Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark');
    expect(() => runner(`SELECT value, count(*) ${by}, window(eventTime, '1 minute'), value`, 'complete')).toThrow('Multiple time window expressions');
  });

  it('four state partitions give the same sessions as one, each key in one partition', async () => {
    const batches = [[line('a b c d e', 10)], [line('a c e', 15), line('b', 30)], [line('a b c d e', 22)]];
    const run = async (numPartitions: number) => {
      const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), SQL(), lines, 'complete', {}, { numPartitions });
      let last: Row[] = [];
      for (const rows of batches) last = (await q.runBatch(rows)).output;
      return sorted(last);
    };
    const one = await run(1);
    expect(await run(4)).toEqual(one);
    expect(one).toContainEqual(session('a', 10, 32, 22, 3));
    expect(one).toContainEqual(session('b', 10, 20, 10, 1));
  });

  it('a crash before the state commit re-runs the batch from the sessions as they were', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const q = runner(SQL(), 'complete', lines, fm);
    await q.runBatch([line('a b', 10)]);
    const first = await q.runBatch([line('a', 25), line('b', 18)], { crashBeforeCommit: true });
    q.restart();
    const rerun = await q.runBatch([line('a', 25), line('b', 18)]);
    expect(sorted(rerun.output)).toEqual(sorted(first.output));
    expect(sorted(rerun.output)).toEqual(sorted([session('a', 10, 20, 10, 1), session('a', 25, 35, 10, 1), session('b', 10, 28, 18, 2)]));
  });
});

describe('session gap values', () => {
  it('reads interval strings as Spark\'s CAST(… AS INTERVAL) does, NULL for other text', () => {
    // The parser itself is calendar-interval.test.ts's; here, what a gap string does to a session.
    expect(sessionEnd(0, '10 seconds', 'string')).toBe(10_000);
    expect(sessionEnd(0, 'INTERVAL 1 day -2 hours 1.5 seconds', 'string')).toBe(86_400_000 - 7_200_000 + 1500);
    for (const bad of ['x sec', '10', '1.5 minutes', '10 fortnights']) expect(sessionEnd(0, bad, 'string')).toBeNull();
    expect(sessionEnd(Date.UTC(2024, 0, 31), '1 month', 'string')).toBe(Date.UTC(2024, 1, 29));
    // The gap's microseconds are kept, as the timestamp's fraction.
    expect(sessionEnd(1000, 2_500n, 'day_time_interval')).toBe(1002.5);
    expect(sessionEnd(1000, null, 'string')).toBeNull();
  });

  it('merges sessions that overlap or touch, not those with a gap between', () => {
    const merged = mergeSessions([[20, 30, [[20]]], [0, 10, [[0]]], [10, 15, [[10]]], [31, 40, [[31]]], [5, 25, [[5]]]]);
    expect(merged).toEqual([[0, 30, [[0], [5], [10], [20]]], [31, 40, [[31]]]]);
  });
});

// Through MicroBatchExecution, on both state store providers: a crash at every point and a
// restart, with no session emitted twice or lost.
const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});
const T0 = Date.UTC(2024, 0, 1);
const GAP = 10 * SEC, DELAY = 30 * SEC;
const E2E_SQL = "SELECT user, session_window, count(*) AS n, sum(amount) AS s FROM events GROUP BY session_window(ts, '10 seconds'), user";

/** Rows in event-time order (no row is late), a few seconds apart, three users. */
function gen(seed: number) {
  const rnd = seededRandom(seed);
  let t = T0;
  return (n: number): Row[] =>
    Array.from({ length: n }, () => {
      t += Math.floor(rnd() * 9) * SEC;
      return { user: ['ann', 'bob', 'cy'][Math.floor(rnd() * 3)], amount: Math.floor(rnd() * 10), ts: t };
    });
}

/** Reference: every user's sessions over all the rows, those the final watermark has closed. */
function closedSessions(rows: Row[]): Row[] {
  const wm = Math.max(...rows.map((r) => r.ts as number)) - DELAY;
  const out: Row[] = [];
  for (const user of new Set(rows.map((r) => r.user))) {
    let cur: { start: number; end: number; n: number; s: number } | undefined;
    const flush = () => cur && cur.end <= wm && out.push({ user, session_window: { start: cur.start, end: cur.end }, n: cur.n, s: cur.s });
    for (const r of rows.filter((x) => x.user === user)) {
      const ts = r.ts as number;
      if (cur && ts <= cur.end) {
        cur.end = Math.max(cur.end, ts + GAP);
        cur.n++;
        cur.s += r.amount as number;
      } else {
        flush();
        cur = { start: ts, end: ts + GAP, n: 1, s: r.amount as number };
      }
    }
    flush();
  }
  return out;
}

let uniq = 0;
async function job(provider: 'hdfs' | 'lmdb', sql = E2E_SQL) {
  const name = `session-${process.pid}-${uniq++}`;
  const checkpoint = await tempDir('session');
  const stateLocalDir = await tempDir('session-local');
  roots.push(checkpoint, stateLocalDir);
  const spec = mustParse({
    name,
    source: {
      name: 'events', type: 'memory', options: { stream: name },
      schema: [{ name: 'user', type: 'string' }, { name: 'amount', type: 'long' }, { name: 'ts', type: 'timestamp' }],
      eventTime: 'ts', watermarkDelay: '30 seconds',
    },
    sql, sink: { type: 'memory', options: { table: name } }, outputMode: 'append', trigger: { type: 'available-now' },
    checkpointLocation: checkpoint, stateStore: { provider },
  });
  return { spec, stream: MemoryStream.named(name), table: MemorySinkTable.named(name), options: { stateLocalDir } };
}

describe.each(['hdfs', 'lmdb'] as const)('session windows through MicroBatchExecution (%s state store)', (provider) => {
  it.each(CRASH_POINTS)('append: crash at %s of the second data batch, restart: each closed session once, with all its rows', async (point) => {
    const j = await job(provider);
    const g = gen(point.length * 5 + provider.length);
    const state = await testStream(
      { spec: j.spec, clock: new ManualClock(T0), addData: async (rows) => void j.stream.addRows(rows), readAnswer: async () => j.table.rows, expected: closedSessions, options: j.options },
      [
        AddData(g(25)), CheckAnswer(),
        // Batch 1 is the no-data batch that closes sessions once the watermark moved.
        AddData(g(25)), CrashAt(point, 2),
        AddData(g(20)), CheckAnswer(),
        StopStream(), StartStream(),
        AddData(g(20)), CheckAnswer(),
        StopStream(),
      ],
    );
    expect(state.crashes).toHaveLength(1);
    expect(j.table.rows.length).toBeGreaterThan(3);
    const keys = j.table.rows.map((r) => JSON.stringify([r.user, r.session_window]));
    expect(new Set(keys).size).toBe(keys.length);
    expect(state.progress[state.progress.length - 1].stateOperators[0].operatorName).toBe('sessionWindowStateStoreSaveExec');
  });

  it('a restart refuses a changed grouping key and accepts a changed gap', async () => {
    const j = await job(provider);
    j.stream.addRows(gen(3)(10));
    const run = async (sql: string) => {
      const q = new MicroBatchExecution({ spec: { ...j.spec, sql }, clock: new ManualClock(T0), ...j.options });
      try {
        await q.start();
        await q.processAllAvailable();
      } finally {
        await q.stop();
      }
    };
    await run(E2E_SQL);
    await expect(run(E2E_SQL.replace(', user', ', amount').replace('SELECT user', 'SELECT amount'))).rejects.toBeInstanceOf(IncompatibleQueryChangeError);
    await run(E2E_SQL.replace("'10 seconds'", "'20 seconds'"));
  });
});
