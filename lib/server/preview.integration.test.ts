/**
 * Preview through the API: the query over a pasted sample, no checkpoint, no sink. A stateless
 * query shows its rows and schema; a windowed count shows the result after the sample and says
 * that open windows are not emitted yet; the output is bounded at 100 rows; a record that does
 * not fit the schema, or too large a sample, is a clear error; nothing is written.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesSpec, setupApiTestKit, type ApiTestKit } from './testing/api-test-kit';

let kit: ApiTestKit;
let preview: typeof import('@/app/api/jobs/preview/route');

beforeAll(async () => {
  kit = await setupApiTestKit();
  preview = await import('@/app/api/jobs/preview/route');
}, 60_000);

afterAll(async () => {
  await kit?.teardown();
});

const call = (spec: unknown, sample: unknown[]) => kit.call(preview.POST, '/api/jobs/preview', { method: 'POST', token: kit.tokens.viewer, body: { spec, sample } });

describe('POST /api/jobs/preview', () => {
  it('shows a stateless query’s output schema and rows, at most 100, and writes no checkpoint', async () => {
    const spec = filesSpec('preview-plain', '/tmp/weir-preview');
    const sample = Array.from({ length: 250 }, (_, i) => ({ user: `u${i}`, n: i - 10 }));
    const res = await call(spec, sample);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.outputSchema.map((f: { name: string }) => f.name)).toEqual(['user', 'n']);
    // The header's types are Spark's names.
    expect(res.body.columns).toEqual([{ name: 'user', type: 'string' }, { name: 'n', type: 'bigint' }]);
    expect(res.body.rows).toHaveLength(100);
    expect(res.body.rows[0]).toEqual({ user: 'u11', n: 1 });
    expect(res.body).toMatchObject({ truncated: true, totalRows: 239, inputRows: 250, stateful: false });
    expect(existsSync(path.join(kit.checkpointRoot, 'preview'))).toBe(false);
  });

  it('shows a windowed count’s result after the sample, noting that open windows wait for the watermark', async () => {
    const spec = filesSpec('preview-window', '/tmp/weir-preview', {
      source: { name: 'clicks', type: 'files', options: { path: '/tmp/weir-preview/in', format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '1 minute' },
      sql: "SELECT window(ts, '10 minutes') AS w, count(*) AS n FROM clicks GROUP BY window(ts, '10 minutes')",
    });
    const sample = [
      { user: 'a', ts: '2026-12-01T10:01:00Z' },
      { user: 'b', ts: '2026-12-01T10:05:00Z' },
      { user: 'c', ts: '2026-12-01T10:31:00Z' }, // moves the watermark past the first window
    ];
    const res = await call(spec, sample);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.stateful).toBe(true);
    expect(res.body.rows.map((r: { n: number }) => r.n)).toEqual([2]);
    expect(res.body.notes.join(' ')).toMatch(/watermark/);
  });

  it('shows a 64-bit id and a decimal with every digit (as JSON strings, which no JSON reader rounds)', async () => {
    const spec = filesSpec('preview-digits', '/tmp/weir-preview', { sql: 'SELECT user, n * 1000000000000 + 7 AS id, CAST(n AS DECIMAL(20,2)) / 3 AS third FROM clicks' });
    const res = await call(spec, [{ user: 'a', n: 9_000_000 }, { user: 'b', n: '9223372' }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rows).toEqual([
      { user: 'a', id: '9000000000000000007', third: '3000000.000000' },
      { user: 'b', id: '9223372000000000007', third: '3074457.333333' },
    ]);
  });

  it('reads a 64-bit id in a pasted sample with every digit, as a source would', async () => {
    const spec = filesSpec('preview-sample-digits', '/tmp/weir-preview', {
      sql: 'SELECT user, n, n - 1 AS prev FROM clicks',
      source: { name: 'clicks', type: 'files', options: { path: '/tmp/weir-preview/in', format: 'json' }, schema: 'user STRING, n BIGINT, tags ARRAY<BIGINT>' },
    });
    // Written by hand: JSON.stringify cannot hold these numbers, JSON.parse would round them.
    const body = `{"spec": ${JSON.stringify(spec)}, "sample": [{"user": "a", "n": 9223372036854775807}, {"user": "b", "n": 1541815603606036480}]}`;
    const res = await kit.call(preview.POST, '/api/jobs/preview', { method: 'POST', token: kit.tokens.viewer, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rows).toEqual([
      { user: 'a', n: '9223372036854775807', prev: '9223372036854775806' },
      { user: 'b', n: '1541815603606036480', prev: '1541815603606036479' },
    ]);
  });

  it("shows Spark's types as Spark shows them: a date, timestamps to the microsecond, bytes, nested values with every digit", async () => {
    const spec = filesSpec('preview-types', '/tmp/weir-preview', {
      sql: 'SELECT * FROM clicks',
      source: { name: 'clicks', type: 'files', options: { path: '/tmp/weir-preview/in', format: 'json' }, schema: 'd DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, b BINARY, s STRUCT<n: BIGINT, c: DECIMAL(5,2), d: DATE>, a ARRAY<DECIMAL(5,2)>, m MAP<STRING,BIGINT>, x DOUBLE' },
    });
    const body = `{"spec": ${JSON.stringify(spec)}, "sample": [{"d": "2024-02-29", "ts": "2024-02-29T12:34:56.123456Z", "ntz": "2024-02-29T12:34:56.5", "b": "AQID", "s": {"n": 9007199254740993, "c": "1.50", "d": "1969-12-31"}, "a": ["1.50", null], "m": {"k": 9223372036854775807}, "x": 2.5}]}`;
    const res = await kit.call(preview.POST, '/api/jobs/preview', { method: 'POST', token: kit.tokens.viewer, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rows).toEqual([{
      d: '2024-02-29', ts: '2024-02-29 12:34:56.123456', ntz: '2024-02-29 12:34:56.5', b: '[01 02 03]',
      s: { n: '9007199254740993', c: '1.50', d: '1969-12-31' }, a: ['1.50', null], m: { k: '9223372036854775807' }, x: 2.5,
    }]);
  });

  it('refuses a record that does not fit the schema and a sample over 1,000 records, saying what to do', async () => {
    const spec = filesSpec('preview-bad', '/tmp/weir-preview');
    const bad = await call(spec, [{ user: 'a', n: 1 }, { user: 'b', n: 'many' }]);
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/Sample record 2 does not fit the source schema/);
    const big = await call(spec, Array.from({ length: 1001 }, () => ({ user: 'a', n: 1 })));
    expect(big.status).toBe(400);
  });

  it('of a job of several sources says why it cannot preview one (not that the spec writes both source and sources)', async () => {
    const source = (name: string) => ({ name, type: 'files', options: { path: `/tmp/weir-preview/${name}`, format: 'json' }, schema: [{ name: 'user', type: 'string' }] });
    const spec = filesSpec('preview-two', '/tmp/weir-preview', { source: undefined, sources: [source('impressions'), source('clicks')], sql: 'SELECT user FROM impressions UNION ALL SELECT user FROM clicks' });
    const res = await call(spec, [{ user: 'a' }]);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.message).toContain('a preview feeds one source, and this job reads several');
    expect(JSON.stringify(res.body)).not.toContain('not both');
  });
});
