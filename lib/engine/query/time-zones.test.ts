import { describe, expect, it } from 'vitest';
import { parseTimestampLiteral } from './expression-builder';
import { formatTimestamp } from './timestamp-micros';
import { zoneOf } from './time-zones';

const HOUR = 3_600_000;

describe('zoneOf reads a fixed offset as Java\'s ZoneId.of does (Spark\'s getZoneId)', () => {
  it('takes an offset of seconds, with or without a UTC, GMT or UT prefix', () => {
    expect(zoneOf('UTC+080000')).toBe(8 * HOUR);
    expect(zoneOf('+08:00:00')).toBe(8 * HOUR);
    expect(zoneOf('-07:52:58')).toBe(-(7 * HOUR + 52 * 60_000 + 58_000));
    expect(zoneOf('GMT-075258')).toBe(-(7 * HOUR + 52 * 60_000 + 58_000));
    expect(zoneOf('UT+0530')).toBe(5.5 * HOUR);
  });

  it('reads the forms Spark rewrites before Java reads them, (+|-)h:mm and (+|-)hh:m', () => {
    expect(zoneOf('GMT+8:00')).toBe(8 * HOUR);
    expect(zoneOf('+1:0')).toBe(HOUR);
    expect(zoneOf('-08:3')).toBe(-(8 * HOUR + 3 * 60_000));
  });

  it('refuses what ZoneOffset.of refuses: a three-digit offset, mixed separators, past 18:00', () => {
    expect(zoneOf('+800')).toBeNull();
    expect(zoneOf('+08:0000')).toBeNull();
    expect(zoneOf('+0800:00')).toBeNull();
    expect(zoneOf('+19')).toBeNull();
    expect(zoneOf('+18:00:01')).toBeNull();
    expect(zoneOf('+08:60')).toBeNull();
    expect(zoneOf('Z+08')).toBeNull();
  });

  it('a timestamp written with such a zone is that instant', () => {
    // Spark's datetime-formatting.sql view: shown 1582-05-31 19:40:35.123 in America/Los_Angeles.
    expect(formatTimestamp(parseTimestampLiteral('1582-06-01 11:33:33.123UTC+080000')!)).toBe('1582-06-01 03:33:33.123');
    expect(formatTimestamp(parseTimestampLiteral('2020-01-01 01:33:33+08:00:30')!)).toBe('2019-12-31 17:33:03');
    expect(parseTimestampLiteral('2020-01-01 01:33:33+800')).toBeNull();
  });
});
