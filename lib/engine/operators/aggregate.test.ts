import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { AnalysisException, ValidationError } from '../errors';
import type { StreamingRelation } from '../query/logical-plan';
import { StatefulQueryRunner } from '../query/testing/stateful-test-harness';
import type { OutputMode, Row } from '../types';

const MIN = 60_000;
const events: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [
    { name: 'region', type: 'string' },
    { name: 'amount', type: 'double' },
    { name: 'user', type: 'string' },
    { name: 'ts', type: 'timestamp' },
  ],
};
const watermarked: StreamingRelation = { ...events, eventTime: 'ts', watermarkDelayMs: 5 * MIN };

const ev = (region: string | null, amount: number | null, minute = 0, user = 'u') => ({ region, amount, user, ts: minute * MIN });
const sorted = (rows: Row[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
const runner = (sql: string, mode: OutputMode, rel = events, fm = new InMemoryCheckpointFileManager()) => new StatefulQueryRunner(fm, sql, rel, mode);

describe('streaming aggregation (action scripts)', () => {
  it('update mode emits only the groups a batch changed, with every aggregate function', async () => {
    const q = runner('SELECT region, count(*) AS n, count(amount) AS c, sum(amount) AS s, avg(amount) AS a, min(amount) AS lo, max(amount) AS hi FROM events GROUP BY region', 'update');
    const b0 = await q.runBatch([ev('eu', 1), ev('eu', 3), ev('us', null)]);
    expect(sorted(b0.output)).toEqual([
      { region: 'eu', n: 2, c: 2, s: 4, a: 2, lo: 1, hi: 3 },
      { region: 'us', n: 1, c: 0, s: null, a: null, lo: null, hi: null },
    ]);
    const b1 = await q.runBatch([ev('eu', 5)]);
    expect(b1.output).toEqual([{ region: 'eu', n: 3, c: 3, s: 9, a: 3, lo: 1, hi: 5 }]);
    expect(b1.progress[0]).toMatchObject({ numRowsTotal: 2, numRowsUpdated: 1, numRowsDroppedByWatermark: 0 });
  });

  it("a struct key keeps its fields: a field of the key is read above the aggregation (Spark's GetStructField over the grouping attribute)", async () => {
    const q = runner("SELECT p.r AS r, named_struct('r', region, 'u', user).u AS u, count(*) AS n FROM (SELECT named_struct('r', region) AS p, region, user FROM events) GROUP BY p, named_struct('r', region, 'u', user)", 'update');
    expect(sorted((await q.runBatch([ev('eu', 1), ev('eu', 2), ev('us', 3, 0, 'v')])).output)).toEqual([{ r: 'eu', u: 'u', n: 2 }, { r: 'us', u: 'v', n: 1 }]);
  });

  it("groups -0.0 with 0.0 and keys it as 0.0, at the top and inside an array or a struct (Spark's NormalizeFloatingNumbers on the grouping keys)", async () => {
    const q = runner("SELECT amount, array(amount) AS arr, named_struct('a', amount) AS st, count(*) AS n FROM events GROUP BY amount, array(amount), named_struct('a', amount)", 'update');
    const out = (await q.runBatch([ev('eu', -0), ev('eu', 0), ev('eu', NaN), ev('eu', -NaN)])).output;
    expect(out).toHaveLength(2);
    const zero = out.find((r) => r.n === 2 && Number.isNaN(r.amount as number) === false)!;
    expect(zero).toEqual({ amount: 0, arr: [0], st: { a: 0 }, n: 2 });
    expect(Object.is(zero.amount, 0) && Object.is((zero.arr as number[])[0], 0) && Object.is((zero.st as { a: number }).a, 0)).toBe(true);
    const nested = runner("SELECT arr, count(*) AS n FROM (SELECT array(amount, 1.5D) AS arr FROM events) GROUP BY arr", 'update');
    const rows = (await nested.runBatch([ev('eu', -0), ev('us', 0)])).output;
    expect(rows).toEqual([{ arr: [0, 1.5], n: 2 }]);
    expect(Object.is((rows[0].arr as number[])[0], 0)).toBe(true);
  });

  it('complete mode emits the whole result every batch, and a restart continues from the checkpoint', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const q = runner('SELECT region, count(*) AS n FROM events GROUP BY region', 'complete', events, fm);
    await q.runBatch([ev('eu', 1), ev('us', 1)]);
    expect(sorted((await q.runBatch([ev('eu', 1)])).output)).toEqual([{ region: 'eu', n: 2 }, { region: 'us', n: 1 }]);
    q.restart();
    expect(sorted((await q.runBatch([ev('apac', 1)])).output)).toEqual([{ region: 'apac', n: 1 }, { region: 'eu', n: 2 }, { region: 'us', n: 1 }]);
    expect(sorted((await q.runBatch([])).output)).toHaveLength(3);
  });

  it('a crash before the state commit re-runs the batch from the previous version with the same answer', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const q = runner('SELECT region, sum(amount) AS s FROM events GROUP BY region', 'update', events, fm);
    await q.runBatch([ev('eu', 10)]);
    const rows = [ev('eu', 5), ev('us', 7)];
    const first = await q.runBatch(rows, { crashBeforeCommit: true });
    q.restart();
    const rerun = await q.runBatch(rows);
    expect(rerun.batchId).toBe(first.batchId);
    expect(sorted(rerun.output)).toEqual(sorted(first.output));
    expect(sorted(rerun.output)).toEqual([{ region: 'eu', s: 15 }, { region: 'us', s: 7 }]);
  });

  it('HAVING, expressions over aggregates and grouping expressions', async () => {
    const q = runner(
      "SELECT upper(region) AS r, sum(amount) / count(*) AS mean, count(*) + 1 AS n1 FROM events WHERE amount > 0 GROUP BY upper(region) HAVING count(*) >= 2",
      'complete',
    );
    const out = await q.runBatch([ev('eu', 2), ev('EU', 4), ev('us', 1), ev('us', -1)]);
    expect(out.output).toEqual([{ r: 'EU', mean: 3, n1: 3 }]);
  });

  it('default column names follow Spark (count(1), sum(amount))', async () => {
    const q = runner('SELECT region, count(*), sum(amount) FROM events GROUP BY region', 'complete');
    expect((await q.runBatch([ev('eu', 2)])).output).toEqual([{ region: 'eu', 'count(1)': 1, 'sum(amount)': 2 }]);
  });

  it('SELECT DISTINCT is an aggregation over the selected columns', async () => {
    const q = runner('SELECT DISTINCT region, user FROM events', 'update');
    expect(sorted((await q.runBatch([ev('eu', 1, 0, 'a'), ev('eu', 2, 0, 'a'), ev('us', 1, 0, 'a')])).output)).toEqual([
      { region: 'eu', user: 'a' },
      { region: 'us', user: 'a' },
    ]);
  });

  it('approx_count_distinct is deterministic and within its error bound', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ev('eu', 1, 0, `user-${i % 1000}`));
    const run = async () => (await runner('SELECT region, approx_count_distinct(user) AS d FROM events GROUP BY region', 'complete').runBatch(rows)).output[0].d as number;
    const d = await run();
    expect(await run()).toBe(d);
    expect(Math.abs(d - 1000) / 1000).toBeLessThan(0.15); // 3 × relativeSD 0.05
  });

  it('refuses distinct aggregates and ungrouped columns with messages that say what to do', () => {
    expect(() => runner('SELECT region, count(DISTINCT user) FROM events GROUP BY region', 'update')).toThrow(AnalysisException);
    expect(() => runner('SELECT region, count(DISTINCT user) FROM events GROUP BY region', 'update')).toThrow(/Consider using approx_count_distinct\(\) instead/);
    expect(() => runner('SELECT region, user, count(*) FROM events GROUP BY region', 'update')).toThrow(/'user' in the select list is neither present in the group by, nor is it an aggregate function/);
    expect(() => runner('SELECT region, count(*) FROM events GROUP BY region, window(ts, \'1 month\')', 'update')).toThrow(ValidationError);
  });
});

