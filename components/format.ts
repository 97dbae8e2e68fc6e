/** Number and time formatting shared by tables and charts (one place, so units agree). */
export function formatNumber(n: number | null | undefined, digits = 1): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${(n / 1e9).toFixed(digits)}G`;
  if (abs >= 1e6) return `${(n / 1e6).toFixed(digits)}M`;
  if (abs >= 1e4) return `${(n / 1e3).toFixed(digits)}k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(digits);
}

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (Math.abs(ms) < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

type Instant = string | number | Date | null | undefined;

function isoOf(v: Instant): string | null {
  if (v === null || v === undefined || v === '') return null;
  const d = v instanceof Date ? v : new Date(v);
  return Number.isFinite(d.getTime()) ? d.toISOString() : null;
}

/**
 * The one way the dashboard writes an instant: "2026-12-02 06:45:47 UTC" (with `ms`,
 * "06:45:47.326"). Always UTC, so the server's render and the browser's agree, and every
 * page, message and log line lines up with the next.
 */
export function formatDateTime(v: Instant, opts: { ms?: boolean } = {}): string {
  const iso = isoOf(v);
  if (!iso) return '–';
  return `${iso.slice(0, 10)} ${iso.slice(11, opts.ms ? 23 : 19)} UTC`;
}

/** The time of day alone, where the day is plain from the context (a timeline): "06:45:47 UTC". */
export function formatClock(v: Instant): string {
  const iso = isoOf(v);
  return iso ? `${iso.slice(11, 19)} UTC` : '–';
}

/**
 * A configured duration in its largest unit and the next one if not zero: "30 min", "1 h 30 min",
 * 90 s → "1 min 30 s", "250 ms". For settings (a rule's window, a delay), where formatDuration's one
 * rounded decimal ("30.0 min") reads like a measurement.
 */
export function formatInterval(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms === 0) return '0 s';
  const units: [string, number][] = [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000], ['ms', 1]];
  let rest = Math.abs(Math.round(ms));
  const parts: string[] = [];
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${name}`);
    if (parts.length === 2) break;
    if (parts.length === 1 && n === 0) break;
  }
  return `${ms < 0 ? '-' : ''}${parts.join(' ')}`;
}

/**
 * "12 s ago" style, relative to `now` (passed in so renders are deterministic in tests; pages
 * pass the ticking clock of use-now.ts). Whole seconds under a minute, so a once-a-second clock
 * moves it visibly; under a second (or a clock slightly behind the server's) is "just now".
 */
export function formatAgo(iso: string | null | undefined, now: number): string {
  if (!iso) return '–';
  const d = now - Date.parse(iso);
  if (!Number.isFinite(d)) return '–';
  if (d < 1000) return 'just now';
  if (d < 60_000) return `${Math.floor(d / 1000)} s ago`;
  if (d < 3_600_000) return `${Math.floor(d / 60_000)} min ago`;
  if (d < 86_400_000) return `${Math.floor(d / 3_600_000)} h ago`;
  return `${Math.floor(d / 86_400_000)} d ago`;
}

/** "1 batch", "3 batches": a count with its noun, singular or plural. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A column of numbers with the same decimals on every row ("5.0", "4.9", never "5" beside
 * "4.9"): `digits` decimals whatever the value, thousands grouped.
 */
export function formatFixed(n: number | null | undefined, digits = 1): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
