/**
 * Spark's TIMESTAMP counts microseconds; Weir's is epoch milliseconds (UTC) in a JavaScript
 * number whose fraction carries the microseconds: instant `us` (whole microseconds) is the
 * double nearest to us / 1000. A whole millisecond is the same number it always was, so every
 * consumer of milliseconds (watermarks, window bounds, state in old checkpoints, Date, epoch-ms
 * inputs) reads it unchanged, and two producers of one instant give one double (GROUP BY, joins
 * and dedup see them equal) as long as they build it here.
 *
 * The microseconds come back exactly while a double's spacing stays under a microsecond:
 * |v| < 2^43 ms, the years 1691 to 2248 (where a double count of microseconds would be exact
 * too). Outside that range the milliseconds stay right and the microseconds may be off.
 */
import { dateFromTimestamp, formatDate } from './date';
import { toLong, type Long } from './long';

/** The largest |ms| whose ms * 1000 + 999 is a safe integer. */
const SAFE_MS = Math.floor(Number.MAX_SAFE_INTEGER / 1000) - 1;

/**
 * The timestamp of whole millisecond `ms` plus `micros` microseconds (any integer, carried into
 * the milliseconds): the one canonical constructor.
 */
export function timestampOf(ms: number, micros = 0): number {
  if (micros < 0 || micros >= 1000) {
    const carry = Math.floor(micros / 1000);
    ms += carry;
    micros -= carry * 1000;
  }
  if (micros === 0) return ms + 0;
  // ms * 1000 + micros is exact here, and one division rounds it to the nearest double.
  if (ms >= -SAFE_MS && ms <= SAFE_MS) return (ms * 1000 + micros) / 1000;
  return ms + micros / 1000;
}

/** The timestamp of `us` microseconds since the epoch (a BIGINT's value). */
export function timestampFromMicros(us: Long): number {
  if (typeof us === 'number') {
    if (Number.isSafeInteger(us)) return us / 1000 + 0;
    us = BigInt(Math.trunc(us));
  }
  const ms = us / 1000n - (us % 1000n < 0n ? 1n : 0n);
  return timestampOf(Number(ms), Number(us - ms * 1000n));
}

/**
 * A timestamp as its whole milliseconds (floored) and the microseconds past them (0 to 999):
 * exact in the range the module comment gives (the subtraction is exact, the product rounds to
 * the nearest whole microsecond).
 */
export function splitTimestamp(v: number): [ms: number, micros: number] {
  const ms = Math.floor(v);
  const micros = Math.round((v - ms) * 1000);
  return micros === 1000 ? [ms + 1, 0] : [ms, micros];
}

/** Spark's value of the timestamp: microseconds since the epoch, as a BIGINT. */
export function microsOfTimestamp(v: number): Long {
  // A whole millisecond (most timestamps) needs no split.
  if (Number.isInteger(v) && Number.isSafeInteger(v * 1000)) return v * 1000 + 0;
  const [ms, micros] = splitTimestamp(v);
  const us = ms * 1000 + micros;
  return Number.isSafeInteger(us) ? us + 0 : toLong(BigInt(ms) * 1000n + BigInt(micros));
}

/** A number of epoch milliseconds (a fraction read as microseconds) as its canonical timestamp. */
export const canonicalTimestamp = (v: number): number => timestampOf(...splitTimestamp(v));

/**
 * A timestamp as ISO-8601 text in UTC, `2024-01-02T03:04:05.123Z`, with three more fraction
 * digits when it has microseconds (`.123456Z`).
 */
export function isoTimestamp(v: number): string {
  const [ms, micros] = splitTimestamp(v);
  const iso = new Date(ms).toISOString();
  return micros === 0 ? iso : `${iso.slice(0, -1)}${String(micros).padStart(3, '0')}Z`;
}

/** The timestamp `us` microseconds on. */
export function addMicros(v: number, us: number): number {
  const [whole, micros] = splitTimestamp(v);
  return timestampOf(whole, micros + us);
}

/** The timestamp `ms` whole milliseconds on, its microseconds kept. */
export function addMillis(v: number, ms: number): number {
  const [whole, micros] = splitTimestamp(v);
  return timestampOf(whole + ms, micros);
}

/**
 * The timestamp's UTC calendar fields as a Date (its millisecond): `new Date(v)` truncates a
 * fraction toward zero, which for an instant before 1970 is the next millisecond.
 */
export const utcDate = (v: number): Date => new Date(Math.floor(v));

/**
 * Spark's timestamp-to-string form: `2024-01-02 03:04:05`, plus the fraction of the second when
 * there is one, without trailing zeros (`.1`, `.000001`).
 */
export function formatTimestamp(v: number): string {
  const [ms, micros] = splitTimestamp(v);
  const iso = new Date(ms).toISOString(); // 2024-01-02T03:04:05.123Z, or ±YYYYYY-… past 9999
  const at = iso.indexOf('T');
  const base = `${formatDate(dateFromTimestamp(ms))} ${iso.slice(at + 1, at + 9)}`;
  const fraction = `${iso.slice(at + 10, at + 13)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return fraction === '' ? base : `${base}.${fraction}`;
}
