import { describe, expect, it } from 'vitest';
import { formatWithPattern, tokenizePattern } from './datetime-patterns';
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

  it("prints F as Spark's results do: the day's place in its aligned week of the month", () => {
    expect(format('1582-05-31T19:40:35.123', 'F')).toBe('3');
    expect(format('2018-11-17T05:33:33.123', 'F')).toBe('3');
    expect(format('2100-01-01T01:33:33.123', 'F')).toBe('1');
  });
});
