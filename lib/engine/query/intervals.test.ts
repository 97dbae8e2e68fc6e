/**
 * Spark's ANSI intervals end to end (SQL text → plan → operators): literals, datetime and
 * interval arithmetic, comparisons, casts to text, typeof, to_json, windows with an interval
 * duration. Expected values are what Spark 3.5 prints (its datetime-arithmetic and interval SQL
 * tests and the SQL reference's examples), checked by hand against Spark's rules.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { formatDayTimeInterval } from './interval-utils';
import { formatDate } from './date';
import { formatTimestamp } from './timestamp-micros';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import { encodeRows } from '../sinks/files-sink';

const SCHEMA: Schema = [{ name: 'id', type: 'long' }, { name: 'ts', type: 'timestamp' }, { name: 'd', type: 'date' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };
const ROW: Row = { id: 1, ts: Date.UTC(2021, 0, 31, 10, 30), d: 18658 /* 2021-01-31 */ };

/** The value and type of one expression over one row, printed as Spark's shell prints it. */
async function one(expr: string, row: Row = ROW): Promise<{ v: unknown; type: string }> {
  const q = compileStreamingQuery(`SELECT ${expr} AS v, typeof(${expr}) AS t FROM src`, rel);
  let out: Row[] = [row];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  const f = q.outputSchema[0];
  const v = out[0].v;
  const printed = v === null ? null
    : f.type === 'date' ? formatDate(v as number)
    : f.type === 'timestamp' ? formatTimestamp(v as number)
    : v;
  return { v: printed, type: String(out[0].t) };
}

const text = async (expr: string) => (await one(`CAST(${expr} AS STRING)`)).v;

async function failure(expr: string): Promise<{ message: string; errorClass?: string; code?: string }> {
  try {
    await one(expr);
  } catch (e) {
    const d = (e as { details?: { errorClass?: string } }).details;
    return { message: (e as Error).message, errorClass: (e as { errorClass?: string }).errorClass ?? d?.errorClass };
  }
  throw new Error(`expected ${expr} to fail`);
}

describe('interval literals', () => {
  it('types and prints them as Spark does', async () => {
    expect(await text("INTERVAL '1 2:3:4.5' DAY TO SECOND")).toBe("INTERVAL '1 02:03:04.5' DAY TO SECOND");
    expect(await text('INTERVAL 3 DAYS')).toBe("INTERVAL '3' DAY");
    expect(await text('INTERVAL 1 YEAR 2 MONTHS')).toBe("INTERVAL '1-2' YEAR TO MONTH");
    expect(await text("INTERVAL '-1 10' DAY TO HOUR")).toBe("INTERVAL '-1 10' DAY TO HOUR");
    expect(await text("INTERVAL '90' MINUTE")).toBe("INTERVAL '90' MINUTE");
    expect(await text("INTERVAL '7.000001' SECOND")).toBe("INTERVAL '07.000001' SECOND");
    expect((await one("INTERVAL '1' DAY")).type).toBe('interval day');
    expect((await one('INTERVAL 1 YEAR 2 MONTHS')).type).toBe('interval year to month');
    expect((await one("INTERVAL '1 2:3:4' DAY TO SECOND")).v).toBe(93_784_000_000);
  });

  it('negates them', async () => {
    expect(await text("-INTERVAL '1-2' YEAR TO MONTH")).toBe("INTERVAL '-1-2' YEAR TO MONTH");
    expect(await text("-INTERVAL '1 02:00' DAY TO MINUTE")).toBe("INTERVAL '-1 02:00' DAY TO MINUTE");
  });
});

