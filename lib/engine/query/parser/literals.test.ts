import { describe, expect, it } from 'vitest';
import { SqlValidationError } from '../sql-error';
import { parseExpression } from './ast-builder';
import { simpleString } from './data-type';
import type { Literal } from './unresolved-plan';

const lit = (sql: string) => {
  const e = parseExpression(sql);
  if (e.kind !== 'Literal') throw new Error(`${sql} is a ${e.kind}`);
  return e;
};
const typed = (sql: string) => {
  const l = lit(sql);
  return [l.value, simpleString(l.dataType)];
};
const errorOf = (sql: string) => {
  try {
    parseExpression(sql);
  } catch (e) {
    if (e instanceof SqlValidationError) return e;
    throw e;
  }
  throw new Error(`parsed: ${sql}`);
};

describe("numeric literals, typed as Spark's AstBuilder types them", () => {
  // Cases from Spark's SQL reference, "Literals".
  it('an integer is INT if it fits, else BIGINT, else DECIMAL', () => {
    expect(typed('-2147483648')).toEqual([-2147483648n, 'int']);
    expect(typed('2147483647')).toEqual([2147483647n, 'int']);
    expect(typed('2147483648')).toEqual([2147483648n, 'bigint']);
    expect(typed('9223372036854775807')).toEqual([9223372036854775807n, 'bigint']);
    expect(typed('9223372036854775808')).toEqual([{ unscaled: 9223372036854775808n, scale: 0 }, 'decimal(19,0)']);
  });

  it('suffixes: Y tinyint, S smallint, L bigint, D double, F float, BD decimal', () => {
    expect(typed('-32Y')).toEqual([-32n, 'tinyint']);
    expect(typed('482S')).toEqual([482n, 'smallint']);
    expect(typed('9223372036854775807l')).toEqual([9223372036854775807n, 'bigint']);
    expect(typed('5D')).toEqual([5, 'double']);
    expect(typed('1.5F')).toEqual([1.5, 'float']);
    expect(typed('-5BD')).toEqual([{ unscaled: -5n, scale: 0 }, 'decimal(1,0)']);
    expect(typed('123.BD')).toEqual([{ unscaled: 123n, scale: 0 }, 'decimal(3,0)']);
    expect(typed('-.1234567E+2BD')).toEqual([{ unscaled: -1234567n, scale: 5 }, 'decimal(7,5)']);
  });

  it('a decimal point makes a DECIMAL of its digits, an exponent a DOUBLE', () => {
    expect(typed('12.578')).toEqual([{ unscaled: 12578n, scale: 3 }, 'decimal(5,3)']);
    expect(typed('-0.1234567')).toEqual([{ unscaled: -1234567n, scale: 7 }, 'decimal(7,7)']);
    expect(typed('0.05')).toEqual([{ unscaled: 5n, scale: 2 }, 'decimal(2,2)']);
    expect(typed('1.80')).toEqual([{ unscaled: 180n, scale: 2 }, 'decimal(3,2)']);
    expect(typed('.5')).toEqual([{ unscaled: 5n, scale: 1 }, 'decimal(1,1)']);
    expect(typed('5E2')).toEqual([500, 'double']);
    expect(typed('1.5e0')).toEqual([1.5, 'double']);
    expect(typed('12.578e-2d')).toEqual([0.12578, 'double']);
  });

  it("out of range is Spark's INVALID_NUMERIC_LITERAL_RANGE", () => {
    const e = errorOf('128Y');
    expect(e.errorClass).toBe('INVALID_NUMERIC_LITERAL_RANGE');
    expect(e.message).toBe('[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 128 is outside the valid range for tinyint with minimum value of -128 and maximum value of 127. Please adjust the value accordingly. (line 1, column 1)');
    expect(typed('-128Y')).toEqual([-128n, 'tinyint']);
    expect(errorOf('32768S').errorClass).toBe('INVALID_NUMERIC_LITERAL_RANGE');
    expect(errorOf('9223372036854775808L').message).toMatch(/for bigint with minimum value of -9223372036854775808 and maximum value of 9223372036854775807/);
    expect(errorOf('1E400D').errorClass).toBe('INVALID_NUMERIC_LITERAL_RANGE');
    expect(errorOf('123456789012345678901234567890123456789.5').errorClass).toBe('DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION');
  });
});

