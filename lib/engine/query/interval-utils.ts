/**
 * Spark's ANSI interval values (IntervalUtils), as Spark 3.2+ has them with
 * `spark.sql.legacy.interval.enabled=false`:
 * - a day-time interval (DayTimeIntervalType) is a number of microseconds, kept as a BIGINT's
 *   value (long.ts: a number while it is a safe integer, a bigint beyond);
 * - a year-month interval (YearMonthIntervalType) is a number of months (an INT).
 * The type's start and end fields (DAY…SECOND, YEAR…MONTH) decide only how a value prints and
 * what its unit range is: `INTERVAL '1 02:03' DAY TO MINUTE`.
 *
 * Arithmetic follows Spark's: a sum, product or quotient that does not fit raises
 * ARITHMETIC_OVERFLOW whatever the ANSI mode (Math.multiplyExact in Spark), a zero divisor
 * raises INTERVAL_DIVIDED_BY_ZERO, and a fractional result rounds half up (away from zero).
 * A timestamp plus a day-time interval is computed in microseconds, exactly (timestamp-micros.ts).
 */
import { RecordExpressionError } from '../errors';
import { bigOf, longAdd, LONG_MAX, LONG_MIN, toLong, type Long } from './long';
import { daysInMonth } from './date';
import { microsOfTimestamp, splitTimestamp, timestampFromMicros, timestampOf } from './timestamp-micros';

export type IntervalKind = 'day_time_interval' | 'year_month_interval';

/** The unit range: DAY 0, HOUR 1, MINUTE 2, SECOND 3; YEAR 0, MONTH 1 (Spark's field bytes). */
export interface IntervalFields {
  start: number;
  end: number;
}

const DAY_TIME_FIELD_NAMES = ['DAY', 'HOUR', 'MINUTE', 'SECOND'];
const YEAR_MONTH_FIELD_NAMES = ['YEAR', 'MONTH'];

const MICROS_PER_SECOND = 1_000_000n;
const MICROS_PER_MINUTE = 60n * MICROS_PER_SECOND;
const MICROS_PER_HOUR = 60n * MICROS_PER_MINUTE;
export const MICROS_PER_DAY = 24n * MICROS_PER_HOUR;
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** Spark's default types: DayTimeIntervalType() is DAY TO SECOND, YearMonthIntervalType() YEAR TO MONTH. */
export const fullRange = (kind: IntervalKind): IntervalFields => ({ start: 0, end: kind === 'day_time_interval' ? 3 : 1 });

/** The unit range both operands fit in (Spark's wider interval type). */
const widerFields = (a: IntervalFields, b: IntervalFields): IntervalFields => ({ start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) });

/** The unit range all of `values` (one or more intervals of `kind`) fit in; one that names none has the kind's full range. */
export const widestFields = (kind: IntervalKind, values: readonly { interval?: IntervalFields }[]): IntervalFields =>
  values.map((v) => v.interval ?? fullRange(kind)).reduce(widerFields);

/** `INTERVAL DAY TO SECOND`, `INTERVAL YEAR`: the type in Spark's DDL. */
export function intervalTypeText(kind: IntervalKind, f: IntervalFields = fullRange(kind)): string {
  const names = kind === 'day_time_interval' ? DAY_TIME_FIELD_NAMES : YEAR_MONTH_FIELD_NAMES;
  return f.start === f.end ? `INTERVAL ${names[f.start]}` : `INTERVAL ${names[f.start]} TO ${names[f.end]}`;
}

function overflow(what: string): never {
  throw new RecordExpressionError(`[ARITHMETIC_OVERFLOW] ${what} overflow. Use 'try_add', 'try_subtract' or 'try_multiply' to tolerate overflow and return NULL instead.`, { errorClass: 'ARITHMETIC_OVERFLOW' });
}

/**
 * Spark's INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION, of make_dt_interval and
 * make_ym_interval: a value past the interval type's range (a BIGINT of microseconds, an INT of months).
 */
export function intervalPartsOverflow(kind: IntervalKind, v: bigint): Long {
  const ok = kind === 'day_time_interval' ? v >= LONG_MIN && v <= LONG_MAX : v >= INT_MIN && v <= INT_MAX;
  if (ok) return kind === 'day_time_interval' ? toLong(v) : Number(v);
  throw new RecordExpressionError(
    '[INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION] Integer overflow while operating with intervals. Try devising appropriate values for the interval parameters.',
    { errorClass: 'INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION' },
  );
}