describe('make_dt_interval and make_ym_interval', () => {
  it("build intervals as Spark's MakeDTInterval and MakeYMInterval", async () => {
    expect(await text('make_dt_interval(1, 12, 30, 01.001001)')).toBe("INTERVAL '1 12:30:01.001001' DAY TO SECOND");
    expect(await text('make_dt_interval(2)')).toBe("INTERVAL '2 00:00:00' DAY TO SECOND");
    expect(await text('make_dt_interval()')).toBe("INTERVAL '0 00:00:00' DAY TO SECOND");
    expect((await one('make_dt_interval(100, null, 3)')).v).toBe(null);
    expect((await one('make_dt_interval(1)')).type).toBe('interval day to second');
    expect(await text('make_ym_interval(1, 2)')).toBe("INTERVAL '1-2' YEAR TO MONTH");
    expect(await text('make_ym_interval(-1, 1)')).toBe("INTERVAL '-0-11' YEAR TO MONTH");
    expect((await one('make_ym_interval(2)')).type).toBe('interval year to month');
    expect((await one("DATE '2021-01-31' + make_ym_interval(0, 1)")).v).toBe('2021-02-28');
    // Past the type's range: Spark's class for these functions (interval.sql.out).
    expect((await failure('make_ym_interval(178956970, 8)')).errorClass).toBe('INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION');
    expect((await failure('make_dt_interval(2147483647)')).errorClass).toBe('INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION');
  });
});

describe('EXTRACT from an interval', () => {
  it("takes Spark's fields, signed as the interval", async () => {
    expect((await one("EXTRACT(DAY FROM INTERVAL '5 12:30:01.5' DAY TO SECOND)")).v).toBe(5);
    expect((await one("EXTRACT(HOUR FROM INTERVAL '5 12:30:01.5' DAY TO SECOND)")).v).toBe(12);
    expect((await one("date_part('MINUTE', INTERVAL '5 12:30:01.5' DAY TO SECOND)")).v).toBe(30);
    expect((await one("CAST(EXTRACT(SECOND FROM INTERVAL '5 12:30:01.5' DAY TO SECOND) AS STRING)")).v).toBe('1.500000');
    expect((await one("EXTRACT(HOUR FROM -INTERVAL '1 02' DAY TO HOUR)")).v).toBe(-2);
    expect((await one("EXTRACT(YEAR FROM INTERVAL '3-7' YEAR TO MONTH)")).v).toBe(3);
    expect((await one("EXTRACT(MONTH FROM INTERVAL '-3-7' YEAR TO MONTH)")).v).toBe(-7);
    expect((await failure("EXTRACT(MONTH FROM INTERVAL '1' DAY)")).message).toMatch(/takes DAY, HOUR, MINUTE, SECOND from a day-time interval/);
  });
});

describe('datetime ± interval', () => {
  it('adds a day-time interval to a timestamp (TimeAdd)', async () => {
    expect(await one("TIMESTAMP '2021-01-01 00:00:00' + INTERVAL 1 DAY")).toEqual({ v: '2021-01-02 00:00:00', type: 'timestamp' });
    expect((await one("ts - INTERVAL '1 00:30' DAY TO MINUTE")).v).toBe('2021-01-30 10:00:00');
    expect((await one("INTERVAL '2' HOUR + ts")).v).toBe('2021-01-31 12:30:00');
  });

  it('adds months as java.time does: the day clamped to the month', async () => {
    expect(await one("DATE '2021-01-31' + INTERVAL 1 MONTH")).toEqual({ v: '2021-02-28', type: 'date' });
    expect((await one("DATE '2020-01-31' + INTERVAL '1' MONTH")).v).toBe('2020-02-29');
    expect(await one('ts + INTERVAL 1 MONTH')).toEqual({ v: '2021-02-28 10:30:00', type: 'timestamp' });
    expect((await one("d - INTERVAL '1-1' YEAR TO MONTH")).v).toBe('2019-12-31');
  });

  it('keeps a date a date with a whole-day interval, and makes it a timestamp otherwise', async () => {
    expect(await one("DATE '2021-01-01' + INTERVAL 1 DAY")).toEqual({ v: '2021-01-02', type: 'date' });
    expect(await one("DATE '2021-01-01' - INTERVAL '3' DAY")).toEqual({ v: '2020-12-29', type: 'date' });
    expect(await one("DATE '2021-01-01' + INTERVAL '1 12' DAY TO HOUR")).toEqual({ v: '2021-01-02 12:00:00', type: 'timestamp' });
  });

  it('subtracts datetimes into intervals', async () => {
    expect(await text("DATE '2021-03-01' - DATE '2021-01-01'")).toBe("INTERVAL '59' DAY");
    expect((await one("DATE '2021-03-01' - DATE '2021-01-01'")).type).toBe('interval day');
    expect(await text("TIMESTAMP '2021-01-01 12:00:00' - TIMESTAMP '2021-01-01 00:00:00'")).toBe("INTERVAL '0 12:00:00' DAY TO SECOND");
    expect(await text("TIMESTAMP '2021-01-01 00:00:00.5' - DATE '2021-01-02'")).toBe("INTERVAL '-0 23:59:59.5' DAY TO SECOND");
    expect((await one("ts - TIMESTAMP '2021-01-31 10:00:00'")).type).toBe('interval day to second');
  });
});