describe("string literals with Spark's escapes", () => {
  it('unescapes backslash sequences, and reads raw strings as written', () => {
    expect(lit("'a\\nb'").value).toBe('a\nb');
    expect(lit("'\\u0041\\t\\Z\\0'").value).toBe('A\t\u001A\u0000');
    expect(lit("'\\U0001F600'").value).toBe('😀');
    expect(lit("'\\101'").value).toBe('A');
    expect(lit("'\\%\\_\\q\\''").value).toBe("\\%\\_q'");
    expect(lit("r'raw\\d'").value).toBe('raw\\d');
    expect(lit('R"C:\\dir"').value).toBe('C:\\dir');
    expect(lit('"dq \\"x\\""').value).toBe('dq "x"');
  });

  it('joins adjacent literals, as Spark does', () => {
    expect(lit("'it' 's'").value).toBe('its');
    expect(lit(`"S" "par" 'k'`).value).toBe('Spark');
  });

  it("reads a doubled quote as one, as Spark 4.1 does (SQL's escape)", () => {
    expect(lit("'it''s'").value).toBe("it's");
    expect(lit(`"say ""hi"""`).value).toBe('say "hi"');
    expect(lit("''''").value).toBe("'");
    expect(lit(String.raw`'\\''x'`).value).toBe("\\'x");
    expect(lit(`'a'"b"`).value).toBe('ab');
    expect(lit("r'a''b'").value).toBe('ab');
  });
});

