/**
 * Value semantics shared by the expression compiler and its functions: casts, rendering, and
 * Spark-like (non-ANSI) conversions where a bad conversion yields NULL instead of failing.
 * Timestamps are epoch milliseconds with the microseconds as their fraction, always UTC
 * (timestamp-micros.ts); dates are days since 1970-01-01 (date.ts).
 */
import {
  decimalFromDouble, decimalFromLong, decimalToDouble, decimalToLong, formatDecimal, parseDecimal, pow10, toPrecision, type DecimalType,
} from './decimal';
import { formatTimestamp, microsOfTimestamp, timestampFromMicros } from './timestamp-micros';
import { dateFromTimestamp, formatDate, parseDate, timestampFromDate } from './date';
import type { SqlType } from './expression';
import { bigOf, longFromDouble, parseLong, toLong, wrapToWidth, type IntegralBits, type Long } from './long';
import { parseTimestampLiteral } from './expression-builder';
import { formatInterval, fullRange } from './interval-utils';
import { safeStringToInterval, toMultiUnitsString, type CalendarInterval } from './calendar-interval';

/**
 * `struct`: a struct value (its fields travel beside the type: CompiledExpr.fields);
 * `decimal`: an unscaled bigint (its precision and scale travel beside it: CompiledExpr.decimal).
 */
export type ExprType = SqlType | 'struct' | 'array' | 'map' | 'null';

export const isInterval = (t: ExprType): t is 'day_time_interval' | 'year_month_interval' => t === 'day_time_interval' || t === 'year_month_interval';

/** The number types that functions take as JavaScript numbers (a decimal is converted first). */
export const isNumeric = (t: ExprType) => t === 'long' || t === 'double' || t === 'null';


/** Spark's CAST(double AS TIMESTAMP): the seconds' microseconds truncated toward zero; NaN and infinities NULL. */
function timestampFromSeconds(seconds: number): number | null {
  if (!Number.isFinite(seconds)) return null;
  return timestampFromMicros(longFromDouble(seconds * 1e6));
}

/**
 * A BINARY's text as Spark 4 writes it where no binary style applies (SparkStringUtils.getHexString,
 * ToStringBase's default binary formatter): its bytes in upper-case hex, spaced, in brackets
 * (`[45 61 73]`).
 */
export function binaryHexText(v: Uint8Array): string {
  return `[${[...v].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ')}]`;
}

/**
 * A DOUBLE's text as Spark's CAST gives it (Java's Double.toString): the shortest digits that
 * read back as the value, plain from 10^-3 up to 10^7 with at least one fractional digit
 * (`100.0`, `0.001`), otherwise computerized scientific notation (`1.0E7`, `1.5E10`, `1.0E-5`).
 */
export function formatDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e7) return Number.isInteger(v) ? `${v}.0` : String(v);
  const [mantissa, exp] = a.toExponential().split('e');
  return `${v < 0 ? '-' : ''}${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exp)}`;
}

/**
 * NaN and the infinities where Spark's readers take them for a DOUBLE or FLOAT: its JSON reader
 * (allowNonNumericNumbers, on by default) the strings its writer gives them ("NaN", "Infinity",
 * "-Infinity", Jackson's QUOTE_NON_NUMERIC_NUMBERS) and "+INF", "-INF", "+Infinity"; its CSV
 * reader its nanValue, positiveInf and negativeInf defaults ("NaN", "Inf", "-Inf") and what
 * Java's parseDouble reads (the writer's Double.toString text among them).
 */
const JSON_NON_FINITE = new Map([['NaN', NaN], ['Infinity', Infinity], ['+Infinity', Infinity], ['+INF', Infinity], ['-Infinity', -Infinity], ['-INF', -Infinity]]);
const CSV_NON_FINITE = new Map([
  ['NaN', NaN], ['+NaN', NaN], ['-NaN', NaN], ['Inf', Infinity], ['-Inf', -Infinity], ['Infinity', Infinity], ['+Infinity', Infinity], ['-Infinity', -Infinity],
]);
export const nonFiniteDouble = (text: string, format: 'json' | 'csv'): number | undefined => (format === 'json' ? JSON_NON_FINITE : CSV_NON_FINITE).get(text);

/**
 * CAST with ANSI off: NULL when the value does not convert. `fromDecimal`/`toDecimal` are the
 * decimal types when `from`/`to` is `decimal` (a decimal that does not fit its type is NULL).
 */
