// The postgres source against this machine's real PostgreSQL: the source contract suite, bad
// records, bigint offsets beyond 2^53, and secrets kept out of errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../testing/pg-test-database';
import { sourceContractSchema, sourceContractSuite } from '../../engine/sources/testing/source.contract';
import { PostgresSource, postgresSourceOptions } from './postgres-source';
import type { Row } from '../../engine/types';
import { timestampFromMicros } from '../../engine/query/timestamp-micros';

let db: TestDatabase;
let n = 0;
beforeAll(async () => { db = await createTestDatabase('pgsource'); });
afterAll(async () => { await db.drop(); });

async function harness(maxRowsPerTrigger?: number) {
  const table = `events ${++n}`;
  await db.pool.query(`CREATE TABLE "${table}" (id bigint, name text, amount double precision)`);
  const open = () => new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table, schema: 'public', offsetColumn: 'id', maxRowsPerTrigger }), sourceContractSchema);
  const source = open();
  const opened = [source];
  return {
    source,
    append: async (rows: Row[]) => {
      await db.pool.query(`INSERT INTO "${table}" SELECT * FROM unnest($1::bigint[], $2::text[], $3::float8[])`, [rows.map((r) => r.id), rows.map((r) => r.name), rows.map((r) => r.amount)]);
    },
    reopen: async () => { const s = open(); opened.push(s); return s; },
    cleanup: async () => { for (const s of opened) await s.stop(); },
  };
}

sourceContractSuite('postgres', { make: () => harness(), makeLimited: (max) => harness(max) });

