/**
 * Spark's datetime patterns (`yyyy-MM-dd HH:mm:ss.SSS`, the letters of Spark's "Datetime
 * Patterns for Formatting and Parsing" page) for date_format, to_timestamp, to_date and
 * unix_timestamp with a format, in UTC (Weir's session time zone is always UTC).
 *
 * Letters taken: y (year), M / L (month: M, MM, MMM, MMMM), d (day of month), D (day of year),
 * H (0-23), h (1-12), k (1-24), K (0-11), m, s, S (fraction, up to 6 digits kept: microseconds), a (AM/PM),
 * E (day of week: E, EEE short, EEEE long), Q/q (quarter: Q, QQ 02, QQQ Q2, QQQQ 2nd quarter), G (era: AD, GGGG Anno
 * Domini) and F (the day's place in its aligned week of the month) for formatting, XXX / XX / X / Z / x / O (the offset: always Z, +0000 or GMT in UTC), z (the zone
 * name: UTC when formatting; a name, an offset or a region when parsing) and VV (the zone's id: UTC when formatting); text
 * in single quotes is literal and '' is a quote; `[…]` is an optional section, tried with and then
 * without its contents when parsing (at most 64 ways). Any other letter is an error at validation.
 */
import { formatYear, utc } from './date';
import { splitTimestamp, timestampOf } from './timestamp-micros';
import { fromWallClock, zoneOf } from './time-zones';
import { RecordExpressionError } from '../errors';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const QUARTERS = ['1st quarter', '2nd quarter', '3rd quarter', '4th quarter'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** `section`: the bounds of an optional section `[…]`, which parsing may skip and formatting prints. */
type Token = { literal: string } | { letter: string; count: number } | { section: '[' | ']' };

const LETTERS = new Set('GyMLdDFHhkKmsSaEQqXZxzVO'.split(''));

/** The letters java.text.SimpleDateFormat took (Spark 2's parser): a pattern Spark 3 refuses but it took is Spark's INCONSISTENT_BEHAVIOR_CROSS_VERSION. */
const LEGACY_LETTERS = new Set('GyYMLwWDdFEuaHkKhmsSzZX'.split(''));

/** The most letters Java's DateTimeFormatterBuilder takes of these (more: `Too many pattern letters`). */
const MAX_LETTERS: Record<string, number> = { d: 2, D: 3, F: 1, H: 2, h: 2, k: 2, K: 2, m: 2, s: 2, S: 9, a: 1, z: 4, Z: 5, X: 5, x: 5 };

/**
 * Spark's DateTimeFormatterHelper.convertIncompatiblePattern: the week-based letters (Y w W u e
 * c), the letters it never takes (A n N p), five letters of G M L E Q q and seven of y, and more
 * letters than Java's formatter takes of the others (MAX_LETTERS). Where
 * Spark 2's SimpleDateFormat took the pattern, Spark says the answer changed in 3.0
 * (INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION); otherwise its own message.
 */
function sparkRefuses(pattern: string, ch: string, count: number): string | undefined {
  let why: string | undefined;
  if ('YwWuec'.includes(ch)) why = `All week-based patterns are unsupported since Spark 3.0, detected: ${ch}, Please use the SQL function EXTRACT instead`;
  else if ('AnNp'.includes(ch)) why = `Illegal pattern character: ${ch}`;
  else if (('GMLEQq'.includes(ch) && count >= 5) || (ch === 'y' && count >= 7) || count > (MAX_LETTERS[ch] ?? count)) why = `Too many pattern letters: ${ch}`;
  // Java's DateTimeFormatterBuilder takes the zone id as VV alone, the localized offset as O or OOOO.
  else if (ch === 'V' && count !== 2) why = `Pattern letter count must be 2: ${ch}`;
  else if (ch === 'O' && count !== 1 && count !== 4) why = `Pattern letter count must be 1 or 4: ${ch}`;
  if (!why) return undefined;
  // SimpleDateFormat refuses more than three X too: then Spark 2 did not take the pattern either.
  const legacy = !(ch === 'X' && count > 3) && [...pattern.replace(/'[^']*'/g, '')].every((c) => !/[A-Za-z]/.test(c) || LEGACY_LETTERS.has(c));
  if (!legacy) return why;
  return `[INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION] You may get a different result due to the upgrading to Spark >= 3.0: Fail to recognize '${pattern}' pattern in the DateTimeFormatter (${why}). Form a valid datetime pattern with the letters docs/sql.md lists (Spark's 'Datetime Patterns for Formatting and Parsing'); Weir has no spark.sql.legacy.timeParserPolicy`;
}

/** The pattern's tokens, or a message naming the letter Weir does not take. */
export function tokenizePattern(pattern: string): Token[] | string {
  const out: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === "'") {
      if (pattern[i + 1] === "'") {
        out.push({ literal: "'" });
        i += 2;
        continue;
      }
      let j = i + 1;
      let text = '';
      while (j < pattern.length) {
        if (pattern[j] === "'" && pattern[j + 1] === "'") {
          text += "'";
          j += 2;
        } else if (pattern[j] === "'") break;
        else text += pattern[j++];
      }
      if (j >= pattern.length) return `the pattern '${pattern}' has an unclosed quote`;
      out.push({ literal: text });
      i = j + 1;
    } else if (/[A-Za-z]/.test(ch)) {
      let j = i;
      while (pattern[j] === ch) j++;
      const spark3 = sparkRefuses(pattern, ch, j - i);
      if (spark3) return spark3;
      if (!LETTERS.has(ch)) return `the pattern letter ${ch} in '${pattern}' is not supported; see docs/sql.md for the letters Weir takes`;
      out.push({ letter: ch, count: j - i });
      i = j;
    } else if (ch === '[' || ch === ']') {
      depth += ch === '[' ? 1 : -1;
      if (depth < 0) return `the pattern '${pattern}' closes an optional section it did not open`;
      out.push({ section: ch });
      i++;
    } else {
      out.push({ literal: ch });
      i++;
    }
  }
  if (depth !== 0) return `the pattern '${pattern}' has an unclosed optional section '['`;
  return out;
}

