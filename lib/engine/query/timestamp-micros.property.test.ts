/**
 * TIMESTAMP's microseconds against an exact oracle (BigInt counts of microseconds): the round
 * trip through the double, text to timestamp and back, and timestamp + day-time interval, over
 * the range where the microseconds are exact (|v| < 2^43 ms, years 1691 to 2248), negative
 * instants included; and whole milliseconds keep the number they always were, so state written
 * before timestamps kept microseconds reads the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertValue } from '../sources/value-conversion';
import { decodeKey, decodeValue, encodeKey, encodeValue } from '../state/state-value-codec';
import { parseTimestampLiteral } from './expression-builder';
import { timestampAddMicros } from './interval-utils';
import { bigOf, toLong } from './long';
import { castValue } from './sql-values';
import { formatTimestamp } from './timestamp-micros';
import { eventsQuery } from './testing/events-query';
import { microsOfTimestamp, splitTimestamp, timestampFromMicros, timestampOf, utcDate } from './timestamp-micros';

/** The exact range: |us| < 2^43 ms in microseconds. */
const LIMIT = 2n ** 43n * 1000n - 1n;
const micros = fc.oneof(
  fc.bigInt({ min: -LIMIT, max: LIMIT }),
  fc.bigInt({ min: -5_000_000n, max: 5_000_000n }),
);

/** The oracle's text of an instant: `yyyy-MM-dd HH:mm:ss[.ffffff]`, trailing zeros dropped. */
function oracleText(us: bigint): string {
  const ms = us / 1000n - (us % 1000n < 0n ? 1n : 0n);
  const sub = us - ms * 1000n;
  const iso = new Date(Number(ms)).toISOString();
  const fraction = `${iso.slice(20, 23)}${sub.toString().padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}`;
}

