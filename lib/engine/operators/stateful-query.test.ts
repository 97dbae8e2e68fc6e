/**
 * Stateful queries end to end through MicroBatchExecution (memory source → SQL → memory sink,
 * checkpoint on the local disk): Spark-style action scripts per mode, a crash at every crash
 * point with state present, restart compatibility, and validation-time legality. Every expected
 * answer is computed from the rows the script added, by a hand-written reference.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitLog } from '../checkpoint/commit-log';
import { ManualClock } from '../clock';
import { IncompatibleQueryChangeError } from '../errors';
import { CRASH_POINTS } from '../execution/crash-points';
import { MicroBatchExecution } from '../execution/micro-batch-execution';
import { checkRestartCompatibility } from '../execution/restart-compatibility';
import { LocalCheckpointFileManager } from '../checkpoint/local-checkpoint-file-manager';
import { convertStateProvider } from '../state/state-provider-conversion';
import { AddData, Assert, CheckAnswer, CrashAt, ProcessAllAvailable, StartStream, StopStream, testStream, type StreamHarness } from '../execution/testing/stream-test';
import { mustParse, seededRandom, tempDir } from '../execution/testing/test-fixtures';
import { MemorySinkTable } from '../sinks/memory-sink';
import { FileBackedStateStoreProvider } from '../state/file-backed-state-store-provider';
import { MemoryStream } from '../sources/memory-source';
import type { StateStoreProviderName } from '../spec/job-spec';
import { validateJob } from '../spec/validate-job';
import type { OutputMode, Row } from '../types';

const MIN = 60_000;
const T0 = Date.UTC(2024, 0, 1);
const roots: string[] = [];
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

const SCHEMA = [
  { name: 'region', type: 'string' },
  { name: 'amount', type: 'double' },
  { name: 'ts', type: 'timestamp' },
] as const;

let uniq = 0;
async function job(sql: string, outputMode: OutputMode, extra: { watermark?: string; dedup?: unknown; provider?: StateStoreProviderName } = {}) {
  const name = `stateful-${process.pid}-${uniq++}`;
  const checkpoint = await tempDir('stateful');
  roots.push(checkpoint);
  // The LMDB provider's local copy: one directory per job, as a worker's data directory holds it.
  const stateLocalDir = await tempDir('stateful-local');
  roots.push(stateLocalDir);
  const specJson = {
    name,
    source: { name: 'events', type: 'memory', options: { stream: name }, schema: SCHEMA, ...(extra.watermark ? { eventTime: 'ts', watermarkDelay: extra.watermark } : {}) },
    sql,
    sink: { type: 'memory', options: { table: name } },
    outputMode,
    trigger: { type: 'available-now' },
    checkpointLocation: checkpoint,
    ...(extra.dedup ? { dedup: extra.dedup } : {}),
    ...(extra.provider ? { stateStore: { provider: extra.provider } } : {}),
  };
  return { name, specJson, spec: mustParse(specJson), stream: MemoryStream.named(name), table: MemorySinkTable.named(name), options: { stateLocalDir } };
}

function gen(seed: number) {
  const rnd = seededRandom(seed);
  let minute = 0;
  return (n: number): Row[] =>
    Array.from({ length: n }, () => {
      minute += Math.floor(rnd() * 4);
      return { region: ['eu', 'us', 'apac'][Math.floor(rnd() * 3)], amount: Math.round(rnd() * 100) / 4, ts: T0 + minute * MIN };
    });
}

/** Reference: count and sum per region over the rows. */
function groupByRegion(rows: Row[]): Row[] {
  const m = new Map<string, { n: number; s: number }>();
  for (const r of rows) {
    const g = m.get(r.region as string) ?? { n: 0, s: 0 };
    g.n++;
    g.s += r.amount as number;
    m.set(r.region as string, g);
  }
  return [...m].map(([region, g]) => ({ region, n: g.n, s: g.s }));
}

/** Reference: 10-minute windows per region that the watermark (max ts − delay) has closed. */
function closedWindows(rows: Row[], delayMs: number): Row[] {
  const wm = Math.max(0, ...rows.map((r) => (r.ts as number) - delayMs));
  const m = new Map<string, Row>();
  for (const r of rows) {
    const start = Math.floor((r.ts as number) / (10 * MIN)) * 10 * MIN;
    if (start + 10 * MIN > wm) continue;
    const k = `${start}/${r.region}`;
    const g = m.get(k) ?? { window: { start, end: start + 10 * MIN }, region: r.region, n: 0 };
    g.n = (g.n as number) + 1;
    m.set(k, g);
  }
  return [...m.values()];
}

/** An upsert view of an update-mode sink: the last row per key. */
const latestBy = (rows: Row[], key: (r: Row) => string) => [...new Map(rows.map((r) => [key(r), r])).values()];

function harness(j: Awaited<ReturnType<typeof job>>, mode: OutputMode, expected: (added: Row[]) => Row[], key: (r: Row) => string): StreamHarness {
  return {
    spec: j.spec,
    clock: new ManualClock(T0),
    addData: async (rows) => void j.stream.addRows(rows),
    readAnswer: async () => (mode === 'update' ? latestBy(j.table.rows, key) : j.table.rows),
    expected,
    options: j.options,
  };
}