/**
 * A string as a DOUBLE, as Spark's non-ANSI cast: Java's Double.parseDouble of the trimmed text
 * (a decimal number with an optional exponent and a d/f suffix, or [+-]NaN and [+-]Infinity
 * exactly so), else its special literals in any case (Cast.processFloatingPointSpecialLiterals:
 * inf, +inf, infinity, +infinity, -inf, -infinity, nan), else NULL.
 */
function doubleFromString(text: string): number | null {
  const s = text.trim();
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[dDfF]?$/.exec(s);
  if (m) return Number(m[1]);
  if (/^[+-]?(?:NaN|Infinity)$/.test(s)) return Number(s);
  const special = s.toLowerCase();
  if (['inf', '+inf', 'infinity', '+infinity'].includes(special)) return Infinity;
  if (['-inf', '-infinity'].includes(special)) return -Infinity;
  return special === 'nan' ? NaN : null;
}

export function castValue(v: unknown, from: ExprType, to: SqlType, fromDecimal?: DecimalType, toDecimal?: DecimalType): unknown {
  if (v === null || v === undefined) return null;
  if (from === 'decimal') return castDecimal(v as bigint, fromDecimal!.scale, to, toDecimal);
  if (from === to) return v;
  // Spark casts a date only to and from strings and timestamps (canCast refuses the rest).
  if (from === 'date') return to === 'string' ? formatDate(v as number) : to === 'timestamp' ? timestampFromDate(v as number) : null;
  switch (to) {
    case 'date':
      if (from === 'timestamp') return dateFromTimestamp(v as number);
      return from === 'string' ? parseDate(String(v)) : null;
    case 'decimal': {
      const t = toDecimal!;
      if (from === 'long') return decimalFromLong(v as Long, t);
      if (from === 'double') return decimalFromDouble(v as number, t);
      if (from === 'boolean') return decimalFromLong(v ? 1 : 0, t);
      // Spark: the microseconds as seconds, DECIMAL(…, 6) rounded half up to the type.
      if (from === 'timestamp') return toPrecision(bigOf(microsOfTimestamp(v as number)), 6, t);
      return parseDecimal(String(v), t);
    }
    case 'binary':
      // Spark: a string's UTF-8 bytes; nothing else casts to binary (canCast refuses it).
      return from === 'string' ? Buffer.from(String(v), 'utf8') : null;
    case 'string':
      // Spark decodes binary as UTF-8 (malformed bytes become U+FFFD).
      if (from === 'binary') return Buffer.from(v as Uint8Array).toString('utf8');
      if (from === 'timestamp') return formatTimestamp(v as number);
      if (from === 'double') return formatDouble(v as number);
      // Without its unit range (which the compiler passes where it knows it): the whole range.
      if (isInterval(from)) return formatInterval(from, v, fullRange(from));
      if (from === 'calendar_interval') return toMultiUnitsString(v as CalendarInterval);
      return String(v);
    case 'long': {
      if (from === 'boolean') return v ? 1 : 0;
      if (from === 'timestamp') return Math.floor((v as number) / 1000);
      if (from === 'double') return longFromDouble(v as number);
      return parseLong(String(v));
    }
    case 'double': {
      if (from === 'boolean') return v ? 1 : 0;
      if (from === 'timestamp') return Number(microsOfTimestamp(v as number)) / 1e6;
      if (from === 'long') return Number(v);
      return doubleFromString(String(v));
    }
    case 'boolean': {
      if (from === 'long' || from === 'double') return Number(v) !== 0;
      if (from === 'timestamp') return null;
      const s = String(v).trim().toLowerCase();
      if (['true', 't', 'yes', 'y', '1'].includes(s)) return true;
      if (['false', 'f', 'no', 'n', '0'].includes(s)) return false;
      return null;
    }
    case 'timestamp':
      if (from === 'long') return Number(v) * 1000;
      if (from === 'double') return timestampFromSeconds(v as number);
      if (from === 'string') return parseTimestampLiteral(String(v));
      return null;
    // Nothing else casts to an interval (canCast refuses it).
    case 'day_time_interval': case 'year_month_interval':
      return null;
    // Spark's Cast to CalendarIntervalType, whatever the ANSI mode: NULL for text it cannot read.
    case 'calendar_interval':
      return from === 'string' ? safeStringToInterval(String(v)) : null;
    // The compiler casts to and from a VARIANT itself (variant-casts.ts).
    case 'variant':
      return null;
  }
}

/**
 * Spark's CAST(x AS INT | SMALLINT | TINYINT) with ANSI off, as a BIGINT value of `bits`' range:
 * text out of range is NULL; a double is truncated and saturated at INT's bounds (the JVM's
 * `(int) d`), then narrowed; any other integer is narrowed by keeping its low bits (Java's
 * narrowing: CAST(2147483648 AS INT) is -2147483648).
 */
