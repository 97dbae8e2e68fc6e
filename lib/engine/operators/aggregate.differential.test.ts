/**
 * Differential property tests: Weir's streaming aggregation against DuckDB's GROUP BY over the
 * same rows. fast-check picks the rows, how they are split into batches, and where the query
 * restarts or crashes before a state commit (then re-runs the batch). The streaming answer must
 * not depend on any of that.
 */
import { useDuckDB } from '../query/testing/duckdb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { StreamingRelation } from '../query/logical-plan';
import { runScenario, scenarioOf, split } from '../query/testing/batch-scenario';
import { StatefulQueryRunner } from '../query/testing/stateful-test-harness';
import type { Row } from '../types';
import { propertyRuns } from '@/lib/testing/property-runs';

const MIN = 60_000;
const WINDOW = 10 * MIN;

const relation: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [
    { name: 'region', type: 'string' },
    { name: 'amount', type: 'double' },
    { name: 'ts', type: 'timestamp' },
  ],
};

type Ev = { region: string | null; amount: number | null; ts: number };

const event = fc.record({
  region: fc.constantFrom('eu', 'us', 'apac', null),
  // Halves keep every sum exact in doubles, in both engines.
  amount: fc.option(fc.integer({ min: -40, max: 40 }).map((n) => n / 2), { nil: null }),
  // Whole minutes make the watermark land exactly on window ends (the boundary case).
  ts: fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 120 }), fc.constantFrom(0, 1000)).map(([m, ms]) => m * MIN + ms),
    fc.integer({ min: 0, max: 24 }).map((m) => m * 5 * MIN),
  ),
});

const scenario = scenarioOf(event);

const duckConn = useDuckDB();

const lit = (v: string | number | null) => (v === null ? 'NULL' : typeof v === 'string' ? `'${v}'` : String(v));

async function duck(rows: Ev[], sql: string): Promise<Row[]> {
  await duckConn().run('DROP TABLE IF EXISTS events; CREATE TABLE events (region VARCHAR, amount DOUBLE, ts BIGINT)');
  if (rows.length) await duckConn().run(`INSERT INTO events VALUES ${rows.map((r) => `(${lit(r.region)}, ${lit(r.amount)}, ${r.ts})`).join(', ')}`);
  const reader = await duckConn().runAndReadAll(sql);
  return reader.getRowObjectsJS().map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

const canon = (rows: Row[]) =>
  rows
    .map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v]))))
    .sort();