const AGG_SQL = 'SELECT region, count(*) AS n, sum(amount) AS s FROM events GROUP BY region';
/**
 * Every kind of aggregation buffer beyond count and sum (moments, lists, sets, first/last,
 * extremum-by pairs, bigint sums, value counts, the quantile sketch, listagg's ordered rows), so that a crash and a
 * restart must bring each back exactly. The standard deviation is rounded where the reference's
 * two-pass formula and Spark's one-pass update may differ in the last bits.
 */
const BUFFERS_SQL =
  'SELECT region, count(*) AS n, round(stddev(amount), 6) AS sd, collect_list(amount) AS l, collect_set(amount) AS cs, ' +
  'first(amount) AS f, last(amount) AS la, count_if(amount > 10) AS ci, bool_and(amount > 1) AS ba, bool_or(amount > 24) AS bo, ' +
  'max_by(ts, amount) AS mxb, min_by(ts, amount) AS mnb, try_sum(CAST(amount * 4 AS BIGINT)) AS q, median(amount) AS med, ' +
  'mode(amount) AS mo, percentile_approx(amount, 0.5) AS p50, ' +
  "listagg(CAST(amount * 4 AS BIGINT), ',') WITHIN GROUP (ORDER BY amount DESC) AS lg FROM events GROUP BY region";

/** Reference for BUFFERS_SQL, from the rows in arrival order with Spark's definitions. */
function buffersByRegion(rows: Row[]): Row[] {
  const groups = new Map<string, Row[]>();
  for (const r of rows) groups.set(r.region as string, [...(groups.get(r.region as string) ?? []), r]);
  return [...groups].map(([region, g]) => {
    const xs = g.map((r) => r.amount as number);
    const n = xs.length;
    const mean = xs.reduce((a, b) => a + b, 0) / n;
    const m2 = xs.reduce((a, x) => a + (x - mean) ** 2, 0);
    const sorted = [...xs].sort((a, b) => a - b);
    const counts = new Map<number, number>();
    for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
    const most = Math.max(...counts.values());
    // min_by/max_by: a later row with an equal ordering wins (Spark's update).
    const by = (better: (a: number, b: number) => boolean) => g.reduce((best, r) => (better(r.amount as number, best.amount as number) ? r : best)).ts;
    return {
      region, n,
      sd: n === 1 ? null : Number(Math.sqrt(m2 / (n - 1)).toFixed(6)),
      l: xs, cs: [...new Set(xs)], f: xs[0], la: xs[n - 1],
      ci: xs.filter((x) => x > 10).length, ba: xs.every((x) => x > 1), bo: xs.some((x) => x > 24),
      mxb: by((a, b) => a >= b), mnb: by((a, b) => a <= b), q: xs.reduce((a, x) => a + x * 4, 0),
      med: (sorted[Math.floor((n - 1) / 2)] + sorted[Math.ceil((n - 1) / 2)]) / 2,
      mo: Math.min(...[...counts].filter(([, c]) => c === most).map(([x]) => x)),
      p50: sorted[Math.ceil(0.5 * n) - 1],
      // listagg's sort is stable: equal amounts stay in arrival order.
      lg: [...xs].sort((a, b) => b - a).map((x) => x * 4).join(','),
    };
  });
}
const WINDOW_SQL = "SELECT window(ts, '10 minutes'), region, count(*) AS n FROM events GROUP BY window(ts, '10 minutes'), region";

/** The crash matrices run on both state store providers; the change file each writes per version. */
const PROVIDERS = [
  { provider: 'hdfs' as const, changeFile: 'delta' },
  { provider: 'lmdb' as const, changeFile: 'changelog' },
];

