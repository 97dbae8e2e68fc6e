/**
 * A source's `watermarkDelay`, read as Spark's `withWatermark(eventTime, delayThreshold)` reads
 * its delay: IntervalUtils.fromIntervalString (text starting with `interval` is a SQL interval
 * literal, any other text a unit list such as `1 day 2 hours` or `2 years 5 months`), refused
 * when negative ("should not be negative"), then EventTimeWatermark.getDelayMs: the length in
 * milliseconds with a month counted as 31 days, so that `2 years 5 months` is (12 × 2 + 5) × 31
 * days. Text Spark refuses but Weir's duration strings have always taken (`10 ms`, `1.5 h`, a
 * bare number of milliseconds) keeps its old meaning, so a stored spec reads as before.
 *
 * Spark has no upper bound but a BIGINT of microseconds. Weir's is 10000 years as Spark counts
 * them: longer than the span of a TIMESTAMP (years 1 to 9999), so any longer delay could never
 * let the watermark pass an event time and says nothing more; and small enough (3.2e14 ms) that
 * the delay and `max event time − delay` stay safe integers and valid dates.
 */
import { ValidationError } from '../errors';
import { getDuration, stringToInterval, type CalendarInterval } from '../query/calendar-interval';
import { parseExpression } from '../query/parser/ast-builder';
import { parseDuration } from './duration';

const DAYS_PER_MONTH = 31;
const MS_PER_DAY = 86_400_000;
export const MAX_WATERMARK_DELAY_MS = 10_000 * 12 * DAYS_PER_MONTH * MS_PER_DAY;

const WATERMARK_DELAY_HINT = 'Write it as Spark\'s withWatermark takes it: "10 seconds", "1 hour 30 minutes", "2 years 5 months" (a month counts as 31 days) or "interval 2 years 5 months".';

/** Spark's IntervalUtils.fromIntervalString: a SQL interval literal after `interval`, else stringToInterval. */
function fromIntervalString(text: string): CalendarInterval {
  if (!text.trim().toLowerCase().startsWith('interval')) return stringToInterval(text);
  let e;
  try {
    e = parseExpression(text);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    // The reason without the SQL editor's line and column, which mean nothing in this field.
    throw new ValidationError(`Error parsing '${text}' to interval, ${err.message.replace(/ \(line \d+, column \d+\)$/, '')}`, { text });
  }
  if (e.kind === 'Literal' && e.dataType.kind === 'year_month_interval') return { months: Number(e.value), days: 0, micros: 0 };
  if (e.kind === 'Literal' && e.dataType.kind === 'day_time_interval') return { months: 0, days: 0, micros: e.value as bigint | number };
  throw new ValidationError(`Error parsing '${text}' to interval, it is not one interval literal`, { text });
}

/**
 * The watermark delay in milliseconds (Spark's EventTimeWatermark.getDelayMs of the parsed
 * delay: microseconds truncated to milliseconds), or a ValidationError that says what to write.
 */
export function watermarkDelayMs(text: string): number {
  let micros: bigint;
  try {
    micros = getDuration(fromIntervalString(text), DAYS_PER_MONTH);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    const legacy = parseDuration(text);
    if (legacy !== null && legacy <= MAX_WATERMARK_DELAY_MS) return legacy;
    if (legacy !== null) micros = BigInt(legacy) * 1000n;
    else throw new ValidationError(`${e.message}. ${WATERMARK_DELAY_HINT}`, { text });
  }
  if (micros < 0n) {
    const ms = micros / 1000n;
    const length = ms % BigInt(MS_PER_DAY) === 0n ? `${ms / BigInt(MS_PER_DAY)} days` : `${ms} ms`;
    throw new ValidationError(`delay threshold (${text}) should not be negative: it is ${length}, a month counting 31 days. ${WATERMARK_DELAY_HINT}`, { text });
  }
  const ms = micros / 1000n;
  if (ms > BigInt(MAX_WATERMARK_DELAY_MS)) {
    throw new ValidationError(
      `delay threshold (${text}) must be at most 10000 years (${MAX_WATERMARK_DELAY_MS} ms, a year counting 12 months of 31 days): a longer delay than the span of a TIMESTAMP never lets the watermark pass an event time. Write "10000 years" or less.`,
      { text },
    );
  }
  return Number(ms);
}
