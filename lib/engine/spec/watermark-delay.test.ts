import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateJob } from './validate-job';
import { MAX_WATERMARK_DELAY_MS, watermarkDelayMs } from './watermark-delay';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const D = 24 * H;
/** A month as Spark's EventTimeWatermark counts it. */
const MONTH = 31 * D;

describe("watermarkDelayMs (Spark's withWatermark delay, EventTimeWatermark.getDelayMs)", () => {
  it.each([
    ['2 years 5 months', (12 * 2 + 5) * MONTH],
    ['1 day 2 hours', D + 2 * H],
    ['1 hour 30 minutes', H + 30 * MIN],
    ['10 seconds', 10 * S],
    ['1 week', 7 * D],
    ['1 month', 31 * D],
    ['1 month -30 days', D],
    ['1 day -2 hours 1.5 seconds', D - 2 * H + 1500],
    // Spark truncates microseconds to milliseconds.
    ['1.0005 seconds', S],
    ['500 milliseconds 250 microseconds', 500],
    ['0 seconds', 0],
    // The `interval` prefix makes it a SQL interval literal, as in Spark.
    ['interval 2 years 5 months', 29 * MONTH],
    ['INTERVAL 1 day 2 hours', D + 2 * H],
    ["interval '2 years 5 months'", 29 * MONTH],
    ["INTERVAL '2-5' YEAR TO MONTH", 29 * MONTH],
    ["interval '1 02:30:00' DAY TO SECOND", D + 2.5 * H],
    ["interval '10' second", 10 * S],
  ])('%j is %d ms', (text, ms) => {
    expect(watermarkDelayMs(text)).toBe(ms);
  });

  it.each([
    ['10 ms', 10],
    ['1.5 s', 1500],
    ['1.5 hours', 1.5 * H],
    ['2 h', 2 * H],
    ['500', 500],
    ['0', 0],
  ])("keeps Weir's older duration forms Spark does not take: %j is %d ms", (text, ms) => {
    expect(watermarkDelayMs(text)).toBe(ms);
  });

  it.each([
    ['-1 year', '-372 days'],
    ['1 year -13 months', '-31 days'],
    ['1 month -40 days', '-9 days'],
    ['-10 seconds', '-10000 ms'],
    ['interval -2 years', '-744 days'],
  ])("refuses a negative delay %j as Spark does (\"should not be negative\"), saying what to write", (text, length) => {
    expect(() => watermarkDelayMs(text)).toThrow(`delay threshold (${text}) should not be negative: it is ${length}`);
    expect(() => watermarkDelayMs(text)).toThrow(/Write it as Spark's withWatermark takes it: "10 seconds", "1 hour 30 minutes", "2 years 5 months"/);
  });

  it.each([
    ['soon', "unrecognized number 'soon'"],
    ['5 fortnights', "invalid unit 'fortnights'"],
    ['1.5 days 2 hours', "'days' cannot have fractional part"],
    ['10 seconds 5', "expect a unit name after '5' but hit EOL"],
    ['interval 1 year 2 days', 'Cannot mix year-month and day-time fields'],
    ['interval 2 years + interval 1 day', 'it is not one interval literal'],
    ['', 'interval string cannot be empty'],
  ])('refuses %j with the reason and what to write', (text, why) => {
    let message = '';
    try {
      watermarkDelayMs(text);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`Error parsing '${text}' to interval, `);
    expect(message).toContain(why);
    expect(message).toContain('Write it as Spark\'s withWatermark takes it');
    expect(message).not.toMatch(/line \d+, column/);
  });

  it('takes up to 10000 years as Spark counts them, and no more', () => {
    expect(MAX_WATERMARK_DELAY_MS).toBe(10_000 * 12 * MONTH);
    expect(Number.isSafeInteger(MAX_WATERMARK_DELAY_MS)).toBe(true);
    expect(watermarkDelayMs('10000 years')).toBe(MAX_WATERMARK_DELAY_MS);
    expect(watermarkDelayMs('366 days')).toBe(366 * D);
    for (const text of ['10000 years 1 millisecond', '120001 months', '178956970 years', '9223372036854775807 microseconds', '99999999999999999']) {
      expect(() => watermarkDelayMs(text), text).toThrow(`delay threshold (${text}) must be at most 10000 years (${MAX_WATERMARK_DELAY_MS} ms, a year counting 12 months of 31 days)`);
    }
  });

  // The oracle: Spark's arithmetic done by hand on the generated parts.
  const parts = fc.record({
    years: fc.integer({ min: 0, max: 50 }),
    months: fc.integer({ min: 0, max: 40 }),
    weeks: fc.integer({ min: 0, max: 60 }),
    days: fc.integer({ min: 0, max: 400 }),
    hours: fc.integer({ min: 0, max: 100 }),
    minutes: fc.integer({ min: 0, max: 1000 }),
    seconds: fc.integer({ min: 0, max: 100_000 }),
    milliseconds: fc.integer({ min: 0, max: 5000 }),
  });

  it('is ((12 × years + months) × 31 + 7 × weeks + days) days and the time, in any order and case (property)', () => {
    fc.assert(
      fc.property(parts, fc.func(fc.integer()), fc.boolean(), (p, order, upper) => {
        const oracle = ((12 * p.years + p.months) * 31 + 7 * p.weeks + p.days) * D + p.hours * H + p.minutes * MIN + p.seconds * S + p.milliseconds;
        const words = Object.entries(p)
          .filter(([, n]) => n !== 0)
          .map(([unit, n]) => `${n} ${n === 1 ? unit.slice(0, -1) : unit}`)
          .sort((a, b) => order(a) - order(b) || a.localeCompare(b));
        if (words.length === 0) words.push('0 seconds');
        const text = upper ? words.join(' ').toUpperCase() : words.join(' ');
        expect(watermarkDelayMs(text)).toBe(oracle);
        // One family at a time, the SQL literal after `interval` says the same.
        const ym = (12 * p.years + p.months) * MONTH;
        if (ym > 0) expect(watermarkDelayMs(`interval ${p.years} years ${p.months} months`)).toBe(ym);
      }),
    );
  });
});

describe('a job spec with a watermark delay', () => {
  const spec = (watermarkDelay: string, trigger = '5 seconds') => ({
    name: 'j',
    source: { name: 'src', type: 'memory', options: { stream: 's' }, schema: [{ name: 'a', type: 'long' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay },
    sql: 'SELECT a FROM src',
    sink: { type: 'memory', options: { table: 't' } },
    trigger: { type: 'processing-time', interval: trigger },
    checkpointLocation: '/tmp/weir-watermark-delay-never-created',
  });

  it('takes Spark\'s interval strings, per source, and runs with the delay in ms', () => {
    const r = validateJob(spec('2 years 5 months'));
    expect(r.errors).toEqual([]);
    expect(r.explain).toContain(`watermark(ts, ${29 * MONTH} ms)`);
    const two = validateJob({ ...spec('1 second'), source: undefined, sources: [spec('1 day 2 hours').source, { ...spec('x').source, name: 'other', watermarkDelay: 'interval 1 hour 30 minutes' }], sql: 'SELECT a FROM src UNION ALL SELECT a FROM other' });
    expect(two.errors).toEqual([]);
    expect(two.explain).toContain(`watermark(ts, ${D + 2 * H} ms)`);
    expect(two.explain).toContain(`watermark(ts, ${H + 30 * MIN} ms)`);
  });

  it('puts a bad delay on its field with what to write', () => {
    const r = validateJob(spec('1 year -13 months'));
    expect(r.errors).toEqual([expect.objectContaining({ path: 'source.watermarkDelay', message: expect.stringMatching(/should not be negative.*Write it as Spark's withWatermark takes it/) })]);
  });

  it('leaves the trigger its own rules: one unit, at most a day', () => {
    expect(validateJob(spec('1 second', '1 hour 30 minutes')).errors.map((e) => e.path)).toEqual(['trigger.interval']);
    expect(validateJob(spec('1 second', '2 days')).errors.map((e) => e.message).join()).toMatch(/at most 1 day/);
  });
});