describe.each(PROVIDERS)('stateful queries through MicroBatchExecution ($provider state store): crash at every point with state present', ({ provider, changeFile }) => {
  const cases = [
    { mode: 'complete' as const, sql: AGG_SQL, watermark: undefined, expected: groupByRegion, key: (r: Row) => String(r.region) },
    { mode: 'update' as const, sql: AGG_SQL, watermark: undefined, expected: groupByRegion, key: (r: Row) => String(r.region) },
    { mode: 'complete' as const, sql: BUFFERS_SQL, watermark: undefined, expected: buffersByRegion, key: (r: Row) => String(r.region), label: 'every aggregation buffer' },
    { mode: 'update' as const, sql: BUFFERS_SQL, watermark: undefined, expected: buffersByRegion, key: (r: Row) => String(r.region), label: 'every aggregation buffer' },
    { mode: 'append' as const, sql: WINDOW_SQL, watermark: '5 minutes', expected: (rows: Row[]) => closedWindows(rows, 5 * MIN), key: (r: Row) => JSON.stringify([r.window, r.region]) },
  ];
  for (const c of cases) {
    // Append: batch 1 is the no-data batch that closes windows once the watermark moved, so the second AddData is batch 2.
    const crashBatch = c.mode === 'append' ? 2 : 1;
    it.each(CRASH_POINTS)(`${c.mode}${'label' in c ? ` (${c.label})` : ''}: crash at %s of the second data batch, restart, same answer`, async (point) => {
      const j = await job(c.sql, c.mode, { watermark: c.watermark, provider });
      const g = gen(point.length * 7 + c.mode.length);
      const state = await testStream(harness(j, c.mode, c.expected, c.key), [
        AddData(g(20)),
        CheckAnswer(),
        AddData(g(20)),
        CrashAt(point, crashBatch),
        Assert(async () => {
          // State for the crashed batch exists on disk exactly when the crash came after the state
          // commit, which is written beside the sink: at every point past offsets/N.
          const { LocalCheckpointFileManager } = await import('../checkpoint/local-checkpoint-file-manager');
          const files = await new LocalCheckpointFileManager(j.spec.checkpointLocation).list('state/0/0');
          expect(files.includes(`${crashBatch + 1}.${changeFile}`)).toBe(point !== 'after-offsets');
        }),
        AddData(g(15)),
        CheckAnswer(),
        StopStream(),
        StartStream(),
        AddData(g(10)),
        CheckAnswer(),
        StopStream(),
      ]);
      expect(state.crashes).toHaveLength(1);
      // Append mode: no window was ever emitted twice, across the crash and restarts.
      if (c.mode === 'append') expect(new Set(j.table.rows.map(c.key)).size).toBe(j.table.rows.length);
      const last = state.progress[state.progress.length - 1];
      expect(last.stateOperators.length).toBe(1);
    });
  }
});

describe.each(PROVIDERS)('dedup and streaming LIMIT ($provider state store): crash at every point with state present', ({ provider }) => {
  const project = (rows: Row[]) => rows.map((r) => ({ region: r.region, amount: r.amount }));
  const firstOfEachKey = (added: Row[]) => latestBy([...project(added)].reverse(), (r) => JSON.stringify(r)).reverse();
  const cases = [
    { name: 'dedup', sql: 'SELECT region, amount FROM events', dedup: { keys: ['region', 'amount'] }, expected: firstOfEachKey },
    { name: 'limit', sql: 'SELECT region, amount FROM events LIMIT 30', dedup: undefined, expected: (added: Row[]) => project(added).slice(0, 30) },
  ];
  for (const c of cases) {
    it.each(CRASH_POINTS)(`${c.name}: crash at %s of batch 1, restart, every row exactly once`, async (point) => {
      const j = await job(c.sql, 'append', { dedup: c.dedup, provider });
      const g = gen(point.length * 13 + c.name.length);
      const first = g(12);
      const h: StreamHarness = {
        spec: j.spec,
        clock: new ManualClock(T0),
        addData: async (rows) => void j.stream.addRows(rows),
        readAnswer: async () => j.table.rows,
        expected: (added) => c.expected(added),
        options: j.options,
      };
      // Repeats of earlier rows make the dedup state matter across the crash.
      await testStream(h, [
        AddData(first), CheckAnswer(),
        AddData([...g(10), ...first.slice(0, 5)]), CrashAt(point, 1),
        AddData([...g(8), ...first.slice(5)]), CheckAnswer(),
        StopStream(), StartStream(), AddData(first), CheckAnswer(),
      ]);
    });
  }
});

describe('stateful progress, watermark and no-data batches', () => {
  it('append closes windows in a no-data batch, reports dropped late rows and state figures', async () => {
    const j = await job(WINDOW_SQL, 'append', { watermark: '5 minutes' });
    const q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) });
    j.stream.addData({ region: 'eu', amount: 1, ts: T0 + 1 * MIN }, { region: 'eu', amount: 1, ts: T0 + 21 * MIN });
    await q.processAllAvailable();
    // Batch 0 ran with watermark 0; the watermark moved to 16 min, so a no-data batch 1 closed [0, 10).
    expect(q.recentProgress.map((p) => p.batchId)).toEqual([0, 1]);
    expect(j.table.rows).toEqual([{ window: { start: T0, end: T0 + 10 * MIN }, region: 'eu', n: 1 }]);
    j.stream.addData({ region: 'eu', amount: 1, ts: T0 + 2 * MIN });
    await q.processAllAvailable();
    const p = q.lastProgress!;
    expect(p.stateOperators[0]).toMatchObject({ numRowsDroppedByWatermark: 1, numRowsTotal: 1 });
    expect(p.stateOperators[0].memoryUsedBytes).toBeGreaterThan(0);
    await q.stop();
  });
});

