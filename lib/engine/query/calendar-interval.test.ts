import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toLong } from './long';
import { add, divide, getDuration, makeInterval, multiply, negate, safeStringToInterval, stringToInterval, toMultiUnitsString } from './calendar-interval';

const DAY_US = 86_400_000_000n;
const iv = (months: number, days: number, micros: number | bigint) => ({ months, days, micros });

describe("stringToInterval (Spark's IntervalUtils.stringToInterval)", () => {
  it.each([
    ['2 years 5 months', iv(29, 0, 0)],
    ['1 year', iv(12, 0, 0)],
    ['INTERVAL 1 day -2 hours 1.5 seconds', iv(0, 1, -7_200_000_000 + 1_500_000)],
    ['1 week 2 days', iv(0, 9, 0)],
    ['1 hour 30 minutes', iv(0, 0, 5_400_000_000)],
    ['  1 SECOND   2 Milliseconds 3 microsecond ', iv(0, 0, 1_002_003)],
    ['.5 seconds', iv(0, 0, 500_000)],
    ['5. seconds', iv(0, 0, 5_000_000)],
    ['- 5 seconds', iv(0, 0, -5_000_000)],
    ['+3 hours', iv(0, 0, 10_800_000_000)],
    ['-1.5 seconds', iv(0, 0, -1_500_000)],
    // Below a microsecond is truncated.
    ['1.0000009 seconds', iv(0, 0, 1_000_000)],
    ['1 month -40 days', iv(1, -40, 0)],
    ['interval\t2 years', iv(24, 0, 0)],
  ] as const)('%j', (text, want) => {
    expect(stringToInterval(text)).toEqual(want);
  });

  it.each([
    ['', 'interval string cannot be empty'],
    ['interval', 'interval string cannot be empty'],
    ['intervals 5 seconds', 'invalid interval prefix intervals'],
    ['10', "expect a unit name after '10' but hit EOL"],
    ['1 day 10', "expect a unit name after '10' but hit EOL"],
    ['1.5 days', "'days' cannot have fractional part"],
    ['1.5 hours', "'hours' cannot have fractional part"],
    ['10 fortnights', "invalid unit 'fortnights'"],
    ['10 ms', "invalid unit 'ms'"],
    ['1 s', "invalid unit 's'"],
    ['1 dayss', "invalid unit 'dayss'"],
    ['1 day2 hours', "invalid unit 'day2'"],
    ['5seconds', "invalid value '5seconds'"],
    ['x seconds', "unrecognized number 'x'"],
    ['. seconds', "unrecognized number '.'"],
    ['1.1234567891 seconds', 'nanosecond precision'],
    ['2147483648 months', 'overflow'],
    ['178956971 years', 'overflow'],
    ['9223372036854775807 hours', 'overflow'],
    ['9223372036854775808 microseconds', 'out of the range of a BIGINT'],
  ])('refuses %j (%s)', (text, why) => {
    expect(() => stringToInterval(text)).toThrow(why);
    expect(safeStringToInterval(text)).toBeNull();
  });

  it('keeps microseconds past a safe integer exactly (a BIGINT)', () => {
    expect(stringToInterval('9223372036854775807 microseconds').micros).toBe(2n ** 63n - 1n);
  });

  // The oracle: the parts as generated, summed by hand into months, days and microseconds.
  const UNIT_SIZES = { year: [12n, 0n, 0n], month: [1n, 0n, 0n], week: [0n, 7n, 0n], day: [0n, 1n, 0n], hour: [0n, 0n, 3_600_000_000n], minute: [0n, 0n, 60_000_000n], second: [0n, 0n, 1_000_000n], millisecond: [0n, 0n, 1000n], microsecond: [0n, 0n, 1n] } as const;
  const part = fc.record({
    negative: fc.boolean(),
    value: fc.integer({ min: 0, max: 10_000 }),
    unit: fc.constantFrom(...(Object.keys(UNIT_SIZES) as (keyof typeof UNIT_SIZES)[])),
    plural: fc.boolean(),
    upper: fc.boolean(),
    micros: fc.option(fc.integer({ min: 0, max: 999_999 }), { nil: undefined }),
    space: fc.constantFrom(' ', '  ', '\t'),
  });

  it('sums any list of parts as a hand-computed oracle does, and measures it with 31-day months', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(part, { minLength: 1, maxLength: 8 }), (prefixed, parts) => {
        let months = 0n, days = 0n, micros = 0n;
        const words: string[] = prefixed ? ['interval'] : [];
        for (const p of parts) {
          const fraction = p.unit === 'second' && p.micros !== undefined ? p.micros : undefined;
          const [m, d, u] = UNIT_SIZES[p.unit];
          const sign = p.negative ? -1n : 1n;
          months += sign * m * BigInt(p.value);
          days += sign * d * BigInt(p.value);
          micros += sign * (u * BigInt(p.value) + BigInt(fraction ?? 0));
          const unit = `${p.unit}${p.plural ? 's' : ''}`;
          const number = `${p.negative ? '-' : ''}${p.value}${fraction === undefined ? '' : `.${String(fraction).padStart(6, '0')}`}`;
          words.push(number + p.space + (p.upper ? unit.toUpperCase() : unit));
        }
        const got = stringToInterval(words.join(' '));
        expect(got).toEqual({ months: Number(months), days: Number(days), micros: Number(micros) });
        expect(getDuration(got)).toBe(months * 31n * DAY_US + days * DAY_US + micros);
      }),
    );
  });
});

