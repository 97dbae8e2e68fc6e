/**
 * Spark's ANSI intervals as column types (DayTimeIntervalType, YearMonthIntervalType): declared in
 * a source schema, read from JSON and CSV text as Spark's readers cast it
 * (IntervalUtils.castStringToDTInterval / castStringToYMInterval), aggregated as Spark's Sum and
 * Average type them (sum keeps the argument's type, avg is the kind's whole type, rounded half up
 * as DivideDTInterval and DivideYMInterval; Math.addExact's ARITHMETIC_OVERFLOW), kept in state,
 * and written by the sinks as Spark's ANSI text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../testing/property-runs';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { IncompatibleQueryChangeError } from '../errors';
import { CsvLineParser, JsonLineParser } from '../operators/record-parser';
import { renderRow, renderText } from '../sinks/row-rendering';
import { convertValue } from '../sources/value-conversion';
import { columnField, SchemaSpec } from '../spec/source-schema';
import { StateSchemaCompatibilityChecker } from '../state/state-schema-compatibility-checker';
import type { Field, Row, Schema } from '../types';
import { parseInterval } from './interval-utils';
import { LONG_MAX, LONG_MIN, toLong } from './long';
import { compileStreamingQuery } from './streaming-query';
import { eventsQuery } from './testing/events-query';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

const DT: Field = { name: 'd', type: 'day_time_interval', interval: { start: 0, end: 3 } };
const HOUR: Field = { name: 'h', type: 'day_time_interval', interval: { start: 1, end: 1 } };
const YM: Field = { name: 'm', type: 'year_month_interval', interval: { start: 0, end: 1 } };
const SCHEMA: Schema = [{ name: 'k', type: 'string' }, DT, HOUR, YM];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'events', schema: SCHEMA, watermarkDelayMs: 0 };
const runner = (sql: string) => new StatefulQueryRunner(new InMemoryCheckpointFileManager(), sql, rel, 'complete');

describe('interval columns in a source schema', () => {
  it('are declared in DDL and in the JSON list, and parse back to themselves', () => {
    const fields = SchemaSpec.parse('k STRING, d INTERVAL DAY TO SECOND, h interval hour, m INTERVAL YEAR TO MONTH');
    expect(fields).toEqual(SCHEMA);
    expect(SchemaSpec.parse(fields)).toEqual(SCHEMA);
    expect(columnField('x', 'interval minute to second')).toEqual({ name: 'x', type: 'day_time_interval', interval: { start: 2, end: 3 } });
    expect(columnField('x', 'ARRAY<INTERVAL MONTH>')).toMatchObject({ type: 'array', elementType: { type: 'year_month_interval', interval: { start: 1, end: 1 } } });
    // The legacy CalendarIntervalType is not a column type (Spark 3.2+ reads no such column either).
    expect(columnField('x', 'interval')).toMatch(/cannot keep in a column/);
  });

  it('reads text as Spark casts it: the type\'s own form or its ANSI string', () => {
    const dt = (s: string) => parseInterval(s, 'day_time_interval', DT.interval!);
    expect(dt('1 02:03:04.5')).toBe(93_784_500_000);
    expect(dt("INTERVAL '1 02:03:04' DAY TO SECOND")).toBe(93_784_000_000);
    expect(dt("interval -'1 02:03:04.000001' day to second")).toBe(-93_784_000_001);
    expect(dt("INTERVAL -'-1 00:00:00' DAY TO SECOND")).toBe(86_400_000_000);
    expect(dt('-0 00:00:01.123456789')).toBe(-1_123_456);
    // Another form, another type's units, a field past its unit: not this type.
    for (const bad of ['1 24:00:00', '1 02:60:00', '1 02:03', "INTERVAL '1' DAY", '1 day', '', '1 02:03:04.1234567890', '1 02:03:04.', '1 2:3:100']) expect(dt(bad)).toBeNull();
    // Spark's toDTInterval checks HOUR and MINUTE but takes any two-digit SECOND.
    expect(dt('0 00:00:75')).toBe(75_000_000);
    expect(parseInterval('26', 'day_time_interval', HOUR.interval!)).toBe(26 * 3_600_000_000);
    expect(parseInterval("INTERVAL '26' HOUR", 'day_time_interval', HOUR.interval!)).toBe(26 * 3_600_000_000);
    expect(parseInterval('2562047788', 'day_time_interval', HOUR.interval!)).toBe(2_562_047_788n * 3_600_000_000n);
    // Past a BIGINT of microseconds.
    expect(parseInterval('2562047789', 'day_time_interval', HOUR.interval!)).toBeNull();
    const ym = (s: string) => parseInterval(s, 'year_month_interval', YM.interval!);
    expect(ym('1-2')).toBe(14);
    expect(ym("INTERVAL '-1-2' YEAR TO MONTH")).toBe(-14);
    expect(ym('178956970-7')).toBe(2 ** 31 - 1);
    expect(ym('178956970-8')).toBeNull();
    expect(ym('1-12')).toBeNull();
    expect(parseInterval('3', 'year_month_interval', { start: 0, end: 0 })).toBe(36);
  });

  it('makes text that is no interval of the type a bad record, never a NULL', () => {
    expect(convertValue('1 02:03:04', DT)).toEqual({ ok: true, value: 93_784_000_000 });
    expect(convertValue(5, DT)).toEqual({ ok: false, reason: "5 is not an INTERVAL DAY TO SECOND (write it as '1 02:03:04' or INTERVAL '1 02:03:04' DAY TO SECOND)" });
    const json = new JsonLineParser(SCHEMA);
    expect(json.parse('{"k":"a","d":"INTERVAL \'1 02:03:04\' DAY TO SECOND","h":"3","m":"1-2"}')).toEqual({ ok: true, row: { k: 'a', d: 93_784_000_000, h: 10_800_000_000, m: 14 } });
    const csv = new CsvLineParser(SCHEMA);
    expect(csv.parse(`a,"INTERVAL '-1 02:03:04' DAY TO SECOND",26,-0-11`)).toEqual({ ok: true, row: { k: 'a', d: -93_784_000_000, h: 93_600_000_000, m: -11 } });
    expect(csv.parse('a,,,')).toEqual({ ok: true, row: { k: 'a', d: null, h: null, m: null } });
    expect(json.parse('{"k":"a","m":"1 year"}')).toMatchObject({ ok: false, reason: expect.stringMatching(/field "m".*not an INTERVAL YEAR TO MONTH/) });
  });

  it('CAST reads text as the readers do, and fails the batch on other text, as Spark\'s Cast', async () => {
    const { run } = eventsQuery(SCHEMA);
    const [r] = await run(`SELECT CAST('1 02:03:04' AS INTERVAL DAY TO SECOND) AS a, CAST(k AS INTERVAL YEAR TO MONTH) AS b, typeof(CAST(k AS INTERVAL HOUR)) AS c,
      CAST(NULL AS INTERVAL MONTH) AS e, typeof(CAST(NULL AS INTERVAL MONTH)) AS f, CAST(CAST('-1-2' AS INTERVAL YEAR TO MONTH) AS STRING) AS g FROM events`, [{ k: '1-2' }]);
    expect(r).toEqual({ a: 93_784_000_000, b: 14, c: 'interval hour', e: null, f: 'interval month', g: "INTERVAL '-1-2' YEAR TO MONTH" });
    await expect(run('SELECT CAST(k AS INTERVAL DAY TO SECOND) AS a FROM events', [{ k: '1 day' }]))
      .rejects.toThrow("Interval string does not match the form of INTERVAL DAY TO SECOND ('1 02:03:04' or INTERVAL '1 02:03:04' DAY TO SECOND) when cast: '1 day'");
  });

  it('from_json reads an interval field as the readers do, NULL where they make a bad record', async () => {
    const { run } = eventsQuery(SCHEMA);
    const [r] = await run(`SELECT from_json('{"d":"1 02:03:04","m":"INTERVAL \\'-1-2\\' YEAR TO MONTH","h":"x"}', 'd INTERVAL DAY TO SECOND, m INTERVAL YEAR TO MONTH, h INTERVAL HOUR') AS j,
      typeof(from_json('{}', 'd INTERVAL DAY TO SECOND').d) AS t FROM events`, [{}]);
    expect(r).toEqual({ j: { d: 93_784_000_000, m: -14, h: null }, t: 'interval day to second' });
  });

  it('sums, averages and orders as Spark, through state across batches', async () => {
    const q = runner('SELECT k, sum(d) AS sd, avg(d) AS ad, min(d) AS mind, max(m) AS maxm, sum(m) AS sm, avg(m) AS am, count(m) AS cm, sum(h) AS sh, avg(h) AS ah FROM events GROUP BY k');
    expect(q.outputSchema().slice(1).map((f) => [f.name, f.type, f.interval])).toEqual([
      ['sd', 'day_time_interval', { start: 0, end: 3 }], ['ad', 'day_time_interval', { start: 0, end: 3 }], ['mind', 'day_time_interval', { start: 0, end: 3 }],
      ['maxm', 'year_month_interval', { start: 0, end: 1 }], ['sm', 'year_month_interval', { start: 0, end: 1 }], ['am', 'year_month_interval', { start: 0, end: 1 }],
      ['cm', 'long', undefined],
      // sum keeps INTERVAL HOUR; avg is INTERVAL DAY TO SECOND (Spark's Average.resultType).
      ['sh', 'day_time_interval', { start: 1, end: 1 }], ['ah', 'day_time_interval', { start: 0, end: 3 }],
    ]);
    await q.runBatch([
      { k: 'a', d: 86_400_000_000, h: 3_600_000_000, m: 1 },
      { k: 'a', d: 43_200_000_000, h: 7_200_000_000, m: 2 },
    ]);
    q.restart();
    const { output } = await q.runBatch([{ k: 'a', d: 1, h: null, m: null }]);
    expect(output.map((r) => renderRow(r, q.outputSchema()))).toEqual([{
      k: 'a',
      sd: "INTERVAL '1 12:00:00.000001' DAY TO SECOND",
      // 129600000001 µs / 3, rounded half up.
      ad: "INTERVAL '0 12:00:00' DAY TO SECOND",
      mind: "INTERVAL '0 00:00:00.000001' DAY TO SECOND",
      maxm: "INTERVAL '0-2' YEAR TO MONTH",
      sm: "INTERVAL '0-3' YEAR TO MONTH",
      // 3 months / 2 = 1.5, rounded half up.
      am: "INTERVAL '0-2' YEAR TO MONTH",
      cm: 2,
      sh: "INTERVAL '03' HOUR",
      ah: "INTERVAL '0 01:30:00' DAY TO SECOND",
    }]);
  });

  it('groups by an interval, kept in state, and writes it as CSV text', async () => {
    const q = runner('SELECT m, count(*) AS n FROM events GROUP BY m');
    await q.runBatch([{ k: 'a', d: null, h: null, m: -14 }, { k: 'b', d: null, h: null, m: -14 }]);
    q.restart();
    const { output } = await q.runBatch([{ k: 'c', d: null, h: null, m: -14 }, { k: 'c', d: null, h: null, m: 0 }]);
    const rendered = output.map((r) => [renderText(r.m, q.outputSchema()[0]), r.n]).sort();
    expect(rendered).toEqual([["INTERVAL '-1-2' YEAR TO MONTH", 3], ["INTERVAL '0-0' YEAR TO MONTH", 1]]);
  });

  it('overflows as Spark\'s Math.addExact: ARITHMETIC_OVERFLOW, or NULL for try_sum and try_avg', async () => {
    const q = runner('SELECT k, sum(m) AS s FROM events GROUP BY k');
    await expect(q.runBatch([{ k: 'a', m: 2 ** 31 - 1 }, { k: 'a', m: 1 }])).rejects.toThrow(/ARITHMETIC_OVERFLOW.*integer overflow/);
    const a = runner('SELECT k, avg(d) AS s FROM events GROUP BY k');
    await expect(a.runBatch([{ k: 'a', d: LONG_MAX }, { k: 'a', d: 1 }])).rejects.toThrow(/ARITHMETIC_OVERFLOW.*long overflow/);
    // try_sum and try_avg are NULL instead, and stay NULL (Spark's TrySum, TryAverage).
    const t = runner('SELECT k, try_sum(m) AS s, try_avg(m) AS a, typeof(try_sum(m)) AS ts FROM events GROUP BY k');
    await t.runBatch([{ k: 'a', m: 2 ** 31 - 1 }, { k: 'a', m: 1 }]);
    t.restart();
    expect((await t.runBatch([{ k: 'a', m: -5 }])).output).toEqual([{ k: 'a', s: null, a: null, ts: 'interval year to month' }]);
  });

  it('refuses a restart that changes a grouped interval\'s kind', async () => {
    const ops = (sql: string, schema: Schema) => compileStreamingQuery(sql, { ...rel, schema }, { outputMode: 'complete' }).statefulOperators;
    const fm = new InMemoryCheckpointFileManager();
    const checker = new StateSchemaCompatibilityChecker(fm);
    await checker.check(ops('SELECT m, count(*) AS n FROM events GROUP BY m', SCHEMA), 'cp', false);
    const changed: Schema = [{ name: 'k', type: 'string' }, DT, HOUR, { name: 'm', type: 'day_time_interval', interval: { start: 0, end: 0 } }];
    const err = await checker.check(ops('SELECT m, count(*) AS n FROM events GROUP BY m', changed), 'cp', true, true, true).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(IncompatibleQueryChangeError);
    expect((err as Error).message).toContain('Existing key_schema=[m: INTERVAL YEAR TO MONTH] and new key_schema=[m: INTERVAL DAY]');
  });

  it('refuses a restart that changes a grouped interval\'s unit range, as Spark (DayTimeIntervalType(1, 1) is not (0, 0))', async () => {
    const ops = (schema: Schema) => compileStreamingQuery('SELECT h, count(*) AS n FROM events GROUP BY h', { ...rel, schema }, { outputMode: 'complete' }).statefulOperators;
    const fm = new InMemoryCheckpointFileManager();
    const checker = new StateSchemaCompatibilityChecker(fm);
    await checker.check(ops(SCHEMA), 'cp', false);
    const days: Schema = SCHEMA.map((f) => (f === HOUR ? { ...HOUR, interval: { start: 0, end: 0 } } : f));
    const err = await checker.check(ops(days), 'cp', true, true, true).then(() => null, (e: unknown) => e);
    expect((err as IncompatibleQueryChangeError).errorClass).toBe('STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE');
    expect((err as Error).message).toContain('Existing key_schema=[h: INTERVAL HOUR] and new key_schema=[h: INTERVAL DAY]');
  });
});

/** The oracle: Spark's Sum and Average of day-time intervals in exact BigInt arithmetic. */
function oracle(values: bigint[]): { sum: bigint | null; avg: bigint | null } | 'overflow' {
  let s: bigint | null = null;
  for (const v of values) {
    s = s === null ? v : s + v;
    if (s > LONG_MAX || s < LONG_MIN) return 'overflow';
  }
  if (s === null) return { sum: null, avg: null };
  const n = BigInt(values.length);
  // Half up (away from zero) on the magnitude: floor((2|s| + n) / 2n).
  const mag = ((s < 0n ? -s : s) * 2n + n) / (2n * n);
  return { sum: s, avg: s < 0n ? -mag : mag };
}

