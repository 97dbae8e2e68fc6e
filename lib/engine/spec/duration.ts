/**
 * Spark-style duration strings: `5 seconds`, `1 minute`, `250 milliseconds`, `2 hours`, `10 ms`,
 * `1.5 s`. A bare number is milliseconds. Used by triggers; a watermark delay reads Spark's
 * interval strings and falls back to these forms (watermark-delay.ts).
 *
 * Every duration a user gives is bounded: a trigger interval longer than a day is almost
 * certainly a typo, and past 2^31 ms (24.8 days) Node's timers fire after 1 ms instead
 * (TimeoutOverflowWarning), so an unbounded interval turned a job into a busy loop. Window
 * durations, backoffs and alert windows may be up to a year; a watermark delay, which no timer
 * waits for, has its own bound (watermark-delay.ts).
 */
export const MAX_TRIGGER_INTERVAL_MS = 86_400_000;
export const MAX_DELAY_MS = 365 * 86_400_000;

const UNITS: Record<string, number> = {
  ms: 1, milli: 1, millis: 1, millisecond: 1, milliseconds: 1,
  s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
};

/** Milliseconds, or null if the text is not a duration. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return null;
  const unit = m[2].toLowerCase();
  const factor = unit === '' ? 1 : UNITS[unit];
  if (factor === undefined) return null;
  const ms = Math.round(Number(m[1]) * factor);
  return Number.isFinite(ms) ? ms : null;
}

/** The message for a duration over `maxMs`, naming the limit in the unit a person would use. */
export function durationTooLong(maxMs: number): string {
  const label = maxMs === MAX_TRIGGER_INTERVAL_MS ? '1 day' : maxMs === MAX_DELAY_MS ? '365 days' : `${maxMs} milliseconds`;
  return `must be at most ${label} (${maxMs} ms)`;
}

export const DURATION_HINT = 'a duration like "5 seconds", "500 milliseconds", "1 minute" or "2 hours"';
