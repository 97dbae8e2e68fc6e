/**
 * Spark's interval literals with ANSI intervals on (Spark 3.2+'s default,
 * `spark.sql.legacy.interval.enabled=false`), as AstBuilder.visitInterval builds them:
 * - `INTERVAL 1 DAY 2 HOURS`, `INTERVAL '3' MINUTE`: DayTimeIntervalType(first unit, last unit)
 *   (`interval day to hour`), the value in microseconds; `INTERVAL 1 YEAR 2 MONTHS`:
 *   YearMonthIntervalType, the value in months; year-month and day-time units together are
 *   Spark's "Cannot mix year-month and day-time fields".
 * - `INTERVAL '1-2' YEAR TO MONTH`, `INTERVAL '1 02:03:04.5' DAY TO SECOND`: the type of the
 *   unit range, the string read in that range's form.
 * - `INTERVAL '1 day 2 hours'` (the typed-literal form): typed by the units in the string as
 *   the unquoted form is (AstBuilder.constructMultiUnitsIntervalLiteral): `INTERVAL '1 day'` is an
 *   INTERVAL DAY, `'1 months'` an INTERVAL MONTH, `'1 day 2 hours'` an INTERVAL DAY TO HOUR.
 * Part of the Spark SQL front end (see unresolved-plan.ts).
 */
import { SqlValidationError } from '../sql-error';
import { DayTimeIntervalType, YearMonthIntervalType } from './data-type';
import type { Literal, Position } from './unresolved-plan';

const DAY = 86_400_000_000n;
/** Microseconds per unit, and the DayTimeIntervalType field the unit maps to. */
const DAY_TIME: Record<string, [bigint, number]> = {
  week: [7n * DAY, 0], day: [DAY, 0], hour: [3_600_000_000n, 1], minute: [60_000_000n, 2],
  second: [1_000_000n, 3], millisecond: [1000n, 3], microsecond: [1n, 3],
};
const YEAR_MONTH: Record<string, [number, number]> = { year: [12, 0], month: [1, 1] };

const unitName = (u: string) => u.toLowerCase().replace(/s$/, '');

function invalid(text: string, pos: Position, why = ''): SqlValidationError {
  return new SqlValidationError(`[INVALID_INTERVAL_FORMAT] Error parsing '${text}' to interval${why ? `: ${why}` : ''}.`, pos, 'literal', 'INVALID_INTERVAL_FORMAT');
}

/** `value × per`, where value is decimal text; truncated toward zero below one microsecond. */
function scaled(value: string, per: bigint, text: string, pos: Position): bigint {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(value.trim());
  if (!m || (m[2] === '' && !m[3])) throw invalid(text, pos);
  const frac = m[3] ?? '';
  const v = (BigInt((m[2] || '0') + frac) * per) / 10n ** BigInt(frac.length);
  return m[1] === '-' ? -v : v;
}

/** (value, unit) pairs to a literal: the units decide the type. */
export function multiUnitInterval(pairs: readonly (readonly [string, string])[], text: string, pos: Position): Literal {
  let months = 0;
  let micros = 0n;
  const ym: number[] = [];
  const dt: number[] = [];
  for (const [value, rawUnit] of pairs) {
    const unit = unitName(rawUnit);
    // The grammar takes the unit, but Spark's IntervalUtils.stringToInterval, which reads the literal, does not.
    if (unit === 'nanosecond') {
      throw new SqlValidationError(`[INVALID_INTERVAL_FORMAT.INVALID_UNIT] Error parsing '${text}' to interval. Invalid unit '${rawUnit}'.`, pos, 'literal', 'INVALID_INTERVAL_FORMAT.INVALID_UNIT');
    }
    const y = YEAR_MONTH[unit];
    if (y) {
      if (!/^[+-]?\d+$/.test(value.trim())) throw invalid(text, pos, `the ${unit} value must be an integer`);
      months += Number(value) * y[0];
      ym.push(y[1]);
      continue;
    }
    const d = DAY_TIME[unit];
    if (!d) throw invalid(text, pos, `invalid unit '${rawUnit}'`);
    micros += scaled(value, d[0], text, pos);
    dt.push(d[1]);
  }
  if (ym.length && dt.length) {
    throw new SqlValidationError(`[_LEGACY_ERROR_TEMP_0029] Cannot mix year-month and day-time fields: ${text}.`, pos, 'literal', '_LEGACY_ERROR_TEMP_0029');
  }
  if (ym.length) {
    return { kind: 'Literal', value: months, dataType: YearMonthIntervalType(Math.min(...ym), Math.max(...ym)), pos };
  }
  if (micros < -(2n ** 63n) || micros >= 2n ** 63n) {
    // Spark's microseconds are a BIGINT: its interval arithmetic fails past that.
    throw new SqlValidationError(
      `[INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION] Integer overflow while operating with intervals: ${text} is past the range of a day-time interval (106751991 days).`,
      pos, 'literal', 'INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION',
    );
  }
  return { kind: 'Literal', value: micros, dataType: DayTimeIntervalType(Math.min(...dt), Math.max(...dt)), pos };
}