describe('postgres source specifics', () => {
  it('orders ties on the offset column deterministically and keeps exact bigint offsets', async () => {
    await db.pool.query(`CREATE TABLE ties (seq bigint, name text)`);
    await db.pool.query(`INSERT INTO ties VALUES (9007199254740993, 'b'), (9007199254740993, 'a'), (9007199254740994, 'c')`);
    const src = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'ties', schema: 'public', offsetColumn: 'seq' }), [{ name: 'name', type: 'string' }]);
    try {
      const end = await src.latestOffset();
      expect(end).toEqual({ seq: '9007199254740994' });
      const b = await src.getBatch({ seq: '9007199254740992' }, end);
      expect(b.rows).toEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
      expect((await src.getBatch({ seq: '9007199254740993' }, end)).rows).toEqual([{ name: 'c' }]);
    } finally {
      await src.stop();
    }
  });

  it('keeps a timestamp\'s microseconds (timestamptz, timestamp), and a text field still reads the Date\'s ISO text', async () => {
    await db.pool.query(`CREATE TABLE micros (id bigint, t timestamptz, n timestamp, s timestamptz)`);
    await db.pool.query(`INSERT INTO micros VALUES (1, '2020-01-02 03:04:05.678901+00', '2020-01-02 03:04:05.678901', '2020-01-02 03:04:05.678901+00'), (2, '1969-12-31 23:59:59.999999+00', NULL, NULL), (3, 'infinity', NULL, NULL)`);
    const schema = [{ name: 'id', type: 'long' as const }, { name: 't', type: 'timestamp' as const }, { name: 'n', type: 'timestamp' as const, ntz: true as const }, { name: 's', type: 'string' as const }];
    const src = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'micros', schema: 'public', offsetColumn: 'id' }), schema);
    try {
      const b = await src.getBatch(null, await src.latestOffset());
      const v = timestampFromMicros(1577934245678901);
      expect(b.rows.slice(0, 2)).toEqual([{ id: 1, t: v, n: v, s: '2020-01-02T03:04:05.678Z' }, { id: 2, t: timestampFromMicros(-1), n: null, s: null }]);
      // infinity is the driver's Date (Infinity ms): not a timestamp, so a bad record, as before.
      expect(b.badRecords.map((r) => r.location.offset)).toEqual([{ id: '3' }]);
      // The preview reads what a batch reads.
      const recent = await src.sampleRecent({ records: 10, bytes: 1 << 20, timeoutMs: 10_000, signal: new AbortController().signal });
      expect(recent.rows.slice(0, 2)).toEqual(b.rows.slice(0, 2));
    } finally {
      await src.stop();
    }
  });

  it('reads a date as its day whatever the process\'s time zone (the driver\'s Date is local midnight)', async () => {
    await db.pool.query(`CREATE TABLE days (id bigint, d date, s date)`);
    await db.pool.query(`INSERT INTO days VALUES (1, '2024-02-29', '2024-02-29'), (2, '1969-12-31', NULL)`);
    const schema = [{ name: 'id', type: 'long' as const }, { name: 'd', type: 'date' as const }, { name: 's', type: 'string' as const }];
    const src = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'days', schema: 'public', offsetColumn: 'id' }), schema);
    const zone = process.env.TZ;
    try {
      for (const tz of ['Asia/Tokyo', 'America/Los_Angeles', 'UTC']) {
        process.env.TZ = tz; // Node reads it anew: the driver's Dates would be this zone's midnights
        const b = await src.getBatch(null, await src.latestOffset());
        // Days since 1970-01-01: 19782 is 2024-02-29.
        expect(b.rows, tz).toEqual([{ id: 1, d: 19782, s: '2024-02-29' }, { id: 2, d: -1, s: null }]);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
      await src.stop();
    }
  });

  it('reads a json or jsonb column into an ARRAY, a STRUCT or a STRING with every digit of a BIGINT past 2^53', async () => {
    await db.pool.query(`CREATE TABLE docs (id bigint, a jsonb, s json, t jsonb)`);
    await db.pool.query(`INSERT INTO docs VALUES (1, '[9007199254740993, -9223372036854775808, null]', '{"n": 9223372036854775807, "x": 1.5}', '{"k": [9007199254740993]}')`);
    const schema = [
      { name: 'id', type: 'long' as const },
      { name: 'a', type: 'array' as const, elementType: { name: 'element', type: 'long' as const } },
      { name: 's', type: 'struct' as const, fields: [{ name: 'n', type: 'long' as const }, { name: 'x', type: 'double' as const }] },
      { name: 't', type: 'string' as const },
    ];
    const src = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'docs', schema: 'public', offsetColumn: 'id' }), schema);
    try {
      const b = await src.getBatch(null, await src.latestOffset());
      expect(b.badRecords).toEqual([]);
      expect(b.rows).toEqual([{ id: 1, a: [9007199254740993n, -9223372036854775808n, null], s: { n: 9223372036854775807n, x: 1.5 }, t: '{"k":[9007199254740993]}' }]);
    } finally {
      await src.stop();
    }
  });

  it('reports a value that does not fit the schema as a bad record with its offset', async () => {
    await db.pool.query(`CREATE TABLE typed (id bigint, v text)`);
    await db.pool.query(`INSERT INTO typed VALUES (1, '10'), (2, 'ten'), (3, '30')`);
    const src = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'typed', schema: 'public', offsetColumn: 'id' }), [{ name: 'id', type: 'long' }, { name: 'v', type: 'long' }]);
    try {
      const b = await src.getBatch(null, await src.latestOffset());
      expect(b.rows).toEqual([{ id: 1, v: 10 }, { id: 3, v: 30 }]);
      expect(b.badRecords).toHaveLength(1);
      expect(b.badRecords[0].location.offset).toEqual({ id: '2' });
      expect(b.badRecords[0].reason).toMatch(/"v"/);
    } finally {
      await src.stop();
    }
  });

  it('never puts the connection string or password in descriptions or errors', async () => {
    const url = 'postgres://reader:hunter2-secret@127.0.0.1:1/db';
    const src = new PostgresSource(postgresSourceOptions.parse({ connectionString: url, table: 't', schema: 'public', offsetColumn: 'id' }), sourceContractSchema);
    try {
      const err = await src.latestOffset().catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      for (const text of [src.description, src.replayableReason, (err as Error).message]) {
        expect(text).not.toContain('hunter2-secret');
        expect(text).not.toContain(url);
      }
    } finally {
      await src.stop();
    }
  });
});

describe('postgres source when the offset column goes back', () => {
  it('fails with DATA_LOSS when the table was truncated and refilled, or (failOnDataLoss false) reads the new rows', async () => {
    await db.pool.query(`CREATE TABLE refilled (id bigint, name text, amount double precision)`);
    await db.pool.query(`INSERT INTO refilled SELECT i, 'old', i FROM generate_series(1, 10) i`);
    const strict = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'refilled', offsetColumn: 'id' }), sourceContractSchema);
    const lenient = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'refilled', offsetColumn: 'id', failOnDataLoss: false }), sourceContractSchema);
    try {
      const committed = await strict.latestOffset();
      await db.pool.query(`TRUNCATE refilled`);
      await db.pool.query(`INSERT INTO refilled SELECT i, 'new', i FROM generate_series(1, 3) i`);
      const end = await strict.latestOffset();
      await expect(strict.getBatch(committed, end!)).rejects.toThrow(/went back from 10 to 3.*failOnDataLoss/);
      expect((await lenient.getBatch(committed, end!)).rows.map((r) => [r.id, r.name])).toEqual([[1, 'new'], [2, 'new'], [3, 'new']]);
    } finally {
      await strict.stop();
      await lenient.stop();
    }
  });
});
