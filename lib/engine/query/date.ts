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

/** Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil), month 1 to 12. */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/** The proleptic Gregorian [year, month 1 to 12, day] of a day count (civil_from_days): any DATE, past Date's range too. */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, doy - Math.floor((153 * mp + 2) / 5) + 1];
}

/**
 * A year as java.time writes `n` letters of it (Spark's date and timestamp text: `uuuu`, n = 4):
 * at least n digits, a minus before a year before 1 (`-0001` is 2 BC), and from four letters on
 * (SignStyle.EXCEEDS_PAD) a plus before one wider than n (`+10000`).
 */
export function formatYear(y: number, n = 4): string {
  const digits = String(Math.abs(y)).padStart(n, '0');
  return y < 0 ? `-${digits}` : n >= 4 && digits.length > n ? `+${digits}` : digits;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** Spark's date-to-string form: `yyyy-MM-dd`, its year as formatYear writes it. */
export function formatDate(days: number): string {
  const [y, m, d] = civilFromDays(days);
  return `${formatYear(y)}-${two(m)}-${two(d)}`;
}

/**
 * Spark's CAST(string AS DATE) (ANSI off, stringToDate): `yyyy`, `yyyy-[m]m`, `yyyy-[m]m-[d]d`,
 * its year of four to seven digits and signed or not, optionally followed by a space or `T` and
 * anything (a time); NULL for anything else, a day that does not exist (2024-02-30) or one past
 * a DATE's range (an INT of days).
 */
export function parseDate(s: string): number | null {
  const m = /^([+-]?\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T].*)?)?)?$/s.exec(s.trim());
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2] ?? 1);
  const d = Number(m[3] ?? 1);
  return dateOf(y, mo, d);
}

/**
 * The DATE of a proleptic Gregorian year, month (1 to 12) and day, or null for a day that does
 * not exist (2024-02-30) or one past a DATE's range (an INT of days), past JavaScript's Date too.
 */
export function dateOf(y: number, m: number, d: number): number | null {
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m - 1)) return null;
  const days = daysFromCivil(y, m, d);
  return days >= -(2 ** 31) && days < 2 ** 31 ? days : null;
}
