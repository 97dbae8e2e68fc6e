/**
 * Spark's CalendarIntervalType as a SQL value: CAST to and from it, typeof, its arithmetic with
 * timestamps, dates, numbers and itself, EXTRACT of its fields, to_json, and what Spark refuses
 * (ordering and comparing it, grouping by it, writing it to Parquet or Avro). Expected values are
 * Spark 3.5's (ANSI off): its sql-tests golden files and function docs.
 */
import { describe, expect, it } from 'vitest';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { formatTimestamp } from './timestamp-micros';
import { avroSchemaOf } from '../avro/avro-codec';
import { showString } from '../sinks/show-string';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { toMultiUnitsString, type CalendarInterval } from './calendar-interval';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const SCHEMA: Schema = [{ name: 'ts', type: 'timestamp' }, { name: 's', type: 'string' }, { name: 'k', type: 'long' }];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: SCHEMA };
const ROW: Row = { ts: Date.UTC(2021, 0, 31, 10, 30), s: '1 day 2 hours', k: 1 };

async function run(sql: string, rows: Row[] = [ROW]): Promise<Row[]> {
  const q = compileStreamingQuery(sql, rel);
  let out: Row[] = rows;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out;
}

/** The value of `expr` as text (CAST … AS STRING), and its typeof. */
async function text(expr: string): Promise<[unknown, unknown]> {
  const [r] = await run(`SELECT CAST(${expr} AS STRING) AS v, typeof(${expr}) AS t FROM src`);
  return [r.v, r.t];
}
const value = async (expr: string) => (await run(`SELECT ${expr} AS v FROM src`))[0].v;
const timestamp = async (expr: string) => formatTimestamp((await value(expr)) as number);

const refusal = (sql: string) => {
  try {
    compileStreamingQuery(sql, rel);
  } catch (e) {
    return `${(e as { errorClass?: string }).errorClass ?? ''}: ${(e as Error).message}`;
  }
  throw new Error(`expected ${sql} to be refused`);
};

describe('CAST to and from INTERVAL', () => {
  it("reads Spark's unit text, NULL where it cannot (cast.sql, interval.sql, try_cast.sql)", async () => {
    expect(await text("CAST('interval 3 month 1 hour' AS interval)")).toEqual(['3 months 1 hours', 'interval']);
    expect(await text("'interval 3 month 1 hour' :: interval")).toEqual(['3 months 1 hours', 'interval']);
    expect(await text("CAST('+     1 second' AS interval)")).toEqual(['1 seconds', 'interval']);
    expect(await text("CAST('-1 second' AS interval)")).toEqual(['-1 seconds', 'interval']);
    expect(await text("CAST('- -1 second' AS interval)")).toEqual([null, 'interval']);
    expect(await text("TRY_CAST('abc' AS interval)")).toEqual([null, 'interval']);
    expect(await text('CAST(s AS interval)')).toEqual(['1 days 2 hours', 'interval']);
    expect(await text("CAST('1 year 1.5 seconds' AS interval)")).toEqual(['1 years 1.5 seconds', 'interval']);
  });

  it('casts from nothing but a string, and to nothing but a string', () => {
    expect(refusal('SELECT CAST(k AS interval) FROM src')).toMatch(/cannot cast "BIGINT" to "INTERVAL"/i);
    expect(refusal("SELECT CAST(CAST('1 day' AS interval) AS BIGINT) FROM src")).toMatch(/cannot cast "INTERVAL" to "BIGINT"/i);
  });
});