export function intervalDividedByZero(): never {
  throw new RecordExpressionError('[INTERVAL_DIVIDED_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead.', { errorClass: 'INTERVAL_DIVIDED_BY_ZERO' });
}

/** A day-time interval's microseconds from an exact result, ARITHMETIC_OVERFLOW past a BIGINT. */
export function exactMicros(b: bigint): Long {
  if (b < LONG_MIN || b > LONG_MAX) overflow('long');
  return toLong(b);
}

/** A year-month interval's months from an exact result, ARITHMETIC_OVERFLOW past an INT. */
export function exactMonths(n: number | bigint): number {
  const v = Number(n);
  if (v < INT_MIN || v > INT_MAX) overflow('integer');
  return v;
}

/** `n / d` rounded half away from zero (Java's RoundingMode.HALF_UP), for bigints. */
export function divideHalfUp(n: bigint, d: bigint): bigint {
  if (d === 0n) intervalDividedByZero();
  const q = n / d;
  const r = n % d;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice < (d < 0n ? -d : d)) return q;
  return (n < 0n) !== (d < 0n) ? q - 1n : q + 1n;
}

/** A double rounded half away from zero (Guava's DoubleMath.roundToLong(x, HALF_UP)). */
export function roundHalfUp(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/**
 * Spark's ANSI string of a day-time interval (IntervalUtils.toDayTimeIntervalString):
 * `INTERVAL '1 02:03:04.5' DAY TO SECOND`. Units below the end field are dropped.
 */
export function formatDayTimeInterval(micros: Long, f: IntervalFields): string {
  const from = DAY_TIME_FIELD_NAMES[f.start];
  const postfix = f.start === f.end ? `' ${from}` : `' ${from} TO ${DAY_TIME_FIELD_NAMES[f.end]}`;
  let rest = bigOf(micros);
  const sign = rest < 0n ? '-' : '';
  if (rest < 0n) rest = -rest;
  const two = (n: bigint) => n.toString().padStart(2, '0');
  const seconds = (n: bigint) => {
    const whole = n / MICROS_PER_SECOND;
    const frac = (n % MICROS_PER_SECOND).toString().padStart(6, '0').replace(/0+$/, '');
    return `${two(whole)}${frac ? `.${frac}` : ''}`;
  };
  let text = sign;
  const units = [MICROS_PER_DAY, MICROS_PER_HOUR, MICROS_PER_MINUTE];
  if (f.start === 3) {
    text += seconds(rest);
  } else {
    const first = rest / units[f.start];
    rest %= units[f.start];
    text += f.start === 0 ? first.toString() : two(first);
    for (let field = f.start + 1; field <= f.end; field++) {
      if (field === 3) {
        text += `:${seconds(rest)}`;
      } else {
        text += `${field === 1 ? ' ' : ':'}${two(rest / units[field])}`;
        rest %= units[field];
      }
    }
  }
  return `INTERVAL '${text}${postfix}`;
}

/** Spark's ANSI string of a year-month interval: `INTERVAL '1-2' YEAR TO MONTH`. */
function formatYearMonthInterval(months: number, f: IntervalFields): string {
  const sign = months < 0 ? '-' : '';
  const abs = Math.abs(months);
  const from = YEAR_MONTH_FIELD_NAMES[f.start];
  if (f.start === f.end) return `INTERVAL '${sign}${f.start === 0 ? Math.trunc(abs / 12) : abs}' ${from}`;
  return `INTERVAL '${sign}${Math.trunc(abs / 12)}-${abs % 12}' YEAR TO MONTH`;
}

/** An interval's Spark string, by its kind. */
export function formatInterval(kind: IntervalKind, v: unknown, f: IntervalFields): string {
  return kind === 'day_time_interval' ? formatDayTimeInterval(v as Long, f) : formatYearMonthInterval(v as number, f);
}


/**
 * A timestamp plus `months`, as java.time's plusMonths: the day of month is kept unless the new
 * month is shorter, then it is the month's last day (Jan 31 + 1 month is Feb 28 or 29); the time
 * of day (microseconds too) is kept.
 */
export function timestampAddMonths(v: number, months: number): number {
  const [ms, micros] = splitTimestamp(v);
  const d = new Date(ms);
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const y = Math.floor(total / 12);
  const m = total - y * 12;
  const day = Math.min(d.getUTCDate(), daysInMonth(y, m));
  const r = new Date(ms);
  r.setUTCFullYear(y, m, day);
  return timestampOf(r.getTime(), micros);
}

/** A date (days since 1970-01-01) plus `months`, as LocalDate.plusMonths. */
export function dateAddMonths(days: number, months: number): number {
  return Math.round(timestampAddMonths(days * 86_400_000, months) / 86_400_000);
}

/** A timestamp plus a day-time interval (µs), exact in microseconds (Spark's TimeAdd). */
export function timestampAddMicros(v: number, micros: Long): number {
  return timestampFromMicros(longAdd(microsOfTimestamp(v), micros));
}

/**
 * Microseconds per day-time field (DAY … SECOND), and the top of each field after the first:
 * Spark's toDTInterval checks HOUR 0-23 and MINUTE 0-59 but reads SECOND's two digits whole.
 */
const FIELD_MICROS = [MICROS_PER_DAY, MICROS_PER_HOUR, MICROS_PER_MINUTE, MICROS_PER_SECOND];
const DAY_TIME_LIMITS = [0n, 24n, 60n, 100n];

/** One unit of the interval's end field, in its value's unit (months or microseconds). */
function endUnit(kind: IntervalKind, end: number): bigint {
  return kind === 'year_month_interval' ? (end === 0 ? 12n : 1n) : FIELD_MICROS[end];
}

/** Spark's CAST_OVERFLOW (raised whatever the ANSI mode by the casts between intervals and numbers). */
export function castOverflow(value: string, from: string, to: string): never {
  throw new RecordExpressionError(
    `[CAST_OVERFLOW] The value ${value} of the type "${from}" cannot be cast to "${to}" due to an overflow. Use \`try_cast\` to tolerate overflow and return NULL instead. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.`,
    { errorClass: 'CAST_OVERFLOW' },
  );
}

/** Spark's NUMERIC_VALUE_OUT_OF_RANGE of an interval cast to a DECIMAL too narrow for it. */
export function decimalOutOfRange(value: string, precision: number, scale: number): never {
  throw new RecordExpressionError(
    `[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION] ${value} cannot be represented as Decimal(${precision}, ${scale}). If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error, and return NULL instead.`,
    { errorClass: 'NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION' },
  );
}

/**
 * Spark's Cast of an ANSI interval to a number (IntervalUtils.yearMonthIntervalToInt,
 * dayTimeIntervalToLong …): the count of its end field's units, truncated; for a DECIMAL, an
 * interval ending in SECOND keeps its microseconds (unscaled, at scale 6).
 */
export function intervalToNumber(kind: IntervalKind, f: IntervalFields, v: Long, decimal: boolean): { unscaled: bigint; scale: number } {
  if (decimal && kind === 'day_time_interval' && f.end === 3) return { unscaled: bigOf(v), scale: 6 };
  return { unscaled: bigOf(v) / endUnit(kind, f.end), scale: 0 };
}

/**
 * Spark's Cast of a number to an ANSI interval (IntervalUtils.longToYearMonthInterval,
 * decimalToDayTimeInterval …): that many of its end field's units, a decimal's rounded half up
 * to a month or a microsecond; undefined past the interval's range (an INT of months, a BIGINT
 * of microseconds), which is Spark's CAST_OVERFLOW. A decimal keeps its fraction of the end
 * field's unit even where that is not SECOND (80.654321BD AS INTERVAL HOUR TO MINUTE holds 1 h
 * 20 min 39.259260 s): a print of the type shows its fields only, but arithmetic reads it all.
 */
export function numberToInterval(kind: IntervalKind, f: IntervalFields, unscaled: bigint, scale: number): Long | undefined {
  const unit = endUnit(kind, f.end);
  const ym = kind === 'year_month_interval';
  // A BIGINT of months first fits an INT, as Spark's longToYearMonthInterval checks.
  if (ym && scale === 0 && (unscaled < INT_MIN || unscaled > INT_MAX)) return undefined;
  const v = divideHalfUp(unscaled * unit, 10n ** BigInt(scale));
  if (ym ? v < INT_MIN || v > INT_MAX : v < LONG_MIN || v > LONG_MAX) return undefined;
  return ym ? Number(v) : toLong(v);
}

/**
 * Spark's CAST(text AS <interval type>) (IntervalUtils.castStringToDTInterval and
 * castStringToYMInterval), which its JSON and CSV readers apply to an interval column's text:
 * the type's own form (`1 02:03:04.5` for DAY TO SECOND, `1-2` for YEAR TO MONTH, `3` for HOUR),
 * or Spark's ANSI string of that type (`INTERVAL '1 02:03:04.5' DAY TO SECOND`, the sign inside
 * the quotes or before them). A field after the first has one or two digits, HOUR up to 23,
 * MINUTE up to 59, MONTH up to 11 (SECOND up to 99, as Spark's toDTInterval reads it); a
 * fraction of a second keeps microseconds (one to nine digits, truncated). Null for any other text, another type's units, or a value past the type's
 * range (a BIGINT of microseconds, an INT of months): the caller makes that a bad record.
 */
export function parseInterval(text: string, kind: IntervalKind, f: IntervalFields): Long | null {
  const names = kind === 'day_time_interval' ? DAY_TIME_FIELD_NAMES : YEAR_MONTH_FIELD_NAMES;
  let body = text.trim();
  let negative = false;
  const literal = /^INTERVAL\s+([+-])?'([^']*)'\s+([A-Za-z]+)(?:\s+TO\s+([A-Za-z]+))?$/i.exec(body);
  if (literal) {
    const [, outer, inner, from, to = from] = literal;
    if (from.toUpperCase() !== names[f.start] || to.toUpperCase() !== names[f.end]) return null;
    negative = outer === '-';
    body = inner;
  }
  const m = /^([+-])?(\d+)((?:[ :-]\d+)*)(?:\.(\d{1,9}))?$/.exec(body);
  if (!m) return null;
  if (m[1] === '-') negative = !negative;
  const parts = [m[2], ...(m[3].match(/[ :-]\d+/g) ?? [])];
  if (parts.length !== f.end - f.start + 1) return null;
  // The fraction belongs to SECOND only.
  if (m[4] !== undefined && (kind !== 'day_time_interval' || f.end !== 3)) return null;
  let total = 0n;
  for (let i = 0; i < parts.length; i++) {
    const field = f.start + i;
    const sep = i === 0 ? '' : parts[i][0];
    const digits = i === 0 ? parts[i] : parts[i].slice(1);
    if (i > 0 && (digits.length > 2 || sep !== (kind === 'year_month_interval' ? '-' : field === 1 ? ' ' : ':'))) return null;
    const v = BigInt(digits);
    if (kind === 'year_month_interval') {
      if (i > 0 && v >= 12n) return null;
      total += field === 0 ? v * 12n : v;
    } else {
      if (i > 0 && v >= DAY_TIME_LIMITS[field]) return null;
      total += v * FIELD_MICROS[field];
    }
  }
  if (m[4]) total += BigInt(m[4].padEnd(9, '0')) / 1000n;
  if (negative) total = -total;
  if (kind === 'year_month_interval') return total < BigInt(INT_MIN) || total > BigInt(INT_MAX) ? null : Number(total);
  return total < LONG_MIN || total > LONG_MAX ? null : toLong(total);
}