describe('state maintenance off the batch path', () => {
  it('batches commit while a maintenance round has not finished; stop waits for it', async () => {
    const j = await job(AGG_SQL, 'complete');
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let rounds = 0;
    const q = new MicroBatchExecution({
      // A round may start after every batch (Spark's maintenanceInterval, here 0).
      spec: { ...j.spec, stateStore: { provider: 'hdfs', maintenanceInterval: '0 seconds' } },
      stateStoreProvider: (id, cp) => {
        const p = new FileBackedStateStoreProvider(cp, id);
        // A maintenance round that never ends until released: a batch that waited for it would hang.
        p.maintenance = () => (rounds++, held);
        return p;
      },
    });
    const g = gen(99);
    const input: Row[] = [];
    for (let b = 0; b < 3; b++) {
      const rows = g(10);
      input.push(...rows);
      j.stream.addData(...rows);
      await q.processAllAvailable();
    }
    expect(q.recentProgress.map((p) => p.batchId)).toEqual([0, 1, 2]);
    // Only one round at a time is started; the others found it running.
    expect(rounds).toBe(1);
    const byRegion = (rows: Row[]) => [...rows].sort((a, b) => String(a.region).localeCompare(String(b.region)));
    expect(byRegion(j.table.rows)).toEqual(byRegion(groupByRegion(input)));
    let stopped = false;
    const stopping = q.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false);
    release();
    await stopping;
  });
});

describe('state maintenance every maintenanceInterval, as Spark\'s maintenance task', () => {
  it.each([[undefined, 60_000], ['10 seconds', 10_000]])('starts no round until the interval (%s) has passed since the run began or the last round', async (interval, ms) => {
    const j = await job(AGG_SQL, 'complete');
    const clock = new ManualClock(1_000_000);
    let rounds = 0;
    const q = new MicroBatchExecution({
      spec: { ...j.spec, ...(interval ? { stateStore: { provider: 'hdfs' as const, maintenanceInterval: interval } } : {}) },
      clock,
      stateStoreProvider: (id, cp) => {
        const p = new FileBackedStateStoreProvider(cp, id);
        p.maintenance = async () => void rounds++;
        return p;
      },
    });
    const g = gen(7);
    const batch = async () => {
      j.stream.addData(...g(5));
      await q.processAllAvailable();
      await new Promise((r) => setImmediate(r));
    };
    await batch();
    await batch();
    expect(rounds).toBe(0);
    clock.advance(ms);
    await batch();
    expect(rounds).toBeGreaterThan(0);
    const after = rounds;
    clock.advance(ms - 1);
    await batch();
    expect(rounds).toBe(after);
    clock.advance(1);
    await batch();
    expect(rounds).toBeGreaterThan(after);
    await q.stop();
  });
});

describe('sorted complete results', () => {
  it('ORDER BY … LIMIT over a complete aggregation delivers the top groups, in order, every batch', async () => {
    const j = await job(`${AGG_SQL} HAVING count(*) > 1 ORDER BY n DESC, region LIMIT 2`, 'complete');
    const top2 = (added: Row[]) =>
      groupByRegion(added)
        .filter((g) => (g.n as number) > 1)
        .sort((a, b) => (b.n as number) - (a.n as number) || String(a.region).localeCompare(String(b.region)))
        .slice(0, 2);
    const g = gen(99);
    const h = harness(j, 'complete', top2, (r) => String(r.region));
    await testStream(h, [
      AddData(g(15)),
      CheckAnswer(),
      AddData(g(25)),
      CheckAnswer(),
    ]);
    // Order, not just membership: the sink holds the last batch exactly as the reference orders it.
    const all = j.stream.rows;
    expect(j.table.rows).toEqual(top2(all));
  });
});

