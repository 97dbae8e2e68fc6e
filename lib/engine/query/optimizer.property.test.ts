/**
 * The optimizer must not change an answer: every query here runs twice over the same random
 * rows and the same random batch splits, once as written and once optimized, and every batch's
 * output must be equal. The optimized run also reads its rows the way the files source does
 * with column pruning (JSON lines parsed for the pruned columns only), so ColumnPruning is
 * checked down to the parser; the unoptimized run parses every column.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { JsonLineParser } from '../operators/record-parser';
import type { StaticTableSpec } from '../operators/stream-static-join';
import type { OutputMode, Row } from '../types';
import type { StreamingRelation } from './logical-plan';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import { compileStreamingQuery } from './streaming-query';
import { split } from './testing/batch-scenario';

const relation: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'ev',
  schema: [
    { name: 'k', type: 'long' },
    { name: 'v', type: 'double' },
    { name: 'cat', type: 'string' },
    { name: 'junk', type: 'string' },
    { name: 'ts', type: 'timestamp' },
  ],
  eventTime: 'ts',
  watermarkDelayMs: 5_000,
};

const DIM: Row[] = [
  { k: 0, label: 'zero', weight: 1 },
  { k: 1, label: 'one', weight: 2 },
  { k: 1, label: 'one-bis', weight: 3 },
  { k: 2, label: 'x', weight: 4 },
  { k: 4, label: null, weight: 5 },
  { k: null, label: 'null key', weight: 6 },
];

let dir: string;
let dim: StaticTableSpec;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'weir-optimizer-'));
  const file = path.join(dir, 'dim.json');
  await writeFile(file, DIM.map((r) => JSON.stringify(r)).join('\n') + '\n');
  dim = { name: 'dim', path: file, format: 'json', schema: [{ name: 'k', type: 'long' }, { name: 'label', type: 'string' }, { name: 'weight', type: 'long' }] };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const event = fc.record({
  k: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
  // Halves keep sums exact whatever order they are added in.
  v: fc.option(fc.integer({ min: -20, max: 20 }).map((n) => n / 2), { nil: null }),
  cat: fc.constantFrom('a', 'b', null),
  junk: fc.string({ maxLength: 3 }),
  dt: fc.integer({ min: 0, max: 3_000 }),
});

const scenario = fc.record({
  rows: fc.array(event, { maxLength: 50 }),
  cuts: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 8 }),
  c: fc.integer({ min: -5, max: 5 }),
});

/** Batches by `cuts` (the rest in a last batch), event times rising with jitter, so some rows are late. */
function batches(rows: { k: number | null; v: number | null; cat: string | null; junk: string; dt: number }[], cuts: number[]): Row[][] {
  let t = 100_000;
  const all = rows.map((r, i) => ({ k: r.k, v: r.v, cat: r.cat, junk: r.junk, ts: (t += 700) - (i % 3 === 0 ? r.dt * 3 : 0) }));
  return split(all, cuts);
}

const QUERIES: { name: string; mode: OutputMode; sql: (c: number) => string }[] = [
  {
    name: 'inner join, a stream conjunct, a static conjunct and a constant one',
    mode: 'append',
    sql: (c) => `SELECT e.k, e.v, d.label FROM ev e JOIN dim d ON e.k = d.k WHERE e.v > ${c} AND d.label <> 'x' AND (1 + 1) = 2`,
  },
  {
    name: 'left join with a stream OR-condition and a projection of static columns',
    mode: 'append',
    sql: (c) => `SELECT e.cat, d.weight * 2 AS w2, d.label FROM ev e LEFT JOIN dim d ON e.k = d.k WHERE e.cat = 'a' OR e.v < ${c} / 2`,
  },
  {
    name: 'windowed aggregate over a join, update mode',
    mode: 'update',
    sql: (c) => `SELECT d.label, window(e.ts, '10 seconds') AS w, count(*) AS n, sum(e.v) AS s, max(d.weight) AS mw FROM ev e JOIN dim d ON e.k = d.k WHERE e.v IS NOT NULL AND e.v >= ${c} - 2 GROUP BY d.label, window(e.ts, '10 seconds')`,
  },
  {
    name: 'windowed aggregate over a join, append mode (watermark)',
    mode: 'append',
    sql: () => `SELECT window(ts, '5 seconds') AS w, count(*) AS n FROM ev e JOIN dim d ON e.k = d.k WHERE cat <> 'b' GROUP BY window(ts, '5 seconds')`,
  },
  {
    name: 'no join: constants in the select list and the WHERE',
    mode: 'append',
    sql: (c) => `SELECT k, v * (2 + 3) AS x, cat FROM ev WHERE v BETWEEN 1 - 3 + ${c} AND 100 * 2 AND true AND k IN (1, 2, 1 + 2)`,
  },
  {
    name: 'aggregate with HAVING, complete mode',
    mode: 'complete',
    sql: (c) => `SELECT cat, count(*) AS n, avg(v) AS a FROM ev WHERE k > ${c} - 4 GROUP BY cat HAVING count(*) > 1`,
  },
];

/** Rows as the files source gives them: JSON lines parsed for `columns` (all when unset). */
const asParsed = (rows: Row[], columns?: string[]): Row[] => {
  const p = new JsonLineParser(relation.schema, columns);
  return rows.map((r) => {
    const x = p.parse(JSON.stringify(r));
    if (!x.ok) throw new Error(x.reason);
    return x.row;
  });
};

