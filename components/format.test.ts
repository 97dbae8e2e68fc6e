import { describe, expect, it } from 'vitest';
import { formatAgo, formatClock, formatDateTime, formatFixed, formatInterval, plural } from './format';

describe('formatAgo', () => {
  const t0 = Date.parse('2026-12-01T10:00:00.000Z');
  const iso = new Date(t0).toISOString();
  it('advances with the clock it is given: whole seconds, then minutes, hours, days', () => {
    expect(formatAgo(iso, t0)).toBe('just now');
    expect(formatAgo(iso, t0 - 500)).toBe('just now'); // a client clock slightly behind the server's
    expect(formatAgo(iso, t0 + 1_000)).toBe('1 s ago');
    expect(formatAgo(iso, t0 + 6_400)).toBe('6 s ago');
    expect(formatAgo(iso, t0 + 59_999)).toBe('59 s ago');
    expect(formatAgo(iso, t0 + 61_000)).toBe('1 min ago');
    expect(formatAgo(iso, t0 + 3 * 3_600_000)).toBe('3 h ago');
    expect(formatAgo(iso, t0 + 2 * 86_400_000)).toBe('2 d ago');
    expect(formatAgo(null, t0)).toBe('–');
  });
});

describe('plural', () => {
  it('says 1 batch and 2 batches', () => {
    expect(plural(1, 'batch', 'batches')).toBe('1 batch');
    expect(plural(0, 'batch', 'batches')).toBe('0 batches');
    expect(plural(2, 'run')).toBe('2 runs');
  });
});

describe('formatFixed', () => {
  it('gives every row of a column the same decimals', () => {
    expect([5, 5.0, 4.94, 4.96, 1234.5].map((n) => formatFixed(n))).toEqual(['5.0', '5.0', '4.9', '5.0', '1,234.5']);
    expect(formatFixed(null)).toBe('–');
    expect(formatFixed(Number.NaN)).toBe('–');
  });
});

describe('formatInterval', () => {
  it('names a configured duration in its largest unit and the next, never as raw ms', () => {
    expect(formatInterval(1_800_000)).toBe('30 min');
    expect(formatInterval(5_400_000)).toBe('1 h 30 min');
    expect(formatInterval(90_000)).toBe('1 min 30 s');
    expect(formatInterval(86_400_000)).toBe('1 d');
    expect(formatInterval(250)).toBe('250 ms');
    expect(formatInterval(0)).toBe('0 s');
    expect(formatInterval(null)).toBe('–');
  });
});

describe('formatDateTime', () => {
  it('writes every instant one way, in UTC and saying so, whatever it was given', () => {
    const iso = '2026-12-02T06:45:47.326Z';
    expect(formatDateTime(iso)).toBe('2026-12-02 06:45:47 UTC');
    expect(formatDateTime(Date.parse(iso))).toBe('2026-12-02 06:45:47 UTC');
    expect(formatDateTime(new Date(iso))).toBe('2026-12-02 06:45:47 UTC');
    expect(formatDateTime(iso, { ms: true })).toBe('2026-12-02 06:45:47.326 UTC');
    // An offset other than Z is the same instant, written in UTC.
    expect(formatDateTime('2026-12-02T07:45:47+01:00')).toBe('2026-12-02 06:45:47 UTC');
    expect(formatClock(iso)).toBe('06:45:47 UTC');
  });

  it('shows a dash for no time or a broken one', () => {
    for (const v of [null, undefined, '', 'not a date', Number.NaN]) {
      expect(formatDateTime(v)).toBe('–');
      expect(formatClock(v)).toBe('–');
    }
  });
});
