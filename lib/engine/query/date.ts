/**
 * Spark's DateType: a day, stored as Spark stores it, the number of days since 1970-01-01 (a
 * number, so `===`, `<`, Map keys and the state value codec work unchanged). A date has no time
 * zone; Weir's timestamps are UTC, so a date is a timestamp's UTC day and casts to that day's
 * midnight UTC.
 */

export const DAY_MS = 86_400_000;

/** 400 Gregorian years, the calendar's whole cycle: 146,097 days. */
const CYCLE_MS = 146_097 * DAY_MS;

/**
 * Date.UTC for every year: Date.UTC reads a year of 0 to 99 as 1900 to 1999, so such a year is
 * computed 400 years later, where the calendar is the same, and moved back
 * (make_timestamp(1, 1, 1, …) is year 1, as in Spark).
 */
export function utc(y: number, mo: number, d = 1, h = 0, mi = 0, s = 0, ms = 0): number {
  return y >= 0 && y < 100 ? Date.UTC(y + 400, mo, d, h, mi, s, ms) - CYCLE_MS : Date.UTC(y, mo, d, h, mi, s, ms);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The days of month `m` (0-based) of year `y` in the proleptic Gregorian calendar, year 0 to 99 included. */
export const daysInMonth = (y: number, m: number): number => (m === 1 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : MONTH_DAYS[m]);

/** The day a timestamp (epoch ms) falls on, UTC. */
export const dateFromTimestamp = (ms: number): number => Math.floor(ms / DAY_MS);

/** The date's midnight UTC as epoch ms. */
export const timestampFromDate = (days: number): number => days * DAY_MS;

/** Spark's date-to-string form: `yyyy-MM-dd`. */
export function formatDate(days: number): string {
  const iso = new Date(days * DAY_MS).toISOString();
  // Years past 9999 (or before 0) are `+012345-...` in toISOString; Spark prints them with their digits.
  return iso.startsWith('+') || iso.startsWith('-') ? iso.slice(0, iso.indexOf('T')).replace(/^\+0*/, '') : iso.slice(0, 10);
}

/**
 * Spark's CAST(string AS DATE) (ANSI off): `yyyy`, `yyyy-[m]m`, `yyyy-[m]m-[d]d`, optionally
 * followed by a space or `T` and anything (a time); NULL for anything else or a day that does
 * not exist (2024-02-30).
 */
export function parseDate(s: string): number | null {
  const m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T].*)?)?)?$/s.exec(s.trim());
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2] ?? 1);
  const d = Number(m[3] ?? 1);
  const t = new Date(utc(y, mo - 1, d));
  if (t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return null;
  return dateFromTimestamp(t.getTime());
}