describe('interval arithmetic', () => {
  it('adds intervals of one kind into the wider type', async () => {
    expect(await text("INTERVAL '1' DAY + INTERVAL '2' HOUR")).toBe("INTERVAL '1 02' DAY TO HOUR");
    expect(await text('INTERVAL 1 YEAR - INTERVAL 1 MONTH')).toBe("INTERVAL '0-11' YEAR TO MONTH");
  });

  it('passes intervals of one kind through coalesce, if, nvl, array and UNION as the wider type', async () => {
    // Spark's findWiderTypeForTwo: the fields that hold both.
    expect(await one("coalesce(INTERVAL '1' DAY, INTERVAL '2' HOUR)")).toEqual({ v: 86_400_000_000, type: 'interval day to hour' });
    expect((await one("if(id = 1, INTERVAL '1' MINUTE, INTERVAL '2' HOUR)")).type).toBe('interval hour to minute');
    expect((await one("nvl(NULL, INTERVAL '1' MONTH)")).type).toBe('interval month');
    expect((await one("coalesce(INTERVAL '1' MONTH, INTERVAL '2' YEAR)")).type).toBe('interval year to month');
    expect((await one("array(INTERVAL '1' DAY, INTERVAL '2' HOUR)")).type).toBe('array<interval day to hour>');
    expect((await one("CASE WHEN id = 1 THEN INTERVAL '1' SECOND ELSE INTERVAL '2' HOUR END")).type).toBe('interval hour to second');
    expect(await text("coalesce(INTERVAL '1' DAY, INTERVAL '2' HOUR)")).toBe("INTERVAL '1 00' DAY TO HOUR");
    const union = compileStreamingQuery("SELECT INTERVAL '1' DAY AS v FROM src UNION ALL SELECT INTERVAL '2' HOUR FROM src", rel);
    expect(union.outputSchema[0]).toMatchObject({ type: 'day_time_interval', interval: { start: 0, end: 1 } });
  });

  it('multiplies and divides, rounding half up', async () => {
    expect(await text("INTERVAL '1' DAY * 1.5")).toBe("INTERVAL '1 12:00:00' DAY TO SECOND");
    expect(await text("2 * INTERVAL '1-6' YEAR TO MONTH")).toBe("INTERVAL '3-0' YEAR TO MONTH");
    expect(await text("INTERVAL '10' MONTH / 3")).toBe("INTERVAL '0-3' YEAR TO MONTH");
    expect(await text("INTERVAL '11' MONTH / 2")).toBe("INTERVAL '0-6' YEAR TO MONTH");
    expect(await text("INTERVAL '-11' MONTH / 2")).toBe("INTERVAL '-0-6' YEAR TO MONTH");
    expect(await text("INTERVAL '1' SECOND / 3.0D")).toBe("INTERVAL '0 00:00:00.333333' DAY TO SECOND");
  });

  it("raises Spark's errors: a zero divisor, an overflow", async () => {
    expect((await failure("INTERVAL '1' DAY / 0")).errorClass).toBe('INTERVAL_DIVIDED_BY_ZERO');
    expect((await failure("INTERVAL '1' MONTH / 0.0")).errorClass).toBe('INTERVAL_DIVIDED_BY_ZERO');
    expect((await failure("INTERVAL '178956970-7' YEAR TO MONTH + INTERVAL '1' MONTH")).errorClass).toBe('ARITHMETIC_OVERFLOW');
    expect((await failure("INTERVAL '106751991' DAY * 2")).errorClass).toBe('ARITHMETIC_OVERFLOW');
  });

  it('compares intervals of one kind, and refuses mixing the kinds', async () => {
    expect((await one("INTERVAL '1' DAY > INTERVAL '23' HOUR")).v).toBe(true);
    expect((await one("INTERVAL '1' DAY = INTERVAL '24' HOUR")).v).toBe(true);
    expect((await one("ts - TIMESTAMP '2021-01-31 10:00:00' BETWEEN INTERVAL '10' MINUTE AND INTERVAL '1' HOUR")).v).toBe(true);
    expect((await failure("INTERVAL '1' DAY > INTERVAL '1' MONTH")).message).toMatch(/incompatible types/);
  });

  it("casts between the interval types of one family, cut toward zero to the target's last field (Spark's Cast)", async () => {
    expect(await text("CAST(INTERVAL '1-2' YEAR TO MONTH AS INTERVAL YEAR)")).toBe("INTERVAL '1' YEAR");
    expect(await text("CAST(INTERVAL '-1-2' YEAR TO MONTH AS INTERVAL YEAR)")).toBe("INTERVAL '-1' YEAR");
    expect(await text("CAST(INTERVAL '1-2' YEAR TO MONTH AS INTERVAL MONTH)")).toBe("INTERVAL '14' MONTH");
    expect(await text("CAST(INTERVAL '3' YEAR AS INTERVAL YEAR TO MONTH)")).toBe("INTERVAL '3-0' YEAR TO MONTH");
    expect(await text("CAST(INTERVAL '1 02:03:04.123' DAY TO SECOND AS INTERVAL DAY)")).toBe("INTERVAL '1' DAY");
    expect(await text("CAST(INTERVAL '1 02:03:04.123' DAY TO SECOND AS INTERVAL HOUR TO MINUTE)")).toBe("INTERVAL '26:03' HOUR TO MINUTE");
    expect(await text("CAST(INTERVAL '-1 02:03:04.123' DAY TO SECOND AS INTERVAL MINUTE)")).toBe("INTERVAL '-1563' MINUTE");
    expect(await text("CAST(INTERVAL '10' SECOND AS INTERVAL DAY)")).toBe("INTERVAL '0' DAY");
    expect(await text("CAST(INTERVAL '90' MINUTE AS INTERVAL DAY TO SECOND)")).toBe("INTERVAL '0 01:30:00' DAY TO SECOND");
    expect(await one("CAST(INTERVAL '1 02:03:04' DAY TO SECOND AS INTERVAL HOUR)")).toEqual({ v: 26 * 3_600_000_000, type: 'interval hour' });
    expect((await one("CAST(CAST(NULL AS INTERVAL DAY) AS INTERVAL HOUR)")).v).toBeNull();
  });

  it('refuses a cast between the two interval families with Spark\'s DATATYPE_MISMATCH', async () => {
    const ym = await failure("CAST(INTERVAL '1' YEAR AS INTERVAL DAY)");
    expect(ym.errorClass).toBe('DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION');
    expect(ym.message).toContain('Cannot resolve "CAST(INTERVAL \'1\' YEAR AS INTERVAL DAY)" due to data type mismatch: cannot cast "INTERVAL YEAR" to "INTERVAL DAY".');
    const dt = await failure("CAST(INTERVAL '1' HOUR AS INTERVAL MONTH)");
    expect(dt.message).toContain('cannot cast "INTERVAL HOUR" to "INTERVAL MONTH".');
  });

  it('casts between an interval and a number in the interval\'s end unit (Spark 3.3+)', async () => {
    expect(await one("CAST(INTERVAL '1-6' YEAR TO MONTH AS INT)")).toEqual({ v: 18, type: 'int' });
    expect(await one("CAST(INTERVAL '1-6' YEAR TO MONTH AS INTERVAL YEAR) :: SMALLINT")).toEqual({ v: 1, type: 'smallint' });
    expect(await one("CAST(INTERVAL '-1 12:00:00.5' DAY TO SECOND AS DECIMAL(12, 3))")).toEqual({ v: -129600500n, type: 'decimal(12,3)' });
    expect(await text('CAST(id * 90 AS INTERVAL MINUTE)')).toBe("INTERVAL '90' MINUTE");
    // 2.5 years are 30 months (a decimal rounds half up to a month), printed in whole years.
    expect(await text('CAST(2.5BD AS INTERVAL YEAR)')).toBe("INTERVAL '2' YEAR");
    expect(await text('CAST(CAST(2.5BD AS INTERVAL YEAR) AS INTERVAL YEAR TO MONTH)')).toBe("INTERVAL '2-6' YEAR TO MONTH");
    // Past the target's range: Spark's CAST_OVERFLOW whatever the ANSI mode; TRY_CAST is NULL.
    const e = await failure('CAST(id * 1000000000 AS INTERVAL YEAR)');
    expect(e.errorClass).toBe('CAST_OVERFLOW');
    expect(e.message).toContain('[CAST_OVERFLOW] The value 1000000000L of the type "BIGINT" cannot be cast to "INTERVAL YEAR" due to an overflow.');
    expect((await failure("CAST(INTERVAL '200' DAY AS TINYINT)")).message).toContain(`The value INTERVAL '200' DAY of the type "INTERVAL DAY" cannot be cast to "TINYINT"`);
    expect((await one("TRY_CAST(INTERVAL '200' DAY AS TINYINT)")).v).toBeNull();
    expect((await failure("CAST(INTERVAL '10.5' SECOND AS DECIMAL(2, 1))")).errorClass).toBe('NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION');
  });

  it('scales an interval by a string or a NULL read as a DOUBLE; divides nothing by one', async () => {
    expect(await text("INTERVAL '2' SECOND * '2'")).toBe("INTERVAL '0 00:00:04' DAY TO SECOND");
    expect(await text("'2' * INTERVAL '2' YEAR")).toBe("INTERVAL '4-0' YEAR TO MONTH");
    expect(await one("INTERVAL '2' YEAR / 'a'")).toEqual({ v: null, type: 'interval year to month' });
    expect(await one("INTERVAL '2' SECOND * NULL")).toEqual({ v: null, type: 'interval day to second' });
    expect((await failure("2 / INTERVAL '2' HOUR")).errorClass).toBe('DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES');
    expect((await failure("NULL / INTERVAL '2' YEAR")).errorClass).toBe('DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES');
    // A day-time interval past a BIGINT of microseconds.
    expect((await failure('INTERVAL 2147483647 DAY * 2')).errorClass).toBe('INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION');
  });

  it('keeps the fields of intervals gathered into an array or a map: the fields holding them all', async () => {
    expect((await one("map(1, INTERVAL '1' DAY, 2, INTERVAL '3' DAY)")).type).toBe('map<int,interval day>');
    expect((await one("array(INTERVAL '1' MONTH)")).type).toBe('array<interval month>');
  });

  it('keeps a decimal cast to an interval ending before SECOND whole: its print shows the fields, arithmetic reads it all', async () => {
    // Spark's decimalToDayTimeInterval: the decimal times the end field's microseconds, rounded
    // half up; only a cast to another interval type or a print cuts it to that type's fields.
    expect(await text('CAST(80.654321BD AS INTERVAL HOUR TO MINUTE)')).toBe("INTERVAL '01:20' HOUR TO MINUTE");
    expect(await text('CAST(CAST(80.654321BD AS INTERVAL HOUR TO MINUTE) AS INTERVAL MINUTE TO SECOND)')).toBe("INTERVAL '80:39.25926' MINUTE TO SECOND");
    expect((await one("TIMESTAMP '2021-01-01 00:00:00' + CAST(1.5BD AS INTERVAL HOUR)")).v).toBe('2021-01-01 01:30:00');
    expect(await text('CAST(1.5BD AS INTERVAL HOUR) * 2')).toBe("INTERVAL '0 03:00:00' DAY TO SECOND");
  });

  it('refuses an interval where a number is needed', async () => {
    expect((await failure("INTERVAL '1' DAY + 1")).errorClass).toMatch(/^DATATYPE_MISMATCH/);
  });
});

