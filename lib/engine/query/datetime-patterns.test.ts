import { describe, expect, it } from 'vitest';
import { formatWithPattern, parseWithPattern, tokenizePattern } from './datetime-patterns';
import { timestampOf } from './timestamp-micros';

/** date_format of the time (UTC) by the pattern. */
const format = (iso: string, pattern: string): string => {
  const tokens = tokenizePattern(pattern);
  if (typeof tokens === 'string') throw new Error(tokens);
  return formatWithPattern(timestampOf(Date.parse(`${iso}Z`), 0), tokens);
};

describe('formatWithPattern', () => {
  // Spark's datetime-formatting.sql.out, its rows' wall-clock times.
  it('prints the quarter as Spark: Q, QQ 02, QQQ Q2, QQQQ 2nd quarter', () => {
    expect(format('1582-05-31T19:40:35.123', 'q qq')).toBe('2 02');
    expect(format('1582-05-31T19:40:35.123', 'Q QQ QQQ QQQQ')).toBe('2 02 Q2 2nd quarter');
    expect(format('2019-12-31T09:33:33.123', 'Q QQ QQQ QQQQ')).toBe('4 04 Q4 4th quarter');
    expect(format('1996-03-31T07:03:33.123', 'QQQQ')).toBe('1st quarter');
  });

  it('prints the era (G) as Spark: AD, GGGG Anno Domini', () => {
    expect(format('1969-12-31T15:00:00', 'G GG GGG GGGG')).toBe('AD AD AD Anno Domini');
  });

  it("prints a year as java.time's u (Spark's y without G): a sign past yyyy's width or below zero, yy its last two digits", () => {
    expect(format('+012345-01-01T00:00:00', 'yyyy-MM-dd')).toBe('+12345-01-01');
    expect(format('+012345-01-01T00:00:00', 'y yy yyy yyyyy yyyyyy')).toBe('12345 45 12345 12345 012345');
    expect(format('-000044-03-15T00:00:00', 'y yy yyy yyyy yyyyy')).toBe('-44 44 -044 -0044 -00044');
    expect(format('0000-03-15T00:00:00', 'yyyy y yy')).toBe('0000 0 00');
  });

  it("prints a year beside G as java.time's y, the year of its era: 1 BC is year 0", () => {
    expect(format('0000-03-15T00:00:00', 'yyyy y yy G')).toBe('0001 1 01 BC');
    expect(format('-000044-03-15T00:00:00', 'yyyy y yy yyy G')).toBe('0045 45 45 045 BC');
    expect(format('+012345-01-01T00:00:00', 'yyyy G')).toBe('+12345 AD');
  });

  it("prints F as Spark's results do: the day's place in its aligned week of the month", () => {
    expect(format('1582-05-31T19:40:35.123', 'F')).toBe('3');
    expect(format('2018-11-17T05:33:33.123', 'F')).toBe('3');
    expect(format('2100-01-01T01:33:33.123', 'F')).toBe('1');
  });

  // The zone and offset letters of datetime-formatting.sql.out, as java.time prints them in the
  // session zone, UTC (ZoneId.of("UTC")): the offset zero is Z where its form says so.
  it('prints the zone letters in UTC as java.time: VV UTC, O GMT, ZZZZZ Z', () => {
    const t = '1970-12-31T04:59:59.999';
    expect(format(t, 'VV')).toBe('UTC');
    expect(format(t, 'O OOOO')).toBe('GMT GMT');
    expect(format(t, 'Z ZZ ZZZ ZZZZ ZZZZZ')).toBe('+0000 +0000 +0000 GMT Z');
    expect(format(t, 'X XX XXX XXXX XXXXX')).toBe('Z Z Z Z Z');
    expect(format(t, 'x xx xxx xxxx xxxxx')).toBe('+00 +0000 +00:00 +0000 +00:00');
    expect(format(t, 'z zz zzz zzzz')).toBe('UTC UTC UTC Coordinated Universal Time');
  });

  it('refuses V other than VV and O other than O or OOOO, as java.time', () => {
    expect(tokenizePattern('V')).toMatch(/Pattern letter count must be 2: V/);
    expect(tokenizePattern('OO')).toMatch(/Pattern letter count must be 1 or 4: O/);
  });
});

describe('parseWithPattern', () => {
  const parse = (text: string, pattern: string) => {
    const tokens = tokenizePattern(pattern);
    if (typeof tokens === 'string') throw new Error(tokens);
    const v = parseWithPattern(text, tokens);
    return v === null ? null : new Date(v).toISOString();
  };

  it('reads a zone id by VV and a localized offset by O', () => {
    expect(parse('2019-10-06 10:11:12 America/Los_Angeles', 'yyyy-MM-dd HH:mm:ss VV')).toBe('2019-10-06T17:11:12.000Z');
    expect(parse('2019-10-06 10:11:12 GMT+8', 'yyyy-MM-dd HH:mm:ss O')).toBe('2019-10-06T02:11:12.000Z');
    expect(parse('2019-10-06 10:11:12 GMT-07:30', 'yyyy-MM-dd HH:mm:ss OOOO')).toBe('2019-10-06T17:41:12.000Z');
    expect(parse('2019-10-06 10:11:12 GMT', 'yyyy-MM-dd HH:mm:ss O')).toBe('2019-10-06T10:11:12.000Z');
  });
});