export function castIntegral(v: unknown, from: ExprType, bits: IntegralBits, fromDecimal?: DecimalType): number | null {
  if (v === null || v === undefined) return null;
  if (from === 'string') {
    const l = parseLong(String(v));
    if (l === null) return null;
    const n = Number(l);
    return n < -(2 ** (bits - 1)) || n >= 2 ** (bits - 1) ? null : n;
  }
  if (from === 'double') {
    const d = v as number;
    return Number.isNaN(d) ? 0 : wrapToWidth(bits, Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(d)))) as number;
  }
  const l = castValue(v, from, 'long', fromDecimal) as Long | null;
  return l === null ? null : wrapToWidth(bits, l) as number;
}

function castDecimal(v: bigint, scale: number, to: SqlType, toDecimal?: DecimalType): unknown {
  switch (to) {
    case 'decimal': return toPrecision(v, scale, toDecimal!);
    case 'string': return formatDecimal(v, scale);
    case 'long': return decimalToLong(v, scale);
    case 'double': return decimalToDouble(v, scale);
    case 'boolean': return v !== 0n;
    // Spark: the seconds' microseconds, truncated toward zero (BigDecimal.longValue).
    case 'timestamp': return timestampFromMicros(toLong(scale <= 6 ? v * pow10(6 - scale) : v / pow10(scale - 6)));
    case 'binary': case 'date': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant': return null;
  }
}

/** Which cast pairs are allowed at analysis (everything else is a type error). */
export function canCast(from: ExprType, to: SqlType): boolean {
  if (from === 'null' || from === to) return true;
  // To and from a VARIANT the compiler casts itself (variant-casts.ts), never by castValue.
  if (from === 'variant' || to === 'variant') return false;
  if (from === 'struct' || from === 'array' || from === 'map') return false;
  // An interval casts to a string (its ANSI text); to and from a number the compiler casts it
  // (ExpressionCompiler.intervalToNumber, numberToInterval).
  if (isInterval(from) || isInterval(to)) return to === 'string';
  // Spark's Cast.canCast: a CalendarInterval from a string, to a string.
  if (from === 'calendar_interval' || to === 'calendar_interval') return from === 'string' || to === 'string';
  if (from === 'date' || to === 'date') return from === 'string' || to === 'string' || from === 'timestamp' || to === 'timestamp';
  if (from === 'binary' || to === 'binary') return from === 'string' || to === 'string';
  if (from === 'string' || to === 'string') return true;
  if (to === 'timestamp') return from === 'long' || from === 'double' || from === 'decimal';
  if (from === 'timestamp') return to === 'long' || to === 'double' || to === 'decimal';
  return true;
}

/** The common type two branches or operands unify to, or undefined if incompatible. */
export function unifyTypes(a: ExprType, b: ExprType): ExprType | undefined {
  if (a === b) return a;
  if (a === 'null') return b;
  if (b === 'null') return a;
  // Spark: a date beside a timestamp widens to the timestamp (the date's midnight).
  if ((a === 'date' && b === 'timestamp') || (a === 'timestamp' && b === 'date')) return 'timestamp';
  // Spark: a decimal and an integer widen to a decimal, a decimal and a double to a double.
  if ((a === 'decimal' && b === 'long') || (a === 'long' && b === 'decimal')) return 'decimal';
  if ((a === 'decimal' || isNumeric(a)) && (b === 'decimal' || isNumeric(b))) return 'double';
  return undefined;
}

/** The types a string widens beside to a STRING (Spark's stringPromotion: atomic types but BINARY and BOOLEAN). */
const PROMOTED_TO_STRING: ReadonlySet<ExprType> = new Set(['long', 'double', 'decimal', 'date', 'timestamp']);

/**
 * Spark's findWiderTypeForTwo (ANSI off): the type two values widen to, as unifyTypes, and a
 * STRING for a string beside a number, a date or a timestamp (stringPromotion), as CASE, IN
 * lists, coalesce, if and UNION widen them: `CASE WHEN c THEN 1 ELSE 'a' END` is a STRING.
 */
export function widerTypeForTwo(a: ExprType, b: ExprType): ExprType | undefined {
  return unifyTypes(a, b) ?? ((a === 'string' && PROMOTED_TO_STRING.has(b)) || (b === 'string' && PROMOTED_TO_STRING.has(a)) ? 'string' : undefined);
}
