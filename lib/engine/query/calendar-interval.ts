/**
 * Spark's CalendarInterval (months, days and microseconds, each with its own sign): the value of
 * Spark's legacy CalendarIntervalType, the SQL type `interval` that make_interval and
 * CAST(… AS INTERVAL) give (Weir's other SQL intervals are the ANSI ones, interval-utils.ts), and
 * the IntervalUtils functions over it:
 * - stringToInterval: the unit-list text `[interval] <number> <unit> …` that CAST(string AS
 *   INTERVAL), a session gap string and withWatermark's delay are written in;
 * - toMultiUnitsString: its text, as CAST(interval AS STRING) and every output writes it;
 * - getDuration: its length, a month counting `daysPerMonth` days (31 by default, the number
 *   Structured Streaming uses so that a delay of N months never drops an event before N whole
 *   calendar months have passed, whatever the months);
 * - makeInterval, negate, add, subtract, multiply, divide: what make_interval and the arithmetic
 *   operators compute with ANSI off (months and days wrap as Java's INTs, a fraction of a month
 *   is dropped and a fraction of a day goes to the microseconds).
 * A value is a plain object, never mutated.
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

const INT32 = 2 ** 32;
/** Java's `int` arithmetic: the low 32 bits of an integer, signed. */
const wrapInt = (n: number): number => {
  if (n >= -(2 ** 31) && n < 2 ** 31) return n + 0;
  return Number(BigInt.asIntN(32, BigInt(n % INT32)));
};
const wrapLong = (b: bigint): Long => toLong(BigInt.asIntN(64, b));

/**
 * Spark's IntervalUtils.toMultiUnitsString (CalendarInterval.toString): `0 seconds` for an empty
 * interval, else its non-zero units in the order years, months, days, hours, minutes, seconds,
 * each with its sign, the seconds with their fraction and no trailing zeros: `1 years 2 months`,
 * `-3 days 4 hours`, `1 minutes 2.5 seconds`.
 */
export function toMultiUnitsString(i: CalendarInterval): string {
  const micros = BigInt(i.micros);
  if (i.months === 0 && i.days === 0 && micros === 0n) return '0 seconds';
  const parts: string[] = [];
  const unit = (value: bigint | number, name: string) => {
    if (value !== 0 && value !== 0n) parts.push(`${value} ${name}`);
  };
  // Java's / and % truncate toward zero, as JavaScript's and BigInt's do.
  unit(Math.trunc(i.months / 12), 'years');
  unit(i.months % 12, 'months');
  unit(i.days, 'days');
  unit(micros / 3_600_000_000n, 'hours');
  const rest = micros % 3_600_000_000n;
  unit(rest / 60_000_000n, 'minutes');
  const seconds = rest % 60_000_000n;
  if (seconds !== 0n) {
    const abs = seconds < 0n ? -seconds : seconds;
    const fraction = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
    parts.push(`${seconds < 0n ? '-' : ''}${abs / 1_000_000n}${fraction ? `.${fraction}` : ''} seconds`);
  }
  return parts.join(' ');
}

/**
 * Spark's IntervalUtils.makeInterval: years and months in the months, weeks and days in the days,
 * hours, minutes and the seconds' microseconds (secs, a DECIMAL(18,6)'s unscaled value) in the
 * microseconds; null where Java's exact arithmetic overflows (make_interval with ANSI off, and
 * try_make_interval, answer NULL there).
 */
export function makeInterval(years: number, months: number, weeks: number, days: number, hours: number, mins: number, secsMicros: bigint): CalendarInterval | null {
  const inInt = (b: bigint) => b >= INT_MIN && b <= INT_MAX;
  // Each step of Spark's Math.multiplyExact and addExact is checked: an INT product that
  // overflows is an overflow even when the sum would fit.
  const yearMonths = BigInt(years) * 12n;
  const totalMonths = BigInt(months) + yearMonths;
  const weekDays = BigInt(weeks) * 7n;
  const totalDays = BigInt(days) + weekDays;
  if (!inInt(yearMonths) || !inInt(totalMonths) || !inInt(weekDays) || !inInt(totalDays)) return null;
  const micros = secsMicros + BigInt(hours) * 3_600_000_000n + BigInt(mins) * 60_000_000n;
  if (micros < LONG_MIN || micros > LONG_MAX) return null;
  return { months: Number(totalMonths), days: Number(totalDays), micros: toLong(micros) };
}

