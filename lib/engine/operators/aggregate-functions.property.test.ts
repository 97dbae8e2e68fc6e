/**
 * Property tests of the aggregates DuckDB has no equal of (skewness as Spark defines it, mode's
 * tie rule, percentile_approx's rank rule and accuracy bound, first/last with FILTER, min_by and
 * max_by's ties, collect_set's order), against a hand-written oracle computed from the rows in
 * arrival order, and histogram_numeric against what any histogram of the rows must be. fast-check picks the rows, the batches, and restarts and crashes before a state
 * commit; the answer must equal the oracle's, and be bit for bit the answer of one
 * uninterrupted batch (a buffer comes back from the state store exactly).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { StreamingRelation } from '../query/logical-plan';
import { runScenario, scenarioOf, split } from '../query/testing/batch-scenario';
import { StatefulQueryRunner } from '../query/testing/stateful-test-harness';
import type { Row } from '../types';

const relation: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [
    { name: 'k', type: 'string' },
    { name: 'x', type: 'double' },
    { name: 'y', type: 'long' },
  ],
};

type Ev = { k: string; x: number | null; y: number | null };
const event = fc.record({
  k: fc.constantFrom('a', 'b'),
  // Few distinct quarters: ties for mode, min_by and max_by, and repeats for collect_set.
  x: fc.option(fc.integer({ min: -6, max: 6 }).map((n) => n / 4), { nil: null, freq: 5 }),
  y: fc.option(fc.integer({ min: -3, max: 3 }), { nil: null, freq: 5 }),
});

const SQL =
  'SELECT k, skewness(x) AS sk, kurtosis(x) AS ku, mode(x) AS mo, percentile_approx(x, 0.3) AS p30, ' +
  'percentile_approx(x, array(0, 0.5, 1)) AS ps, percentile_approx(x, 0.7, 4) AS p70, ' +
  'first(x) FILTER (WHERE y > 0) AS ff, last(x) IGNORE NULLS AS li, last(x) FILTER (WHERE y < 0) AS lf, ' +
  'min_by(x, y) AS mnb, max_by(x, y) AS mxb, collect_set(x) AS cs, count_if(y > 0) AS ci, histogram_numeric(x, 3) AS h FROM events GROUP BY k';

/**
 * What histogram_numeric(x, 3) must be, whatever bins it merged: NULL for no values; otherwise
 * at most 3 bins in ascending x within the values' range, counting every value once, with the
 * values' mean as their weighted mean (merging two bins keeps their sum); with at most 3
 * distinct values, exactly those values and their counts.
 */
function checkHistogram(h: unknown, xs: number[]): void {
  if (xs.length === 0) {
    expect(h).toBeNull();
    return;
  }
  const bins = h as { x: number; y: number }[];
  expect(bins.length).toBeGreaterThan(0);
  expect(bins.length).toBeLessThanOrEqual(3);
  bins.forEach((b, i) => {
    if (i > 0) expect(b.x).toBeGreaterThan(bins[i - 1].x);
    expect(b.x).toBeGreaterThanOrEqual(Math.min(...xs));
    expect(b.x).toBeLessThanOrEqual(Math.max(...xs));
  });
  expect(bins.reduce((n, b) => n + b.y, 0)).toBe(xs.length);
  const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
  expect(Math.abs(bins.reduce((a, b) => a + b.x * b.y, 0) / xs.length - mean)).toBeLessThanOrEqual(1e-9);
  const distinct = [...new Set(xs)].sort((a, b) => a - b);
  if (distinct.length <= 3) expect(bins).toEqual(distinct.map((x) => ({ x, y: xs.filter((v) => v === x).length })));
}

/** The value at 1-based rank ⌈p·n⌉ (at least 1) of the sorted values: Spark's exact percentile_approx. */
const atRank = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1];