describe("getDuration (Spark's IntervalUtils.getDuration)", () => {
  it('counts a month as 31 days unless told otherwise', () => {
    expect(getDuration(iv(29, 0, 0))).toBe(29n * 31n * DAY_US);
    expect(getDuration(iv(1, -40, 0))).toBe(-9n * DAY_US);
    expect(getDuration(iv(1, 0, 0), 30)).toBe(30n * DAY_US);
    expect(getDuration(iv(0, 1, 2n ** 60n))).toBe(DAY_US + 2n ** 60n);
  });
});

describe("toMultiUnitsString (Spark's IntervalUtils.toMultiUnitsString)", () => {
  it.each([
    // IntervalUtilsSuite's and sql-tests' texts.
    [iv(0, 0, 0), '0 seconds'],
    [iv(14, 0, 0), '1 years 2 months'],
    [iv(-14, 0, 0), '-1 years -2 months'],
    [iv(3, 0, 3_600_000_000), '3 months 1 hours'],
    [iv(0, 1, 2_500_000), '1 days 2.5 seconds'],
    [iv(14, 25, 18_367_008_009), '1 years 2 months 25 days 5 hours 6 minutes 7.008009 seconds'],
    [iv(0, 0, 123_456_789_012_123_456n), '34293552 hours 30 minutes 12.123456 seconds'],
    [iv(0, 0, -1_000_000), '-1 seconds'],
    [iv(0, 0, -500_000), '-0.5 seconds'],
    [iv(0, 0, 1), '0.000001 seconds'],
    [iv(0, 0, 60_000_000), '1 minutes'],
    [iv(0, -3, 14_400_000_000), '-3 days 4 hours'],
    [iv(-2147483648, -2147483648, -(2n ** 63n)), '-178956970 years -8 months -2147483648 days -2562047788 hours -0 minutes -54.775808 seconds'.replace(' -0 minutes', '')],
  ] as const)('case %#: %o', (i, text) => {
    expect(toMultiUnitsString({ ...i, micros: typeof i.micros === 'bigint' ? toLong(i.micros) : i.micros })).toBe(text);
  });

  it('reads back as the same interval (stringToInterval of toMultiUnitsString)', () => {
    const int = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    const micros = fc.oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(toLong));
    fc.assert(
      fc.property(int, int, micros, (months, days, us) => {
        const i = { months, days, micros: us };
        expect(stringToInterval(toMultiUnitsString(i))).toEqual(i);
      }),
    );
  });
});

describe("IntervalUtils' arithmetic with ANSI off", () => {
  it('makeInterval: the parts summed, null where an INT or the microseconds overflow', () => {
    expect(makeInterval(1, 2, 3, 4, 5, 6, 7_008_009n)).toEqual(iv(14, 25, 18_367_008_009));
    expect(makeInterval(178956970, 7, 0, 0, 0, 0, 0n)).toEqual(iv(2147483647, 0, 0));
    expect(makeInterval(178956970, 8, 0, 0, 0, 0, 0n)).toBe(null);
    // 2^31 / 12 years overflow their product before the sum could bring them back.
    expect(makeInterval(178956971, -20, 0, 0, 0, 0, 0n)).toBe(null);
    expect(makeInterval(0, 0, 306783379, 0, 0, 0, 0n)).toBe(null);
    expect(makeInterval(0, 0, 0, 0, 2147483647, 2147483647, 999_999_999_999_999_999n)).toEqual(iv(0, 0, toLong(7_730_941_129_200_000_000n + 128_849_018_820_000_000n + 999_999_999_999_999_999n)));
  });

  it('negate, add and subtract: field by field, wrapping as Java does', () => {
    expect(negate(iv(1, -2, 3))).toEqual(iv(-1, 2, -3));
    expect(negate(iv(-2147483648, 0, toLong(-(2n ** 63n))))).toEqual(iv(-2147483648, 0, toLong(-(2n ** 63n))));
    expect(add(iv(1, 2, 3), iv(10, 20, 30))).toEqual(iv(11, 22, 33));
    expect(add(iv(1, 2, 3), iv(10, 20, 30), -1)).toEqual(iv(-9, -18, -27));
    expect(add(iv(2147483647, 0, 0), iv(1, 0, 0))).toEqual(iv(-2147483648, 0, 0));
  });

  it("multiply and divide: a month's fraction dropped, a day's to the microseconds (Spark: 1 months 1 days * 1.5 = 1 months 1 days 12 hours)", () => {
    expect(toMultiUnitsString(multiply(iv(1, 1, 0), 1.5))).toBe('1 months 1 days 12 hours');
    expect(toMultiUnitsString(multiply(iv(0, 0, 1_000_000), 2.5))).toBe('2.5 seconds');
    // Spark's docs of `/`: interval 2 month / 2 is 1 months; interval 3 days / 2 1 days 12 hours.
    expect(toMultiUnitsString(divide(iv(2, 0, 0), 2)!)).toBe('1 months');
    expect(toMultiUnitsString(divide(iv(0, 3, 0), 2)!)).toBe('1 days 12 hours');
    expect(divide(iv(1, 0, 0), 0)).toBe(null);
    // Java's (int) of a double saturates, and Math.round of NaN is 0.
    expect(multiply(iv(2147483647, 1, 0), 2)).toEqual(iv(2147483647, 2, 0));
    expect(multiply(iv(1, 0, 0), NaN)).toEqual(iv(0, 0, 0));
  });
});
