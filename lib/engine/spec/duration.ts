/**
 * Spark-style duration strings: `5 seconds`, `1 minute`, `250 milliseconds`, `2 hours`, `10 ms`,
 * `1.5 s`. A bare number is milliseconds. Used by triggers and watermark delays.
 */
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
  return Math.round(Number(m[1]) * factor);
}

export const DURATION_HINT = 'a duration like "5 seconds", "500 milliseconds", "1 minute" or "2 hours"';
