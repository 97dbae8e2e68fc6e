/**
 * make_interval(years, months, weeks, days, hours, mins, secs) and try_make_interval. Spark
 * returns a CalendarInterval, which Weir does not have: a call with only a year-month part is an
 * INTERVAL YEAR TO MONTH, one with only a day-time part an INTERVAL DAY TO SECOND, both refused.
 * Expected values are Spark 3.5's sql-tests (interval.sql.out, ANSI off) read in those types: the
 * same months, days and microseconds, and the same timestamp when added to one.
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

const refusal = (expr: string) => {
  try {
    compileStreamingQuery(`SELECT ${expr} AS v FROM src`, rel);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`expected ${expr} to be refused`);
};

describe('make_interval', () => {
  it('of years and months is an INTERVAL YEAR TO MONTH (Spark: 1 years, 1 years 2 months)', async () => {
    expect(await one('make_interval(1)')).toEqual({ v: 12, text: "INTERVAL '1-0' YEAR TO MONTH", type: 'interval year to month' });
    expect((await one('make_interval(1, 2)')).text).toBe("INTERVAL '1-2' YEAR TO MONTH");
    expect((await one('make_interval(1, 2, 0, 0, 0, 0, 0)')).text).toBe("INTERVAL '1-2' YEAR TO MONTH");
    expect((await one('make_interval(-1, 1)')).text).toBe("INTERVAL '-0-11' YEAR TO MONTH");
  });

  it('of weeks, days, hours, minutes and seconds is an INTERVAL DAY TO SECOND', async () => {
    // Spark: 25 days 5 hours 6 minutes 7.008009 seconds (with 1 years 2 months beside).
    expect(await one('make_interval(0, 0, 3, 4, 5, 6, 7.008009)')).toEqual({ v: 2_178_367_008_009, text: "INTERVAL '25 05:06:07.008009' DAY TO SECOND", type: 'interval day to second' });
    // Spark: 25 days 34293552 hours 30 minutes 12.123456 seconds: the same microseconds.
    expect((await one('make_interval(0, 0, 3, 4, 0, 0, 123456789012.123456)')).text).toBe("INTERVAL '1428923 00:30:12.123456' DAY TO SECOND");
    expect((await one('make_interval()')).text).toBe("INTERVAL '0' DAY");
    expect((await one('make_interval(0, 0, 1, 2, 3)')).text).toBe("INTERVAL '9 03:00:00' DAY TO SECOND");
    // Of weeks and days alone: an INTERVAL DAY.
    expect(await one('make_interval(0, 0, 1, 2)')).toEqual({ v: 777_600_000_000, text: "INTERVAL '9' DAY", type: 'interval day' });
    expect((await one('make_interval(0, 0, 0, 0, 0, 0, 100.000001)')).text).toBe("INTERVAL '0 00:01:40.000001' DAY TO SECOND");
  });

  it('takes columns and reads them as Spark does: INTs, and secs a DECIMAL(18,6)', async () => {
    expect((await one('make_interval(0, 0, n, n, n, n, s)')).text).toBe("INTERVAL '24 03:03:01.5' DAY TO SECOND");
    expect((await one('make_interval(n, n)')).text).toBe("INTERVAL '3-3' YEAR TO MONTH");
    // A DOUBLE day count is cut to an INT, as Spark's implicit cast.
    expect((await one('make_interval(0, 0, 0, s)')).text).toBe("INTERVAL '1' DAY");
  });

  it('adds to a date as Spark: of days alone a DATE', async () => {
    expect((await one("DATE '2021-01-31' + make_interval(0, 0, 1, 1)")).v).toBe(18666);
    expect((await one("typeof(DATE '2021-01-31' + make_interval(0, 1))")).v).toBe('date');
  });

  it('adds to a timestamp as Spark adds the CalendarInterval', async () => {
    expect((await one('ts + make_interval(0, 1)')).v).toBe('2021-02-28 10:30:00');
    expect((await one('ts + make_interval(0, 0, 1, 1, 1, 1, 1.5)')).v).toBe('2021-02-08 11:31:01.5');
    expect((await one('ts - make_interval(1)')).v).toBe('2020-01-31 10:30:00');
  });

  it('is NULL with a NULL part (Spark: make_interval(100, null, 3) is NULL)', async () => {
    expect((await one('make_interval(100, null, 3)')).v).toBe(null);
    expect((await one('make_interval(0, 0, 1, CAST(NULL AS INT))')).v).toBe(null);
    expect((await one("make_interval(0, 0, 0, 'a')")).v).toBe(null);
    expect((await one("make_interval(0, 0, 0, '2')")).text).toBe("INTERVAL '2' DAY");
  });

  it('is NULL where a part overflows, as Spark with ANSI off (make_interval(0, 0, 0, 0, 0, 0, 1234567890123456789))', async () => {
    expect((await one('make_interval(0, 0, 0, 0, 0, 0, 1234567890123456789)')).v).toBe(null);
    expect((await one('make_interval(0, 0, 0, 106751991, 4)')).text).toBe("INTERVAL '106751991 04:00:00' DAY TO SECOND");
    // Past a day-time interval's 2^63 microseconds (106751991 days): NULL, where Spark's
    // CalendarInterval, which keeps its days apart, holds up to 2147483647 days.
    expect((await one('make_interval(0, 0, 0, 106751991, 5)')).v).toBe(null);
    expect((await one('make_interval(0, 0, 0, 2147483647)')).v).toBe(null);
    expect((await one('make_interval(200000000)')).v).toBe(null);
    expect((await one('make_interval(0, 0, 400000000)')).v).toBe(null);
    expect((await one('make_interval(178956970, 7)')).text).toBe("INTERVAL '178956970-7' YEAR TO MONTH");
    expect((await one('make_interval(178956970, 8)')).v).toBe(null);
    expect((await one('try_make_interval(0, 0, 400000000)')).v).toBe(null);
    expect((await one('try_make_interval(0, 0, 1)')).text).toBe("INTERVAL '7' DAY");
  });

  it('refuses both a year-month and a day-time part (a CalendarInterval), saying how to write it', () => {
    expect(refusal('make_interval(1, 2, 3)')).toMatch(/make_interval\(\) with both years or months and a day or time part makes Spark's CalendarInterval, which Weir does not have.*make_ym_interval\(years, months\) \+ make_dt_interval/);
    expect(refusal('make_interval(n, 0, 0, n)')).toMatch(/CalendarInterval/);
    // Text is cast to the part's INT, as Spark's implicit cast: NULL where it is no number.
    expect(refusal('make_interval(0, 1, CAST(0 AS INT) + 1)')).toMatch(/CalendarInterval/);
  });
});