describe('streaming aggregation vs DuckDB', () => {
  it('complete mode: the last batch equals GROUP BY over every row, whatever the batching, restarts and crashes', async () => {
    const sql = 'SELECT region, count(*) AS n, count(amount) AS c, sum(amount) AS s, min(amount) AS lo, max(amount) AS hi, avg(amount) AS a FROM events GROUP BY region';
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rows, cuts, restarts, crashes }) => {
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, relation, 'complete', { minDeltasForSnapshot: 3 });
        const outputs = await runScenario(q, split(rows, cuts), restarts, crashes);
        expect(canon(outputs[outputs.length - 1])).toEqual(canon(await duck(rows, sql)));
      }),
      { numRuns: propertyRuns(10, 40), seed: 20261129 },
    );
  });

  it('complete mode, sliding windows: equal to DuckDB grouping each row into every window that contains it', async () => {
    const sql = "SELECT window(ts, '10 minutes', '5 minutes'), count(*) AS n, max(amount) AS hi FROM events GROUP BY window(ts, '10 minutes', '5 minutes')";
    const SLIDE = 5 * MIN;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rows, cuts, restarts, crashes }) => {
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, relation, 'complete');
        const outputs = await runScenario(q, split(rows, cuts), restarts, crashes);
        const expected = await duck(rows,
          `SELECT s AS "start", count(*) AS n, max(amount) AS hi FROM (SELECT unnest([(ts // ${SLIDE}) * ${SLIDE}, (ts // ${SLIDE}) * ${SLIDE} - ${SLIDE}]) AS s, ts, amount FROM events) ` +
          `WHERE s + ${WINDOW} > ts GROUP BY s`);
        const got = (outputs[outputs.length - 1] ?? []).map((r) => ({ start: (r.window as { start: number }).start, n: r.n, hi: r.hi }));
        expect(canon(got)).toEqual(canon(expected));
      }),
      { numRuns: propertyRuns(8, 30), seed: 55 },
    );
  });

  it('append mode with a watermark: windows emitted exactly once, equal to GROUP BY window over the rows that were not late', async () => {
    const sql = "SELECT window(ts, '10 minutes'), region, count(*) AS n, sum(amount) AS s FROM events GROUP BY window(ts, '10 minutes'), region";
    await fc.assert(
      fc.asyncProperty(scenario, fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constantFrom(0, 5, 10, 20)), async ({ rows, cuts, restarts, crashes }, delayMin) => {
        const rel = { ...relation, eventTime: 'ts', watermarkDelayMs: delayMin * MIN };
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'append');
        // A far-future row moves the watermark past every window; an empty batch then applies it.
        const flushTs = 100_000 * MIN;
        const batches = [...split(rows, cuts), [{ region: 'flush', amount: 0, ts: flushTs }], []];
        const outputs = await runScenario(q, batches, restarts, crashes);

        // The model of lateness, independent of the operator: batch k runs with the watermark
        // computed from batches < k; a row is late when its window's end is ≤ that watermark.
        let wm = 0;
        const onTime: Ev[] = [];
        for (const b of batches) {
          for (const r of b) if (Math.floor(r.ts / WINDOW) * WINDOW + WINDOW > wm && r.region !== 'flush') onTime.push(r);
          const max = Math.max(-Infinity, ...b.map((r) => r.ts));
          if (Number.isFinite(max)) wm = Math.max(wm, max - delayMin * MIN);
        }
        const expected = await duck(onTime,
          `SELECT (ts // ${WINDOW}) * ${WINDOW} AS "start", region, count(*) AS n, sum(amount) AS s FROM events GROUP BY 1, region`);
        const emitted = outputs.flat().map((r) => {
          const w = r.window as { start: number; end: number };
          expect(w.end - w.start).toBe(WINDOW);
          return { start: w.start, region: r.region, n: r.n, s: r.s };
        });
        expect(canon(emitted)).toEqual(canon(expected));
      }),
      { numRuns: propertyRuns(25, 100), seed: 1129 },
    );
  });

  it("complete mode, Spark's other aggregates: equal to DuckDB's same functions, whatever the batching, restarts and crashes", async () => {
    // `id` is the arrival order: DuckDB's order-dependent aggregates (first, last, list, arg_max)
    // are told it, and it orders max_by without ties.
    const rel: StreamingRelation = { ...relation, schema: [...relation.schema, { name: 'id', type: 'long' }] };
    const sql =
      'SELECT region, stddev_samp(amount) AS sd, stddev_pop(amount) AS sdp, var_samp(amount) AS vs, variance(amount) AS v, var_pop(amount) AS vp, ' +
      'kurtosis(amount) AS k, corr(amount, id) AS r, covar_pop(amount, id) AS cp, covar_samp(amount, id) AS cs, ' +
      'count_if(amount > 0) AS ci, bool_and(amount > -10) AS ba, bool_or(amount > 10) AS bo, max_by(amount, id) AS mb, min_by(ts, id) AS nb, ' +
      'first(amount) AS f, last(amount) AS l, first(amount, true) AS fi, last(amount) IGNORE NULLS AS li, any_value(region) AS av, ' +
      'collect_list(amount) AS cl, collect_set(amount) AS cset, median(amount) AS med, try_sum(amount) AS ts_, try_avg(amount) AS ta, ' +
      'count(amount, region) AS c2, bit_and(id - 3) AS band, bit_or(CAST(amount * 2 AS BIGINT)) AS bor, bit_xor(id * 7919 - 50) AS bx, ' +
      "string_agg(CAST(id AS STRING)) AS sa, listagg(CAST(id AS STRING), ',') WITHIN GROUP (ORDER BY amount DESC, id) AS lg, " +
      "listagg(CASE WHEN amount > 0 THEN CAST(id AS STRING) END, '-') WITHIN GROUP (ORDER BY amount) AS lp FROM events GROUP BY region";
    const duckSql =
      'SELECT region, stddev_samp(amount) AS sd, stddev_pop(amount) AS sdp, var_samp(amount) AS vs, variance(amount) AS v, var_pop(amount) AS vp, ' +
      'kurtosis_pop(amount) AS k, corr(amount, id) AS r, covar_pop(amount, id) AS cp, covar_samp(amount, id) AS cs, ' +
      'count(*) FILTER (WHERE amount > 0) AS ci, bool_and(amount > -10) AS ba, bool_or(amount > 10) AS bo, arg_max_null(amount, id) AS mb, arg_min_null(ts, id) AS nb, ' +
      'first(amount ORDER BY id) AS f, last(amount ORDER BY id) AS l, first(amount ORDER BY id) FILTER (WHERE amount IS NOT NULL) AS fi, ' +
      'last(amount ORDER BY id) FILTER (WHERE amount IS NOT NULL) AS li, first(region ORDER BY id) AS av, ' +
      "coalesce(list(amount ORDER BY id) FILTER (WHERE amount IS NOT NULL), []) AS cl, coalesce(list_sort(list_distinct(list(amount))), []) AS cset, " +
      'median(amount) AS med, sum(amount) AS ts_, avg(amount) AS ta, count(*) FILTER (WHERE amount IS NOT NULL AND region IS NOT NULL) AS c2, ' +
      'bit_and(id - 3) AS band, bit_or(CAST(amount * 2 AS BIGINT)) AS bor, bit_xor(id * 7919 - 50) AS bx, ' +
      // listagg's ties stay in arrival order: DuckDB is told it as the last key.
      "string_agg(CAST(id AS VARCHAR), '' ORDER BY id) AS sa, string_agg(CAST(id AS VARCHAR), ',' ORDER BY amount DESC NULLS LAST, id) AS lg, " +
      "string_agg(CASE WHEN amount > 0 THEN CAST(id AS VARCHAR) END, '-' ORDER BY amount NULLS FIRST, id) AS lp FROM events GROUP BY region";
    // Equal within floating-point rounding: Spark's one-pass updates and DuckDB's own formulas.
    const close = (a: unknown, b: unknown): boolean =>
      typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)) : Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x, i) => close(x, b[i])) : a === b;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rows: evs, cuts, restarts, crashes }) => {
        const rows = evs.map((r, id) => ({ ...r, id }));
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'complete', { minDeltasForSnapshot: 3 });
        const outputs = await runScenario(q, split(rows, cuts), restarts, crashes);
        const got = [...(outputs[outputs.length - 1] ?? [])].map((r): Row => ({ ...r, cset: [...(r.cset as number[])].sort((a, b) => a - b) }));
        await duckConn().run('DROP TABLE IF EXISTS events; CREATE TABLE events (region VARCHAR, amount DOUBLE, ts BIGINT, id BIGINT)');
        if (rows.length) await duckConn().run(`INSERT INTO events VALUES ${rows.map((r) => `(${lit(r.region)}, ${lit(r.amount)}, ${r.ts}, ${r.id})`).join(', ')}`);
        const want = (await duckConn().runAndReadAll(duckSql)).getRowObjectsJS().map((r) =>
          Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v && typeof v === 'object' && 'items' in v ? (v.items as unknown[]) : v])));
        // corr over a zero variance: DuckDB's NaN is Spark's NULL (its Divide by zero, ANSI off).
        for (const w of want) if (Number.isNaN(w.r)) w.r = null;
        expect(got.length).toBe(want.length);
        for (const w of want) {
          const g = got.find((x) => x.region === w.region);
          expect(g, JSON.stringify(w)).toBeDefined();
          for (const k of Object.keys(w)) expect(close(g![k], w[k]), `${k}: ${JSON.stringify(g![k])} vs DuckDB ${JSON.stringify(w[k])}`).toBe(true);
        }
      }),
      { numRuns: propertyRuns(10, 40), seed: 20261203 },
    );
  });
});
