import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getDuration, safeStringToInterval, stringToInterval } from './calendar-interval';

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
