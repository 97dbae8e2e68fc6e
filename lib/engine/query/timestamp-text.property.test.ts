/**
 * parseTimestampLiteral reads the form sources send by position (its fast path) and everything
 * else with a regular expression and Date.UTC (its general path). Text with a leading space takes
 * the general path (it trims first) and means the same timestamp, so the two paths are compared
 * over random text of that form: valid, out of range, with and without a fraction and a zone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimestampLiteral } from './expression-builder';

const pad = (n: number, w: number) => String(n).padStart(w, '0');

const text = fc.record({
  y: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1960, max: 2100 })),
  mo: fc.integer({ min: 0, max: 13 }),
  d: fc.integer({ min: 0, max: 32 }),
  h: fc.integer({ min: 0, max: 25 }),
  mi: fc.integer({ min: 0, max: 61 }),
  s: fc.integer({ min: 0, max: 61 }),
  sep: fc.constantFrom('T', ' '),
  frac: fc.oneof(fc.constant(''), fc.stringMatching(/^\.[0-9]{1,10}$/), fc.constant('.')),
  zone: fc.oneof(fc.constant(''), fc.constant('Z'), fc.stringMatching(/^[+-][0-9]{2}:[0-9]{2}$/), fc.stringMatching(/^[+-][0-9]{4}$/), fc.constant(' Z')),
}).map((t) => `${pad(t.y, 4)}-${pad(t.mo, 2)}-${pad(t.d, 2)}${t.sep}${pad(t.h, 2)}:${pad(t.mi, 2)}:${pad(t.s, 2)}${t.frac}${t.zone}`);

describe('parseTimestampLiteral', () => {
  it('reads a source timestamp by position as the general path reads it', () => {
    fc.assert(
      fc.property(text, fc.boolean(), fc.boolean(), (s, ntz, refuseZone) => {
        expect(parseTimestampLiteral(s, ntz, refuseZone), s).toBe(parseTimestampLiteral(` ${s}`, ntz, refuseZone));
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps microseconds and the zone, and refuses a day that does not exist', () => {
    expect(parseTimestampLiteral('2019-10-01T00:00:01.000001Z')).toBe(Date.UTC(2019, 9, 1, 0, 0, 1) + 0.001);
    expect(parseTimestampLiteral('2024-01-02T03:04:05.5+01:00')).toBe(Date.UTC(2024, 0, 2, 2, 4, 5, 500));
    expect(parseTimestampLiteral('2024-02-30T00:00:00')).toBeNull();
    expect(parseTimestampLiteral('2024-02-29 23:59:59.999999999')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999) + 0.999);
  });

  // Spark's stringToTimestamp reads a time without a date as that time of the current date in
  // the string's zone (else the session's): Weir's current date is the batch's, as current_date().
  const timeText = fc.record({
    t: fc.boolean(),
    h: fc.integer({ min: 0, max: 25 }),
    mi: fc.integer({ min: 0, max: 61 }),
    s: fc.option(fc.integer({ min: 0, max: 61 })),
    frac: fc.oneof(fc.constant(''), fc.stringMatching(/^\.[0-9]{1,9}$/)),
    zone: fc.constantFrom('', 'Z', ' UTC', '+02:00', '-0930', ' Asia/Tokyo', ' America/Los_Angeles'),
  }).map((x) => `${pad(x.h, 2)}:${pad(x.mi, 2)}${x.s === null ? '' : `:${pad(x.s, 2)}${x.frac}`}${x.zone}`);
  const batchTime = fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) });
  const wallDate = (ms: number, zone: string) => {
    const name = zone.trim() === '' || zone.trim() === 'Z' ? 'UTC' : zone.trim().replace(/^([+-]\d\d):?(\d\d)$/, '$1:$2');
    const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: name, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(ms).map((x) => [x.type, x.value]));
    return `${p.year}-${p.month}-${p.day}`;
  };

  it("reads a time without a date as that time of the batch's date in its zone", () => {
    fc.assert(
      fc.property(timeText, batchTime, (s, now) => {
        const zone = / ?(Z|UTC|[+-][0-9:]+|[A-Za-z]+\/[A-Za-z_]+)$/.exec(s)?.[0] ?? '';
        const time = s.slice(0, s.length - zone.length);
        expect(parseTimestampLiteral(s, false, false, now), s).toBe(parseTimestampLiteral(`${wallDate(now, zone)} ${time}${zone}`));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads no time without a date when it has no batch, nor as a TIMESTAMP_NTZ (as Spark)', () => {
    const now = Date.UTC(2026, 11, 7, 23, 30);
    expect(parseTimestampLiteral('10:11:12', false, false, now)).toBe(Date.UTC(2026, 11, 7, 10, 11, 12));
    expect(parseTimestampLiteral('T10:11', false, false, now)).toBe(Date.UTC(2026, 11, 7, 10, 11));
    expect(parseTimestampLiteral('10:11 +02:00', false, false, now)).toBe(Date.UTC(2026, 11, 8, 8, 11));
    expect(parseTimestampLiteral('10:11:12')).toBeNull();
    expect(parseTimestampLiteral('10:11:12', true, false, now)).toBeNull();
    expect(parseTimestampLiteral('24:00:00', false, false, now)).toBeNull();
    expect(parseTimestampLiteral('10:11:12 Mars/Olympus', false, false, now)).toBeNull();
  });
});
