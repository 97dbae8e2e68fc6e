/**
 * `+`, `-`, `*` and `/` where a date, a timestamp or an ANSI interval takes part: the datetime
 * cases of Spark's ResolveBinaryArithmetic, each as the expression Spark rewrites it to:
 *
 * | operands | Spark's expression | result |
 * |---|---|---|
 * | timestamp ± day-time interval | TimeAdd | TIMESTAMP |
 * | timestamp ± year-month interval | TimestampAddYMInterval | TIMESTAMP |
 * | date ± INTERVAL DAY | DateAdd(d, ExtractANSIIntervalDays(i)) | DATE |
 * | date ± other day-time interval | TimeAdd(CAST(d AS TIMESTAMP), i) | TIMESTAMP |
 * | date ± year-month interval | DateAddYMInterval | DATE |
 * | timestamp − timestamp (a date beside a timestamp is its midnight) | SubtractTimestamps | INTERVAL DAY TO SECOND |
 * | date − date | SubtractDates | INTERVAL DAY |
 * | interval ± interval of one kind | Add, Subtract | the wider interval type |
 * | interval × number, number × interval | MultiplyDTInterval, MultiplyYMInterval | the kind's whole range |
 * | interval ÷ number | DivideDTInterval, DivideYMInterval | the kind's whole range |
 * | timestamp ± CalendarInterval | TimeAdd | TIMESTAMP |
 * | date ± CalendarInterval | DateAddInterval | DATE |
 * | CalendarInterval ± CalendarInterval | Add, Subtract | INTERVAL |
 * | CalendarInterval × number, number × CalendarInterval, CalendarInterval ÷ number (a DOUBLE) | MultiplyInterval, DivideInterval | INTERVAL |
 *
 * `interval + date` and `interval + timestamp` are the same as the other order. Values and
 * rounding are interval-utils.ts's.
 */
import type { CompiledExpr } from './function-types';
import { compiled } from './compiled-expr';
import type { TypeInfo } from './data-types';
import { bigOf, toLong, type Long } from './long';
import { isInterval, type ExprType } from './sql-values';
import {
  dateAddMonths, divideHalfUp, exactMicros, exactMonths, fullRange, intervalDividedByZero, MICROS_PER_DAY, roundHalfUp,
  timestampAddMicros, timestampAddMonths, widestFields, type IntervalFields,
} from './interval-utils';
import { pow10 } from './decimal';
import { dateFromTimestamp, timestampFromDate } from './date';
import { add, divide, multiply, negate, type CalendarInterval } from './calendar-interval';
import { microsOfTimestamp } from './timestamp-micros';

type Op = '+' | '-' | '*' | '/';
type Value = (a: unknown, b: unknown) => unknown;

const DAY_ONLY = (f: IntervalFields | undefined) => f !== undefined && f.start === 0 && f.end === 0;
const isDatetime = (t: ExprType) => t === 'date' || t === 'timestamp';
const isNumber = (t: ExprType) => t === 'long' || t === 'double' || t === 'decimal';

/** `f` of `c`'s non-NULL values (NULL for NULL). */
export function nullSafeUnary(result: TypeInfo, c: CompiledExpr, f: (v: unknown) => unknown): CompiledExpr {
  return compiled(result, () => { const get = c.eval; return (r, x) => { const v = get(r, x); return v === null ? null : f(v); }; });
}

/** `l op r` of two non-NULL operands, NULL when either is NULL (the compiler's arithmetic uses it too). */
export function nullSafeBinary(result: TypeInfo, l: CompiledExpr, r: CompiledExpr, f: Value): CompiledExpr {
  return compiled(result, () => {
    const le = l.eval;
    const re = r.eval;
    return (row, c) => {
      const a = le(row, c);
      if (a === null) return null;
      const b = re(row, c);
      return b === null ? null : f(a, b);
    };
  });
}

const asTimestamp = (c: CompiledExpr): ((v: unknown) => unknown) => (c.type === 'date' ? (v) => timestampFromDate(v as number) : (v) => v);

