/**
 * make_interval(years, months, weeks, days, hours, mins, secs) and try_make_interval: Spark's
 * CalendarInterval, the SQL type `interval`. Expected values are Spark 3.5's sql-tests
 * (interval.sql.out, ANSI off) and its function docs.
 */
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { formatTimestamp } from './timestamp-micros';

const SCHEMA: Schema = [{ name: 'ts', type: 'timestamp' }, { name: 'n', type: 'long', integral: 32 }, { name: 's', type: 'double' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };
const ROW: Row = { ts: Date.UTC(2021, 0, 31, 10, 30), n: 3, s: 1.5 };

async function one(expr: string, row: Row = ROW): Promise<{ v: unknown; text: unknown; type: string }> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v, CAST(${expr} AS STRING) AS text, typeof(${expr}) AS t FROM src`, rel);
  let out: Row[] = [row];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  const v = q.outputSchema[0].type === 'timestamp' && out[0].v !== null ? formatTimestamp(out[0].v as number) : out[0].v;
  return { v, text: out[0].text, type: String(out[0].t) };
}

const text = async (expr: string) => (await one(expr)).text;

describe('make_interval', () => {
  it('is an interval of months, days and microseconds, printed by its units (Spark: 1 years 2 months 25 days 5 hours 6 minutes 7.008009 seconds)', async () => {
    expect(await one('make_interval(1)')).toEqual({ v: { months: 12, days: 0, micros: 0 }, text: '1 years', type: 'interval' });
    expect(await text('make_interval(1, 2)')).toBe('1 years 2 months');
    expect(await text('make_interval(1, 2, 3)')).toBe('1 years 2 months 21 days');
    expect(await text('make_interval(1, 2, 3, 4, 5)')).toBe('1 years 2 months 25 days 5 hours');
    expect(await text('make_interval(1, 2, 3, 4, 5, 6, 7.008009)')).toBe('1 years 2 months 25 days 5 hours 6 minutes 7.008009 seconds');
    expect(await text('make_interval(1, 2, 3, 4, 0, 0, 123456789012.123456)')).toBe('1 years 2 months 25 days 34293552 hours 30 minutes 12.123456 seconds');
    // Spark's docs: make_interval(100, 11, 1, 1, 12, 30, 01.001001), make_interval(100, null, 3), make_interval(0, 1, 0, 1, 0, 0, 100.000001).
    expect(await text('make_interval(100, 11, 1, 1, 12, 30, 01.001001)')).toBe('100 years 11 months 8 days 12 hours 30 minutes 1.001001 seconds');
    expect(await text('make_interval(0, 1, 0, 1, 0, 0, 100.000001)')).toBe('1 months 1 days 1 minutes 40.000001 seconds');
    expect(await text('make_interval()')).toBe('0 seconds');
    expect(await text('make_interval(-1, 1)')).toBe('-11 months');
  });

  it('takes columns and reads them as Spark does: INTs, and secs a DECIMAL(18,6)', async () => {
    expect(await text('make_interval(0, 0, n, n, n, n, s)')).toBe('24 days 3 hours 3 minutes 1.5 seconds');
    expect(await text('make_interval(n, n)')).toBe('3 years 3 months');
    // A DOUBLE day count is cut to an INT, as Spark's implicit cast.
    expect(await text('make_interval(0, 0, 0, s)')).toBe('1 days');
  });

  it('adds to a timestamp as Spark (TimeAdd: the months, then the days, then the microseconds)', async () => {
    expect((await one('ts + make_interval(0, 1)')).v).toBe('2021-02-28 10:30:00');
    expect((await one('ts + make_interval(0, 0, 1, 1, 1, 1, 1.5)')).v).toBe('2021-02-08 11:31:01.5');
    expect((await one('ts - make_interval(1)')).v).toBe('2020-01-31 10:30:00');
    expect((await one('make_interval(0, 1, 0, 1) + ts')).v).toBe('2021-03-01 10:30:00');
    expect((await one("typeof(ts + make_interval(0, 1))")).v).toBe('timestamp');
  });

  it('adds to a date as Spark (DateAddInterval): a DATE, its time part cutting to the day', async () => {
    expect((await one("DATE '2021-01-31' + make_interval(0, 1, 0, 1)")).v).toBe(18687); // 2021-03-01
    expect((await one("DATE '2021-01-31' + make_interval(0, 0, 0, 0, 25)")).v).toBe(18659); // 2021-02-01
    expect((await one("DATE '2021-01-31' - make_interval(0, 0, 0, 0, 1)")).v).toBe(18657); // 2021-01-30
    expect((await one("typeof(DATE '2021-01-31' + make_interval(0, 1))")).v).toBe('date');
  });

  it('is NULL with a NULL part (Spark: make_interval(100, null, 3) is NULL)', async () => {
    expect((await one('make_interval(100, null, 3)')).v).toBe(null);
    expect((await one('make_interval(0, 0, 1, CAST(NULL AS INT))')).v).toBe(null);
    expect((await one("make_interval(0, 0, 0, 'a')")).v).toBe(null);
    expect(await text("make_interval(0, 0, 0, '2')")).toBe('2 days');
  });

  it('is NULL where a part overflows, as Spark with ANSI off; try_make_interval too', async () => {
    expect((await one('make_interval(0, 0, 0, 0, 0, 0, 1234567890123456789)')).v).toBe(null);
    // The days are kept apart from the microseconds: up to 2147483647 of them.
    expect(await text('make_interval(0, 0, 0, 2147483647)')).toBe('2147483647 days');
    expect((await one('make_interval(0, 0, 0, 2147483647, 1)')).v).toEqual({ months: 0, days: 2147483647, micros: 3_600_000_000 });
    expect((await one('make_interval(0, 0, 1, 2147483641)')).v).toBe(null);
    expect((await one('make_interval(200000000)')).v).toBe(null);
    expect((await one('make_interval(0, 0, 400000000)')).v).toBe(null);
    expect(await text('make_interval(178956970, 7)')).toBe('178956970 years 7 months');
    expect((await one('make_interval(178956970, 8)')).v).toBe(null);
    // Spark 4's docs: try_make_interval(2147483647) is NULL, try_make_interval(100, 11) 100 years 11 months.
    expect((await one('try_make_interval(2147483647)')).v).toBe(null);
    expect(await text('try_make_interval(100, 11)')).toBe('100 years 11 months');
    expect(await text('try_make_interval(0)')).toBe('0 seconds');
  });
});