/** At most this many ways to read a pattern's optional sections (2 per section). */
const MAX_ALTERNATIVES = 64;

/** The token sequences a pattern with optional sections reads as, each section taken before skipped. */
function alternatives(tokens: Token[]): Token[][] {
  let alts: Token[][] = [[]];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!('section' in t)) { for (const a of alts) a.push(t); continue; }
    // The section's tokens up to its matching ']'.
    let depth = 1, j = i + 1;
    for (; j < tokens.length && depth > 0; j++) { const u = tokens[j]; if ('section' in u) depth += u.section === '[' ? 1 : -1; }
    const inner = alternatives(tokens.slice(i + 1, j - 1));
    const next: Token[][] = [];
    for (const a of alts) for (const x of [...inner, []]) if (next.length < MAX_ALTERNATIVES) next.push([...a, ...x]);
    alts = next;
    i = j - 1;
  }
  return alts;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** date_format(ts, pattern) */
export function formatWithPattern(v: number, tokens: Token[]): string {
  const [ms, micros] = splitTimestamp(v);
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const day = d.getUTCDate();
  const h = d.getUTCHours();
  // Spark writes y as java.time's u, the proleptic year (0 is 1 BC), unless the pattern has an
  // era (G), beside which y is java.time's y, the year of the era.
  const year = y <= 0 && tokens.some((t) => 'letter' in t && t.letter === 'G') ? 1 - y : y;
  let out = '';
  for (const t of tokens) {
    // Formatting prints an optional section's contents.
    if ('section' in t) continue;
    if ('literal' in t) {
      out += t.literal;
      continue;
    }
    const n = t.count;
    switch (t.letter) {
      // yy: java.time's reduced value, the year's last two digits unsigned.
      case 'y': out += n === 2 ? pad(Math.abs(year) % 100, 2) : formatYear(year, n); break;
      case 'M':
      case 'L': out += n >= 4 ? MONTHS[mo] : n === 3 ? MONTHS[mo].slice(0, 3) : pad(mo + 1, n); break;
      case 'd': out += pad(day, n); break;
      case 'D': out += pad(Math.floor((utc(y, mo, day) - utc(y, 0, 1)) / 86_400_000) + 1, n); break;
      case 'H': out += pad(h, n); break;
      case 'h': out += pad(h % 12 === 0 ? 12 : h % 12, n); break;
      case 'k': out += pad(h === 0 ? 24 : h, n); break;
      case 'K': out += pad(h % 12, n); break;
      case 'm': out += pad(d.getUTCMinutes(), n); break;
      case 's': out += pad(d.getUTCSeconds(), n); break;
      case 'S': out += `${pad(d.getUTCMilliseconds(), 3)}${pad(micros, 3)}`.padEnd(n, '0').slice(0, n); break;
      case 'a': out += h < 12 ? 'AM' : 'PM'; break;
      case 'E': out += n >= 4 ? DAYS[d.getUTCDay()] : DAYS[d.getUTCDay()].slice(0, 3); break;
      // java.time's quarter, English text (CLDR): Q, QQ 02, QQQ Q2, QQQQ 2nd quarter.
      case 'Q':
      case 'q': { const q = Math.floor(mo / 3) + 1; out += n >= 4 ? QUARTERS[q - 1] : n === 3 ? `Q${q}` : pad(q, n); break; }
      // The era: AD (year 1 on) or BC, GGGG its long name.
      case 'G': out += y > 0 ? (n >= 4 ? 'Anno Domini' : 'AD') : n >= 4 ? 'Before Christ' : 'BC'; break;
      // Java 17's 'F' (ChronoField.ALIGNED_DAY_OF_WEEK_IN_MONTH, which Spark's results print):
      // the day's place in its week of the month counted from the 1st.
      case 'F': out += String(((day - 1) % 7) + 1); break;
      case 'X': out += 'Z'; break;
      case 'x': out += n === 1 ? '+00' : n === 3 || n === 5 ? '+00:00' : '+0000'; break;
      // Java's Z: +HHMM (Z to ZZZ), the localized offset (ZZZZ: GMT), +HH:MM:ss with Z for zero (ZZZZZ).
      case 'Z': out += n === 5 ? 'Z' : n === 4 ? 'GMT' : '+0000'; break;
      // The localized offset, GMT for zero (O and OOOO).
      case 'O': out += 'GMT'; break;
      // The session zone's id.
      case 'V': out += 'UTC'; break;
      // The zone's name in the session zone, UTC: Java's short and long names for it.
      case 'z': out += n >= 4 ? 'Coordinated Universal Time' : 'UTC'; break;
    }
  }
  return out;
}