describe('interval arithmetic (ANSI off)', () => {
  it('adds to and subtracts from a timestamp as TimeAdd: months, then days, then microseconds', async () => {
    expect(await timestamp("ts + CAST('1 month 1 day 1 hour' AS interval)")).toBe('2021-03-01 11:30:00');
    expect(await timestamp("CAST('1 month' AS interval) + ts")).toBe('2021-02-28 10:30:00');
    expect(await timestamp("ts - CAST('1 year 2.5 seconds' AS interval)")).toBe('2020-01-31 10:29:57.5');
    expect(await value("typeof(ts + CAST('1 month' AS interval))")).toBe('timestamp');
  });

  it('adds to a date as DateAddInterval: a DATE', async () => {
    expect(await value("DATE '2021-01-31' + CAST('1 month 1 day' AS interval)")).toBe(18687); // 2021-03-01
    expect(await value("DATE '2021-01-31' - CAST('1 hour' AS interval)")).toBe(18657); // 2021-01-30
    expect(await value("typeof(DATE '2021-01-31' + CAST('1 day' AS interval))")).toBe('date');
  });

  it('reads a string beside it as a timestamp, and answers a string (TimeAdd cast back)', async () => {
    expect(await text("'2021-01-31 10:30:00' + CAST('1 month' AS interval)")).toEqual(['2021-02-28 10:30:00', 'string']);
  });

  it('adds, subtracts and negates field by field', async () => {
    expect(await text("CAST('1 month 2 days' AS interval) + CAST('3 hours' AS interval)")).toEqual(['1 months 2 days 3 hours', 'interval']);
    expect(await text("CAST('1 month' AS interval) - CAST('1 day' AS interval)")).toEqual(['1 months -1 days', 'interval']);
    expect(await text("-CAST('1 month -2 days' AS interval)")).toEqual(['-1 months 2 days', 'interval']);
    expect(await text("-make_interval(1, 2, 3)")).toEqual(['-1 years -2 months -21 days', 'interval']);
  });

  it('multiplies and divides by a number read as a DOUBLE (MultiplyInterval, DivideInterval)', async () => {
    expect(await text("CAST('1 month 1 day' AS interval) * 1.5")).toEqual(['1 months 1 days 12 hours', 'interval']);
    expect(await text("2 * CAST('1 month 1 second' AS interval)")).toEqual(['2 months 2 seconds', 'interval']);
    expect(await text("CAST('3 days' AS interval) / 2")).toEqual(['1 days 12 hours', 'interval']);
    expect(await text("CAST('3 days' AS interval) * '2'")).toEqual(['6 days', 'interval']);
    // DivideInterval with ANSI off: NULL by zero.
    expect(await text("CAST('3 days' AS interval) / 0")).toEqual([null, 'interval']);
    expect(refusal("SELECT 2 / CAST('3 days' AS interval) FROM src")).toMatch(/BINARY_OP_DIFF_TYPES/);
  });

  it('is NULL beside a NULL', async () => {
    expect(await text("CAST(NULL AS interval) + ts")).toEqual([null, 'timestamp']);
    expect(await text("NULL + CAST('1 day' AS interval)")).toEqual([null, 'interval']);
  });
});

describe('EXTRACT and date_part of an interval (ExtractIntervalPart)', () => {
  it('takes its years, months, days, hours, minutes and seconds', async () => {
    const i = "CAST('1 year 14 months 3 days 50 hours 7 minutes 8.5 seconds' AS interval)";
    const [r] = await run(`SELECT EXTRACT(YEAR FROM ${i}) AS y, EXTRACT(MONTH FROM ${i}) AS m, EXTRACT(DAY FROM ${i}) AS d, date_part('hour', ${i}) AS h,
      date_part('minute', ${i}) AS mi, date_part('SECONDS', ${i}) AS s, typeof(EXTRACT(MONTH FROM ${i})) AS mt, typeof(EXTRACT(SECOND FROM ${i})) AS st FROM src`);
    // 26 months; 3 days and the 2 whole days of 50 hours; 2 hours left.
    expect(r).toEqual({ y: 2, m: 2, d: 5, h: 2, mi: 7, s: 8_500_000n, mt: 'tinyint', st: 'decimal(8,6)' });
  });

  it('refuses a field an interval has not', () => {
    expect(refusal("SELECT EXTRACT(DOW FROM CAST('1 day' AS interval)) FROM src")).toMatch(/YEAR, MONTH, DAY, HOUR, MINUTE, SECOND from an interval/);
  });
});

