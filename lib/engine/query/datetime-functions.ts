/**
 * Spark's date-time functions (group datetime_funcs): the date parts, date_trunc and trunc,
 * parsing and formatting by Spark's datetime patterns, date arithmetic, make_date and
 * make_timestamp, date_part/extract with Spark's field names, the unix_* conversions,
 * from_utc_timestamp and to_utc_timestamp, current_timezone and localtimestamp.
 *
 * Functions Spark types DATE (to_date, date_add, date_sub, current_date, last_day, add_months)
 * return a DATE (days since 1970-01-01, date.ts) and take a DATE, a timestamp (its day) or a
 * string cast to a DATE, as Spark casts it; the other date-time functions take a DATE as its
 * midnight timestamp (the compiler converts it) and a string cast to a timestamp.
 *
 * Weir's session time zone is UTC and a TIMESTAMP is epoch milliseconds carrying microseconds as
 * their fraction (timestamp-micros.ts): arithmetic that can leave whole milliseconds goes
 * through microseconds, so the result is the one canonical double of its instant.
 * Time zones come from the runtime's IANA database through Intl (no download).
 */
import { bigOf, longAdd, longDivide, longMultiply, longSubtract, type Long } from './long';
import { addMillis, microsOfTimestamp, splitTimestamp, timestampFromMicros, timestampOf, utcDate } from './timestamp-micros';
import { intervalPartsOverflow, MICROS_PER_DAY } from './interval-utils';
import { RecordExpressionError } from '../errors';
import { dateFromTimestamp, dateOf, DAY_MS, parseDate, timestampFromDate, utc } from './date';
import type { DecimalType } from './decimal';
import { isStr, nums, str } from './function-args';
import type { CallCompiler, CallExpr, CompiledExpr, FunctionDef } from './function-types';
import { compiled } from './compiled-expr';
import type { Expr } from './expression';
import { formatWithPattern, parseDatetime, tokenizePattern } from './datetime-patterns';
import { fromWallClock, offsetAt, zoneOf, type Zone } from './time-zones';
import { isNumeric, type ExprType } from './sql-values';
import { parseTimestampLiteral } from './expression-builder';
import { intervalField as calendarIntervalField, makeInterval as makeCalendarInterval, type CalendarInterval } from './calendar-interval';

const ts = (args: ExprType[], i = 0): string | undefined => (args[i] === 'timestamp' || args[i] === 'null' ? undefined : 'expects a timestamp argument (CAST a string with CAST(x AS TIMESTAMP))');

const DATE_FIELDS: Record<string, (d: Date) => number> = {
  year: (d) => d.getUTCFullYear(),
  month: (d) => d.getUTCMonth() + 1,
  day: (d) => d.getUTCDate(),
  dayofmonth: (d) => d.getUTCDate(),
  hour: (d) => d.getUTCHours(),
  minute: (d) => d.getUTCMinutes(),
  second: (d) => d.getUTCSeconds(),
  // Spark: 1 = Sunday … 7 = Saturday
  dayofweek: (d) => d.getUTCDay() + 1,
  quarter: (d) => Math.floor(d.getUTCMonth() / 3) + 1,
};

const TRUNC_UNITS = ['year', 'yyyy', 'yy', 'quarter', 'month', 'mon', 'mm', 'week', 'day', 'dd', 'hour', 'minute', 'second', 'millisecond', 'microsecond'] as const;

/** Spark's date_trunc spellings of each unit. */
const TRUNC_ALIASES: Record<string, string> = { yyyy: 'year', yy: 'year', mon: 'month', mm: 'month', dd: 'day' };

function truncTimestamp(unit: string, ms: number): number | null {
  const d = utcDate(ms);
  const u = unit.toLowerCase();
  switch (TRUNC_ALIASES[u] ?? u) {
    case 'millisecond': return Math.floor(ms);
    case 'microsecond': return ms;
    case 'year': return utc(d.getUTCFullYear(), 0, 1);
    case 'quarter': return utc(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / 3) * 3, 1);
    case 'month': return utc(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'week': {
      // ISO week: starts Monday.
      const day = utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      return day - ((d.getUTCDay() + 6) % 7) * 86_400_000;
    }
    case 'day': return utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case 'hour': return Math.floor(ms / 3_600_000) * 3_600_000;
    case 'minute': return Math.floor(ms / 60_000) * 60_000;
    case 'second': return Math.floor(ms / 1000) * 1000;
    default: return null;
  }
}

/** A date part of a timestamp; a string is cast to one first, as Spark casts it implicitly. */
const dateField = (name: string): FunctionDef => ({
  min: 1, max: 1, resultIntegral: 32, type: (a) => (a[0] === 'string' ? 'long' : ts(a) ?? 'long'),
  impl: ([v], c, t) => {
    const ms = t[0] === 'string' ? parseTimestampLiteral(v as string, false, false, TIME_FIELDS.has(name) ? c.batchTimestampMs : undefined) : (v as number);
    return ms === null ? null : DATE_FIELDS[name](utcDate(ms));
  },
});

const DATE_TRUNC_UNITS: readonly string[] = TRUNC_UNITS;

/** A timestamp or a string Spark would cast to one. */
const tsLike = (t: ExprType) => t === 'timestamp' || t === 'string' || t === 'null';

const tsArg = (args: ExprType[], i = 0): string | undefined => (tsLike(args[i]) ? undefined : 'expects a timestamp (or a string such as \'2024-01-02 03:04:05\')');

/** A day-like argument (Spark's DateType inputs): a date, a timestamp or a string Spark would cast to a date. */
const dayArg = (args: ExprType[], i = 0): string | undefined => (args[i] === 'date' || tsLike(args[i]) ? undefined : 'expects a date (or a timestamp, or a string such as \'2024-01-02\')');