describe('event-time windows and the watermark', () => {
  // `window` is the grouping key's name (Spark's non-reserved keyword): the window struct itself.
  const sql = "SELECT window(ts, '10 minutes'), region, count(*) AS n FROM events GROUP BY window(ts, '10 minutes'), region";

  it('append emits each window once, when the watermark passes its end, and drops late rows', async () => {
    const q = runner(sql, 'append', watermarked);
    const b0 = await q.runBatch([ev('eu', 1, 1), ev('eu', 1, 4), ev('eu', 1, 12)]);
    expect(b0.output).toEqual([]); // watermark is still 0
    const b1 = await q.runBatch([ev('eu', 1, 16)]); // runs with watermark 12 − 5 = 7: window [0,10) still open
    expect(b1.watermarkMs).toBe(7 * MIN);
    expect(b1.output).toEqual([]);
    const b2 = await q.runBatch([ev('eu', 1, 3), ev('eu', 1, 13)]); // watermark 11: [0,10) closes; the row at 3 is late
    expect(b2.watermarkMs).toBe(11 * MIN);
    expect(b2.output).toEqual([{ window: { start: 0, end: 10 * MIN }, region: 'eu', n: 2 }]);
    expect(b2.progress[0]).toMatchObject({ numRowsDroppedByWatermark: 1, numRowsTotal: 1 });
    expect(b2.progress[0].customMetrics).toMatchObject({ numRowsEvictedByWatermark: 1 });
    const b3 = await q.runBatch([ev('eu', 1, 40)]); // watermark 11 still: nothing new is final
    expect(b3.output).toEqual([]);
    const b4 = await q.runBatch([]); // watermark 35: [10,20) with rows at 12, 16, 13
    expect(b4.output).toEqual([{ window: { start: 10 * MIN, end: 20 * MIN }, region: 'eu', n: 3 }]);
    expect((await q.runBatch([])).output).toEqual([]); // never emitted twice
  });

  it('update emits changed windows and evicts those the watermark passed, without emitting them again', async () => {
    const q = runner(sql, 'update', watermarked);
    expect((await q.runBatch([ev('eu', 1, 1), ev('eu', 1, 22)])).output).toHaveLength(2);
    const b1 = await q.runBatch([ev('eu', 1, 2), ev('eu', 1, 23)]); // watermark 17: [0,10) evicted, the row at 2 late
    expect(b1.output).toEqual([{ window: { start: 20 * MIN, end: 30 * MIN }, region: 'eu', n: 2 }]);
    expect(b1.progress[0]).toMatchObject({ numRowsDroppedByWatermark: 1, numRowsTotal: 1, numRowsRemoved: 1 });
  });

  it('grouping by the event-time column itself: late rows are dropped even for groups still in state', async () => {
    const q = runner('SELECT ts, count(*) AS n FROM events GROUP BY ts', 'update', watermarked);
    await q.runBatch([ev('eu', 1, 1), ev('eu', 1, 20)]);
    // Watermark 15: the group at minute 1 is late now, although batch 0 left it in state.
    const b1 = await q.runBatch([ev('eu', 1, 1), ev('eu', 1, 20), ev('eu', 1, 16)]);
    expect(sorted(b1.output)).toEqual(sorted([{ ts: 20 * MIN, n: 2 }, { ts: 16 * MIN, n: 1 }]));
    expect(b1.progress[0]).toMatchObject({ numRowsDroppedByWatermark: 1, numRowsTotal: 2 });
    const b2 = await q.runBatch([ev('eu', 1, 20)]);
    expect(b2.output).toEqual([{ ts: 20 * MIN, n: 3 }]);
  });

  it('sliding windows put a row in every window that contains it', async () => {
    const q = runner('SELECT window, count(*) AS n FROM events GROUP BY window(ts, \'10 minutes\', \'5 minutes\')', 'complete', watermarked);
    const out = await q.runBatch([ev('eu', 1, 7), ev('eu', 1, 12)]);
    expect(sorted(out.output)).toEqual(sorted([
      { window: { start: 0, end: 10 * MIN }, n: 1 },
      { window: { start: 5 * MIN, end: 15 * MIN }, n: 2 },
      { window: { start: 10 * MIN, end: 20 * MIN }, n: 1 },
    ]));
  });

  it('a restart between batches keeps windows and the watermark; a crash mid-batch re-runs identically', async () => {
    const fm = new InMemoryCheckpointFileManager();
    const q = runner(sql, 'append', watermarked, fm);
    await q.runBatch([ev('eu', 1, 1), ev('us', 1, 2)]);
    await q.runBatch([ev('eu', 1, 30)]);
    q.restart();
    const crashed = await q.runBatch([ev('us', 1, 31)], { crashBeforeCommit: true });
    q.restart();
    const rerun = await q.runBatch([ev('us', 1, 31)]);
    expect(sorted(rerun.output)).toEqual(sorted(crashed.output));
    expect(sorted(rerun.output)).toEqual([
      { window: { start: 0, end: 10 * MIN }, region: 'eu', n: 1 },
      { window: { start: 0, end: 10 * MIN }, region: 'us', n: 1 },
    ]);
  });
});