// A safe integer's negation is one (and within BIGINT): no bigint per row for `t - INTERVAL …`.
const negateMicros = (v: unknown): Long => (Number.isSafeInteger(v) ? -(v as number) + 0 : exactMicros(-bigOf(v as Long)));
const negateMonths = (v: unknown): number => exactMonths(-(v as number));

/** `-i` of an interval's value, ARITHMETIC_OVERFLOW past its type's range. */
export const negateInterval = (kind: 'day_time_interval' | 'year_month_interval'): ((v: unknown) => unknown) => (kind === 'day_time_interval' ? negateMicros : negateMonths);

/**
 * The compiled `l op r` when a date, a timestamp or an interval takes part in a way Spark defines,
 * undefined otherwise (the caller's numeric rules, and its errors, then apply).
 */
export function datetimeArithmetic(op: Op, l: CompiledExpr, r: CompiledExpr): CompiledExpr | undefined {
  const calendar = calendarIntervalArithmetic(op, l, r);
  if (calendar) return calendar;
  if (op === '+' || op === '-') {
    // interval + datetime is datetime + interval.
    if (op === '+' && isInterval(l.type) && isDatetime(r.type)) return datetimeArithmetic('+', r, l);
    if (isDatetime(l.type) && isInterval(r.type)) return addInterval(op, l, r);
    if (op === '-' && isDatetime(l.type) && isDatetime(r.type)) {
      if (l.type === 'date' && r.type === 'date') {
        return nullSafeBinary({ type: 'day_time_interval', interval: { start: 0, end: 0 } }, l, r, (a, b) => exactMicros(BigInt((a as number) - (b as number)) * MICROS_PER_DAY));
      }
      const la = asTimestamp(l);
      const ra = asTimestamp(r);
      return nullSafeBinary({ type: 'day_time_interval', interval: fullRange('day_time_interval') }, l, r, (a, b) => exactMicros(bigOf(microsOfTimestamp(la(a) as number)) - bigOf(microsOfTimestamp(ra(b) as number))));
    }
    if (isInterval(l.type) && l.type === r.type) {
      const interval = widestFields(l.type, [l, r]);
      const sign = op === '+' ? 1n : -1n;
      return l.type === 'day_time_interval'
        ? nullSafeBinary({ type: l.type, interval }, l, r, (a, b) => exactMicros(bigOf(a as Long) + sign * bigOf(b as Long)))
        : nullSafeBinary({ type: l.type, interval }, l, r, (a, b) => exactMonths((a as number) + Number(sign) * (b as number)));
    }
    return undefined;
  }
  if (op === '*' && isNumber(l.type) && isInterval(r.type)) return scaleInterval('*', r, l);
  if (isInterval(l.type) && isNumber(r.type)) return scaleInterval(op, l, r);
  return undefined;
}

/** `datetime ± interval`. */
function addInterval(op: '+' | '-', d: CompiledExpr, i: CompiledExpr): CompiledExpr {
  const minus = op === '-';
  if (i.type === 'year_month_interval') {
    const months = (v: unknown) => (minus ? negateMonths(v) : (v as number));
    return d.type === 'date'
      ? nullSafeBinary({ type: 'date' }, d, i, (a, b) => dateAddMonths(a as number, months(b)))
      : nullSafeBinary({ type: 'timestamp', ...ntzOf(d) }, d, i, (a, b) => timestampAddMonths(a as number, months(b)));
  }
  const micros = (v: unknown) => (minus ? negateMicros(v) : (v as Long));
  if (d.type === 'date' && DAY_ONLY(i.interval)) {
    return nullSafeBinary({ type: 'date' }, d, i, (a, b) => (a as number) + Number(bigOf(micros(b)) / MICROS_PER_DAY));
  }
  const ts = asTimestamp(d);
  return nullSafeBinary({ type: 'timestamp', ...ntzOf(d) }, d, i, (a, b) => timestampAddMicros(ts(a) as number, micros(b)));
}

/** A TIMESTAMP_NTZ plus an interval stays one (Spark's TimeAdd and TimestampAddYMInterval keep the operand's type). */
const ntzOf = (d: CompiledExpr): { ntz?: true } => (d.ntz ? { ntz: true } : {});