/** A day-like argument as a date (days); a string is CAST to DATE (NULL when it is not one). */
function toDay(v: unknown, t: ExprType): number | null {
  if (t === 'date') return v as number;
  if (t === 'string') return parseDate(String(v));
  return dateFromTimestamp(v as number);
}

/**
 * A timestamp argument as epoch ms; a string is cast (NULL when it is not a timestamp). The
 * functions whose input Spark casts to a TIMESTAMP (stringToTimestamp) pass the batch's
 * timestamp `nowMs`, so a time without a date is that time of the batch's date; those whose
 * input is a DATE (stringToDate) or that parse by a pattern read none.
 */
function toMs(v: unknown, t: ExprType, nowMs?: number): number | null {
  if (t === 'string') return parseTimestampLiteral(String(v), false, false, nowMs);
  return v as number;
}

/** The fields Spark extracts from a TIMESTAMP (Hour, Minute, SecondWithFraction); the others from a DATE. */
const TIME_FIELDS: ReadonlySet<string> = new Set(['hour', 'minute', 'second']);

const midnight = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** A pattern (datetime) that must be a valid literal when it is one. */
const patternLiterals = (fn: string, i: number) => (lits: unknown[]): string | undefined => {
  const p = lits[i];
  if (typeof p !== 'string') return undefined;
  const t = tokenizePattern(p);
  return typeof t === 'string' ? `${fn}: ${t}` : undefined;
};

function tokens(fn: string, pattern: string) {
  const t = tokenizePattern(pattern);
  if (typeof t === 'string') throw new RecordExpressionError(`${fn}: ${t}`, { function: fn });
  return t;
}

/** A day count: a number, or a string Spark casts to an INT (NULL when it is not one). */
function dayCount(n: unknown, t: ExprType): number | null {
  if (t !== 'string') return Math.trunc(n as number);
  const x = Number((n as string).trim());
  return (n as string).trim() === '' || !Number.isFinite(x) ? null : Math.trunc(x);
}

/** to_timestamp and to_timestamp_ntz with a pattern: the time the text reads as by it. */
const parseByPattern = (fn: string): FunctionDef => ({
  min: 1, max: 2, type: (a) => str(a) ?? 'timestamp',
  impl: ([s, p]) => parseDatetime(fn, s as string, tokens(fn, p as string)),
  checkLiterals: patternLiterals(fn, 1),
});

const dayShift = (sign: 1 | -1): FunctionDef => ({
  min: 2, max: 2, intDays: true, type: (a) => dayArg(a) ?? (isNumeric(a[1]) || a[1] === 'string' ? 'date' : 'expects (date, number of days)'),
  impl: ([d, n], _c, t) => {
    const day = toDay(d, t[0]);
    const k = dayCount(n, t[1]);
    return day === null || k === null ? null : day + sign * k;
  },
});

const DATE_ADD = dayShift(1);


/** Spark's EXTRACT/date_part field names and their spellings (DatePart.parseExtractField). */
const FIELD_ALIASES: Record<string, string> = {
  y: 'year', years: 'year', yr: 'year', yrs: 'year',
  qtr: 'quarter',
  mon: 'month', mons: 'month', months: 'month',
  w: 'week', weeks: 'week',
  d: 'day', days: 'day',
  dow: 'dayofweek', dow_iso: 'dayofweek_iso',
  h: 'hour', hours: 'hour', hr: 'hour', hrs: 'hour',
  m: 'minute', min: 'minute', mins: 'minute', minutes: 'minute',
  s: 'second', sec: 'second', seconds: 'second', secs: 'second',
};

const isoWeek = (day: number): { week: number; year: number } => {
  const dow = (new Date(day * DAY_MS).getUTCDay() + 6) % 7;
  const thursday = new Date((day + 3 - dow) * DAY_MS);
  const jan1 = utc(thursday.getUTCFullYear(), 0, 1);
  return { week: Math.floor((thursday.getTime() - jan1) / DAY_MS / 7) + 1, year: thursday.getUTCFullYear() };
};

const FIELDS: Record<string, (ms: number) => number | bigint> = {
  year: (ms) => utcDate(ms).getUTCFullYear(),
  yearofweek: (ms) => isoWeek(dateFromTimestamp(ms)).year,
  quarter: (ms) => Math.floor(utcDate(ms).getUTCMonth() / 3) + 1,
  month: (ms) => utcDate(ms).getUTCMonth() + 1,
  week: (ms) => isoWeek(dateFromTimestamp(ms)).week,
  day: (ms) => utcDate(ms).getUTCDate(),
  dayofweek: (ms) => utcDate(ms).getUTCDay() + 1,
  dayofweek_iso: (ms) => ((utcDate(ms).getUTCDay() + 6) % 7) + 1,
  doy: (ms) => Math.floor((Math.floor(ms / DAY_MS) * DAY_MS - utc(utcDate(ms).getUTCFullYear(), 0, 1)) / DAY_MS) + 1,
  hour: (ms) => utcDate(ms).getUTCHours(),
  minute: (ms) => utcDate(ms).getUTCMinutes(),
  // Spark: seconds with their fraction, DECIMAL(8,6) (its microseconds).
  second: (v) => { const [ms, micros] = splitTimestamp(v); return BigInt((((ms % 60_000) + 60_000) % 60_000) * 1000 + micros); },
};

/** A field name as Spark spells it (any case), or undefined. */
function extractField(name: string): string | undefined {
  const f = name.toLowerCase();
  const canonical = FIELD_ALIASES[f] ?? f;
  return FIELDS[canonical] ? canonical : undefined;
}