describe('restart compatibility', () => {
  it('refuses a changed grouping key, naming it and the two ways out; accepts a changed filter', async () => {
    const j = await job(AGG_SQL, 'update');
    const q1 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) });
    j.stream.addData(...gen(1)(10));
    await q1.processAllAvailable();
    await q1.stop();

    const changedKey = mustParse({ ...j.specJson, sql: 'SELECT amount, count(*) AS n, sum(amount) AS s FROM events GROUP BY amount' });
    const err = await new MicroBatchExecution({ spec: changedKey, clock: new ManualClock(T0) }).start().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((err as Error).message).toMatch(/the grouping keys of stateful operator 0 \(aggregate\) changed from region to amount/);
    expect((err as Error).message).toMatch(/Either revert the change, or start the query on a new checkpoint location/);

    const otherSource = mustParse({ ...j.specJson, source: { ...j.specJson.source, options: { stream: `${j.name}-other` } } });
    await expect(new MicroBatchExecution({ spec: otherSource, clock: new ManualClock(T0) }).start()).rejects.toThrow(
      /the source of stateful operator 0 \(aggregate\) changed from memory\(stream="[^"]+", options#\w+\) to memory\(stream="[^"]+-other"/);

    const changedAggs = mustParse({ ...j.specJson, sql: 'SELECT region, count(*) AS n FROM events GROUP BY region' });
    await expect(new MicroBatchExecution({ spec: changedAggs, clock: new ManualClock(T0) }).start()).rejects.toThrow(/aggregates of stateful operator 0/);

    const filtered = mustParse({ ...j.specJson, sql: `${AGG_SQL.replace(' GROUP BY', ' WHERE amount > 1 GROUP BY')}` });
    const q2 = new MicroBatchExecution({ spec: filtered, clock: new ManualClock(T0) });
    j.stream.addData(...gen(2)(5));
    await q2.processAllAvailable();
    await q2.stop();
    expect(q2.lastProgress?.stateOperators[0].numRowsTotal).toBeGreaterThan(0);
  });

  it('refuses a changed aggregate list even where the result types stay the same; the same list restarts', async () => {
    const sql = 'SELECT region, stddev(amount) AS d, first(amount) AS f FROM events GROUP BY region';
    const j = await job(sql, 'update');
    const q1 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) });
    j.stream.addData(...gen(3)(10));
    await q1.processAllAvailable();
    await q1.stop();
    // Each keeps another buffer, or reads the same buffer otherwise: the state would be misread.
    for (const changed of [
      sql.replace('stddev(amount)', 'variance(amount)'),
      sql.replace('stddev(amount)', 'kurtosis(amount)'),
      sql.replace('first(amount)', 'first(amount) IGNORE NULLS'),
      sql.replace('first(amount)', 'last(amount)'),
    ]) {
      const err = await new MicroBatchExecution({ spec: mustParse({ ...j.specJson, sql: changed }), clock: new ManualClock(T0) }).start().then(() => null, (e: unknown) => e);
      expect(err, changed).toBeInstanceOf(IncompatibleQueryChangeError);
      expect((err as Error).message, changed).toMatch(/the aggregates of stateful operator 0 \(aggregate\) changed from stddev\(amount\), first\(amount\) to /);
    }
    const q2 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) });
    j.stream.addData(...gen(4)(5));
    await q2.processAllAvailable();
    await q2.stop();
    expect(q2.lastProgress?.batchId).toBe(1);
  });

  it.each(['hdfs', 'lmdb'] as const)('a checkpoint whose state the %s provider wrote refuses the other provider, at start and at edit time', async (provider) => {
    const other = provider === 'hdfs' ? 'lmdb' : 'hdfs';
    const j = await job(AGG_SQL, 'update', { provider });
    const q1 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0), ...j.options });
    j.stream.addData(...gen(5)(10));
    await q1.processAllAvailable();
    await q1.stop();
    const schema = JSON.parse(readFileSync(path.join(j.spec.checkpointLocation, 'state/0/_metadata/schema'), 'utf8')) as { stateStoreProvider?: string };
    expect(schema.stateStoreProvider).toBe(provider);

    const switched = mustParse({ ...j.specJson, stateStore: { provider: other } });
    const err = await new MicroBatchExecution({ spec: switched, clock: new ManualClock(T0), ...j.options }).start().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((err as Error).message).toContain(`with stateStore.provider "${other}": the state of stateful operator 0 (aggregate) was written by the "${provider}" state store provider`);
    expect((err as Error).message).toContain(`set stateStore.provider back to "${provider}"`);
    await expect(checkRestartCompatibility(switched, new LocalCheckpointFileManager(j.spec.checkpointLocation))).rejects.toThrow(/was written by the "\w+" state store provider/);

    // The same provider restarts and keeps its state.
    const q2 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0), ...j.options });
    j.stream.addData(...gen(6)(5));
    await q2.processAllAvailable();
    await q2.stop();
    const op = q2.lastProgress!.stateOperators[0];
    expect(op.numRowsTotal).toBeGreaterThan(0);
    // The LMDB provider reports its local pages; its rows are not in the heap.
    if (provider === 'lmdb') {
      expect(op.customMetrics?.lmdbLocalBytes).toBeGreaterThan(0);
      expect(op.customMetrics?.lmdbRebuiltFromCheckpoint).toBe(0); // restarted on the same machine: the local copy was reused
    } else {
      expect(op.customMetrics?.lmdbLocalBytes).toBeUndefined();
    }

    // The way out: the state converted to the other provider, which then goes on from it.
    const fm = new LocalCheckpointFileManager(j.spec.checkpointLocation);
    expect((await convertStateProvider(fm, other)).operators).toEqual([0]);
    await expect(new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0), ...j.options }).start()).rejects.toThrow(/was written by the "\w+" state store provider/);
    const q3 = new MicroBatchExecution({ spec: switched, clock: new ManualClock(T0), ...j.options });
    const more = gen(8)(7);
    j.stream.addData(...more);
    await q3.processAllAvailable();
    await q3.stop();
    const all = [...gen(5)(10), ...gen(6)(5), ...more];
    const key = (r: Row) => String(r.region);
    expect(new Map(latestBy(j.table.rows, key).map((r) => [key(r), r]))).toEqual(new Map(groupByRegion(all).map((r) => [key(r), r])));
  });

  it('a checkpoint from before the provider was recorded is the default provider\'s', async () => {
    const j = await job(AGG_SQL, 'update');
    const q1 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0), ...j.options });
    j.stream.addData(...gen(7)(10));
    await q1.processAllAvailable();
    await q1.stop();
    const file = path.join(j.spec.checkpointLocation, 'state/0/_metadata/schema');
    const { stateStoreProvider, ...before } = JSON.parse(readFileSync(file, 'utf8')) as { stateStoreProvider?: string };
    expect(stateStoreProvider).toBe('hdfs');
    writeFileSync(file, JSON.stringify(before));
    await expect(new MicroBatchExecution({ spec: mustParse({ ...j.specJson, stateStore: { provider: 'lmdb' } }), clock: new ManualClock(T0), ...j.options }).start())
      .rejects.toThrow(/was written by the "hdfs" state store provider/);
    const q2 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0), ...j.options });
    await q2.start();
    await q2.stop();
  });

  it('restarts on state whose schema an older Weir wrote with other generated names; a changed key type is refused', async () => {
    // GROUP BY keys named after their expressions: `(+ amount)` was `amount` (a dropped unary +),
    // a TIMESTAMP literal's text was ISO. Spark compares state schemas ignoring names.
    const sql = "SELECT count(*) AS n, sum(amount) AS s FROM events GROUP BY +amount, ts < TIMESTAMP '2024-01-01 00:30:00'";
    const j = await job(sql, 'complete');
    const q1 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) });
    const rows = [{ region: 'eu', amount: 1, ts: T0 }, { region: 'us', amount: 1, ts: T0 + 40 * MIN }, { region: 'eu', amount: 2, ts: T0 }];
    j.stream.addData(...rows);
    await q1.processAllAvailable();
    await q1.stop();
    const file = path.join(j.spec.checkpointLocation, 'state/0/_metadata/schema');
    const written = JSON.parse(readFileSync(file, 'utf8')) as { parts: Record<string, string>; keySchema: { name: string; type: string }[] };
    expect(written.parts['grouping keys']).toBe("(+ amount), (ts < TIMESTAMP '2024-01-01 00:30:00')");
    const older = {
      ...written,
      parts: { ...written.parts, 'grouping keys': "amount, (ts < TIMESTAMP '2024-01-01T00:30:00.000Z')" },
      keySchema: written.keySchema.map((f, i) => ({ ...f, name: ['amount', "(ts < TIMESTAMP '2024-01-01T00:30:00.000Z')"][i] })),
    };
    writeFileSync(file, JSON.stringify(older));
    const q2 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) });
    j.stream.addData({ region: 'eu', amount: 1, ts: T0 + MIN });
    await q2.processAllAvailable();
    await q2.stop();
    // The state went on: amount 1 before 00:30 counted twice.
    expect(j.table.rows.map((r) => r.n).sort()).toEqual([1, 1, 2]);

    // A key whose type differs is refused as Spark refuses it.
    writeFileSync(file, JSON.stringify({ ...older, keySchema: [{ ...older.keySchema[0], type: 'string' }, older.keySchema[1]] }));
    const err = await new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) }).start().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((err as IncompatibleQueryChangeError).errorClass).toBe('STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE');
    expect((err as Error).message).toContain("Existing key_schema=[amount: STRING, (ts < TIMESTAMP '2024-01-01T00:30:00.000Z'): BOOLEAN] and new key_schema=[__key0: DOUBLE, __key1: BOOLEAN]");
  });

  it('a stateless query accepts another projection on restart; adding an aggregation to it is refused', async () => {
    const j = await job('SELECT region, amount FROM events', 'append');
    const q1 = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) });
    j.stream.addData(...gen(4)(6));
    await q1.processAllAvailable();
    await q1.stop();
    const reprojected = mustParse({ ...j.specJson, sql: 'SELECT upper(region) AS r, amount * 2 AS a2 FROM events' });
    const q2 = new MicroBatchExecution({ spec: reprojected, clock: new ManualClock(T0) });
    j.stream.addData(...gen(5)(3));
    await q2.processAllAvailable();
    await q2.stop();
    expect(j.table.rows.at(-1)).toHaveProperty('r');
    const aggregated = mustParse({ ...j.specJson, sql: AGG_SQL, outputMode: 'update' });
    await expect(new MicroBatchExecution({ spec: aggregated, clock: new ManualClock(T0) }).start()).rejects.toThrow(/stateful operator 0 \(aggregate: .*\) is new; the query ran before without it/);
  });
});

