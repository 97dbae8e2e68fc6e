/**
 * sum and avg of a TIMESTAMP (Spark's FunctionArgumentConversion, ANSI off: "Hive lets you do
 * aggregation of timestamps") fold the timestamp cast to a DOUBLE, its seconds since the epoch;
 * against DuckDB's epoch() of the same instants. A TIMESTAMP_NTZ is not cast so, and is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '@/lib/testing/property-runs';
import { simpleTypeString } from './data-types';
import { useDuckDB } from './testing/duckdb';
import { selectStatic } from './testing/spark-printed';

const duckConn = useDuckDB();

const near = (a: unknown, b: unknown) => (a === null || b === null ? a === b : Math.abs(Number(a) - Number(b)) <= 1e-6 * Math.max(1, Math.abs(Number(b))));

describe('sum and avg of a TIMESTAMP', () => {
  it('are the sum and average of its seconds since the epoch, as DOUBLEs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.integer({ min: -2_000_000_000_000, max: 4_000_000_000_000 }), { nil: null }), { minLength: 1, maxLength: 10 }), async (ms) => {
        const rows = ms.map((m) => `(${m === null ? 'CAST(NULL AS BIGINT)' : m})`).join(', ');
        const weir = await selectStatic(`SELECT sum(t) AS s, avg(t) AS a, mean(t) AS m, try_sum(t) AS ts, try_avg(t) AS ta FROM (SELECT timestamp_millis(x) AS t FROM VALUES ${rows} AS v(x))`, []);
        expect(weir.schema.map(simpleTypeString)).toEqual(['double', 'double', 'double', 'double', 'double']);
        const duck = (await duckConn().runAndReadAll(`SELECT sum(epoch(make_timestamp(x * 1000))) AS s, avg(epoch(make_timestamp(x * 1000))) AS a FROM (VALUES ${rows}) v(x)`)).getRowObjectsJS()[0];
        const [r] = weir.rows;
        for (const [col, want] of [['s', duck.s], ['a', duck.a], ['m', duck.a], ['ts', duck.s], ['ta', duck.a]] as const) {
          expect(near(r[col], want), `${col}: ${String(r[col])} against ${String(want)}`).toBe(true);
        }
      }),
      { numRuns: propertyRuns(15, 200) },
    );
  });

  it('refuses a TIMESTAMP_NTZ, which Spark does not cast so', async () => {
    await expect(selectStatic("SELECT avg(t) FROM VALUES (TIMESTAMP_NTZ '2024-01-01 00:00:00') AS v(t)", [])).rejects.toThrow(/avg\(\) needs a numeric or interval argument/);
  });
});