const EXTRACT_FIELDS: readonly string[] = [...Object.keys(FIELDS), ...Object.keys(FIELD_ALIASES)];

const SECOND_DECIMAL: DecimalType = { precision: 8, scale: 6 };

/** date_part(field, source) and EXTRACT(field FROM source); the compiler checks the field is a literal Spark knows. */
/**
 * The call with its unit (field) literal lower-cased, after checking it is one of `allowed`
 * (Spark requires a foldable unit). `errorClasses` are Spark's for a unit that is not a literal
 * and for one it does not know.
 */
const unitLowered = (allowed: readonly string[], what: string, errorClasses?: { nonLiteral: string; unknown: string }) => (e: CallExpr, c: CallCompiler): Expr => {
  const unit = e.args[0];
  if (unit.kind !== 'literal' || typeof unit.value !== 'string' || !allowed.includes(unit.value.toLowerCase())) {
    const errorClass = unit.kind === 'literal' && typeof unit.value === 'string' ? errorClasses?.unknown : errorClasses?.nonLiteral;
    c.fail(e, `${e.name} ${what} must be one of ${allowed.join(', ')}`, errorClass);
  }
  return { ...e, args: [{ ...unit, value: unit.value.toLowerCase() }, ...e.args.slice(1)] };
};

const DATE_PART: FunctionDef = {
  min: 2, max: 2,
  // A NULL field is a NULL DOUBLE whatever the source (Spark's DatePart.toEquivalentExpr).
  replacement: (e, c) => (e.args[0].kind === 'literal' && e.args[0].value === null
    ? { kind: 'cast', arg: e.args[0], to: 'double', pos: e.pos }
    // DatePart.toEquivalentExpr: a field that is not a constant is NON_FOLDABLE_ARGUMENT;
    // parseExtractField: one it does not know, INVALID_EXTRACT_FIELD.
    : unitLowered(EXTRACT_FIELDS, 'field', { nonLiteral: 'NON_FOLDABLE_ARGUMENT', unknown: 'INVALID_EXTRACT_FIELD' })(e, c)),
  type: (a, lits) => {
    if (!isStr(a[0])) return 'the field must be a string';
    const field = lits && typeof lits[0] === 'string' ? extractField(lits[0]) : undefined;
    if (a[1] === 'day_time_interval' || a[1] === 'year_month_interval' || a[1] === 'calendar_interval') {
      const from = INTERVAL_FIELDS[a[1]];
      return field && from.includes(field) ? (field === 'second' ? 'decimal' : 'long') : `takes ${from.map((f) => f.toUpperCase()).join(', ')} from ${a[1] === 'day_time_interval' ? 'a day-time interval' : a[1] === 'year_month_interval' ? 'a year-month interval' : 'an interval'}`;
    }
    return dayArg(a, 1) ?? (field === 'second' ? 'decimal' : 'long');
  },
  resultDecimal: () => SECOND_DECIMAL,
  // Spark's types: every field of a date or timestamp an INT; of an interval, YEAR and DAY an
  // INT, MONTH, HOUR and MINUTE a TINYINT (ExtractIntervalPart).
  resultIntegral: (a, lits) => {
    const field = typeof lits[0] === 'string' ? extractField(lits[0]) : undefined;
    return (a[1] === 'day_time_interval' || a[1] === 'year_month_interval' || a[1] === 'calendar_interval') && (field === 'month' || field === 'hour' || field === 'minute') ? 8 : 32;
  },
  impl: ([field, v], c, t) => {
    if (t[1] === 'day_time_interval' || t[1] === 'year_month_interval') return intervalField(extractField(field as string)!, v, t[1]);
    if (t[1] === 'calendar_interval') return calendarIntervalField(v as CalendarInterval, extractField(field as string) as Parameters<typeof calendarIntervalField>[1]);
    const name = extractField(field as string)!;
    const ms = t[1] === 'date' ? timestampFromDate(v as number) : toMs(v, t[1], TIME_FIELDS.has(name) ? c.batchTimestampMs : undefined);
    return ms === null ? null : FIELDS[name](ms);
  },
};

/** The fields EXTRACT takes from an interval (Spark's ExtractIntervalPart). */
const INTERVAL_FIELDS = { day_time_interval: ['day', 'hour', 'minute', 'second'], year_month_interval: ['year', 'month'], calendar_interval: ['year', 'month', 'day', 'hour', 'minute', 'second'] };

/**
 * A field of an interval, signed as the interval (Spark's ExtractANSIInterval*): days, then the
 * hours, minutes and seconds (with microseconds, DECIMAL(8,6)) within it; years, then months.
 */
function intervalField(field: string, v: unknown, kind: 'day_time_interval' | 'year_month_interval'): number | bigint {
  if (kind === 'year_month_interval') return field === 'year' ? Math.trunc((v as number) / 12) : (v as number) % 12;
  const micros = bigOf(v as Long);
  switch (field) {
    case 'day': return Number(micros / MICROS_PER_DAY);
    case 'hour': return Number((micros % MICROS_PER_DAY) / 3_600_000_000n);
    case 'minute': return Number((micros % 3_600_000_000n) / 60_000_000n);
    default: return micros % 60_000_000n;
  }
}