/** `interval * number` and `interval / number`: Spark's Multiply/Divide(DT|YM)Interval. */
function scaleInterval(op: Op, i: CompiledExpr, n: CompiledExpr): CompiledExpr | undefined {
  if (op !== '*' && op !== '/') return undefined;
  const dayTime = i.type === 'day_time_interval';
  const exact = dayTime ? exactMicros : exactMonths;
  const big = (v: unknown) => (dayTime ? bigOf(v as Long) : BigInt(v as number));
  const type = { type: i.type, interval: fullRange(i.type as 'day_time_interval') };
  if (n.type === 'double') {
    return nullSafeBinary(type, i, n, (a, b) => {
      const x = b as number;
      if (op === '/' && x === 0) intervalDividedByZero();
      const v = roundHalfUp(op === '*' ? Number(a) * x : Number(a) / x);
      return exact(Number.isFinite(v) ? BigInt(v) : 2n ** 64n);
    });
  }
  if (n.type === 'decimal') {
    const scale = pow10(n.decimal!.scale);
    return nullSafeBinary(type, i, n, (a, b) =>
      exact(op === '*' ? divideHalfUp(big(a) * (b as bigint), scale) : divideHalfUp(big(a) * scale, b as bigint)),
    );
  }
  return nullSafeBinary(type, i, n, (a, b) => exact(op === '*' ? big(a) * bigOf(b as Long) : divideHalfUp(big(a), bigOf(b as Long))));
}

/** The CalendarInterval rows of the table above; the number scaling one is a DOUBLE (the compiler casts it). */
function calendarIntervalArithmetic(op: Op, l: CompiledExpr, r: CompiledExpr): CompiledExpr | undefined {
  const isCalendar = (c: CompiledExpr) => c.type === 'calendar_interval';
  if (!isCalendar(l) && !isCalendar(r)) return undefined;
  const type = { type: 'calendar_interval' as const };
  if (op === '+' || op === '-') {
    if (op === '+' && isCalendar(l) && isDatetime(r.type)) return calendarIntervalArithmetic('+', r, l);
    if (isDatetime(l.type) && isCalendar(r)) {
      const sign = op === '-' ? (i: CalendarInterval) => negate(i) : (i: CalendarInterval) => i;
      return l.type === 'date'
        ? nullSafeBinary({ type: 'date' }, l, r, (a, b) => dateAddInterval(a as number, sign(b as CalendarInterval)))
        : nullSafeBinary({ type: 'timestamp', ...ntzOf(l) }, l, r, (a, b) => timestampAddInterval(a as number, sign(b as CalendarInterval)));
    }
    if (isCalendar(l) && isCalendar(r)) return nullSafeBinary(type, l, r, (a, b) => add(a as CalendarInterval, b as CalendarInterval, op === '-' ? -1 : 1));
    return undefined;
  }
  if (op === '*' && isCalendar(r) && l.type === 'double') return nullSafeBinary(type, r, l, (a, b) => multiply(a as CalendarInterval, b as number));
  if (isCalendar(l) && r.type === 'double') {
    if (op === '*') return nullSafeBinary(type, l, r, (a, b) => multiply(a as CalendarInterval, b as number));
    if (op === '/') return nullSafeBinary(type, l, r, (a, b) => divide(a as CalendarInterval, b as number));
  }
  return undefined;
}

/**
 * Spark's DateTimeUtils.timestampAddInterval in UTC: plus the months (plusMonths: the day of
 * month kept, or the new month's last day), then the days (of 24 hours in UTC), then the
 * microseconds.
 */
export function timestampAddInterval(ts: number, i: CalendarInterval): number {
  const months = i.months === 0 ? ts : timestampAddMonths(ts, i.months);
  return timestampAddMicros(months, toLong(BigInt(i.days) * MICROS_PER_DAY + BigInt(i.micros)));
}

/**
 * Spark's DateAddInterval with ANSI off: a date plus the months and the days (dateAddInterval)
 * when the interval has no microseconds, else the date's midnight plus the interval, cut back
 * to its day.
 */
function dateAddInterval(days: number, i: CalendarInterval): number {
  if (BigInt(i.micros) === 0n) return dateAddMonths(days, i.months) + i.days;
  return dateFromTimestamp(timestampAddInterval(timestampFromDate(days), i));
}