function oracle(rows: Ev[]): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const k of new Set(rows.map((r) => r.k))) {
    const g = rows.filter((r) => r.k === k);
    const xs = g.map((r) => r.x).filter((x): x is number => x !== null);
    const n = xs.length;
    const mean = xs.reduce((a, b) => a + b, 0) / n;
    const m = (p: number) => xs.reduce((a, x) => a + (x - mean) ** p, 0);
    const [m2, m3, m4] = [m(2), m(3), m(4)];
    const sorted = [...xs].sort((a, b) => a - b);
    const counts = new Map<number, number>();
    for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
    const most = Math.max(0, ...counts.values());
    const lastOf = (rs: Ev[]) => (rs.length ? rs[rs.length - 1].x : null);
    // min_by/max_by: rows with a NULL ordering are skipped; a later equal ordering wins.
    const by = (better: (a: number, b: number) => boolean) => {
      let best: Ev | undefined;
      for (const r of g) if (r.y !== null && (best === undefined || better(r.y, best.y!))) best = r;
      return best ? best.x : null;
    };
    out.set(k, {
      k,
      sk: n === 0 || m2 === 0 ? null : (Math.sqrt(n) * m3) / Math.sqrt(m2 ** 3),
      ku: n === 0 || m2 === 0 ? null : (n * m4) / (m2 * m2) - 3,
      mo: n === 0 ? null : Math.min(...[...counts].filter(([, c]) => c === most).map(([x]) => x)),
      p30: n === 0 ? null : atRank(sorted, 0.3),
      ps: n === 0 ? null : [0, 0.5, 1].map((p) => atRank(sorted, p)),
      ff: g.find((r) => r.y !== null && r.y > 0)?.x ?? null,
      li: lastOf(g.filter((r) => r.x !== null)),
      lf: lastOf(g.filter((r) => r.y !== null && r.y < 0)),
      mnb: by((a, b) => a <= b),
      mxb: by((a, b) => a >= b),
      cs: [...new Set(xs)],
      ci: g.filter((r) => r.y !== null && r.y > 0).length,
    });
  }
  return out;
}

/** Equal, numbers within floating-point rounding (a one-pass update against a two-pass formula). */
const close = (a: unknown, b: unknown): boolean =>
  typeof a === 'number' && typeof b === 'number'
    ? Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))
    : Array.isArray(a) && Array.isArray(b)
      ? a.length === b.length && a.every((x, i) => close(x, b[i]))
      : a === b;

describe('aggregates without a DuckDB equal, against an oracle', () => {
  it('equal the oracle whatever the batching, restarts and crashes, and bit for bit one batch', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioOf(event), async ({ rows, cuts, restarts, crashes }) => {
        const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), SQL, relation, 'complete', { minDeltasForSnapshot: 3 });
        const outputs = await runScenario(q, split(rows, cuts), restarts, crashes);
        const got = outputs[outputs.length - 1];
        const once = (await new StatefulQueryRunner(new InMemoryCheckpointFileManager(), SQL, relation, 'complete').runBatch(rows)).output;
        const byKey = (rs: Row[]) => [...rs].sort((a, b) => String(a.k).localeCompare(String(b.k)));
        expect(byKey(got)).toEqual(byKey(once));

        const want = oracle(rows);
        expect(got.length).toBe(want.size);
        for (const r of got) {
          const w = want.get(r.k as string)!;
          for (const [c, v] of Object.entries(w)) {
            if (c === 'p70') continue;
            expect(close(r[c], v), `${c}: ${JSON.stringify(r[c])}, the oracle has ${JSON.stringify(v)}`).toBe(true);
          }
          // Accuracy 4 (relative error 1/4): the answer's rank is within ⌈n / 4⌉ of rank ⌈0.7·n⌉.
          const xs = rows.filter((e) => e.k === r.k && e.x !== null).map((e) => e.x!);
          checkHistogram(r.h, xs);
          if (xs.length === 0) {
            expect(r.p70).toBeNull();
          } else {
            const v = r.p70 as number;
            const target = Math.max(1, Math.ceil(0.7 * xs.length));
            const lo = xs.filter((x) => x < v).length + 1, hi = xs.filter((x) => x <= v).length;
            const off = target < lo ? lo - target : target > hi ? target - hi : 0;
            expect(hi).toBeGreaterThanOrEqual(lo);
            expect(off, `p70 ${v} of ${JSON.stringify(xs)}`).toBeLessThanOrEqual(Math.ceil(xs.length / 4));
          }
        }
      }),
      { numRuns: 60, seed: 20261203 },
    );
  });
});
