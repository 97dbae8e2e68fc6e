/**
 * Limits on what one record's expressions may build, so that one record can neither exhaust a
 * worker's memory nor hold its event loop for long.
 *
 * A string value an expression builds is at most MAX_STRING_VALUE_LENGTH (1 MiB: 1,048,576
 * UTF-16 code units, as JavaScript stores strings; a character outside the Basic Multilingual
 * Plane counts as two). Functions whose result can be longer than their inputs (`||`, concat,
 * concat_ws, replace, lpad, rpad, upper, lower) compute the result's length from their arguments
 * before allocating it and fail the record above the limit; the record is then bad and the
 * job's `onBadRecord` applies. Values read from a source are not cut: the limit is on what an
 * expression builds from them.
 *
 * Time: LIKE/ILIKE run on a matcher without backtracking (like-matcher.ts) and regexps on RE2
 * (regex.ts), so matching costs at most O(value length × pattern length). Measured on this
 * project's 2-core machine under load (`npx tsx bench/expression-limits.bench.ts`): the worst
 * single-record expressions found take about 0.2 s, and a regexp walk (regexp_replace and the
 * like) with the largest pattern allowed about 6 s (see docs/engine.md, "Expression limits").
 */
import { RecordExpressionError } from '../errors';

export const MAX_STRING_VALUE_LENGTH = 1 << 20;

/**
 * Elements an array built by a function may have (sequence and array_repeat check it before
 * building), and rows a range() may generate: either is held in memory whole.
 */
export const MAX_ARRAY_ELEMENTS = 1 << 20;

const fmt = (n: number) => n.toLocaleString('en-US');

export function stringTooLargeMessage(fn: string, length: number): string {
  return (
    `${fn}: the result would be ${fmt(length)} characters, over the limit of ${fmt(MAX_STRING_VALUE_LENGTH)} characters (1 MiB) for one string value. ` +
    'Bound the length argument or the inputs (e.g. with substring) so each value stays under 1 MiB.'
  );
}

/** Throws a record-level error when a string `fn` is about to build would be over the limit. */
export function checkStringLength(fn: string, length: number): void {
  if (length > MAX_STRING_VALUE_LENGTH) {
    throw new RecordExpressionError(stringTooLargeMessage(fn, length), { function: fn, length, limit: MAX_STRING_VALUE_LENGTH });
  }
}