describe('intervals in a streaming query', () => {
  it('filters on a timestamp window given by intervals, and to_json writes their text', async () => {
    const q = compileStreamingQuery(
      "SELECT id, to_json(named_struct('age', ts - TIMESTAMP '2021-01-31 00:00:00')) AS j FROM src WHERE ts > TIMESTAMP '2021-01-31 12:00:00' - INTERVAL 2 HOURS",
      rel,
    );
    let out: Row[] = [ROW, { ...ROW, id: 2, ts: Date.UTC(2021, 0, 31, 9, 59) }];
    for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
    expect(out).toEqual([{ id: 1, j: `{"age":"INTERVAL '0 10:30:00' DAY TO SECOND"}` }]);
  });

  it('takes a day-time interval literal as a window duration; a span survives a restart and renders as Spark writes it', async () => {
    const SQL = 'SELECT window.start AS s, count(*) AS n, max(ts) - min(ts) AS span FROM src GROUP BY window(ts, INTERVAL 10 MINUTES)';
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), SQL, rel, 'complete');
    const t0 = Date.UTC(2021, 0, 31, 10, 30);
    await q.runBatch([{ id: 1, ts: t0, d: 0 }, { id: 2, ts: t0 + 10 * 60_000, d: 0 }]);
    q.restart();
    const { output } = await q.runBatch([{ id: 3, ts: t0 + 9 * 60_000 + 500, d: 0 }]);
    const out = q.outputSchema();
    expect(out.map((f) => f.type)).toEqual(['timestamp', 'long', 'day_time_interval']);
    const sorted = [...output].sort((a, b) => (a.s as number) - (b.s as number));
    expect(encodeRows(sorted, out, 'json', false)).toBe(
      `{"s":"2021-01-31T10:30:00.000Z","n":2,"span":"INTERVAL '0 00:09:00.5' DAY TO SECOND"}\n` +
      `{"s":"2021-01-31T10:40:00.000Z","n":1,"span":"INTERVAL '0 00:00:00' DAY TO SECOND"}\n`,
    );
    expect(encodeRows(sorted.slice(0, 1), out, 'csv', true)).toBe(`s,n,span\n2021-01-31T10:30:00.000Z,2,INTERVAL '0 00:09:00.5' DAY TO SECOND\n`);
  });
});