describe('state memory of the group cache', () => {
  it('is reported: groupCacheBytes follows the cached groups, is part of memoryUsedBytes, and falls when the watermark evicts', async () => {
    const q = runner('SELECT user, count(*) AS n FROM events GROUP BY user', 'update');
    const b0 = (await q.runBatch([ev('eu', 1, 0, 'a'), ev('eu', 1, 0, 'b'), ev('eu', 1, 0, 'c')])).progress[0];
    const perGroup = (b0.customMetrics!.groupCacheBytes as number) / 3;
    expect(perGroup).toBeGreaterThan(100);
    expect(b0.memoryUsedBytes).toBeGreaterThan(b0.customMetrics!.groupCacheBytes as number);
    // Three more groups: three more cached; the old ones are touched again, not cached twice.
    const b1 = (await q.runBatch([ev('eu', 1, 0, 'a'), ev('eu', 1, 0, 'd'), ev('eu', 1, 0, 'e'), ev('eu', 1, 0, 'f')])).progress[0];
    expect(b1.customMetrics!.groupCacheBytes).toBe(6 * perGroup);
    expect(b1.memoryUsedBytes - (b1.customMetrics!.groupCacheBytes as number)).toBeGreaterThan(b0.memoryUsedBytes - (b0.customMetrics!.groupCacheBytes as number));

    // A one-column event-time key: groups behind the watermark leave the store and the cache.
    const t = runner('SELECT ts, count(*) AS n FROM events GROUP BY ts', 'update', watermarked);
    const w0 = (await t.runBatch([ev('eu', 1, 10), ev('eu', 1, 11), ev('eu', 1, 40)])).progress[0];
    expect(w0.numRowsTotal).toBe(3);
    const before = w0.customMetrics!.groupCacheBytes as number;
    // Watermark 35 min now: ts 10 and 11 min are evicted by this batch, ts 40 stays, ts 41 joins.
    const w1 = (await t.runBatch([ev('eu', 1, 41)])).progress[0];
    expect(w1.numRowsTotal).toBe(2);
    expect(w1.customMetrics!.groupCacheBytes).toBe((before / 3) * 2);
  });
});
