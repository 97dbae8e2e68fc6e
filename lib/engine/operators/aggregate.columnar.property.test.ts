/**
 * Differential property test: the batch-at-a-time (columnar) fold of numeric aggregates against
 * the row-at-a-time fold, over the same batches. Adding approx_count_distinct to the select list
 * sends a query down the row fold (it does not fold numbers), so the two runners differ only in
 * the fold. Values include NULL, NaN, ±Infinity, -0 and a non-number now and then (which makes
 * the columnar fold give the batch back to the row fold); batches are re-run after a crash
 * before the state commit, with and without a restart. Every batch's update-mode output must be
 * equal value for value (Object.is: -0 is not 0, NaN is NaN). The same holds for the grouping
 * paths that fold by several raw key values: two plain keys, and a tumbling window over a
 * watermarked event time beside a key (late rows dropped, windows evicted as the watermark moves).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamingRelation } from '../query/logical-plan';
import { runWithCrashes } from '../query/testing/stateful-test-harness';
import { propertyRuns } from '@/lib/testing/property-runs';

const relation: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [
    { name: 'k', type: 'string' },
    { name: 'v', type: 'double' },
    { name: 'n', type: 'long' },
    { name: 'j', type: 'long' },
    { name: 'ts', type: 'timestamp' },
  ],
};
const watermarked: StreamingRelation = { ...relation, eventTime: 'ts', watermarkDelayMs: 5_000 };

const AGGS = 'count(*) AS c, count(v) AS cv, sum(v) AS s, avg(v) AS a, min(v) AS lo, max(v) AS hi, sum(n + 1) AS sn, max(n) AS hn';

const value = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -5, max: 5 }).map((x) => x / 2) },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 0) },
);
const event = fc.record({
  k: fc.constantFrom('a', 'b', 'c', null),
  v: value,
  n: fc.option(fc.integer({ min: -3, max: 3 }), { nil: null }),
  // -0 groups with 0 (SQL): whichever comes first names the group, in both folds alike.
  j: fc.constantFrom(0, -0, 1, 2, null),
  ts: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: null, freq: 8 }),
});
const batch = fc.record({
  rows: fc.array(event, { maxLength: 25 }),
  // A string where a number belongs: the columnar fold must leave the batch to the row fold.
  odd: fc.boolean(),
  crash: fc.constantFrom('none', 'rerun', 'restart'),
});

const GROUPINGS: { name: string; keys: string; rel: StreamingRelation }[] = [
  { name: 'one key', keys: 'k', rel: relation },
  { name: 'two keys', keys: 'k, j', rel: relation },
  { name: 'a tumbling window and a key', keys: "window(ts, '10 seconds'), k", rel: watermarked },
];

describe('columnar aggregate fold', () => {
  it.each(GROUPINGS)('equals the row fold by $name, batch by batch, for every value, batching and crash', async ({ keys, rel }) => {
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 6 }), async (bs) => {
        const batches = bs.map((b) => ({ rows: b.odd && b.rows.length > 0 ? [...b.rows, { k: 'a', v: 'x', n: 1, j: 1, ts: 30_000 }] : b.rows, crash: b.crash }));
        const columnar = await runWithCrashes(`SELECT ${keys}, ${AGGS} FROM events GROUP BY ${keys}`, rel, batches);
        const rowByRow = await runWithCrashes(`SELECT ${keys}, ${AGGS}, approx_count_distinct(v) AS d FROM events GROUP BY ${keys}`, rel, batches);
        expect(columnar.length).toBe(rowByRow.length);
        for (let i = 0; i < columnar.length; i++) {
          expect(columnar[i]).toEqual(rowByRow[i].map(({ d: _d, ...rest }) => rest));
        }
      }),
      { numRuns: propertyRuns(40, 150) },
    );
  });
});