describe('validation: Spark output-mode legality, warnings, explain', () => {
  const validate = async (sql: string, mode: OutputMode, extra: { watermark?: string; dedup?: unknown } = {}) => validateJob((await job(sql, mode, extra)).specJson);

  it.each([
    [AGG_SQL, 'append', 'Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark'],
    ['SELECT region FROM events', 'complete', 'Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets'],
    ['SELECT region, amount FROM events ORDER BY amount', 'append', 'Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode'],
    [`${AGG_SQL} ORDER BY n`, 'update', 'Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode'],
    [`${AGG_SQL} LIMIT 3`, 'update', 'Limits are not supported on streaming DataFrames/Datasets in Update output mode'],
    ['SELECT region FROM events LIMIT 3 OFFSET 1', 'append', 'Offset is not supported on streaming DataFrames/Datasets'],
    ['SELECT region, count(DISTINCT amount) FROM events GROUP BY region', 'update', 'Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.'],
    // Spark analyzes ROLLUP into an Aggregate over an Expand, held to the Aggregate's rules.
    ['SELECT region, count(*) FROM events GROUP BY ROLLUP(region)', 'append', 'Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark'],
    // Spark's Distinct over the Aggregate: in Update mode the aggregation feeds a stateful operator (Spark 3.5+).
    ['SELECT DISTINCT region, count(*) FROM events GROUP BY region', 'update', `Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, which are "late rows" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details. (Update output mode)`],
  ] as const)('%s in %s mode is refused with Spark\'s message', async (sql, mode, message) => {
    const r = await validate(sql, mode);
    expect(r.ok).toBe(false);
    expect(r.errors.map((e) => e.message)).toContain(message);
  });

  it('accepts legal shapes: sorted complete aggregation, watermarked append, limit in append', async () => {
    expect((await validate(`${AGG_SQL} ORDER BY n DESC LIMIT 2`, 'complete')).errors).toEqual([]);
    expect((await validate(WINDOW_SQL, 'append', { watermark: '5 minutes' })).errors).toEqual([]);
    expect((await validate('SELECT region FROM events LIMIT 5', 'append')).errors).toEqual([]);
  });

  it('warns on unbounded state naming the operator, and the explain marks what is stateful and why', async () => {
    const r = await validate(AGG_SQL, 'update');
    expect(r.warnings.map((w) => w.message).join('\n')).toMatch(/Unbounded state: the aggregation grouped by \[region\]/);
    expect(r.explain).toMatch(/Aggregate \[region\].*\[stateful: one row per group of \(region\); UNBOUNDED: no watermark on its keys\]/);
    expect(r.explain).toMatch(/Project .*\[stateless\]/);
    // The Project shows an aggregate's output by the aggregate, not by the planner's column name.
    expect(r.explain).not.toMatch(/__agg/);
    const w = await validate(WINDOW_SQL, 'append', { watermark: '5 minutes' });
    expect(w.warnings.filter((x) => /Unbounded/.test(x.message))).toEqual([]);
    expect(w.explain).toMatch(/evicted when the watermark passes the window end/);
    const d = await validate('SELECT region FROM events', 'append', { dedup: { keys: ['region'] } });
    expect(d.warnings.map((x) => x.message).join('\n')).toMatch(/Unbounded state: deduplication on \[region\]/);
  });
});

