/**
 * A time zone as Spark reads a zone's name (DateTimeUtils.getZoneId): a region ID
 * ('America/Los_Angeles'), an offset ('+09:00', 'GMT+9', 'UTC-3:30', 'Z', 'UTC'), or one of
 * Java's ZoneId.SHORT_IDS ('PST'); its offset from UTC at an instant; and the instant of a
 * wall-clock time in it. One home for what a cast of text, a datetime pattern's zone letter
 * and the zone functions (from_utc_timestamp, convert_timezone, make_timestamp) read.
 */
import { utc } from './date';

/** Java's ZoneId.SHORT_IDS: the three-letter zone names Spark reads as these zones. */
const SHORT_IDS: Record<string, string> = {
  ACT: 'Australia/Darwin', AET: 'Australia/Sydney', AGT: 'America/Argentina/Buenos_Aires', ART: 'Africa/Cairo', AST: 'America/Anchorage',
  BET: 'America/Sao_Paulo', BST: 'Asia/Dhaka', CAT: 'Africa/Harare', CNT: 'America/St_Johns', CST: 'America/Chicago', CTT: 'Asia/Shanghai',
  EAT: 'Africa/Addis_Ababa', ECT: 'Europe/Paris', IET: 'America/Indiana/Indianapolis', IST: 'Asia/Kolkata', JST: 'Asia/Tokyo', MIT: 'Pacific/Apia',
  NET: 'Asia/Yerevan', NST: 'Pacific/Auckland', PLT: 'Asia/Karachi', PNT: 'America/Phoenix', PRT: 'America/Puerto_Rico', PST: 'America/Los_Angeles',
  SST: 'Pacific/Guadalcanal', VST: 'Asia/Ho_Chi_Minh', EST: '-05:00', MST: '-07:00', HST: '-10:00',
};

/** A zone: its formatter, or a fixed offset from UTC in ms. */
export type Zone = Intl.DateTimeFormat | number;

/** Intl formatters by zone name: a bounded cache, as a zone read from a column can be anything. */
const zoneFormats = new Map<string, Intl.DateTimeFormat | null>();

/**
 * A fixed offset (ms) as Java's ZoneId.of reads one: Z, UTC, GMT or UT alone, or ZoneOffset.of's
 * ±h, ±hh, ±hh:mm, ±hhmm, ±hh:mm:ss or ±hhmmss, after a UTC, GMT or UT prefix or none, of at most
 * 18:00; null for an offset of another form or past that, undefined for a name that is no offset.
 */
function fixedOffset(id: string): number | null | undefined {
  if (/^(?:UTC|GMT|UT|Z)$/i.test(id)) return 0;
  if (!/^(?:UTC|GMT|UT)?[+-]/i.test(id)) return undefined;
  const m = /^(?:UTC|GMT|UT)?([+-])(\d(?=$)|\d\d)(?:(:?)(\d\d)(?:\3(\d\d))?)?$/i.exec(id);
  if (!m) return null;
  const [h, mi, sec] = [Number(m[2]), Number(m[4] ?? 0), Number(m[5] ?? 0)];
  const seconds = h * 3600 + mi * 60 + sec;
  if (mi > 59 || sec > 59 || seconds > 18 * 3600) return null;
  return (m[1] === '-' ? -1 : 1) * seconds * 1000;
}

/**
 * The zone a name stands for, or null when it names none the runtime knows. As Spark's
 * getZoneId, the (+|-)h:mm and (+|-)hh:m it read before 3.0 are first written (+|-)hh:mm.
 */
export function zoneOf(name: string): Zone | null {
  const trimmed = name.trim().replace(/([+-])(\d):/, '$10$2:').replace(/([+-]\d\d):(\d)$/, '$1:0$2');
  const id = SHORT_IDS[trimmed.toUpperCase()] ?? trimmed;
  const fixed = fixedOffset(id);
  if (fixed !== undefined) return fixed;
  let f = zoneFormats.get(id);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: id, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    } catch {
      f = null;
    }
    if (zoneFormats.size >= 200) zoneFormats.clear();
    zoneFormats.set(id, f);
  }
  return f;
}

/** The zone's offset from UTC (ms) at the instant `ms`. */
export function offsetAt(zone: Zone, ms: number): number {
  if (typeof zone === 'number') return zone;
  const p = Object.fromEntries(zone.formatToParts(ms).map((x) => [x.type, x.value]));
  const wall = utc(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant whose wall-clock time in the zone is `local` (ms as if it were UTC): the offset
 * at `local`, then at the instant that gives. At a daylight saving change, a wall-clock time
 * that does not exist or exists twice can differ from Java's choice by the size of the change.
 */
export function fromWallClock(zone: Zone, local: number): number {
  const guess = local - offsetAt(zone, local);
  return local - offsetAt(zone, guess);
}
