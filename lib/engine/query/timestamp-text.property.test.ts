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
});