describe('typed literals', () => {
  it('DATE, TIMESTAMP, TIMESTAMP_NTZ and X', () => {
    expect(typed("DATE '2024-01-02'")).toEqual([19724, 'date']);
    expect(typed("TIMESTAMP '2024-01-02 03:04:05'")).toEqual(['2024-01-02 03:04:05', 'timestamp']);
    expect(typed("TIMESTAMP_NTZ '2024-01-02 03:04:05.123'")).toEqual(['2024-01-02 03:04:05.123', 'timestamp_ntz']);
    expect(typed("X'1F'")).toEqual([new Uint8Array([0x1f]), 'binary']);
    expect(typed("X'123'")).toEqual([new Uint8Array([0x01, 0x23]), 'binary']);
    // A zone as Spark's getZoneId reads one: an ID with an offset (UTC+08:00, GMT-5) too.
    for (const zoned of ["TIMESTAMP '1997-01-31 09:26:56.66666666UTC+08:00'", "TIMESTAMP '1997-01-31 09:26:56 GMT-5'", "TIMESTAMP '1997-01-31 09:26:56 America/Argentina/Buenos_Aires'"]) {
      expect(typed(zoned)[1], zoned).toBe('timestamp');
    }
    expect(errorOf("DATE '2024-02-30'").message).toBe(`[INVALID_TYPED_LITERAL] The value of the typed literal "DATE" is invalid: '2024-02-30'. (line 1, column 1)`);
  });

  it("Spark's special date and timestamp values: epoch a constant, the rest kept as their word", () => {
    expect(typed("DATE 'epoch'")).toEqual([0, 'date']);
    expect(typed("DATE ' Today '")).toEqual(['today', 'date']);
    expect(typed("DATE 'tomorrow UTC'")).toEqual(['tomorrow', 'date']);
    expect(typed("TIMESTAMP 'EPOCH'")).toEqual(['1970-01-01 00:00:00', 'timestamp']);
    expect(typed("TIMESTAMP 'now'")).toEqual(['now', 'timestamp']);
    expect(typed("TIMESTAMP_NTZ 'yesterday'")).toEqual(['yesterday', 'timestamp_ntz']);
    // A time without a date is a TIMESTAMP's (of the current date), not a TIMESTAMP_NTZ's.
    expect(typed("TIMESTAMP '10:11:12.5'")).toEqual(['10:11:12.5', 'timestamp']);
    // Spark's extractSpecialValue: no zone after now, a zone it resolves after the rest.
    for (const bad of ["TIMESTAMP 'now UTC'", "DATE 'today Mars/Olympus'", "DATE 'todays'", "TIMESTAMP_NTZ '10:11:12'", "DATE 'noon'"]) {
      expect(errorOf(bad).errorClass, bad).toBe('INVALID_TYPED_LITERAL');
    }
  });

  it('intervals are ANSI intervals (Spark 3.2+ default)', () => {
    const day = 86_400_000_000n;
    expect(typed('INTERVAL 1 DAY')).toEqual([day, 'interval day']);
    expect(typed("INTERVAL '1' DAY")).toEqual([day, 'interval day']);
    expect(typed('INTERVAL 1 DAY 2 HOURS')).toEqual([day + 7_200_000_000n, 'interval day to hour']);
    expect(typed('INTERVAL 1.5 SECONDS')).toEqual([1_500_000n, 'interval second']);
    expect(typed('INTERVAL 1 YEAR 2 MONTHS')).toEqual([14, 'interval year to month']);
    expect(typed("INTERVAL '1-2' YEAR TO MONTH")).toEqual([14, 'interval year to month']);
    expect(typed("INTERVAL '-1 02:03:04.5' DAY TO SECOND")).toEqual([-(day + 7_384_500_000n), 'interval day to second']);
    expect(typed("INTERVAL '5 minutes'")).toEqual([300_000_000n, 'interval minute']);
    expect(errorOf('INTERVAL 1 YEAR 2 DAYS').message).toMatch(/Cannot mix year-month and day-time fields/);
    // Spark's grammar takes the unit NANOSECOND; its interval reader does not.
    expect(errorOf('INTERVAL 10 NANOSECONDS').errorClass).toBe('INVALID_INTERVAL_FORMAT.INVALID_UNIT');
    expect(errorOf("INTERVAL '1 day 10 nanoseconds'").errorClass).toBe('INVALID_INTERVAL_FORMAT.INVALID_UNIT');
  });

  it("an interval string of units is typed by its units, as the unquoted form (Spark 4's constructMultiUnitsIntervalLiteral)", () => {
    const day = 86_400_000_000n;
    expect(typed("INTERVAL '1 day'")).toEqual([day, 'interval day']);
    expect(typed("INTERVAL '23 DAYS'")).toEqual([23n * day, 'interval day']);
    expect(typed("INTERVAL '1 months'")).toEqual([1, 'interval month']);
    expect(typed("INTERVAL '1 seconds'")).toEqual([1_000_000n, 'interval second']);
    expect(typed("INTERVAL '3 year 1 month'")).toEqual([37, 'interval year to month']);
    expect(typed("INTERVAL 'interval 1 day 2 hours'")).toEqual([day + 7_200_000_000n, 'interval day to hour']);
    // A week is days, a millisecond or microsecond seconds.
    expect(typed("INTERVAL '2 weeks'")).toEqual([14n * day, 'interval day']);
    expect(typed("INTERVAL '1 hour 100 milliseconds'")).toEqual([3_600_100_000n, 'interval hour to second']);
    expect(typed("INTERVAL '-1 day 1 hour -1 minute 1 second'")).toEqual([-(day - 3_600_000_000n + 60_000_000n - 1_000_000n), 'interval day to second']);
  });

  it('NULL and booleans', () => {
    expect(typed('NULL')).toEqual([null, 'void']);
    expect(typed('true')).toEqual([true, 'boolean']);
  });
});

describe('literal positions', () => {
  it('span the literal, sign and suffix included', () => {
    const e = parseExpression("a + -12L + 'x'");
    const lits: Literal[] = [];
    const walk = (x: unknown) => {
      if (x && typeof x === 'object') {
        if ((x as Literal).kind === 'Literal') lits.push(x as Literal);
        else Object.values(x).forEach(walk);
      }
    };
    walk(e);
    expect(lits.map((l) => [l.pos.start, l.pos.end])).toEqual([[4, 8], [11, 14]]);
  });
});