describe('what Spark refuses of an interval, which has no order', () => {
  it('comparisons and IN (DATATYPE_MISMATCH.INVALID_ORDERING_TYPE)', () => {
    expect(refusal("SELECT CAST('1 day' AS interval) = CAST('1 day' AS interval) FROM src")).toMatch(/INVALID_ORDERING_TYPE.*The `=` does not support ordering on type "INTERVAL"/);
    expect(refusal("SELECT CAST('1 day' AS interval) < CAST('2 days' AS interval) FROM src")).toMatch(/INVALID_ORDERING_TYPE/);
    expect(refusal("SELECT CAST(s AS interval) IN (CAST('1 day' AS interval)) FROM src")).toMatch(/INVALID_ORDERING_TYPE.*`in`/);
  });

  it('greatest and least (INVALID_ORDERING_TYPE); concat, which casts only atomic types to a STRING', () => {
    expect(refusal("SELECT greatest(CAST(s AS interval), make_interval(1)) FROM src")).toMatch(/INVALID_ORDERING_TYPE.*The `greatest` does not support ordering on type "INTERVAL"/);
    expect(refusal("SELECT least(CAST(s AS interval), make_interval(1)) FROM src")).toMatch(/INVALID_ORDERING_TYPE/);
    expect(refusal("SELECT concat('a', CAST(s AS interval)) FROM src")).toMatch(/UNEXPECTED_INPUT_TYPE.*not an INTERVAL: CAST it AS STRING first/);
  });

  it('GROUP BY and DISTINCT (GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE, Spark 3.5) and ORDER BY', () => {
    expect(refusal('SELECT CAST(s AS interval) AS i, count(*) FROM src GROUP BY CAST(s AS interval)')).toMatch(/GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE.*INTERVAL is not an orderable data type. Group by CAST\(… AS STRING\)/);
    expect(refusal('SELECT DISTINCT CAST(s AS interval) FROM src')).toMatch(/GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE/);
    expect(refusal('SELECT max(CAST(s AS interval)) FROM src')).toMatch(/order/);
  });

  it('the Avro and Parquet writers (UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE)', () => {
    expect(() => avroSchemaOf({ name: 'i', type: 'calendar_interval' })).toThrow(/The Avro datasource doesn't support the column `i` of the type "INTERVAL"/);
  });
});

describe('in streaming state', () => {
  it('is kept in an aggregate\'s state across batches and a restart (first, collect_list)', async () => {
    const runner = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), 'SELECT k, first(CAST(s AS interval)) AS f, collect_list(CAST(s AS interval)) AS l FROM src GROUP BY k', rel, 'complete');
    const print = (rows: Row[]) => rows.map((r) => [r.k, toMultiUnitsString(r.f as CalendarInterval), (r.l as CalendarInterval[]).map(toMultiUnitsString)]);
    await runner.runBatch([{ ...ROW, s: '1 month 2.5 seconds' }]);
    runner.restart();
    expect(print((await runner.runBatch([{ ...ROW, s: '-3 days' }])).output)).toEqual([[1, '1 months 2.5 seconds', ['1 months 2.5 seconds', '-3 days']]]);
  });
});

describe('output', () => {
  it('to_json writes its text (Spark: {"a":"1 days 2 hours"})', async () => {
    expect(await value('to_json(named_struct(\'a\', CAST(s AS interval)))')).toBe('{"a":"1 days 2 hours"}');
  });

  it('is a column of type calendar_interval, shown as Spark shows it', async () => {
    const q = compileStreamingQuery("SELECT CAST('1 day' AS interval) AS i, make_interval(1) AS m FROM src", rel);
    expect(q.outputSchema.map((f) => [f.name, f.type])).toEqual([['i', 'calendar_interval'], ['m', 'calendar_interval']]);
    expect(showString(await run("SELECT CAST('1 day 2.5 seconds' AS interval) AS i FROM src"), q.outputSchema.slice(0, 1), 20, 20)).toBe(
      '+------------------+\n|                 i|\n+------------------+\n|1 days 2.5 seconds|\n+------------------+\n',
    );
  });
});