describe('timestamps keep microseconds', () => {
  it('round-trips every microsecond of the exact range, from a number and from a bigint alike', () => {
    fc.assert(fc.property(micros, (us) => {
      const v = timestampFromMicros(toLong(us));
      expect(timestampFromMicros(us)).toBe(v);
      expect(bigOf(microsOfTimestamp(v))).toBe(us);
      const [ms, sub] = splitTimestamp(v);
      expect(BigInt(ms) * 1000n + BigInt(sub)).toBe(us);
      expect(timestampOf(ms, sub)).toBe(v);
      // The calendar fields are those of the floored millisecond (new Date truncates toward 0).
      expect(utcDate(v).getTime()).toBe(ms);
    }), { numRuns: 2000 });
  });

  it('reads text to the microsecond and prints it back as Spark does', () => {
    fc.assert(fc.property(micros, (us) => {
      const text = oracleText(us);
      const v = parseTimestampLiteral(text)!;
      expect(bigOf(microsOfTimestamp(v))).toBe(us);
      expect(v).toBe(timestampFromMicros(us));
      expect(formatTimestamp(v)).toBe(text);
      expect(castValue(text, 'string', 'timestamp')).toBe(v);
      expect(castValue(v, 'timestamp', 'string')).toBe(text);
    }), { numRuns: 1000 });
  });

  it('adds a day-time interval exactly, in microseconds', () => {
    const interval = fc.oneof(fc.bigInt({ min: -LIMIT / 2n, max: LIMIT / 2n }), fc.bigInt({ min: -2000n, max: 2000n }));
    fc.assert(fc.property(fc.bigInt({ min: -LIMIT / 2n, max: LIMIT / 2n }), interval, (us, i) => {
      const r = timestampAddMicros(timestampFromMicros(us), toLong(i));
      expect(bigOf(microsOfTimestamp(r))).toBe(us + i);
      expect(r).toBe(timestampFromMicros(us + i));
    }), { numRuns: 2000 });
  });

  it('keeps Spark\'s text examples', () => {
    const v = parseTimestampLiteral('2019-10-01 00:00:01.000001')!;
    expect(formatTimestamp(v)).toBe('2019-10-01 00:00:01.000001');
    expect(formatTimestamp(parseTimestampLiteral('2019-10-01 00:00:01.1')!)).toBe('2019-10-01 00:00:01.1');
    // A seventh to ninth digit is truncated, as Spark's.
    expect(formatTimestamp(parseTimestampLiteral('2019-10-01 00:00:01.123456789')!)).toBe('2019-10-01 00:00:01.123456');
    // Before 1970 the fraction still counts forward from the floored millisecond.
    expect(formatTimestamp(parseTimestampLiteral('1969-12-31 23:59:59.999999')!)).toBe('1969-12-31 23:59:59.999999');
    expect(microsOfTimestamp(parseTimestampLiteral('1969-12-31 23:59:59.999999')!)).toBe(-1);
  });

  it('keeps a whole millisecond the number it was, so old checkpoints\' state reads the same', () => {
    fc.assert(fc.property(fc.integer({ min: -(2 ** 47), max: 2 ** 47 }), (ms) => {
      // The representation before microseconds: the integer epoch milliseconds.
      if (Number.isSafeInteger(ms * 1000)) expect(timestampFromMicros(ms * 1000)).toBe(ms);
      expect(timestampFromMicros(BigInt(ms) * 1000n)).toBe(ms);
      expect(timestampOf(ms)).toBe(ms);
      expect(microsOfTimestamp(ms)).toEqual(toLong(BigInt(ms) * 1000n));
      const row = { ts: ms, w: { start: ms, end: ms + 1000 } };
      expect(encodeValue({ ts: timestampFromMicros(BigInt(ms) * 1000n), w: { start: timestampOf(ms), end: timestampOf(ms + 1000) } })).toEqual(encodeValue(row));
      expect(decodeValue(encodeValue(row))).toEqual(row);
      expect(encodeKey([timestampOf(ms)])).toBe(encodeKey([ms]));
    }), { numRuns: 500 });
    expect(parseTimestampLiteral('2024-01-02 03:04:05.123')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 123));
    expect(parseTimestampLiteral('2024-01-02 03:04:05.123000')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 123));
  });

  it('stores a timestamp with microseconds in state, value and key, exactly', () => {
    fc.assert(fc.property(micros, (us) => {
      const v = timestampFromMicros(us);
      expect(decodeValue(encodeValue({ ts: v }))).toEqual({ ts: v });
      expect(decodeKey(encodeKey([v]))).toEqual([v]);
    }), { numRuns: 500 });
  });

  it('reads a source column\'s ISO text to the microsecond, the same double as the cast', () => {
    fc.assert(fc.property(micros, (us) => {
      const text = oracleText(us).replace(' ', 'T');
      const v = timestampFromMicros(us);
      expect(convertValue(`${text}Z`, { name: 'ts', type: 'timestamp' })).toEqual({ ok: true, value: v });
      expect(convertValue(text, { name: 'ts', type: 'timestamp', ntz: true })).toEqual({ ok: true, value: v });
    }), { numRuns: 300 });
    // An offset moves the instant; other ISO-8601 text still reads as Date.parse reads it.
    expect(convertValue('2024-01-02T03:04:05.123456+01:00', { name: 'ts', type: 'timestamp' })).toEqual({ ok: true, value: parseTimestampLiteral('2024-01-02 02:04:05.123456')! });
    expect(convertValue('Tue, 02 Jan 2024 03:04:05 GMT', { name: 'ts', type: 'timestamp' })).toEqual({ ok: true, value: Date.UTC(2024, 0, 2, 3, 4, 5) });
  });

  it('gives one double per instant whichever SQL produces it, so equality and GROUP BY agree', async () => {
    const { run } = eventsQuery([{ name: 'us', type: 'long' }, { name: 'text', type: 'string' }, { name: 'ts', type: 'timestamp' }]);
    const sample = fc.sample(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), { numRuns: 200, seed: 7 });
    const input = sample.map((us) => ({ us: Number(us), text: oracleText(us), ts: (convertValue(oracleText(us).replace(' ', 'T'), { name: 'ts', type: 'timestamp' }) as { value: number }).value }));
    const rows = await run(
      `SELECT timestamp_micros(us) AS a, CAST(text AS TIMESTAMP) AS b, to_timestamp(text, 'yyyy-MM-dd HH:mm:ss[.SSSSSS]') AS c, ` +
        `timestamp_micros(us - 1234567) + INTERVAL '1.234567' SECOND AS d, timestampadd(MICROSECOND, 1, timestamp_micros(us - 1)) AS e, ` +
        `CAST(CAST(timestamp_micros(us) AS DECIMAL(20,6)) AS TIMESTAMP) AS f, ts AS g, unix_micros(CAST(text AS TIMESTAMP)) AS back FROM events`,
      input,
    );
    rows.forEach((r, i) => {
      const v = timestampFromMicros(sample[i]);
      expect([r.a, r.b, r.c, r.d, r.e, r.f, r.g]).toEqual([v, v, v, v, v, v, v]);
      expect(r.back).toBe(Number(sample[i]));
    });
    // Group keys are the values themselves (Map keys, the state key codec): one per instant.
    expect(new Set(rows.flatMap((r) => [r.a, r.b, r.c, r.d, r.e, r.f, r.g])).size).toBe(new Set(sample).size);
  });
});