describe('interval sum, avg, try_sum and try_avg against a BigInt oracle', () => {
  it('agree value for value, overflow included', async () => {
    const micros = fc.oneof(
      fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
      fc.bigInt({ min: LONG_MIN, max: LONG_MAX }),
      fc.constantFrom(LONG_MIN, LONG_MAX, 0n, 1n, -1n),
    );
    await fc.assert(fc.asyncProperty(fc.array(micros, { minLength: 1, maxLength: 12 }), async (values) => {
      const rows = values.map((v) => ({ k: 'a', d: toLong(v), h: null, m: null }));
      const q = runner('SELECT k, sum(d) AS s, avg(d) AS a FROM events GROUP BY k');
      const t = runner('SELECT k, try_sum(d) AS s, try_avg(d) AS a FROM events GROUP BY k');
      const expected = oracle(values);
      const run = q.runBatch(rows);
      const [tried] = (await t.runBatch(rows)).output;
      const big = (x: unknown) => (x === null ? null : BigInt(x as number | bigint));
      if (expected === 'overflow') {
        await expect(run).rejects.toThrow(/ARITHMETIC_OVERFLOW/);
        expect([tried.s, tried.a]).toEqual([null, null]);
        return;
      }
      const [r] = (await run).output as Row[];
      expect([big(r.s), big(r.a)]).toEqual([expected.sum, expected.avg]);
      expect([big(tried.s), big(tried.a)]).toEqual([expected.sum, expected.avg]);
    }), { numRuns: propertyRuns(150, 3000) });
  });
});

describe('a NULL beside intervals', () => {
  // Spark's findWiderTypeForTwo of NullType and an interval type is that type, its unit range as it is.
  it('keeps their unit range: VALUES, coalesce, array', () => {
    const q = compileStreamingQuery(
      "SELECT ym, dt, coalesce(NULL, INTERVAL '1' DAY) AS c, array(INTERVAL '1' MONTH, NULL) AS arr FROM events, (VALUES (INTERVAL '10' MONTH, INTERVAL '10' SECOND), (NULL, NULL)) AS v(ym, dt)",
      rel,
    );
    expect(q.outputSchema.map((f) => [f.name, f.interval ?? (f.elementType as Field).interval])).toEqual([
      ['ym', { start: 1, end: 1 }],
      ['dt', { start: 3, end: 3 }],
      ['c', { start: 0, end: 0 }],
      ['arr', { start: 1, end: 1 }],
    ]);
  });
});
