/**
 * Spark's TIMESTAMP_NTZ (TimestampNTZType): a wall-clock time without a zone, its own type beside
 * TIMESTAMP. Expected answers are Spark's (sql-tests timestamp-ntz.sql and its results, Cast's
 * castToTimestampNTZ, TypeCoercion's findWiderTypeForTwo, JSONOptions' timestampNTZFormat), with
 * the session time zone UTC as Weir's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../testing/property-runs';
import type { Row, Schema } from '../types';
import { compileStreamingQuery } from './streaming-query';
import { columnField } from '../spec/source-schema';
import { renderValue } from '../sinks/row-rendering';
import { convertValue } from '../sources/value-conversion';
import { JsonLineParser } from '../operators/record-parser';
import { SchemaSpec } from '../spec/source-schema';
import { StatefulQueryRunner } from './testing/stateful-test-harness';
import * as Arrow from 'apache-arrow';
import { arrowTypeOf } from '../parquet/parquet-types';
import { avroSchemaOf } from '../avro/avro-codec';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';

const SCHEMA: Schema = [
  { name: 'n', type: 'timestamp', ntz: true }, { name: 't', type: 'timestamp' }, { name: 'd', type: 'date' }, { name: 's', type: 'string' },
];
const rel = { kind: 'StreamingRelation' as const, sourceName: 'events', schema: SCHEMA, eventTime: undefined, watermarkDelayMs: 0 };

async function run(sql: string, input: Row[] = [{}]): Promise<Row[]> {
  const q = compileStreamingQuery(sql, rel as never);
  let out = input;
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
  return out;
}

const ms = (s: string) => Date.parse(`${s}Z`);

describe('TIMESTAMP_NTZ', () => {
  it('is its own type: literals, casts and typeof', async () => {
    const [r] = await run(`SELECT typeof(TIMESTAMP_NTZ '2020-01-02 03:04:05') AS a, typeof(TIMESTAMP '2020-01-02 03:04:05') AS b,
      typeof(CAST('2020-01-02' AS TIMESTAMP_NTZ)) AS c, TIMESTAMP_NTZ '2016-12-31 00:12:00' AS d, TIMESTAMP_NTZ '2016-12-31' AS e,
      CAST(TIMESTAMP_NTZ '2020-01-02 03:04:05' AS STRING) AS f, CAST(TIMESTAMP_NTZ '2020-01-02 03:04:05.123' AS DATE) AS g,
      typeof(CAST(TIMESTAMP_NTZ '2020-01-02 03:04:05' AS TIMESTAMP)) AS h, CAST(CAST('2020-01-02 03:04:05+08:00' AS TIMESTAMP_NTZ) AS STRING) AS i
      FROM events`);
    expect(r).toEqual({
      a: 'timestamp_ntz', b: 'timestamp', c: 'timestamp_ntz', d: ms('2016-12-31T00:12:00'), e: ms('2016-12-31T00:00:00'),
      f: '2020-01-02 03:04:05', g: 18263, h: 'timestamp',
      // Cast ignores a zone in the text: the wall-clock time as written.
      i: '2020-01-02 03:04:05',
    });
  });

  it('widens as Spark: beside a DATE a TIMESTAMP_NTZ, beside a TIMESTAMP a TIMESTAMP', async () => {
    const [r] = await run(`SELECT typeof(coalesce(n, d)) AS a, typeof(coalesce(n, t)) AS b, typeof(CASE WHEN true THEN n ELSE NULL END) AS c,
      typeof(CASE WHEN true THEN n ELSE t END) AS e, coalesce(n, d) AS f, n = t AS g, n < TIMESTAMP_NTZ '2020-01-03' AS h FROM events`,
    [{ n: ms('2020-01-02T03:04:05'), t: ms('2020-01-02T03:04:05'), d: 18262, s: null }]);
    expect(r).toEqual({ a: 'timestamp_ntz', b: 'timestamp', c: 'timestamp_ntz', e: 'timestamp', f: ms('2020-01-02T03:04:05'), g: true, h: true });
  });

  it('keeps the type through a projection, and renders JSON without an offset', async () => {
    const q = compileStreamingQuery('SELECT n, to_json(named_struct(\'a\', n, \'b\', t)) AS j FROM events', rel as never);
    expect(q.outputSchema[0]).toMatchObject({ name: 'n', type: 'timestamp', ntz: true });
    const [r] = await run('SELECT to_json(named_struct(\'a\', n, \'b\', t)) AS j FROM events', [{ n: ms('2020-01-02T03:04:05'), t: ms('2020-01-02T03:04:05') }]);
    expect(r.j).toBe('{"a":"2020-01-02T03:04:05.000","b":"2020-01-02T03:04:05.000Z"}');
    expect(renderValue(ms('2020-01-02T03:04:05'), { name: 'n', type: 'timestamp', ntz: true })).toBe('2020-01-02T03:04:05.000');
  });

  it('refuses casts Spark refuses', () => {
    expect(() => compileStreamingQuery('SELECT CAST(1 AS TIMESTAMP_NTZ) AS x FROM events', rel as never)).toThrow(/TIMESTAMP_NTZ/);
  });

  it('is a source column type, read as the wall-clock time written (text with a zone is not one)', () => {
    expect(columnField('x', 'TIMESTAMP_NTZ')).toEqual({ name: 'x', type: 'timestamp', ntz: true });
    expect(columnField('x', 'array<timestamp_ntz>')).toEqual({ name: 'x', type: 'array', elementType: { name: 'element', type: 'timestamp', ntz: true, nullable: true } });
    expect(SchemaSpec.parse('ts TIMESTAMP_NTZ, t TIMESTAMP')).toEqual([{ name: 'ts', type: 'timestamp', ntz: true }, { name: 't', type: 'timestamp' }]);
    expect(SchemaSpec.parse([{ name: 'ts', type: 'timestamp_ntz' }])).toEqual([{ name: 'ts', type: 'timestamp', ntz: true }]);
    const field = { name: 'x', type: 'timestamp', ntz: true } as const;
    expect(convertValue('2020-01-02T03:04:05', field)).toEqual({ ok: true, value: ms('2020-01-02T03:04:05') });
    expect(convertValue('2020-01-02 03:04:05.5', field)).toEqual({ ok: true, value: ms('2020-01-02T03:04:05.500') });
    expect(convertValue('2020-01-02T03:04:05+02:00', field)).toMatchObject({ ok: false });
    expect(new JsonLineParser([field]).parse('{"x": "2020-01-02T03:04:05"}')).toMatchObject({ ok: true, row: { x: ms('2020-01-02T03:04:05') } });
    expect(new JsonLineParser([field]).parse('{"x": "2020-01-02T03:04:05Z"}')).toMatchObject({ ok: false });
    // A TIMESTAMP column reads an offset as the instant it names.
    expect(new JsonLineParser([{ name: 'x', type: 'timestamp' }]).parse('{"x": "2020-01-02T05:04:05+02:00"}')).toMatchObject({ ok: true, row: { x: ms('2020-01-02T03:04:05') } });
  });
});

describe('TIMESTAMP_NTZ through aggregates and set operations', () => {
  it('keeps TIMESTAMP_NTZ for group keys, min and max; a UNION with a TIMESTAMP is a TIMESTAMP', () => {
    const q = compileStreamingQuery('SELECT n, max(n) AS mx, min(n) AS mn, count(*) AS c FROM events GROUP BY n', rel as never, { outputMode: 'complete' });
    expect(q.outputSchema.slice(0, 3)).toEqual([
      { name: 'n', type: 'timestamp', ntz: true, nullable: true }, { name: 'mx', type: 'timestamp', ntz: true, nullable: true },
      { name: 'mn', type: 'timestamp', ntz: true, nullable: true },
    ]);
    const u = compileStreamingQuery('SELECT n AS x FROM events UNION ALL SELECT t AS x FROM events', rel as never);
    expect(u.outputSchema[0]).toMatchObject({ name: 'x', type: 'timestamp' });
    expect(u.outputSchema[0].ntz).toBeUndefined();
    const v = compileStreamingQuery('SELECT n AS x FROM events UNION ALL SELECT d AS x FROM events', rel as never);
    expect(v.outputSchema[0]).toMatchObject({ name: 'x', type: 'timestamp', ntz: true });
  });
});

describe('to_timestamp_ntz and make_timestamp_ntz (timestamp-ntz.sql)', () => {
  it('answer as Spark', async () => {
    const [r] = await run(`SELECT to_timestamp_ntz(null) AS a, to_timestamp_ntz('2016-12-31 00:12:00') AS b, to_timestamp_ntz('2016-12-31', 'yyyy-MM-dd') AS c,
      to_timestamp_ntz(to_date('2016-12-31')) AS d, make_timestamp_ntz(2021, 07, 11, 6, 30, 45.678) AS e, make_timestamp_ntz(2021, 07, 11, 6, 30, 60.007) AS f,
      typeof(to_timestamp_ntz('2016-12-31', 'yyyy-MM-dd')) AS g, typeof(make_timestamp_ntz(2021, 07, 11, 6, 30, 45.678)) AS h, typeof(to_timestamp_ntz(null)) AS i
      FROM events`);
    expect(r).toEqual({
      a: null, b: ms('2016-12-31T00:12:00'), c: ms('2016-12-31T00:00:00'), d: ms('2016-12-31T00:00:00'), e: ms('2021-07-11T06:30:45.678'), f: null,
      g: 'timestamp_ntz', h: 'timestamp_ntz', i: 'timestamp_ntz',
    });
  });
});

describe('TIMESTAMP_NTZ in the datetime functions (UTC session time zone)', () => {
  it('stays TIMESTAMP_NTZ plus or minus an interval (TimeAdd, TimestampAddYMInterval), as Spark', async () => {
    const [r] = await run(`SELECT n + INTERVAL 1 DAY AS a, typeof(n + INTERVAL 1 DAY) AS b, n - INTERVAL '1-1' YEAR TO MONTH AS c,
      typeof(n - INTERVAL '1-1' YEAR TO MONTH) AS e, typeof(n - n) AS f, CAST(n + INTERVAL '1 02:03:04' DAY TO SECOND AS STRING) AS g FROM events`,
    [{ n: ms('2020-01-31T03:04:05'), t: null, d: null, s: null }]);
    expect(r).toEqual({
      a: ms('2020-02-01T03:04:05'), b: 'timestamp_ntz', c: ms('2018-12-31T03:04:05'), e: 'timestamp_ntz', f: 'interval day to second', g: '2020-02-01 05:07:09',
    });
  });

  it('stays TIMESTAMP_NTZ through timestampadd (Spark\'s TimestampAdd keeps its timestamp\'s type); a DATE becomes a TIMESTAMP', async () => {
    // Spark's sql-tests timestamp-ntz.sql: timestampadd(MONTH, -1, …) and (MINUTE, 58, …).
    const [r] = await run(`SELECT CAST(timestampadd(MONTH, -1, n) AS STRING) AS a, typeof(timestampadd(MONTH, -1, n)) AS b,
      CAST(timestampadd(MINUTE, 58, n) AS STRING) AS c, typeof(dateadd(HOUR, 1, n)) AS d, typeof(timestampadd(SECOND, -1, d)) AS e,
      CAST(timestampadd(SECOND, -1, d) AS STRING) AS f, typeof(timestampadd(HOUR, 1, t)) AS g FROM events`,
    [{ n: ms('2022-02-14T01:02:03'), t: 0, d: 19038, s: null }]);
    expect(r).toEqual({ a: '2022-01-14 01:02:03', b: 'timestamp_ntz', c: '2022-02-14 02:00:03', d: 'timestamp_ntz', e: 'timestamp', f: '2022-02-14 23:59:59', g: 'timestamp' });
  });

  it('is taken as a TIMESTAMP where Spark casts it to one: the same wall-clock fields in UTC', async () => {
    // Spark's Hour, DateFormatClass and TruncTimestamp take a TIMESTAMP (an NTZ is cast to one in
    // the session zone, UTC here): date_trunc's result is a TIMESTAMP, its fields the NTZ's.
    const [r] = await run(`SELECT hour(n) AS a, minute(n) AS b, second(n) AS c, date_format(n, 'yyyy-MM-dd HH:mm') AS e, to_date(n) AS f,
      typeof(date_trunc('HOUR', n)) AS g, date_trunc('HOUR', n) AS h, unix_timestamp(n) AS i FROM events`,
    [{ n: ms('2020-01-31T03:04:05'), t: null, d: null, s: null }]);
    expect(r).toEqual({ a: 3, b: 4, c: 5, e: '2020-01-31 03:04', f: 18292, g: 'timestamp', h: ms('2020-01-31T03:00:00'), i: ms('2020-01-31T03:04:05') / 1000 });
  });
});

describe('TIMESTAMP_NTZ as the event time', () => {
  it('takes a watermark and windows: a window closes once the watermark passes its end', async () => {
    const events = { ...rel, eventTime: 'n', watermarkDelayMs: 60_000 };
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), "SELECT window(n, '10 minutes') AS w, count(*) AS c FROM events GROUP BY window(n, '10 minutes')", events as never, 'append');
    expect((await q.runBatch([{ n: ms('2020-01-01T00:01:00') }, { n: ms('2020-01-01T00:02:00') }])).output).toEqual([]);
    const late = await q.runBatch([{ n: ms('2020-01-01T00:30:00') }]);
    expect(late.watermarkMs).toBe(ms('2020-01-01T00:01:00'));
    expect(late.output).toEqual([]);
    const closed = await q.runBatch([]);
    expect(closed.watermarkMs).toBe(ms('2020-01-01T00:29:00'));
    expect(closed.output).toEqual([{ w: { start: ms('2020-01-01T00:00:00'), end: ms('2020-01-01T00:10:00') }, c: 2 }]);
  });
});

describe('TIMESTAMP_NTZ windows', () => {
  it('window(ntz) and session_window(ntz) are structs of TIMESTAMP_NTZ, as Spark\'s TimeWindow and SessionWindow keep the column\'s type', async () => {
    for (const [key, col] of [["window(n, '10 minutes')", 'window'], ["session_window(n, '10 minutes')", 'session_window']]) {
      const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), `SELECT s, ${col}, typeof(${col}.start) AS t, CAST(${col}.end AS STRING) AS e, count(*) AS c FROM events GROUP BY ${key}, s`, rel as never, 'complete');
      const schema = q.outputSchema();
      expect(schema[1], key).toMatchObject({ name: col, type: 'window', ntz: true });
      const [row] = (await q.runBatch([{ n: ms('2020-01-01T00:01:00'), t: null, d: null, s: 'a' }])).output;
      expect(row.t, key).toBe('timestamp_ntz');
      // Spark's JSON writes a TIMESTAMP_NTZ without an offset (timestampNTZFormat).
      expect(renderValue(row[col], schema[1]), key).toEqual(col === 'window'
        ? { start: '2020-01-01T00:00:00.000', end: '2020-01-01T00:10:00.000' }
        : { start: '2020-01-01T00:01:00.000', end: '2020-01-01T00:11:00.000' });
      expect(row.e, key).toBe(col === 'window' ? '2020-01-01 00:10:00' : '2020-01-01 00:11:00');
    }
    // Parquet and Avro files type the struct's fields as they type a TIMESTAMP_NTZ column.
    expect(String(arrowTypeOf(Arrow, { name: 'w', type: 'window', ntz: true }))).toBe(String(arrowTypeOf(Arrow, { name: 'w', type: 'struct', fields: [{ name: 'start', type: 'timestamp', ntz: true }, { name: 'end', type: 'timestamp', ntz: true }] })));
    expect(String(arrowTypeOf(Arrow, { name: 'w', type: 'window', ntz: true }))).not.toBe(String(arrowTypeOf(Arrow, { name: 'w', type: 'window' })));
    expect(JSON.stringify(avroSchemaOf({ name: 'w', type: 'window', ntz: true }))).toContain('local-timestamp-micros');
  });

  it('window(ntz) in a SELECT without GROUP BY is a struct of TIMESTAMP_NTZ too (TimeWindow keeps the column\'s type)', () => {
    const q = compileStreamingQuery("SELECT window(n, '10 minutes') AS w FROM events", rel);
    expect(q.outputSchema[0]).toMatchObject({ name: 'w', type: 'window', ntz: true });
  });
});

describe('TIMESTAMP_NTZ round trips (property)', () => {
  it('CAST to STRING and back, to_json and from_json, and CAST to and from TIMESTAMP keep each value', async () => {
    const q = compileStreamingQuery(`SELECT CAST(CAST(n AS STRING) AS TIMESTAMP_NTZ) AS a, from_json(to_json(named_struct('x', n)), 'x TIMESTAMP_NTZ').x AS b,
      CAST(CAST(n AS TIMESTAMP) AS TIMESTAMP_NTZ) AS c, CAST(n AS STRING) AS s, from_json(to_json(named_struct('x', n)), 'x TIMESTAMP_NTZ') AS st FROM events`, rel as never);
    expect(q.outputSchema[1]).toMatchObject({ type: 'timestamp', ntz: true });
    // Years 1000 to 9999, to the millisecond.
    const instant = fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });
    await fc.assert(fc.asyncProperty(fc.array(instant, { minLength: 1, maxLength: 20 }), async (ns) => {
      let out: Row[] = ns.map((n) => ({ n }));
      for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 });
      out.forEach((r, i) => {
        expect(r).toMatchObject({ a: ns[i], b: ns[i], c: ns[i] });
        // Spark prints the wall-clock time, no zone: yyyy-MM-dd HH:mm:ss[.fraction].
        expect(r.s).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,3})?$/);
      });
    }), { numRuns: propertyRuns(50, 500) });
  });

  it('from_json reads text with a zone as NULL for a TIMESTAMP_NTZ, as Spark\'s JSON reader', async () => {
    const [r] = await run(`SELECT from_json('{"x":"2020-01-02T03:04:05+02:00"}', 'x TIMESTAMP_NTZ').x AS a, from_json('{"x":"2020-01-02T03:04:05"}', 'x TIMESTAMP_NTZ').x AS b FROM events`);
    expect(r).toEqual({ a: null, b: ms('2020-01-02T03:04:05') });
  });
});
