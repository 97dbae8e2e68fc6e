/**
 * DATE values: text round trips, a date as a grouping key and an aggregate across a restart (the
 * state value codec keeps the day numbers), and dates written as Spark's writers print them.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { encodeRows } from '../sinks/files-sink';
import type { Schema } from '../types';
import { formatDate, parseDate } from './date';
import { StatefulQueryRunner } from './testing/stateful-test-harness';

describe('DATE', () => {
  it('formats and parses every day of years 1 to 9999 back to itself', () => {
    const min = parseDate('0001-01-01')!;
    const max = parseDate('9999-12-31')!;
    fc.assert(fc.property(fc.integer({ min, max }), (d) => {
      const text = formatDate(d);
      expect(text).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(parseDate(text)).toBe(d);
      expect(new Date(`${text}T00:00:00Z`).getTime()).toBe(d * 86_400_000);
    }));
    expect(parseDate('1970-01-01')).toBe(0);
    expect(parseDate('1969-12-31')).toBe(-1);
    expect(parseDate('2023-02-29')).toBeNull();
  });

  it("reads 'y-m-d' text as DuckDB's TRY_CAST to DATE does, impossible days NULL", async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      const part = (max: number, pad: number) => fc.integer({ min: 0, max }).chain((n) => fc.constantFrom(String(n), String(n).padStart(pad, '0')));
      const textArb = fc.tuple(fc.integer({ min: 1000, max: 9999 }), part(13, 2), part(32, 2)).map(([y, m, d]) => `${y}-${m}-${d}`);
      await fc.assert(fc.asyncProperty(fc.array(textArb, { minLength: 1, maxLength: 40 }), async (texts) => {
        const values = texts.map((t, i) => `(${i}, '${t}')`).join(', ');
        const rows = (await conn.runAndReadAll(`SELECT CAST(TRY_CAST(t AS DATE) AS VARCHAR) AS d FROM (VALUES ${values}) v(i, t) ORDER BY i`)).getRowObjects();
        texts.forEach((t, i) => {
          const weir = parseDate(t);
          expect(weir === null ? null : formatDate(weir), t).toBe(rows[i].d);
        });
      }), { numRuns: 50 });
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });

  it('groups by a date and keeps min/max of dates across a restart, written as yyyy-MM-dd', async () => {
    const schema: Schema = [{ name: 'ts', type: 'timestamp' }, { name: 'due', type: 'string' }];
    const relation = { kind: 'StreamingRelation' as const, sourceName: 'orders', schema };
    const SQL = 'SELECT to_date(ts) AS day, count(*) AS n, min(CAST(due AS DATE)) AS first_due, max(CAST(due AS DATE)) AS last_due FROM orders GROUP BY to_date(ts)';
    const q = new StatefulQueryRunner(new InMemoryCheckpointFileManager(), SQL, relation, 'complete');
    await q.runBatch([{ ts: Date.UTC(2024, 0, 1, 23, 59), due: '2024-02-01' }, { ts: Date.UTC(2024, 0, 2, 0, 0), due: '2024-01-15' }]);
    q.restart();
    const { output } = await q.runBatch([{ ts: Date.UTC(2024, 0, 1, 1), due: '2023-12-31' }, { ts: Date.UTC(2024, 0, 1, 2), due: null }]);
    const out = q.outputSchema();
    expect(out.map((f) => f.type)).toEqual(['date', 'long', 'date', 'date']);
    const text = encodeRows([...output].sort((a, b) => (a.day as number) - (b.day as number)), out, 'json', false);
    expect(text).toBe(
      '{"day":"2024-01-01","n":3,"first_due":"2023-12-31","last_due":"2024-02-01"}\n' +
      '{"day":"2024-01-02","n":1,"first_due":"2024-01-15","last_due":"2024-01-15"}\n',
    );
    expect(encodeRows([{ day: 0 }], [{ name: 'day', type: 'date' }], 'csv', true)).toBe('day\n1970-01-01\n');
  });
});

describe('years 0 to 99 (Date.UTC reads them as 1900 to 1999)', () => {
  it('are their own years in literals, casts and make_timestamp / make_date, as in Spark', async () => {
    const { compileStreamingQuery } = await import('./streaming-query');
    const rel = { kind: 'StreamingRelation' as const, sourceName: 'e', schema: [{ name: 'n', type: 'long' as const }], watermarkDelayMs: 0 };
    const q = compileStreamingQuery(
      "SELECT CAST(make_timestamp(1, 1, 1, 1, 1, 1) AS STRING) AS a, CAST(make_date(99, 12, 31) AS STRING) AS b, CAST(TIMESTAMP '0042-06-15 12:00:00' AS STRING) AS c, CAST(date_trunc('YEAR', TIMESTAMP '0042-06-15 12:00:00') AS STRING) AS d FROM e",
      rel as never,
    );
    let out: Record<string, unknown>[] = [{ n: 1 }];
    for (const op of q.operators) out = (await op.execute(out as never, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 })) as never;
    expect(out[0]).toEqual({ a: '0001-01-01 01:01:01', b: '0099-12-31', c: '0042-06-15 12:00:00', d: '0042-01-01 00:00:00' });
  });
});

describe('a string where a function takes a timestamp (Spark ImplicitTypeCasts)', () => {
  it('is cast to one, NULL when it does not parse', async () => {
    const { compileStreamingQuery } = await import('./streaming-query');
    const rel = { kind: 'StreamingRelation' as const, sourceName: 'e', schema: [{ name: 's', type: 'string' as const }], watermarkDelayMs: 0 };
    const q = compileStreamingQuery(
      "SELECT CAST(date_trunc('YEAR', '2015-03-05T09:32:05') AS STRING) AS a, hour('2009-07-30 12:58:59') AS b, minute(s) AS c FROM e",
      rel as never,
    );
    let out: Record<string, unknown>[] = [{ s: '2024-01-02 03:04:05' }, { s: 'not a time' }];
    for (const op of q.operators) out = (await op.execute(out as never, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0 })) as never;
    expect(out).toEqual([
      { a: '2015-01-01 00:00:00', b: 12, c: 4 },
      { a: '2015-01-01 00:00:00', b: 12, c: null },
    ]);
  });
});
