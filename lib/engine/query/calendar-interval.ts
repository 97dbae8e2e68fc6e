/**
 * Spark's CalendarInterval (months, days and microseconds, each with its own sign) and the two
 * IntervalUtils functions that read and measure one:
 * - stringToInterval: the unit-list text `[interval] <number> <unit> …` that CAST(string AS
 *   INTERVAL), a session gap string and withWatermark's delay are written in;
 * - getDuration: its length, a month counting `daysPerMonth` days (31 by default, the number
 *   Structured Streaming uses so that a delay of N months never drops an event before N whole
 *   calendar months have passed, whatever the months).
 * Weir's SQL intervals are ANSI (interval-utils.ts); this value lives only between a string and
 * the number a caller wants from it.
 */
import { ValidationError } from '../errors';
import { LONG_MAX, LONG_MIN, toLong, type Long } from './long';

export interface CalendarInterval {
  /** An INT, as Spark's. */
  months: number;
  /** An INT, as Spark's. */
  days: number;
  /** A BIGINT (long.ts: a number while it is a safe integer). */
  micros: Long;
}

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;

/** Where each unit goes: months, days or microseconds, and how many of them one unit is. */
const UNITS: Record<string, ['months' | 'days' | 'micros', bigint]> = {
  year: ['months', 12n],
  month: ['months', 1n],
  week: ['days', 7n],
  day: ['days', 1n],
  hour: ['micros', 3_600_000_000n],
  minute: ['micros', 60_000_000n],
  second: ['micros', 1_000_000n],
  millisecond: ['micros', 1000n],
  microsecond: ['micros', 1n],
};

/** A value: an optional sign (spaces may follow it), digits, and a fraction of at most nine digits. */
const VALUE = /([+-]?)\s*(\d*)(?:(\.)(\d*))?/y;
const SPACES = /\s+/y;
/** A unit: a word, then spaces or the end. */
const UNIT = /([a-z]+)(?:\s+|$)/y;

/**
 * Spark's IntervalUtils.stringToInterval: case-insensitive `<number> <unit>` pairs separated by
 * spaces, after an optional `interval` prefix; the units year, month, week, day, hour, minute,
 * second, millisecond and microsecond, each singular or plural; each number signed; only seconds
 * may have a fraction (to the microsecond, truncated; nine digits at most). Months and days must
 * fit an INT and microseconds a BIGINT, as in Spark. A ValidationError, with Spark's reason,
 * for any other text.
 */
export function stringToInterval(input: string): CalendarInterval {
  const fail = (why: string): never => {
    throw new ValidationError(`Error parsing '${input}' to interval, ${why}`, { input });
  };
  let s = input.trim().toLowerCase();
  if (s === '') fail('interval string cannot be empty');
  if (s.startsWith('interval')) {
    if (s === 'interval') fail('interval string cannot be empty');
    if (!/\s/.test(s[8])) fail(`invalid interval prefix ${s.split(/\s/)[0]}`);
    s = s.slice(9).trimStart();
  }
  const total = { months: 0n, days: 0n, micros: 0n };
  let i = 0;
  while (i < s.length) {
    VALUE.lastIndex = i;
    const [number, sign, whole, point, fraction = ''] = VALUE.exec(s)!;
    const word = s.slice(i).split(/\s+/)[0];
    if (whole === '' && fraction === '') fail(`unrecognized number '${word}'`);
    if (fraction.length > 9) fail(`interval can only support nanosecond precision, '${word}' is out of range`);
    i += number.length;
    SPACES.lastIndex = i;
    if (i === s.length || !SPACES.exec(s)) fail(i === s.length ? `expect a unit name after '${word}' but hit EOL` : `invalid value '${word}'`);
    i = SPACES.lastIndex;
    UNIT.lastIndex = i;
    const unitMatch = UNIT.exec(s);
    const unitWord = s.slice(i).split(/\s+/)[0];
    const unit = unitMatch ? UNITS[unitMatch[1].replace(/s$/, '')] : undefined;
    if (!unit || !unitMatch) return fail(`invalid unit '${unitWord}'`);
    if (point !== undefined && unit[1] !== 1_000_000n) fail(`'${unitWord}' cannot have fractional part`);
    const value = BigInt(whole || '0');
    if (value > LONG_MAX) fail(`'${word}' is out of the range of a BIGINT`);
    // The fraction of a second in microseconds: nine digits of nanoseconds, truncated.
    const amount = value * unit[1] + (point === undefined ? 0n : BigInt(fraction.padEnd(9, '0')) / 1000n);
    total[unit[0]] += sign === '-' ? -amount : amount;
    if (unit[0] === 'micros' ? total.micros < LONG_MIN || total.micros > LONG_MAX : total[unit[0]] < INT_MIN || total[unit[0]] > INT_MAX) {
      fail(`the ${unit[0]} overflow`);
    }
    i = UNIT.lastIndex;
  }
  return { months: Number(total.months), days: Number(total.days), micros: toLong(total.micros) };
}

/** Spark's IntervalUtils.safeStringToInterval: stringToInterval's value, or null (CAST's NULL) for text it refuses. */
export function safeStringToInterval(input: string): CalendarInterval | null {
  try {
    return stringToInterval(input);
  } catch (e) {
    if (e instanceof ValidationError) return null;
    throw e;
  }
}

/**
 * Spark's IntervalUtils.getDuration in microseconds: months of `daysPerMonth` days, days of 24
 * hours, then the microseconds. Exact (a bigint): a caller decides what range it takes.
 */
export function getDuration(interval: CalendarInterval, daysPerMonth = 31): bigint {
  const day = 86_400_000_000n;
  return BigInt(interval.months) * BigInt(daysPerMonth) * day + BigInt(interval.days) * day + BigInt(interval.micros);
}