/** `INTERVAL '1 day 2 hours'`: the string's own `n unit` pairs. */
export function intervalString(value: string, text: string, pos: Position): Literal {
  const words = value.trim().replace(/^interval\s+/i, '').split(/\s+/).filter(Boolean);
  if (words.length === 0 || words.length % 2) throw invalid(value, pos);
  const pairs: [string, string][] = [];
  for (let i = 0; i < words.length; i += 2) pairs.push([words[i], words[i + 1]]);
  return multiUnitInterval(pairs, text, pos);
}

const UNIT_TO_UNIT: Record<string, RegExp> = {
  'year-month': /^([+-])?(\d+)-(\d{1,2})$/,
  'day-hour': /^([+-])?(\d+) (\d{1,2})$/,
  'day-minute': /^([+-])?(\d+) (\d{1,2}):(\d{1,2})$/,
  'day-second': /^([+-])?(\d+) (\d{1,2}):(\d{1,2}):(\d{1,2}(?:\.\d{0,9})?)$/,
  'hour-minute': /^([+-])?(\d+):(\d{1,2})$/,
  'hour-second': /^([+-])?(\d+):(\d{1,2}):(\d{1,2}(?:\.\d{0,9})?)$/,
  'minute-second': /^([+-])?(\d+):(\d{1,2}(?:\.\d{0,9})?)$/,
};

/** `INTERVAL 'value' FROM TO TO`. */
export function unitToUnitInterval(value: string, from: string, to: string, text: string, pos: Position): Literal {
  const [f, t] = [unitName(from), unitName(to)];
  const re = UNIT_TO_UNIT[`${f}-${t}`];
  if (!re) {
    throw new SqlValidationError(`[INVALID_INTERVAL_FORMAT.UNSUPPORTED_FROM_TO_EXPRESSION] Error parsing '${text}' to interval: Cannot support (interval '${value}' ${from} to ${to}) expression.`, pos, 'literal', 'INVALID_INTERVAL_FORMAT.UNSUPPORTED_FROM_TO_EXPRESSION');
  }
  const m = re.exec(value.trim());
  if (!m) {
    // Spark's class for a day-time string (its notice is of a legacy flag Weir does not have).
    const cls = f === 'year' ? 'INVALID_INTERVAL_FORMAT' : 'INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING_WITH_NOTICE';
    throw new SqlValidationError(`[${cls}] Error parsing '${value}' to interval: the string does not match the form of INTERVAL ${from.toUpperCase()} TO ${to.toUpperCase()}.`, pos, 'literal', cls);
  }
  const sign = m[1] === '-' ? -1 : 1;
  if (f === 'year') {
    return { kind: 'Literal', value: sign * (Number(m[2]) * 12 + Number(m[3])), dataType: YearMonthIntervalType(0, 1), pos };
  }
  const units = ['day', 'hour', 'minute', 'second'];
  const start = units.indexOf(f);
  let micros = 0n;
  m.slice(2).forEach((part, i) => { micros += scaled(part, DAY_TIME[units[start + i]][0], text, pos); });
  return { kind: 'Literal', value: sign < 0 ? -micros : micros, dataType: DayTimeIntervalType(start, units.indexOf(t)), pos };
}