const canon = (rows: Row[]) => rows.map((r) => JSON.stringify(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)))).sort();

describe('optimized and unoptimized plans agree', () => {
  for (const q of QUERIES) {
    it(q.name, async () => {
      const probe = compileStreamingQuery(q.sql(0), relation, { outputMode: q.mode, staticTables: [dim] });
      // The point of the test is a plan the optimizer rewrote.
      expect(probe.optimizations.length).toBeGreaterThan(0);
      await fc.assert(
        fc.asyncProperty(scenario, async ({ rows, cuts, c }) => {
          const sql = q.sql(c);
          const opts = { staticTables: [dim] };
          const plain = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, relation, q.mode, {}, { ...opts, optimize: false });
          const optimized = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, relation, q.mode, {}, opts);
          const columns = compileStreamingQuery(sql, relation, { outputMode: q.mode, ...opts }).sourceColumns;
          for (const b of batches(rows, cuts)) {
            const expected = await plain.runBatch(asParsed(b));
            const actual = await optimized.runBatch(asParsed(b, columns));
            expect(canon(actual.output)).toEqual(canon(expected.output));
            expect(actual.watermarkMs).toBe(expected.watermarkMs);
          }
        }),
        { numRuns: 40, seed: 20261201 },
      );
    });
  }

  it('keeps a nondeterministic conjunct above the join, as Spark pushes only deterministic ones (rand() below would draw for rows the join drops)', () => {
    const q = compileStreamingQuery("SELECT e.k FROM ev e JOIN dim d ON e.k = d.k WHERE e.v > 1 AND rand(7) < 0.5", relation, { outputMode: 'append', staticTables: [dim] });
    const lines = q.explain.split('\n');
    const join = lines.findIndex((l) => l.includes('Join Inner'));
    expect(lines.findIndex((l) => l.includes('Filter (v > 1)'))).toBeGreaterThan(join);
    const rand = lines.findIndex((l) => l.includes('rand(7)'));
    expect(rand).toBeGreaterThanOrEqual(0);
    expect(rand).toBeLessThan(join);
  });

  it('explains what moved: the filter below the join, the columns the source reads', () => {
    const q = compileStreamingQuery(QUERIES[0].sql(1), relation, { outputMode: 'append', staticTables: [dim] });
    expect(q.optimizations.map((o) => o.rule)).toEqual(['ConstantFolding', 'PushDownPredicates', 'ColumnPruning', 'ColumnPruning', 'FuseStatelessOperators']);
    expect(q.operators.map((o) => o.name)).toEqual(['Filter', 'StreamStaticJoin INNER dim', 'Filter+Project']);
    expect(q.sourceColumns).toEqual(['k', 'v', 'ts']);
    const lines = q.explain.split('\n');
    const join = lines.findIndex((l) => l.includes('Join Inner'));
    const pushed = lines.findIndex((l) => l.includes("Filter (v > 1)"));
    expect(join).toBeGreaterThanOrEqual(0);
    expect(pushed).toBeGreaterThan(join);
    expect(q.explain).toContain('StreamingRelation ev [k, v, ts]');
  });

  it('folds no call that reads the batch, and pushes no call to the source', async () => {
    for (const call of ['unix_timestamp()', "datediff(current_date(), DATE '1970-01-01')", 'CAST(current_timestamp() AS LONG)', 'CAST(now() AS LONG)']) {
      const sql = `SELECT k FROM ev WHERE ${call} > 5`;
      const q = compileStreamingQuery(sql, relation, { outputMode: 'append' });
      expect(q.optimizations.map((o) => o.detail).join('; ')).not.toContain(call);
      expect(q.scanFilter).toBeUndefined();
      // Batch timestamp 2024-06-01: every call is past 5, so the row passes.
      let rows: Row[] = [{ k: 1, v: 1, cat: 'a', junk: '', ts: 0 }];
      for (const op of q.operators) rows = await op.execute(rows, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: Date.UTC(2024, 5, 1) });
      expect(rows).toEqual([{ k: 1 }]);
    }
    expect(compileStreamingQuery("SELECT k FROM ev WHERE cat = 'a'", relation, { outputMode: 'append' }).scanFilter).toBeDefined();
  });

  it('folds only what is provably cheap: no call that builds or scans a string', async () => {
    // Folding runs in the API's validation and the worker's run start, beside other users:
    // these must stay as written and be evaluated per batch, in the run's engine process.
    for (const call of ["length(repeat('a', 10))", "length(regexp_replace('aaaa', 'a', 'bb'))", "size(split('a,b', ','))", "length('abc')", "CAST('12' AS LONG)"]) {
      const q = compileStreamingQuery(`SELECT k, ${call} AS c FROM ev`, relation, { outputMode: 'append' });
      expect(q.optimizations.map((o) => o.rule)).not.toContain('ConstantFolding');
      let rows: Row[] = [{ k: 1, v: 1, cat: 'a', junk: '', ts: 0 }];
      for (const op of q.operators) rows = await op.execute(rows, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
      expect(rows[0].c).toBeTypeOf('number');
    }
    // Numbers and constant-time numeric calls still fold.
    const q = compileStreamingQuery('SELECT k FROM ev WHERE v > abs(-2) * (1 + 2)', relation, { outputMode: 'append' });
    expect(q.optimizations.find((o) => o.rule === 'ConstantFolding')?.detail).toContain('(v > 6)');
  });
});
