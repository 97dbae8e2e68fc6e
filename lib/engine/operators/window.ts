/**
 * Event-time windows (Spark's TimeWindow): `window(ts, '10 minutes')` is tumbling,
 * `window(ts, '10 minutes', '5 minutes')` is sliding, `window(ts, '10 minutes', '10 minutes',
 * '2 minutes')` starts its windows 2 minutes past the epoch's alignment (Spark's startTime, 0 by
 * default): a row at ts belongs to every window [start, start + size) with
 * start ≡ startTime (mod slide) and start ≤ ts < start + size, i.e. ceil(size / slide) windows at
 * most. The window value is `{ start, end }` in epoch ms; sinks render it with the output schema.
 */
import { ValidationError } from '../errors';
import { MAX_DELAY_MS } from '../spec/duration';

const UNITS: Record<string, number> = {
  millisecond: 1, milliseconds: 1, ms: 1,
  second: 1000, seconds: 1000, sec: 1000, secs: 1000, s: 1000,
  minute: 60_000, minutes: 60_000, min: 60_000, mins: 60_000, m: 60_000,
  hour: 3_600_000, hours: 3_600_000, h: 3_600_000,
  day: 86_400_000, days: 86_400_000, d: 86_400_000,
  week: 604_800_000, weeks: 604_800_000,
};

/**
 * Parses Spark's interval strings (`10 minutes`, `1 hour 30 minutes`, `500 ms`,
 * `interval 5 seconds`) into milliseconds. Months and years are refused: their length varies.
 */
function parseIntervalMs(text: string, what = 'interval', signed = false): number {
  let s = text.trim().toLowerCase().replace(/^interval\s+/, '');
  const negative = signed && s.startsWith('-');
  if (negative) s = s.slice(1).trim();
  const re = /(\d+(?:\.\d+)?)\s*([a-z]+)/g;
  let total = 0, consumed = '';
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const unit = UNITS[m[2]];
    if (unit === undefined) {
      throw new ValidationError(`${what} '${text}': unknown unit "${m[2]}"; use milliseconds, seconds, minutes, hours, days or weeks`, { what, text });
    }
    total += Number(m[1]) * unit;
    consumed += m[0];
  }
  if (consumed.replace(/\s+/g, '') !== s.replace(/\s+/g, '') || (signed ? total < 0 : total <= 0) || !Number.isFinite(total)) {
    throw new ValidationError(`${what} '${text}' is not a ${signed ? '' : 'positive '}interval such as '10 minutes' or '1 hour 30 minutes'`, { what, text });
  }
  return negative ? -Math.round(total) : Math.round(total);
}

export interface TimeWindowSpec {
  sizeMs: number;
  slideMs: number;
  /** Spark's startTime: the offset of the windows from the epoch's alignment (absent: 0). */
  startMs?: number;
}

export interface TimeWindow {
  start: number;
  end: number;
}

/**
 * Each row lands in ceil(size / slide) windows: bounded, so one row cannot fan out into millions
 * of windows (a 1000-week window sliding by 1 ms would be 6e11 per row).
 */
const MAX_WINDOWS_PER_ROW = 1000;

export function timeWindowSpec(size: string, slide?: string, start?: string): TimeWindowSpec {
  const sizeMs = parseIntervalMs(size, 'window duration');
  const slideMs = slide === undefined ? sizeMs : parseIntervalMs(slide, 'window slide duration');
  const startMs = start === undefined ? 0 : parseIntervalMs(start, 'window start time', true);
  if (sizeMs > MAX_DELAY_MS) {
    throw new ValidationError(`The window duration (${size}) must be at most 365 days.`, { size });
  }
  if (Math.ceil(sizeMs / slideMs) > MAX_WINDOWS_PER_ROW) {
    throw new ValidationError(`The window duration (${size}) is more than ${MAX_WINDOWS_PER_ROW} slide durations (${slide}): each row would fall into that many windows. Use a longer slide.`, { size, slide });
  }
  if (slideMs > sizeMs) {
    throw new ValidationError(`The slide duration (${slide}) must be less than or equal to the windowDuration (${size}).`, { size, slide });
  }
  if (Math.abs(startMs) >= slideMs) {
    throw new ValidationError(`The absolute value of start time (${start}) must be less than the slideDuration (${slide ?? size}).`, { size, slide, start });
  }
  // No startMs key when it is 0, so that a window without one describes itself as before.
  return startMs === 0 ? { sizeMs, slideMs } : { sizeMs, slideMs, startMs };
}

/**
 * The start of the latest window containing `ts` (Spark's lastStart, with a modulo that stays
 * positive before 1970). Windows are whole milliseconds: a timestamp's microseconds (its
 * fraction) fall inside the millisecond's windows.
 */
export function lastWindowStart(ts: number, spec: TimeWindowSpec): number {
  const ms = Math.floor(ts);
  const offset = ms - (spec.startMs ?? 0);
  return ms - (((offset % spec.slideMs) + spec.slideMs) % spec.slideMs);
}

/** Windows containing `ts`, earliest first. */
export function windowsFor(ts: number, spec: TimeWindowSpec): TimeWindow[] {
  const { sizeMs, slideMs } = spec;
  const lastStart = lastWindowStart(ts, spec);
  const out: TimeWindow[] = [];
  for (let start = lastStart - Math.ceil(sizeMs / slideMs) * slideMs + slideMs; start <= lastStart; start += slideMs) {
    if (start + sizeMs > ts) out.push({ start, end: start + sizeMs });
  }
  return out;
}

export function describeWindow(spec: TimeWindowSpec): string {
  const fmt = (ms: number) => {
    // "1 minute", "10 minutes": the unit's singular for one of it.
    for (const [name, unit] of [['week', 604_800_000], ['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000]] as const) {
      if (ms % unit === 0) return `${ms / unit} ${ms === unit ? name : `${name}s`}`;
    }
    return `${ms} ${ms === 1 ? 'millisecond' : 'milliseconds'}`;
  };
  const kind = spec.slideMs === spec.sizeMs ? `tumbling ${fmt(spec.sizeMs)}` : `sliding ${fmt(spec.sizeMs)} every ${fmt(spec.slideMs)}`;
  return spec.startMs ? `${kind} starting ${spec.startMs < 0 ? '-' : ''}${fmt(Math.abs(spec.startMs))} past the epoch's alignment` : kind;
}