/**
 * Spark's CAST from one interval type to another of its family (IntervalUtils.durationToMicros
 * and periodToMonths with the target's end field): the value cut to the target's last field,
 * toward zero (`INTERVAL '1 02:03' DAY TO MINUTE` as INTERVAL DAY is 1 day, `'-1-5'` YEAR TO
 * MONTH as INTERVAL YEAR -1 year); a last field of SECOND or MONTH keeps it whole.
 */
export function castIntervalFields(kind: IntervalKind, end: number): (v: Long) => Long {
  const unit = kind === 'year_month_interval' ? (end === 0 ? 12n : 1n) : end < 3 ? FIELD_MICROS[end] : 1n;
  if (unit === 1n) return (v) => v;
  const n = Number(unit);
  return (v) => (typeof v === 'number' ? v - (v % n) : toLong(v - (v % unit)));
}

/**
 * Spark's CAST(text AS <interval type>): parseInterval's value; other text fails the batch, as
 * Spark's Cast raises IllegalArgumentException whatever the ANSI mode.
 */
export function castStringToInterval(text: string, kind: IntervalKind, f: IntervalFields): Long {
  const v = parseInterval(text, kind, f);
  if (v !== null) return v;
  throw new RecordExpressionError(
    `Interval string does not match the form of ${intervalTypeText(kind, f)} (${intervalForms(kind, f)}) when cast: '${text}'. Fix the text, or read it as a STRING.`,
    { function: `CAST AS ${intervalTypeText(kind, f)}` },
  );
}

/** The two forms parseInterval reads, by example: `'1 02:03:04' or INTERVAL '1 02:03:04' DAY TO SECOND`. */
export function intervalForms(kind: IntervalKind, f: IntervalFields): string {
  const example = formatInterval(kind, kind === 'day_time_interval' ? 93_784_000_000 : 14, f);
  return `'${example.slice(example.indexOf("'") + 1, example.lastIndexOf("'"))}' or ${example}`;
}