/**
 * to_timestamp(s, pattern): the timestamp, or null when the text does not match (Spark, ANSI off).
 * Fields the pattern lacks default as Spark's do (1970, January, day 1, midnight).
 */
export function parseWithPattern(text: string, tokens: Token[], legacy: Legacy = false): number | null {
  if (!tokens.some((t) => 'section' in t)) return parseTokens(text, tokens, legacy);
  // Spark's optional sections: the first way of reading the text that fits, sections taken first.
  for (const alt of alternatives(tokens)) {
    const ms = parseTokens(text, alt, legacy);
    if (ms !== null) return ms;
  }
  return null;
}

/**
 * parseWithPattern for the SQL functions that parse by a pattern (to_timestamp, to_date,
 * unix_timestamp …), as Spark 3+ with its default spark.sql.legacy.timeParserPolicy=EXCEPTION:
 * text the pattern does not read is NULL, but text Spark 2's parser (SimpleDateFormat) would
 * have read is an error, as a silent NULL where Spark 2 gave a time would hide a changed answer.
 * That parser took fewer digits than a field's letters (`2020-1-5` by `yyyy-MM-dd`) and ignored
 * text after the pattern (`2016-12-31 00:12:00` by `yyyy-MM-dd`). The data sources' readers
 * (from_xml) check against a lenient one (`legacy` 'lenient'), as Spark's FAST_DATE_FORMAT.
 */
