/**
 * Differential property test: the fold that finds groups by raw key values through one Map per
 * key (foldByTuple: a window's level first, the first level skipped for a row whose first key is
 * the previous row's) against the fold that finds them by their encoded key (foldGeneral). Each
 * key wrapped in array() sends the same query down the general fold; the test unwraps it again.
 * Keys include NULL, NaN, -0 and 0 (SQL groups -0 with 0 and NaN with NaN), runs of equal keys
 * (the skipped lookup) and rows behind the watermark; batches are re-run after a crash before
 * the state commit, with and without a restart. Every batch's update-mode output must be equal
 * value for value, in order (Object.is: the first row of a group names it, -0 or 0).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamingRelation } from '../query/logical-plan';
import { runWithCrashes } from '../query/testing/stateful-test-harness';
import type { Row } from '../types';
import { propertyRuns } from '@/lib/testing/property-runs';

const relation: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [
    { name: 'k', type: 'string' },
    { name: 'd', type: 'double' },
    { name: 'j', type: 'long' },
    { name: 'ts', type: 'timestamp' },
  ],
  eventTime: 'ts',
  watermarkDelayMs: 5_000,
};

const event = fc.record({
  k: fc.constantFrom('a', 'b', null),
  d: fc.constantFrom(Number.NaN, -0, 0, 1.5, null),
  j: fc.constantFrom(0, 1, null),
  ts: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: null, freq: 8 }),
});
// Runs of one event: consecutive rows with the same keys, as rows in event-time order mostly are.
const rows = fc.array(fc.tuple(event, fc.integer({ min: 1, max: 4 })), { maxLength: 12 }).map((runs) => runs.flatMap(([e, n]) => Array.from({ length: n }, () => ({ ...e }))));
const batch = fc.record({ rows, crash: fc.constantFrom('none', 'rerun', 'restart') });

const AGGS = 'count(*) AS c, sum(j) AS s';
const W = "window(ts, '10 seconds')";
/** Plain keys; each becomes `array(key) AS key` on the general side (a constant array when there is none beside a window). */
const GROUPINGS: { name: string; window: boolean; keys: string[] }[] = [
  { name: 'two keys', window: false, keys: ['k', 'd'] },
  { name: 'a double key first', window: false, keys: ['d', 'k'] },
  { name: 'a window and two keys', window: true, keys: ['k', 'j'] },
  { name: 'a window alone', window: true, keys: [] },
];

describe('aggregate fold by raw key values', () => {
  it.each(GROUPINGS)('equals the fold by encoded keys by $name, batch by batch, for every key, batching and crash', async ({ window, keys }) => {
    const plain = [...(window ? [`${W} AS w`] : []), ...keys];
    const wrapped = [...(window ? [`${W} AS w`] : []), ...(keys.length ? keys.map((k) => `array(${k}) AS ${k}`) : ['array(1) AS one'])];
    const by = (cols: string[]) => cols.map((c) => c.replace(/ AS \w+$/, '')).join(', ');
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 5 }), async (batches) => {
        for (const aggs of [AGGS, 'count(*) AS c']) {
          const byTuple = await runWithCrashes(`SELECT ${plain.join(', ')}, ${aggs} FROM events GROUP BY ${by(plain)}`, relation, batches);
          const general = await runWithCrashes(`SELECT ${wrapped.join(', ')}, ${aggs} FROM events GROUP BY ${by(wrapped)}`, relation, batches);
          const unwrap = (r: Row): Row => {
            const { one: _one, ...rest } = r;
            for (const k of keys) rest[k] = (r[k] as unknown[])[0];
            return rest;
          };
          expect(byTuple).toEqual(general.map((out) => out.map(unwrap)));
        }
      }),
      { numRuns: propertyRuns(30, 120) },
    );
  });
});
