/**
 * Text whose value Spark takes from the session's current date: a time without a date cast to a
 * TIMESTAMP, and the special values of a typed literal (DATE 'today', TIMESTAMP 'now') or of a cast of a
 * constant string (CAST('today' AS DATE)). Weir's current date is the batch's (offsets/N's batchTimestampMs, as current_date()
 * reads it), so a batch that runs again reads the same values.
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../types';
import { compileStreamingQuery } from './streaming-query';
import type { StreamingRelation } from './logical-plan';

const rel: StreamingRelation = { kind: 'StreamingRelation', sourceName: 'events', schema: [{ name: 's', type: 'string' }], watermarkDelayMs: 0 };

async function run(sql: string, batchTimestampMs: number, input: Row[] = [{ s: null }]): Promise<Row[]> {
  const q = compileStreamingQuery(sql, rel);
  let out = input;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs });
  return out;
}

const BATCH = Date.UTC(2026, 11, 7, 23, 30);

describe("a time without a date is that time of the batch's date", () => {
  it('cast to a TIMESTAMP, implicitly by hour(), minute() and second(), or explicitly', async () => {
    const [row] = await run("SELECT hour('10:11:12') AS h, minute('10:11:12') AS m, second('10:11:12') AS sec, CAST('10:11:12' AS TIMESTAMP) AS t, CAST('10:11 +02:00' AS TIMESTAMP) AS z FROM events", BATCH);
    expect(row).toEqual({ h: 10, m: 11, sec: 12, t: Date.UTC(2026, 11, 7, 10, 11, 12), z: Date.UTC(2026, 11, 8, 8, 11) });
  });

  it("a column's text too, and the same on a re-run of the batch", async () => {
    const sql = 'SELECT CAST(s AS TIMESTAMP) AS t, s < current_timestamp() AS before FROM events';
    const input = [{ s: '10:11:12.5' }, { s: '2024-01-02 03:04:05' }];
    const first = await run(sql, BATCH, input);
    expect(first).toEqual([{ t: Date.UTC(2026, 11, 7, 10, 11, 12, 500), before: true }, { t: Date.UTC(2024, 0, 2, 3, 4, 5), before: true }]);
    expect(await run(sql, BATCH, input)).toEqual(first);
    expect((await run(sql, Date.UTC(2027, 0, 1), input))[0].t).toBe(Date.UTC(2027, 0, 1, 10, 11, 12, 500));
  });
});

describe('a time without a date read by a function whose input Spark casts to a TIMESTAMP', () => {
  const today = (h: number, m = 0, sec = 0) => Date.UTC(2026, 11, 7, h, m, sec);
  it('is that time of the batch\'s date, the same on a re-run', async () => {
    const sql = "SELECT unix_seconds(s) AS us, from_utc_timestamp(s, 'Asia/Seoul') AS fu, to_utc_timestamp(s, 'Asia/Seoul') AS tu, date_format(s, 'yyyy-MM-dd HH') AS f, " +
      "months_between('2026-12-07', s) AS mb, timestampadd(HOUR, 1, s) AS ta, timestampdiff(MINUTE, s, '2026-12-07 11:00:00') AS td, " +
      "extract(HOUR FROM s) AS eh, date_part('minute', s) AS pm, date_trunc('HOUR', s) AS dt FROM events";
    const input = [{ s: '10:11:12' }];
    const first = await run(sql, BATCH, input);
    expect(first).toEqual([{
      us: today(10, 11, 12) / 1000, fu: today(19, 11, 12), tu: today(1, 11, 12), f: '2026-12-07 10', mb: 0, ta: today(11, 11, 12), td: 48, eh: 10, pm: 11, dt: today(10),
    }]);
    expect(await run(sql, BATCH, input)).toEqual(first);
  });

  it('a function whose input is a DATE (stringToDate) or that parses by a pattern reads no time alone: NULL', async () => {
    const sql = "SELECT year(s) AS y, day(s) AS d, extract(YEAR FROM s) AS ey, dayofyear(s) AS doy, unix_timestamp(s) AS ut, to_date(s) AS td, convert_timezone('UTC', s) AS ct FROM events";
    expect(await run(sql, BATCH, [{ s: '10:11:12' }])).toEqual([{ y: null, d: null, ey: null, doy: null, ut: null, td: null, ct: null }]);
  });
});

describe("Spark's special values in a typed literal are of the batch's date", () => {
  const day = (ms: number) => Math.floor(ms / 86_400_000);
  it('DATE epoch, today, now, yesterday and tomorrow', async () => {
    const [row] = await run("SELECT DATE 'epoch' AS e, DATE 'today' AS t, DATE 'NOW' AS n, DATE 'yesterday' AS y, DATE 'tomorrow' AS m, DATE 'tomorrow' - DATE 'yesterday' AS two FROM events", BATCH);
    expect(row).toEqual({ e: 0, t: day(BATCH), n: day(BATCH), y: day(BATCH) - 1, m: day(BATCH) + 1, two: 2 * 86_400_000_000 });
  });

  it('TIMESTAMP and TIMESTAMP_NTZ epoch, now, today, yesterday and tomorrow', async () => {
    const midnight = day(BATCH) * 86_400_000;
    const [row] = await run("SELECT TIMESTAMP 'epoch' AS e, TIMESTAMP 'now' AS n, TIMESTAMP 'today' AS t, TIMESTAMP 'yesterday' AS y, TIMESTAMP_NTZ 'tomorrow' AS m, TIMESTAMP '10:11:12' AS c FROM events", BATCH);
    expect(row).toEqual({ e: 0, n: BATCH, t: midnight, y: midnight - 86_400_000, m: midnight + 86_400_000, c: midnight + 36_672_000 });
  });

  it('a cast of a constant string to a DATE or TIMESTAMP is the value too (Spark 3.2+), of a column\'s text NULL', async () => {
    const midnight = day(BATCH) * 86_400_000;
    const sql = "SELECT CAST('today' AS DATE) AS t, date('yesterday') AS y, timestamp('tomorrow EST') AS m, CAST('now' AS TIMESTAMP) AS n, CAST('epoch' AS TIMESTAMP) AS e, try_cast('today' AS TIMESTAMP_NTZ) AS z, CAST(s AS DATE) AS c FROM events";
    const [row] = await run(sql, BATCH, [{ s: 'today' }]);
    expect(row).toEqual({ t: day(BATCH), y: day(BATCH) - 1, m: midnight + 86_400_000, n: BATCH, e: 0, z: midnight, c: null });
  });

  it('the same on a re-run of the batch, another date in the next batch', async () => {
    const sql = "SELECT DATE 'today' AS t FROM events";
    expect(await run(sql, BATCH)).toEqual(await run(sql, BATCH));
    expect((await run(sql, BATCH + 86_400_000))[0].t).toBe(day(BATCH) + 1);
  });
});