describe('dedup option and limit through the engine', () => {
  it('dedup drops repeated keys across batches and restarts; withinWatermark bounds the state', async () => {
    const j = await job('SELECT region, amount FROM events', 'append', { dedup: { keys: ['region', 'amount'] } });
    const rows = gen(3)(30);
    const h: StreamHarness = {
      spec: j.spec,
      clock: new ManualClock(T0),
      addData: async (r) => void j.stream.addRows(r),
      readAnswer: async () => j.table.rows,
      expected: (added) => latestBy(added.map((r) => ({ region: r.region, amount: r.amount })), (r) => JSON.stringify(r)),
    };
    await testStream(h, [AddData(rows.slice(0, 15)), CheckAnswer(), AddData([...rows.slice(5, 20)]), CrashAt('after-sink', 1), StartStream(), CheckAnswer(), StopStream(), StartStream(), AddData(rows), CheckAnswer()]);

    const w = await job('SELECT region, ts FROM events', 'append', { watermark: '10 minutes', dedup: { keys: ['region'], withinWatermark: true } });
    const q = new MicroBatchExecution({ spec: w.spec, clock: new ManualClock(T0) });
    w.stream.addData({ region: 'eu', amount: 1, ts: T0 }, { region: 'eu', amount: 2, ts: T0 + 5 * MIN });
    await q.processAllAvailable();
    w.stream.addData({ region: 'us', amount: 1, ts: T0 + 60 * MIN });
    await q.processAllAvailable(); // watermark 50 min after this batch: the eu entry (expires at 10 min) goes
    w.stream.addData({ region: 'eu', amount: 3, ts: T0 + 61 * MIN });
    await q.processAllAvailable();
    expect(w.table.rows.map((r) => [r.region, r.ts])).toEqual([['eu', T0], ['us', T0 + 60 * MIN], ['eu', T0 + 61 * MIN]]);
    await q.stop();
  });

  it('LIMIT in append mode emits the first N rows overall, even across a restart', async () => {
    const j = await job('SELECT region, amount FROM events LIMIT 7', 'append');
    const rows = gen(5)(12);
    const h: StreamHarness = {
      spec: j.spec,
      clock: new ManualClock(T0),
      addData: async (r) => void j.stream.addRows(r),
      readAnswer: async () => j.table.rows,
      expected: (added) => added.slice(0, 7).map((r) => ({ region: r.region, amount: r.amount })),
    };
    await testStream(h, [AddData(rows.slice(0, 4)), CheckAnswer(), StopStream(), StartStream(), AddData(rows.slice(4)), CheckAnswer()]);
  });
});

