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

/** The zone a name stands for, or null when it names none the runtime knows. */
export function zoneOf(name: string): Zone | null {
  const trimmed = name.trim();
  const id = SHORT_IDS[trimmed.toUpperCase()] ?? trimmed;
  const fixed = /^(?:UTC|GMT|UT|Z)?(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$/i.exec(id);
  if (fixed && id !== '') return fixed[1] ? (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3] ?? 0)) * 60_000 : 0;
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