describe('the ANSI text of a day-time interval', () => {
  it('prints every unit range as Spark does for any value (against a hand-written split)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), (micros, a, b) => {
        const f = { start: Math.min(a, b), end: Math.max(a, b) };
        const abs = micros < 0n ? -micros : micros;
        const parts = [abs / 86_400_000_000n, (abs / 3_600_000_000n) % 24n, (abs / 60_000_000n) % 60n, abs % 60_000_000n];
        // The first unit takes everything above it; the rest are within their unit.
        const firstUnit = [86_400_000_000n, 3_600_000_000n, 60_000_000n, 1n][f.start];
        parts[f.start] = f.start === 3 ? abs : abs / firstUnit;
        const sec = (v: bigint) => { const w = (v / 1_000_000n).toString().padStart(2, '0'); const fr = (v % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, ''); return fr ? `${w}.${fr}` : w; };
        let s = '';
        for (let i = f.start; i <= f.end; i++) {
          const t = i === 3 ? sec(parts[i]) : i === 0 ? parts[i].toString() : parts[i].toString().padStart(2, '0');
          s += i === f.start ? t : `${i === 1 ? ' ' : ':'}${t}`;
        }
        const names = ['DAY', 'HOUR', 'MINUTE', 'SECOND'];
        const unit = f.start === f.end ? names[f.start] : `${names[f.start]} TO ${names[f.end]}`;
        expect(formatDayTimeInterval(micros, f)).toBe(`INTERVAL '${micros < 0n ? '-' : ''}${s}' ${unit}`);
      }),
      { numRuns: 300 },
    );
  });
});