describe('a crash right after a commit keeps the watermark that commit recorded', () => {
  // Event times that do not only rise: batch 2 reaches minute 25, which closes window [0, 10)
  // for the next batch; the run dies right after commits/2, before that next batch. After the
  // restart the data comes back to minute 22 and brings a row from minute 12. As in Spark 3.4+,
  // a batch judges late rows by the previous batch's watermark and evicts by its own: minute 12
  // is not late for batch 2's watermark, and batch 3's (the 20 minutes commits/2 recorded)
  // closes its window [10, 20) at once. A row from minute 3 after that is late for batch 3's.
  it('the first batch after the restart emits the closed windows, later a late row is dropped, and the watermark never moves back', async () => {
    const j = await job(WINDOW_SQL, 'append', { watermark: '5 minutes' });
    const at = (minute: number): Row => ({ region: 'eu', amount: 1, ts: T0 + minute * MIN });
    const commits = new CommitLog(new LocalCheckpointFileManager(j.spec.checkpointLocation));
    let recorded = 0;
    const state = await testStream(harness(j, 'append', () => [], () => ''), [
      AddData([at(1), at(2)]),
      ProcessAllAvailable(), // batch 0, then the no-data batch 1 (the watermark moved)
      AddData([at(25)]),
      CrashAt('after-commit', 2),
      Assert(async () => {
        expect(j.table.batches.map((b) => b.batchId)).toEqual([0, 1, 2]);
        expect(j.table.rows).toEqual([]);
        recorded = (await commits.get(2))!.nextBatchWatermarkMs;
        expect(recorded).toBe(T0 + 20 * MIN);
      }),
      AddData([at(22), at(12)]),
      ProcessAllAvailable(),
      AddData([at(3)]),
      ProcessAllAvailable(),
      StopStream(),
    ]);
    const afterRestart = state.progress.filter((p) => p.batchId > 2);
    const first = Math.min(...afterRestart.map((p) => p.batchId));
    expect(first).toBe(3);
    // Windows [0, 10) and [10, 20) come out in the first batch after the restart, and only there.
    const emitted = j.table.batches.filter((b) => b.rows.length > 0).map((b) => [b.batchId, b.rows.map((r) => (r.window as { start: number }).start - T0)]);
    expect(emitted).toEqual([[first, [0, 10 * MIN]]]);
    expect(j.table.rows).toEqual([
      { window: { start: T0, end: T0 + 10 * MIN }, region: 'eu', n: 2 },
      { window: { start: T0 + 10 * MIN, end: T0 + 20 * MIN }, region: 'eu', n: 1 },
    ]);
    // Minute 3 came after batch 3, whose watermark (20 minutes) had passed its window: dropped.
    const last = state.progress.at(-1)!;
    expect(last.stateOperators[0].numRowsDroppedByWatermark).toBe(1);
    // Each batch's watermark is at least the one before it; after the restart, at least the recorded one.
    const watermarks = state.progress.map((p) => Date.parse(p.eventTime!.watermark));
    for (let i = 1; i < watermarks.length; i++) expect(watermarks[i], `batch ${state.progress[i].batchId}`).toBeGreaterThanOrEqual(watermarks[i - 1]);
    for (const p of afterRestart) expect(Date.parse(p.eventTime!.watermark), `batch ${p.batchId}`).toBeGreaterThanOrEqual(recorded);
    expect((await commits.getLatest())!.value.nextBatchWatermarkMs).toBeGreaterThanOrEqual(recorded);
  });
});

describe('an aggregation over an aggregation in Append mode (Spark\'s agg -> agg -> agg)', () => {
  it('gives Spark\'s answers through MicroBatchExecution, across a restart', async () => {
    const sql = `SELECT window.start AS start, window.end AS end, n, total FROM (
      SELECT window, count(*) AS n, sum(total) AS total FROM (
        SELECT window, count(*) AS n, sum(n) AS total FROM (
          SELECT window, count(*) AS n FROM events GROUP BY window(ts, '5 minutes')
        ) GROUP BY window(window_time(window), '10 minutes')
      ) GROUP BY window(window_time(window), '20 minutes')
    )`;
    const j = await job(sql, 'append', { watermark: '0 seconds' });
    const add = (from: number, to: number) => j.stream.addData(...Array.from({ length: to - from + 1 }, (_, i) => ({ region: 'eu', amount: 1, ts: T0 + (from + i) * MIN })));
    const answer = () => j.table.rows.map((r) => [(Number(r.start) - T0) / MIN, (Number(r.end) - T0) / MIN, Number(r.n), Number(r.total)]);
    let q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) });
    add(0, 37);
    await q.processAllAvailable();
    expect(answer()).toEqual([[0, 20, 2, 20]]);
    await q.stop();
    q = new MicroBatchExecution({ spec: j.spec, clock: new ManualClock(T0) });
    add(30, 60);
    await q.processAllAvailable();
    expect(answer().sort((a, b) => a[0] - b[0])).toEqual([[0, 20, 2, 20], [20, 40, 2, 23], [40, 60, 2, 20]]);
    expect(q.lastProgress!.stateOperators.map((s) => s.numRowsTotal)).toEqual([1, 0, 0]);
    await q.stop();
  });
});