/** Spark's IntervalUtils.negate (UnaryMinus with ANSI off): each field negated, wrapping as Java does. */
export function negate(i: CalendarInterval): CalendarInterval {
  return { months: wrapInt(-i.months), days: wrapInt(-i.days), micros: wrapLong(-BigInt(i.micros)) };
}

/** Spark's IntervalUtils.add and subtract (ANSI off): field by field, wrapping as Java does. */
export function add(a: CalendarInterval, b: CalendarInterval, sign: 1 | -1 = 1): CalendarInterval {
  return {
    months: wrapInt(a.months + sign * b.months),
    days: wrapInt(a.days + sign * b.days),
    micros: wrapLong(BigInt(a.micros) + BigInt(sign) * BigInt(b.micros)),
  };
}

/** Java's `(int) d`: truncated toward zero, saturated at INT's bounds, NaN as 0. */
function doubleToInt(d: number): number {
  if (Number.isNaN(d)) return 0;
  return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(d))) + 0;
}

/** Java's Math.round(double): the nearest long, ties up, saturated at BIGINT's bounds, NaN as 0. */
function roundToLong(d: number): Long {
  if (Number.isNaN(d)) return 0;
  const r = Math.floor(d + 0.5);
  if (Number.isSafeInteger(r)) return r + 0;
  if (r >= 2 ** 63) return LONG_MAX;
  if (r <= -(2 ** 63)) return LONG_MIN;
  return toLong(BigInt(r));
}

/**
 * Spark's IntervalUtils.safeFromDoubles: the months and days truncated (Java's `(int)`), the
 * days' fraction moved to the microseconds, the microseconds rounded.
 */
function fromDoubles(months: number, days: number, micros: number): CalendarInterval {
  const wholeDays = doubleToInt(days);
  return { months: doubleToInt(months), days: wholeDays, micros: roundToLong(micros + 86_400_000_000 * (days - wholeDays)) };
}

/** Spark's IntervalUtils.multiply (MultiplyInterval with ANSI off): each field times `num`, a DOUBLE. */
export function multiply(i: CalendarInterval, num: number): CalendarInterval {
  return fromDoubles(num * i.months, num * i.days, num * Number(i.micros));
}

/** Spark's IntervalUtils.divide (DivideInterval with ANSI off): each field over `num`; null for 0. */
export function divide(i: CalendarInterval, num: number): CalendarInterval | null {
  if (num === 0) return null;
  return fromDoubles(i.months / num, i.days / num, Number(i.micros) / num);
}

/**
 * Spark's IntervalUtils.getYears, getMonths, getDays, getHours, getMinutes and getSeconds (what
 * EXTRACT and date_part take from an interval): the years and the months left of the months; the
 * days plus the microseconds' whole days; the hours and minutes left of the microseconds' days
 * and hours; the seconds left of their minutes, as a DECIMAL(8,6)'s unscaled microseconds.
 */
export function intervalField(i: CalendarInterval, field: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second'): number | bigint {
  const micros = BigInt(i.micros);
  switch (field) {
    case 'year': return Math.trunc(i.months / 12);
    case 'month': return (i.months % 12) + 0;
    case 'day': return i.days + Number(micros / 86_400_000_000n);
    case 'hour': return Number((micros % 86_400_000_000n) / 3_600_000_000n);
    case 'minute': return Number((micros % 3_600_000_000n) / 60_000_000n);
    case 'second': return micros % 60_000_000n;
  }
}