export function parseDatetime(fn: string, text: string, tokens: Token[], legacy: Exclude<Legacy, false> = true): number | null {
  const ms = parseWithPattern(text, tokens);
  if (ms !== null || parseWithPattern(text, tokens, legacy) === null) return ms;
  throw new RecordExpressionError(
    `${fn}: [INCONSISTENT_BEHAVIOR_CROSS_VERSION.PARSE_DATETIME_BY_NEW_PARSER] You may get a different result due to the upgrading to Spark >= 3.0: Fail to parse '${text}' in the new parser. Weir has no spark.sql.legacy.timeParserPolicy: make the pattern match the whole text, with as many letters as the field has digits`,
    { function: fn },
  );
}

/**
 * How Spark 2's parser read the text that Spark 3+ checks an unparsed one against: false, Spark
 * 3's own reading; true, as SimpleDateFormat (fewer digits, text left over); 'lenient', as the
 * data sources' FastDateFormat, which also rolls a day past its month's end over (`02-29` of 1970
 * is March 1st).
 */
type Legacy = boolean | 'lenient';

/** Reads `text` by `tokens`, as `legacy` says. */
function parseTokens(text: string, tokens: Token[], legacy: Legacy): number | null {
  let i = 0;
  let y = 1970;
  let mo = 0;
  let day = 1;
  let h = 0;
  let mi = 0;
  let sec = 0;
  let ms = 0;
  let fraction = 0;
  let pm: boolean | undefined;
  let hour12 = false;
  let zone: string | undefined;
  // Day of the year (D), and whether a month and a day were read, which it must agree with.
  let dayOfYear: number | undefined;
  let [monthRead, dayRead] = [false, false];
  // A field read twice must read the same value both times (java.time's resolver; so
  // `SSSSSS yyyy-MM-dd HH:mm:ss.SSSSSS` reads a fraction that appears twice, equal, once), where
  // SimpleDateFormat keeps the last.
  const read = new Map<string, number>();
  const agrees = (field: string, v: number): boolean => {
    const was = read.get(field);
    read.set(field, v);
    return legacy !== false || was === undefined || was === v;
  };
  const digits = (min: number, max: number): number | null => {
    let j = i;
    while (j < text.length && j - i < max && text[j] >= '0' && text[j] <= '9') j++;
    if (j - i < min) return null;
    const v = Number(text.slice(i, j));
    i = j;
    return v;
  };
  for (const [k, t] of tokens.entries()) {
    if ('section' in t) continue;
    if ('literal' in t) {
      if (text.slice(i, i + t.literal.length) !== t.literal) return null;
      i += t.literal.length;
      continue;
    }
    // A field followed directly by another number field takes exactly its width (yyyyMMdd).
    const next = tokens[k + 1];
    const adjacent = next !== undefined && 'letter' in next;
    const max = adjacent ? Math.max(t.count, t.letter === 'y' && t.count !== 2 ? 4 : 2) : t.letter === 'y' ? 9 : t.letter === 'S' ? 9 : 2;
    // java.time's widths: a year of three or more letters (yyyy) takes at least that many digits.
    const min = ((t.count === 2 || (t.letter === 'y' && t.count > 2)) && !legacy) || adjacent ? t.count : 1;
    let v: number | null;
    switch (t.letter) {
      case 'y':
        v = digits(t.count === 2 ? 2 : min, t.count === 2 ? 2 : max);
        if (v === null || !agrees('y', v)) return null;
        y = t.count === 2 ? 2000 + v : v;
        break;
      case 'M':
      case 'L':
        if (t.count >= 3) {
          const idx = MONTHS.findIndex((m) => (t.count >= 4 ? text.slice(i, i + m.length).toLowerCase() === m.toLowerCase() : text.slice(i, i + 3).toLowerCase() === m.slice(0, 3).toLowerCase()));
          if (idx < 0 || !agrees('M', idx)) return null;
          i += t.count >= 4 ? MONTHS[idx].length : 3;
          mo = idx;
        } else {
          v = digits(min, max);
          if (v === null || v < 1 || v > 12 || !agrees('M', v - 1)) return null;
          mo = v - 1;
        }
        monthRead = true;
        break;
      case 'd':
        v = digits(min, max);
        if (v === null || !agrees('d', v)) return null;
        day = v;
        dayRead = true;
        break;
      // Java's widths: D one to three digits, DD two or three, DDD three.
      case 'D':
        v = digits(Math.min(t.count, 3), 3);
        if (v === null) return null;
        dayOfYear = v;
        break;
      case 'H':
      case 'k':
        v = digits(min, max);
        if (v === null || v > 24 || !agrees('H', v % 24)) return null;
        h = v === 24 ? 0 : v;
        break;
      case 'h':
      case 'K':
        v = digits(min, max);
        if (v === null || v > 12 || !agrees('h', v % 12)) return null;
        h = v % 12;
        hour12 = true;
        break;
      case 'm':
        v = digits(min, max);
        if (v === null || v > 59 || !agrees('m', v)) return null;
        mi = v;
        break;
      case 's':
        v = digits(min, max);
        if (v === null || v > 59 || !agrees('s', v)) return null;
        sec = v;
        break;
      case 'S': {
        const start = i;
        v = digits(1, t.count);
        if (v === null) return null;
        // Microseconds: Spark's timestamps keep no more (a seventh to ninth digit is dropped).
        fraction = Number(text.slice(start, i).padEnd(6, '0').slice(0, 6));
        if (!agrees('S', fraction)) return null;
        break;
      }
      case 'a': {
        const ap = text.slice(i, i + 2).toUpperCase();
        if (ap !== 'AM' && ap !== 'PM') return null;
        pm = ap === 'PM';
        i += 2;
        break;
      }
      case 'X':
      case 'x':
      case 'Z': {
        const z = /^(Z|[+-]\d{2}(:?\d{2})?)/.exec(text.slice(i));
        if (!z) return null;
        i += z[0].length;
        if (z[0] !== 'Z') {
          const sign = z[0][0] === '-' ? -1 : 1;
          const hh = Number(z[0].slice(1, 3));
          const mm = Number(z[0].slice(-2) === z[0].slice(1, 3) && z[0].length === 3 ? 0 : z[0].replace(':', '').slice(3, 5) || 0);
          ms -= sign * (hh * 60 + mm) * 60_000;
        }
        break;
      }
      case 'z':
      case 'V': {
        // A zone name: UTC, GMT+hh:mm, a region (America/Los_Angeles) or a short id (PST); the
        // time read is that zone's local time.
        const m = /^[A-Za-z][A-Za-z0-9_/+:-]*/.exec(text.slice(i));
        if (!m) return null;
        zone = m[0];
        i += zone.length;
        break;
      }
      case 'O': {
        // The localized offset: GMT, then none or +h, +hh, +hh:mm or +hh:mm:ss.
        const o = /^GMT(?:([+-])(\d{1,2})(?::(\d{2})(?::(\d{2}))?)?)?/.exec(text.slice(i));
        if (!o) return null;
        i += o[0].length;
        if (o[1]) ms -= (o[1] === '-' ? -1 : 1) * ((Number(o[2]) * 60 + Number(o[3] ?? 0)) * 60 + Number(o[4] ?? 0)) * 1000;
        break;
      }
      default:
        // E, u, Q: read as text/number and ignored for the date (Spark resolves them too, rarely used in parsing).
        while (i < text.length && /[A-Za-z0-9]/.test(text[i])) i++;
    }
  }
  if (i !== text.length && !legacy) return null;
  if (dayOfYear !== undefined) {
    // Spark's STRICT resolver: a day the year has, on the month and day read beside it, if any.
    const date = new Date(utc(y, 0, dayOfYear, 0, 0, 0, 0));
    if (dayOfYear < 1 || date.getUTCFullYear() !== y) return null;
    if ((monthRead && date.getUTCMonth() !== mo) || (dayRead && date.getUTCDate() !== day)) return null;
    [mo, day] = [date.getUTCMonth(), date.getUTCDate()];
  }
  if (hour12 && pm) h += 12;
  const t = utc(y, mo, day, h, mi, sec, 0);
  const check = new Date(t);
  if (legacy !== 'lenient' && (check.getUTCDate() !== day || check.getUTCMonth() !== mo)) return null;
  ms += Math.floor(fraction / 1000);
  const micros = fraction % 1000;
  if (zone === undefined) return timestampOf(t + ms, micros);
  const z = zoneOf(zone);
  return z === null ? null : timestampOf(fromWallClock(z, t + ms), micros);
}