/** Spark's monthsBetween (DateTimeUtils): whole months when the days match or both are month ends, else by 31-day months in seconds. */
function monthsBetween(t1: number, t2: number, roundOff: boolean): number {
  const d1 = utcDate(t1);
  const d2 = utcDate(t2);
  const monthDiff = (d1.getUTCFullYear() * 12 + d1.getUTCMonth()) - (d2.getUTCFullYear() * 12 + d2.getUTCMonth());
  const last = (d: Date) => new Date(utc(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  const day1 = d1.getUTCDate();
  const day2 = d2.getUTCDate();
  if (day1 === day2 || (day1 === last(d1) && day2 === last(d2))) return monthDiff;
  const secondsInDay = (ms: number) => Math.floor((ms - Math.floor(ms / DAY_MS) * DAY_MS) / 1000);
  const secondsDiff = (day1 - day2) * 86_400 + secondsInDay(t1) - secondsInDay(t2);
  const diff = monthDiff + secondsDiff / (31 * 86_400);
  return roundOff ? Math.round(diff * 1e8) / 1e8 : diff;
}

const DAY_NAMES: Record<string, number> = { SU: 0, SUN: 0, SUNDAY: 0, MO: 1, MON: 1, MONDAY: 1, TU: 2, TUE: 2, TUESDAY: 2, WE: 3, WED: 3, WEDNESDAY: 3, TH: 4, THU: 4, THURSDAY: 4, FR: 5, FRI: 5, FRIDAY: 5, SA: 6, SAT: 6, SATURDAY: 6 };

/** Spark's trunc(date, fmt): the first day of its year, quarter, month or (Monday) week; NULL for another format. */
function truncDate(day: number, fmt: string): number | null {
  const d = new Date(day * DAY_MS);
  switch (fmt.toUpperCase()) {
    case 'YEAR': case 'YYYY': case 'YY': return dateFromTimestamp(utc(d.getUTCFullYear(), 0, 1));
    case 'QUARTER': return dateFromTimestamp(utc(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / 3) * 3, 1));
    case 'MONTH': case 'MM': case 'MON': return dateFromTimestamp(utc(d.getUTCFullYear(), d.getUTCMonth(), 1));
    case 'WEEK': return day - ((d.getUTCDay() + 6) % 7);
    default: return null;
  }
}

const badZone = (fn: string, zone: string) => `${fn}: the time zone '${zone}' is not known; use a region ID such as 'Asia/Seoul' or an offset such as '+09:00'`;

function zoneArg(fn: string, zone: string): Zone {
  const z = zoneOf(zone);
  if (z === null) throw new RecordExpressionError(badZone(fn, zone), { function: fn });
  return z;
}

const zoneLiterals = (fn: string) => (lits: unknown[]): string | undefined => (typeof lits[1] === 'string' && zoneOf(lits[1]) === null ? badZone(fn, lits[1]) : undefined);

const toUnixTimestamp: FunctionDef = {
  min: 1, max: 2, type: (a) => (a[0] === 'timestamp' || a[0] === 'date' || ((isStr(a[0])) && (a.length < 2 || isStr(a[1]))) ? 'long' : 'expects a timestamp, or (string[, pattern])'),
  impl: ([v, p], _c, t) => {
    if (t[0] === 'date') return (v as number) * 86_400;
    if (t[0] !== 'string') return Math.floor((v as number) / 1000);
    const tokens = tokenizePattern((p as string | undefined) ?? 'yyyy-MM-dd HH:mm:ss');
    if (typeof tokens === 'string') throw new RecordExpressionError(`to_unix_timestamp(): ${tokens}`, { function: 'to_unix_timestamp()' });
    const ms = parseDatetime('to_unix_timestamp()', v as string, tokens);
    return ms === null ? null : Math.floor(ms / 1000);
  },
  checkLiterals: ([, p]) => { const t = typeof p === 'string' ? tokenizePattern(p) : undefined; return typeof t === 'string' ? `to_unix_timestamp(): ${t}` : undefined; },
};

const tsToLong = (f: (ms: number) => Long): FunctionDef => ({
  min: 1, max: 1, type: (a) => tsArg(a) ?? 'long', impl: ([v], c, t) => { const ms = toMs(v, t[0], c.batchTimestampMs); return ms === null ? null : f(ms); },
});

/** Spark's timestampadd/timestampdiff units (DateTimeUtils.timestampAddDiffMap), with their length in microseconds when fixed. */
const TIMESTAMP_UNITS: Record<string, number | 'month'> = {
  MICROSECOND: 1, MILLISECOND: 1000, SECOND: 1_000_000, MINUTE: 60_000_000, HOUR: 3_600_000_000,
  DAY: DAY_MS * 1000, DAYOFYEAR: DAY_MS * 1000, WEEK: 7 * DAY_MS * 1000, MONTH: 'month', QUARTER: 'month', YEAR: 'month',
};
const MONTHS_OF: Record<string, number> = { MONTH: 1, QUARTER: 3, YEAR: 12 };

const unitLiteral = (fn: string) => ([u]: unknown[]): string | undefined =>
  typeof u === 'string' && !(u.toUpperCase() in TIMESTAMP_UNITS)
    ? `[INVALID_PARAMETER_VALUE.DATETIME_UNIT] The value of parameter(s) \`unit\` in \`${fn}\` is invalid: expects one of the units without quotes ${Object.keys(TIMESTAMP_UNITS).join(', ')}, but got the string literal '${u}'.`
    : undefined;

/** A timestamp `n` months on, its day clamped to the month's last (Java's LocalDateTime.plusMonths). */
function plusMonths(v: number, n: number): number {
  const [ms, micros] = splitTimestamp(v);
  const d = new Date(ms);
  const months = d.getUTCMonth() + n;
  const y = d.getUTCFullYear() + Math.floor(months / 12);
  const m = ((months % 12) + 12) % 12;
  const last = new Date(utc(y, m + 1, 0)).getUTCDate();
  return timestampOf(utc(y, m, Math.min(d.getUTCDate(), last)) + (ms - Math.floor(ms / DAY_MS) * DAY_MS), micros);
}

/** Whole months from `a` to `b`, as Java's ChronoUnit.MONTHS.between on local date-times (UTC). */
function wholeMonths(a: number, b: number): number {
  const x = utcDate(a), y = utcDate(b);
  let months = (y.getUTCFullYear() - x.getUTCFullYear()) * 12 + (y.getUTCMonth() - x.getUTCMonth());
  // The rest of the month: the day and time of day, compared.
  const rest = (d: Date, ms: number) => d.getUTCDate() * DAY_MS + (ms - Math.floor(ms / DAY_MS) * DAY_MS);
  if (months > 0 && rest(y, b) < rest(x, a)) months--;
  else if (months < 0 && rest(y, b) > rest(x, a)) months++;
  return months;
}

const INT = { type: 'long', integral: 32 } as const;

/**
 * Spark's MakeInterval: each part 0 when left out, the first six read as INTs and secs as a
 * DECIMAL(18,6) (its microseconds), the CalendarInterval IntervalUtils.makeInterval makes of
 * them; NULL with a NULL part and, ANSI off (and in try_make_interval), where a sum overflows.
 */
function makeInterval(): FunctionDef {
  return {
    min: 0, max: 7,
    type: (a) => nums(a) ?? 'calendar_interval',
    impl: () => null,
    inputTypes: (args) => args.map((_, i) => (i < 6 ? INT : { type: 'decimal', decimal: { precision: 18, scale: 6 } })),
    typed: (_e: CallExpr, args: CompiledExpr[]): CompiledExpr | undefined => {
      const bad = args.findIndex((a) => !isNumeric(a.type) && a.type !== 'decimal');
      if (bad >= 0) return undefined;
      return compiled({ type: 'calendar_interval' }, () => {
        const evals = args.map((a) => a.eval);
        return (r, c) => {
          const v = evals.map((f) => f(r, c));
          if (v.some((x) => x === null)) return null;
          const part = (i: number) => Number(v[i] ?? 0);
          return makeCalendarInterval(part(0), part(1), part(2), part(3), part(4), part(5), (v[6] ?? 0n) as bigint);
        };
      });
    },
  };
}

const TIMESTAMP_ARITHMETIC: Record<string, FunctionDef> = {
  // timestampadd(unit, quantity, ts); the parser reads dateadd/date_add(UNIT, …) as this too.
  timestampadd: {
    min: 3, max: 3,
    type: (a) => (isStr(a[0]) && isNumeric(a[1]) ? tsArg(a, 2) ?? 'timestamp' : 'expects (unit, quantity, timestamp)'),
    impl: ([u, n, t], c, types) => {
      const ms = toMs(t, types[2], c.batchTimestampMs);
      if (ms === null) return null;
      const unit = TIMESTAMP_UNITS[(u as string).toUpperCase()];
      const k = Math.trunc(n as number);
      if (unit === 'month') return plusMonths(ms, k * MONTHS_OF[(u as string).toUpperCase()]);
      return timestampFromMicros(longAdd(microsOfTimestamp(ms), longMultiply(k, unit)));
    },
    checkLiterals: unitLiteral('timestampadd'),
    ntzOfArg: 2,
  },
  // timestampdiff(unit, start, end): whole units from start to end, truncated toward zero.
  timestampdiff: {
    min: 3, max: 3,
    type: (a) => (isStr(a[0]) ? tsArg(a, 1) ?? tsArg(a, 2) ?? 'long' : 'expects (unit, start, end)'),
    impl: ([u, s, e], c, types) => {
      const a = toMs(s, types[1], c.batchTimestampMs), b = toMs(e, types[2], c.batchTimestampMs);
      if (a === null || b === null) return null;
      const name = (u as string).toUpperCase();
      const unit = TIMESTAMP_UNITS[name];
      if (unit === 'month') return Math.trunc(wholeMonths(a, b) / MONTHS_OF[name]);
      return longDivide(longSubtract(microsOfTimestamp(b), microsOfTimestamp(a)), unit);
    },
    checkLiterals: unitLiteral('timestampdiff'),
  },
};

export const DATETIME_FUNCTIONS: Record<string, FunctionDef> = {
  ...TIMESTAMP_ARITHMETIC,
  // Spark's MakeDTInterval(days, hours, mins, secs), each 0 when left out: INTERVAL DAY TO SECOND.
  make_dt_interval: {
    min: 0, max: 4, type: (a) => nums(a) ?? 'day_time_interval',
    impl: ([d = 0, h = 0, m = 0, sec = 0]) => {
      const whole = (x: unknown) => BigInt(Math.trunc(Number(x)));
      const micros = whole(d) * MICROS_PER_DAY + whole(h) * 3_600_000_000n + whole(m) * 60_000_000n + BigInt(Math.round(Number(sec) * 1e6));
      return intervalPartsOverflow('day_time_interval', micros);
    },
  },
  // Spark's MakeYMInterval(years, months), each 0 when left out: INTERVAL YEAR TO MONTH.
  make_ym_interval: {
    min: 0, max: 2, type: (a) => nums(a) ?? 'year_month_interval',
    impl: ([y = 0, m = 0]) => intervalPartsOverflow('year_month_interval', BigInt(Math.trunc(Number(y))) * 12n + BigInt(Math.trunc(Number(m)))),
  },
  // Spark's MakeInterval(years, months, weeks, days, hours, mins, secs): see makeInterval.
  make_interval: makeInterval(),
  // Spark 4's TryMakeInterval: NULL where the parts overflow, as make_interval is with ANSI off.
  try_make_interval: makeInterval(),
  // NULL for a day that does not exist (ANSI off).
  make_date: {
    min: 3, max: 3, type: (a) => nums(a) ?? 'date',
    impl: ([y, m, d]) => {
      const [yy, mm, dd] = [y, m, d].map((x) => Math.trunc(x as number));
      return dateOf(yy, mm, dd);
    },
  },
  months_between: {
    min: 2, max: 3, type: (a) => tsArg(a, 0) ?? tsArg(a, 1) ?? (a.length < 3 || a[2] === 'boolean' || a[2] === 'null' ? 'double' : 'expects (timestamp, timestamp[, roundOff boolean])'),
    impl: ([x, y, r], c, t) => {
      const a = toMs(x, t[0], c.batchTimestampMs);
      const b = toMs(y, t[1], c.batchTimestampMs);
      return a === null || b === null ? null : monthsBetween(a, b, r !== false);
    },
  },
  // The first day after `date` that is the named day of the week; NULL for a name Spark does not know (ANSI off).
  next_day: {
    min: 2, max: 2, type: (a) => dayArg(a) ?? (isStr(a[1]) ? 'date' : 'expects (date, day of week)'),
    impl: ([d, name], _c, t) => {
      const day = toDay(d, t[0]);
      const want = DAY_NAMES[(name as string).trim().toUpperCase()];
      if (day === null || want === undefined) return null;
      const dow = new Date(day * DAY_MS).getUTCDay();
      return day + (((want - dow + 6) % 7) + 1);
    },
  },
  // 0 = Monday … 6 = Sunday.
  weekday: { min: 1, max: 1, resultIntegral: 32, type: (a) => dayArg(a) ?? 'long', impl: ([d], _c, t) => { const day = toDay(d, t[0]); return day === null ? null : (new Date(day * DAY_MS).getUTCDay() + 6) % 7; } },
  unix_date: { min: 1, max: 1, resultIntegral: 32, type: (a) => dayArg(a) ?? 'long', impl: ([d], _c, t) => toDay(d, t[0]) },
  date_from_unix_date: { min: 1, max: 1, type: (a) => (a[0] === 'long' || a[0] === 'null' ? 'date' : 'expects a number of days'), impl: ([n]) => n },
  unix_seconds: tsToLong((ms) => Math.floor(ms / 1000)),
  unix_micros: tsToLong(microsOfTimestamp),
  timestamp_micros: { min: 1, max: 1, type: (a) => (a[0] === 'long' || a[0] === 'null' ? 'timestamp' : 'expects a number of microseconds'), impl: ([n]) => timestampFromMicros(n as Long) },
  to_unix_timestamp: toUnixTimestamp,
  date_part: DATE_PART,
  datepart: DATE_PART,
  extract: DATE_PART,
  trunc: {
    min: 2, max: 2, type: (a) => dayArg(a) ?? (isStr(a[1]) ? 'date' : 'expects (date, format)'),
    impl: ([d, f], _c, t) => { const day = toDay(d, t[0]); return day === null ? null : truncDate(day, f as string); },
  },
  // The UTC instant's wall-clock time in the zone (Spark's result is that wall-clock time read as UTC).
  from_utc_timestamp: {
    min: 2, max: 2, type: (a) => tsArg(a) ?? (isStr(a[1]) ? 'timestamp' : 'expects (timestamp, time zone)'),
    impl: ([v, z], c, t) => { const ms = toMs(v, t[0], c.batchTimestampMs); return ms === null ? null : addMillis(ms, offsetAt(zoneArg('from_utc_timestamp()', z as string), Math.floor(ms))); },
    checkLiterals: zoneLiterals('from_utc_timestamp()'),
  },
  to_utc_timestamp: {
    min: 2, max: 2, type: (a) => tsArg(a) ?? (isStr(a[1]) ? 'timestamp' : 'expects (timestamp, time zone)'),
    impl: ([v, z], c, t) => { const ms = toMs(v, t[0], c.batchTimestampMs); return ms === null ? null : addMillis(ms, fromWallClock(zoneArg('to_utc_timestamp()', z as string), Math.floor(ms)) - Math.floor(ms)); },
    checkLiterals: zoneLiterals('to_utc_timestamp()'),
  },
  // Spark 3.4's convert_timezone([sourceTz, ]targetTz, sourceTs): the wall-clock time sourceTs
  // in sourceTz (the session's, UTC, when left out) shows in targetTz, a TIMESTAMP_NTZ.
  convert_timezone: {
    min: 2, max: 3, resultNTZ: true,
    type: (a) => (a.slice(0, -1).every(isStr) ? (a[a.length - 1] === 'date' ? undefined : tsArg(a, a.length - 1)) ?? 'timestamp' : 'expects ([source time zone, ]target time zone, timestamp)'),
    impl: (args, _c, t) => {
      const v = args[args.length - 1];
      const tt = t[t.length - 1];
      const local = tt === 'date' ? (v as number) * DAY_MS : toMs(v, tt);
      if (local === null) return null;
      const [source, target] = args.length === 3 ? [args[0], args[1]] : ['UTC', args[0]];
      const base = Math.floor(local);
      const instant = fromWallClock(zoneArg('convert_timezone()', source as string), base);
      return addMillis(local, instant - base + offsetAt(zoneArg('convert_timezone()', target as string), instant));
    },
    checkLiterals: (lits) => lits.slice(0, -1).map((z) => (typeof z === 'string' && zoneOf(z) === null ? badZone('convert_timezone()', z) : undefined)).find((m) => m !== undefined),
  },
  // Weir's session time zone is always UTC.
  current_timezone: { min: 0, max: 0, type: () => 'string', impl: () => 'UTC' },
  // The batch's timestamp, as current_timestamp: in UTC the local date-time is the same.
  localtimestamp: { min: 0, max: 0, type: () => 'timestamp', impl: (_a, ctx) => ctx.batchTimestampMs },
  year: dateField('year'),
  month: dateField('month'),
  day: dateField('day'),
  dayofmonth: dateField('dayofmonth'),
  hour: dateField('hour'),
  minute: dateField('minute'),
  second: dateField('second'),
  dayofweek: dateField('dayofweek'),
  quarter: dateField('quarter'),
  date_trunc: {
    min: 2, max: 2, type: (a) => str(a, 1) ?? ts(a, 1) ?? 'timestamp',
    replacement: unitLowered(DATE_TRUNC_UNITS, 'unit'),
    impl: ([unit, v]) => truncTimestamp(unit as string, v as number),
  },
  // to_timestamp(s) is CAST(s AS TIMESTAMP); with a Spark datetime pattern it parses by it.
  to_timestamp: { ...parseByPattern('to_timestamp()'), replacement: (e) => (e.args.length === 1 ? { kind: 'cast', arg: e.args[0], to: 'timestamp', pos: e.pos } : undefined) },
  // Spark 3.5's try_to_timestamp: to_timestamp's NULL where text does not parse, which to_timestamp
  // with ANSI off already gives.
  try_to_timestamp: { ...parseByPattern('try_to_timestamp()'), replacement: (e) => (e.args.length === 1 ? { kind: 'cast', arg: e.args[0], to: 'timestamp', pos: e.pos } : undefined) },
  // to_timestamp_ntz(s) is CAST(s AS TIMESTAMP_NTZ); with a pattern, the wall-clock time it parses
  // (Weir's session time zone is UTC).
  to_timestamp_ntz: {
    ...parseByPattern('to_timestamp_ntz()'), resultNTZ: true,
    replacement: (e) => (e.args.length === 1 ? { kind: 'cast', arg: e.args[0], to: 'timestamp', ntz: true, pos: e.pos } : undefined),
  },
  unix_timestamp: {
    min: 0, max: 2, type: (a) => (a.length === 0 || a[0] === 'timestamp' || a[0] === 'null' || a[0] === 'string' ? 'long' : 'expects a timestamp, or (string[, pattern])'),
    nullIntolerant: true,
    // Spark: unix_timestamp() is the current time (the batch's); a string is parsed with the pattern (default yyyy-MM-dd HH:mm:ss).
    impl: (args, ctx, types) => {
      if (args.length === 0) return Math.floor(ctx.batchTimestampMs / 1000);
      if (types[0] !== 'string') return Math.floor((args[0] as number) / 1000);
      const t = tokenizePattern((args[1] as string | undefined) ?? 'yyyy-MM-dd HH:mm:ss');
      if (typeof t === 'string') throw new RecordExpressionError(`unix_timestamp(): ${t}`, { function: 'unix_timestamp()' });
      const ms = parseDatetime('unix_timestamp()', args[0] as string, t);
      return ms === null ? null : Math.floor(ms / 1000);
    },
  },
  unix_millis: { min: 1, max: 1, type: (a) => ts(a) ?? 'long', impl: ([v]) => Math.floor(v as number) },
  timestamp_millis: { min: 1, max: 1, type: (a) => (isNumeric(a[0]) ? 'timestamp' : 'expects a number'), impl: ([v]) => v },
  // The batch's timestamp (`batchTimestampMs` from offsets/N), so a re-run batch sees the same value.
  current_timestamp: { min: 0, max: 0, type: () => 'timestamp', impl: (_a, ctx) => ctx.batchTimestampMs },
  now: { min: 0, max: 0, type: () => 'timestamp', impl: (_a, ctx) => ctx.batchTimestampMs },
  date_format: {
    min: 2, max: 2, type: (a) => tsArg(a) ?? (isStr(a[1]) ? 'string' : 'expects (timestamp, pattern)'),
    impl: ([d, p], c, t) => { const ms = toMs(d, t[0], c.batchTimestampMs); return ms === null ? null : formatWithPattern(ms, tokens('date_format()', p as string)); },
    checkLiterals: patternLiterals('date_format()', 1),
  },
  to_date: {
    min: 1, max: 2, type: (a) => (a.length === 1 ? dayArg(a) : str(a)) ?? 'date',
    impl: ([d, p], _c, t) => {
      if (p === undefined) return toDay(d, t[0]);
      const ms = parseDatetime('to_date()', d as string, tokens('to_date()', p as string));
      return ms === null ? null : dateFromTimestamp(ms);
    },
    checkLiterals: patternLiterals('to_date()', 1),
  },
  date_add: DATE_ADD,
  dateadd: DATE_ADD,
  date_sub: dayShift(-1),
  datediff: {
    min: 2, max: 2, resultIntegral: 32, type: (a) => dayArg(a, 0) ?? dayArg(a, 1) ?? 'long',
    impl: ([e, s], _c, t) => { const a = toDay(e, t[0]); const b = toDay(s, t[1]); return a === null || b === null ? null : a - b; },
  },
  add_months: {
    min: 2, max: 2, type: (a) => dayArg(a) ?? (isNumeric(a[1]) ? 'date' : 'expects (date, number of months)'),
    impl: ([d, n], _c, t) => {
      const day = toDay(d, t[0]);
      if (day === null) return null;
      const x = new Date(timestampFromDate(day));
      const months = x.getUTCMonth() + Math.trunc(n as number);
      const y = x.getUTCFullYear() + Math.floor(months / 12);
      const m = ((months % 12) + 12) % 12;
      const last = new Date(utc(y, m + 1, 0)).getUTCDate();
      return dateFromTimestamp(utc(y, m, Math.min(x.getUTCDate(), last)));
    },
  },
  last_day: { min: 1, max: 1, type: (a) => dayArg(a) ?? 'date', impl: ([d], _c, t) => { const day = toDay(d, t[0]); if (day === null) return null; const x = new Date(timestampFromDate(day)); return dateFromTimestamp(utc(x.getUTCFullYear(), x.getUTCMonth() + 1, 0)); } },
  dayofyear: { min: 1, max: 1, resultIntegral: 32, type: (a) => tsArg(a) ?? 'long', impl: ([d], _c, t) => { const ms = toMs(d, t[0]); if (ms === null) return null; const x = utcDate(ms); return Math.floor((midnight(ms) - utc(x.getUTCFullYear(), 0, 1)) / DAY_MS) + 1; } },
  weekofyear: {
    min: 1, max: 1, resultIntegral: 32, type: (a) => tsArg(a) ?? 'long',
    // ISO 8601 week number (Spark: weeks start on Monday, week 1 has more than 3 days).
    impl: ([d], _c, t) => {
      const ms = toMs(d, t[0]);
      if (ms === null) return null;
      const day = midnight(ms);
      const dow = (new Date(day).getUTCDay() + 6) % 7;
      const thursday = day + (3 - dow) * DAY_MS;
      const jan1 = utc(new Date(thursday).getUTCFullYear(), 0, 1);
      return Math.floor((thursday - jan1) / DAY_MS / 7) + 1;
    },
  },
  from_unixtime: {
    min: 1, max: 2, type: (a) => (isNumeric(a[0]) && (a.length < 2 || isStr(a[1])) ? 'string' : 'expects (seconds[, pattern])'),
    impl: ([n, p]) => formatWithPattern(Math.floor(n as number) * 1000, tokens('from_unixtime()', (p as string | undefined) ?? 'yyyy-MM-dd HH:mm:ss')),
    checkLiterals: patternLiterals('from_unixtime()', 1),
  },
  // The batch's timestamp's day (offsets/N's batchTimestampMs): stable when a batch re-runs.
  current_date: { min: 0, max: 0, type: () => 'date', impl: (_a, ctx) => dateFromTimestamp(ctx.batchTimestampMs) },
  // Spark keeps microseconds in a BIGINT: seconds past its range fail (Math.multiplyExact) rather
  // than wrap; NaN and infinities are NULL.
  timestamp_seconds: {
    min: 1, max: 1, type: (a) => nums(a) ?? 'timestamp',
    impl: ([v]) => {
      const x = v as number;
      if (!Number.isFinite(x)) return null;
      if (Math.abs(x * 1e6) >= 2 ** 63) throw new RecordExpressionError(`timestamp_seconds(): [ARITHMETIC_OVERFLOW] long overflow: ${x} seconds in microseconds do not fit a BIGINT`, { function: 'timestamp_seconds()' });
      // Rounded, not truncated as Spark's double: a DECIMAL argument arrives here as a double, and
      // Spark's exact DECIMAL path is its nearest microsecond.
      return timestampFromMicros(Math.round(x * 1e6));
    },
  },
  // make_timestamp(year, month, day, hour, min, sec[, timezone]): the wall-clock time in the
  // time zone (the session's, UTC, when left out).
  make_timestamp: {
    min: 6, max: 7,
    type: (a) => nums(a.slice(0, 6)) ?? (a.length < 7 || isStr(a[6]) ? 'timestamp' : 'expects (year, month, day, hour, min, sec[, timezone])'),
    // Spark: a day, hour and minute that exist; seconds in [0, 60], where 60 (whole) is the next minute's 0.
    impl: ([y, mo, d, h, mi, s, z]) => {
      const sec = s as number;
      if (!(sec >= 0 && sec <= 60) || (h as number) < 0 || (h as number) > 23 || (mi as number) < 0 || (mi as number) > 59) return null;
      const day = utc(y as number, (mo as number) - 1, d as number);
      const x = new Date(day);
      if (x.getUTCMonth() !== (mo as number) - 1 || x.getUTCDate() !== d) return null;
      // Spark's seconds are a DECIMAL(8,6): microseconds.
      const local = timestampOf(day + ((h as number) * 60 + (mi as number)) * 60_000, Math.round(sec * 1e6));
      if (z === undefined) return local;
      const wall = Math.floor(local);
      return addMillis(local, fromWallClock(zoneArg('make_timestamp()', z as string), wall) - wall);
    },
    checkLiterals: (lits) => (typeof lits[6] === 'string' && zoneOf(lits[6]) === null ? badZone('make_timestamp()', lits[6]) : undefined),
  },
};
DATETIME_FUNCTIONS.date_diff = DATETIME_FUNCTIONS.datediff;
// make_timestamp_ntz: the same wall-clock time, typed TIMESTAMP_NTZ by the compiler (Weir's session time zone is UTC).
DATETIME_FUNCTIONS.make_timestamp_ntz = { ...DATETIME_FUNCTIONS.make_timestamp, max: 6, resultNTZ: true };
// Spark's _ltz forms are its TIMESTAMP (with the session time zone, UTC here); curdate is Spark
// 3.4's name for current_date.
DATETIME_FUNCTIONS.to_timestamp_ltz = DATETIME_FUNCTIONS.to_timestamp;
DATETIME_FUNCTIONS.make_timestamp_ltz = DATETIME_FUNCTIONS.make_timestamp;
DATETIME_FUNCTIONS.curdate = DATETIME_FUNCTIONS.current_date;
