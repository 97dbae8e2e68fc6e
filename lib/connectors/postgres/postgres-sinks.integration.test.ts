// Postgres sinks against this machine's real PostgreSQL: the sink contract suite for each mode,
// plus the specific promises (replay commits nothing, identifiers quoted, secrets redacted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../index'; // registers every connector, as the worker and the CLI do
import { createTestDatabase, type TestDatabase } from '../../testing/pg-test-database';
import { contractSchema, sinkContractSuite } from '../../engine/sinks/testing/sink.contract';
import { PostgresSink } from './postgres-sink';
import { PostgresUpsertSink } from './postgres-upsert-sink';
import { PostgresReplaceSink } from './postgres-replace-sink';
import { SinkError } from '../../engine/errors';
import type { Row } from '../../engine/types';
import { timestampFromMicros } from '../../engine/query/timestamp-micros';
import type { Sink } from '../../engine/sinks/sink';

let db: TestDatabase;
let n = 0;
beforeAll(async () => { db = await createTestDatabase('pgsinks'); });
afterAll(async () => { await db.drop(); });

// A closed port: nothing listens on 1 for an unprivileged test, so connecting fails at once.
const DOWN_URL = 'postgres://weir_user:s3cr3t-pass@127.0.0.1:1/nowhere';

async function readTable(table: string): Promise<Row[]> {
  const res = await db.pool.query(`SELECT id, name, amount FROM "${table}"`).catch(() => ({ rows: [] as Row[] }));
  return res.rows.map((r) => ({ id: Number(r.id), name: r.name, amount: r.amount }));
}

function harness(make: (table: string) => Sink) {
  return async () => {
    const table = `t${++n} "odd" name`;
    const sink = make(table);
    return {
      sink,
      readAll: () => readTable(table.replace(/"/g, '""')),
      cleanup: async () => { await sink.close(); },
    };
  };
}

for (const mode of ['transactional', 'bare-append'] as const) {
  sinkContractSuite(`postgres ${mode}`, {
    outputMode: 'append',
    make: harness((table) => new PostgresSink({ connectionString: db.url, table, schema: 'public', mode, createTable: true })),
    makeDown: async () => new PostgresSink({ connectionString: DOWN_URL, table: 'x', schema: 'public', mode, createTable: true }),
    secrets: [DOWN_URL, 's3cr3t-pass'],
  });
}
sinkContractSuite('postgres-upsert', {
  outputMode: 'update',
  make: harness((table) => new PostgresUpsertSink({ connectionString: db.url, table, schema: 'public', keyColumns: ['id'], createTable: true })),
  makeDown: async () => new PostgresUpsertSink({ connectionString: DOWN_URL, table: 'x', schema: 'public', keyColumns: ['id'], createTable: true }),
  secrets: [DOWN_URL, 's3cr3t-pass'],
});
sinkContractSuite('postgres-replace', {
  outputMode: 'complete',
  make: harness((table) => new PostgresReplaceSink({ connectionString: db.url, table, schema: 'public', createTable: true })),
  makeDown: async () => new PostgresReplaceSink({ connectionString: DOWN_URL, table: 'x', schema: 'public', createTable: true }),
  secrets: [DOWN_URL, 's3cr3t-pass'],
});

describe('postgres transactional sink specifics', () => {
  const ctx = { outputMode: 'append' as const, schema: contractSchema, queryId: 'q-1' };

  it('records the batch id in the same transaction and skips the replay', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'orders_tx', schema: 'public', mode: 'transactional', createTable: true });
    try {
      await sink.addBatch(0, [{ id: 1, name: 'a', amount: 1 }], ctx);
      await sink.addBatch(0, [{ id: 1, name: 'a', amount: 1 }], ctx);
      expect(sink.skippedBatches).toBe(1);
      expect(await sink.lastCommittedBatch('q-1')).toBe(0);
      // A new checkpoint is a new query id: its batch 0 is not mistaken for the old one.
      await sink.addBatch(0, [{ id: 2, name: 'b', amount: 2 }], { ...ctx, queryId: 'q-2' });
      expect((await readTable('orders_tx')).map((r) => r.id).sort()).toEqual([1, 2]);
    } finally {
      await sink.close();
    }
  });

  it('two runners racing on the same batch commit it once', async () => {
    const a = new PostgresSink({ connectionString: db.url, table: 'orders_race', schema: 'public', mode: 'transactional', createTable: true });
    const b = new PostgresSink({ connectionString: db.url, table: 'orders_race', schema: 'public', mode: 'transactional', createTable: true });
    try {
      const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, name: `r${i}`, amount: i }));
      await a.addBatch(0, rows.slice(0, 1), ctx);
      await Promise.all([a.addBatch(1, rows, ctx), b.addBatch(1, rows, ctx)]);
      expect((await readTable('orders_race')).length).toBe(51);
      expect(a.skippedBatches + b.skippedBatches).toBe(1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('writes a decimal exactly into numeric(p,s)', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'money', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [{ name: 'amount', type: 'decimal' as const, precision: 38, scale: 2 }];
    try {
      // 12345678901234567890123456789012345.67: more digits than a double holds.
      await sink.addBatch(0, [{ amount: 1234567890123456789012345678901234567n }, { amount: -250n }, { amount: null }], { ...ctx, schema });
      const res = await db.pool.query(`SELECT amount::text AS a, format_type(atttypid, atttypmod) AS t FROM money, pg_attribute WHERE attrelid = 'money'::regclass AND attname = 'amount' ORDER BY amount NULLS LAST`);
      expect(res.rows.map((r) => r.a)).toEqual(['-2.50', '12345678901234567890123456789012345.67', null]);
      expect(res.rows[0].t).toBe('numeric(38,2)');
    } finally {
      await sink.close();
    }
  });

  it('writes a 64-bit BIGINT exactly into bigint', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'ids', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [{ name: 'id', type: 'long' as const }];
    try {
      await sink.addBatch(0, [{ id: 9223372036854775807n }, { id: -9223372036854775808n }, { id: 42 }, { id: null }], { ...ctx, schema });
      const res = await db.pool.query(`SELECT id::text AS id, pg_typeof(id)::text AS t FROM ids ORDER BY ids.id NULLS LAST`);
      expect(res.rows.map((r) => r.id)).toEqual(['-9223372036854775808', '42', '9223372036854775807', null]);
      expect(res.rows[0].t).toBe('bigint');
    } finally {
      await sink.close();
    }
  });

  it('writes INT into integer and SMALLINT and TINYINT into smallint, as Spark’s JDBC types', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'narrow_ints', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [{ name: 'i', type: 'long' as const, integral: 32 as const }, { name: 's', type: 'long' as const, integral: 16 as const }, { name: 't', type: 'long' as const, integral: 8 as const }];
    try {
      await sink.addBatch(0, [{ i: -2147483648, s: 32767, t: -128 }, { i: null, s: null, t: null }], { ...ctx, schema });
      const res = await db.pool.query(`SELECT i, s, t, pg_typeof(i)::text AS ti, pg_typeof(s)::text AS ts, pg_typeof(t)::text AS tt FROM narrow_ints ORDER BY i NULLS LAST`);
      expect(res.rows[0]).toEqual({ i: -2147483648, s: 32767, t: -128, ti: 'integer', ts: 'smallint', tt: 'smallint' });
      expect(res.rows[1]).toMatchObject({ i: null, s: null, t: null });
    } finally {
      await sink.close();
    }
  });

  it('writes TIMESTAMP_NTZ into timestamp (without time zone), as Spark’s JDBC type, its wall-clock time', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'ntz', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [{ name: 'n', type: 'timestamp' as const, ntz: true as const }, { name: 't', type: 'timestamp' as const }];
    const ms = Date.parse('2020-01-02T03:04:05.678Z');
    try {
      await sink.addBatch(0, [{ n: ms, t: ms }, { n: null, t: null }], { ...ctx, schema });
      const res = await db.pool.query(`SELECT n::text AS n, pg_typeof(n)::text AS nt, pg_typeof(t)::text AS tt, t = (n AT TIME ZONE 'UTC') AS same FROM ntz ORDER BY n NULLS LAST`);
      expect(res.rows[0]).toEqual({ n: '2020-01-02 03:04:05.678', nt: 'timestamp without time zone', tt: 'timestamp with time zone', same: true });
      expect(res.rows[1].n).toBeNull();
    } finally {
      await sink.close();
    }
  });

  it('keeps a timestamp\'s microseconds in timestamptz and timestamp, as Spark\'s JDBC writer', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'micros', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [{ name: 'n', type: 'timestamp' as const, ntz: true as const }, { name: 't', type: 'timestamp' as const }];
    // 2020-01-02 03:04:05.678901 and 1969-12-31 23:59:59.999999 (a fraction before 1970).
    const rows = [timestampFromMicros(1577934245678901), timestampFromMicros(-1)].map((v) => ({ n: v, t: v }));
    try {
      await sink.addBatch(0, rows, { ...ctx, schema });
      const res = await db.pool.query(`SELECT n::text AS n, (extract(epoch FROM t) * 1000000)::bigint::text AS us FROM micros ORDER BY t`);
      expect(res.rows).toEqual([{ n: '1969-12-31 23:59:59.999999', us: '-1' }, { n: '2020-01-02 03:04:05.678901', us: '1577934245678901' }]);
    } finally {
      await sink.close();
    }
  });

  it('writes FLOAT into real, as Spark’s JDBC type, each float exactly', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'floats', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [{ name: 'f', type: 'double' as const, float32: true as const }];
    try {
      await sink.addBatch(0, [{ f: Math.fround(0.1) }, { f: Math.fround(3.4028234663852886e38) }, { f: null }], { ...ctx, schema });
      const res = await db.pool.query(`SELECT f::float8 AS f, pg_typeof(f)::text AS t FROM floats ORDER BY f NULLS LAST`);
      expect(res.rows.map((r) => r.f)).toEqual([Math.fround(0.1), Math.fround(3.4028234663852886e38), null]);
      expect(res.rows[0].t).toBe('real');
    } finally {
      await sink.close();
    }
  });

  it('writes intervals into interval columns, exactly (microseconds and months)', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'intervals', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [
      { name: 'd', type: 'day_time_interval' as const, interval: { start: 0, end: 3 } },
      { name: 'm', type: 'year_month_interval' as const, interval: { start: 0, end: 1 } },
    ];
    try {
      // 1 day 02:03:04.000005, and -1 year -2 months.
      await sink.addBatch(0, [{ d: 93_784_000_005, m: -14 }, { d: null, m: null }], { ...ctx, schema });
      const res = await db.pool.query(`SELECT d::text AS d, m::text AS m, extract(epoch FROM d)::text AS s, pg_typeof(d)::text AS t FROM intervals ORDER BY d NULLS LAST`);
      expect(res.rows).toEqual([
        { d: '26:03:04.000005', m: '-1 years -2 mons', s: '93784.000005', t: 'interval' },
        { d: null, m: null, s: null, t: 'interval' },
      ]);
    } finally {
      await sink.close();
    }
  });

  it('writes BINARY into bytea, its bytes (an empty one empty, a NULL NULL)', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'blobs', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [{ name: 'id', type: 'long' as const }, { name: 'b', type: 'binary' as const }];
    try {
      await sink.addBatch(0, [{ id: 1, b: Buffer.from([1, 2, 255]) }, { id: 2, b: new Uint8Array([0]) }, { id: 3, b: new Uint8Array() }, { id: 4, b: null }], { ...ctx, schema });
      const res = await db.pool.query(`SELECT encode(b, 'hex') AS hex, format_type(atttypid, atttypmod) AS t FROM blobs, pg_attribute WHERE attrelid = 'blobs'::regclass AND attname = 'b' ORDER BY id`);
      expect(res.rows.map((r) => r.hex)).toEqual(['0102ff', '00', '', null]);
      expect(res.rows[0].t).toBe('bytea');
    } finally {
      await sink.close();
    }
  });

  it('writes a date into a date column', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'days', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [{ name: 'd', type: 'date' as const }];
    try {
      // Days since 1970-01-01: 19782 is 2024-02-29, -1 is 1969-12-31.
      await sink.addBatch(0, [{ d: 19782 }, { d: -1 }, { d: null }], { ...ctx, schema });
      const res = await db.pool.query(`SELECT d::text AS d, format_type(atttypid, atttypmod) AS t FROM days, pg_attribute WHERE attrelid = 'days'::regclass AND attname = 'd' ORDER BY days.d NULLS LAST`);
      expect(res.rows.map((r) => r.d)).toEqual(['1969-12-31', '2024-02-29', null]);
      expect(res.rows[0].t).toBe('date');
    } finally {
      await sink.close();
    }
  });

  it('writes arrays and maps as jsonb, their timestamps and decimals as the JSON sinks write them', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'colls', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [
      { name: 'words', type: 'array' as const, elementType: { name: 'element', type: 'string' as const, nullable: true } },
      { name: 'times', type: 'array' as const, elementType: { name: 'element', type: 'timestamp' as const } },
      { name: 'prices', type: 'map' as const, keyType: { name: 'key', type: 'string' as const }, valueType: { name: 'value', type: 'decimal' as const, precision: 10, scale: 2 } },
    ];
    try {
      await sink.addBatch(0, [
        { words: ['a', null, ''], times: [60_000], prices: { apple: 250n } },
        { words: null, times: [], prices: null },
      ], { ...ctx, schema });
      const res = await db.pool.query(`SELECT words::text AS w, times::text AS t, prices::text AS p, pg_typeof(words)::text AS ty, words->>0 AS first FROM colls ORDER BY words NULLS LAST`);
      expect(res.rows).toEqual([
        { w: '["a", null, ""]', t: '["1970-01-01T00:01:00.000Z"]', p: '{"apple": 2.50}', ty: 'jsonb', first: 'a' },
        { w: null, t: '[]', p: null, ty: 'jsonb', first: null },
      ]);
    } finally {
      await sink.close();
    }
  });

  it('renders timestamps and windows, and names a missing column instead of dropping it', async () => {
    const sink = new PostgresSink({ connectionString: db.url, table: 'win', schema: 'public', mode: 'transactional', createTable: true });
    const schema = [{ name: 'w', type: 'window' as const }, { name: 'ts', type: 'timestamp' as const }, { name: 'n', type: 'long' as const }];
    try {
      await sink.addBatch(0, [{ w: { start: 0, end: 60_000 }, ts: 1_000, n: 3 }], { ...ctx, schema });
      const res = await db.pool.query(`SELECT w_start, w_end, ts, n FROM win`);
      expect(res.rows[0].w_end.toISOString()).toBe('1970-01-01T00:01:00.000Z');
      expect(res.rows[0].ts.toISOString()).toBe('1970-01-01T00:00:01.000Z');
      await db.pool.query(`CREATE TABLE narrow (id bigint)`);
      const narrow = new PostgresSink({ connectionString: db.url, table: 'narrow', schema: 'public', mode: 'transactional', createTable: false });
      const err = await narrow.addBatch(0, [{ id: 1, name: 'x', amount: 1 }], ctx).catch((e) => e);
      await narrow.close();
      expect(err).toBeInstanceOf(SinkError);
      expect(err.message).toMatch(/no column "name", "amount"/);
    } finally {
      await sink.close();
    }
  });
});

describe('postgres-upsert at validation', () => {
  const job = (keyColumns: string[], sql = 'SELECT region, count(*) AS n FROM orders GROUP BY region') => ({
    name: 'v',
    source: { name: 'orders', type: 'postgres', options: { connectionString: 'postgres://u@127.0.0.1/db', table: 'o', offsetColumn: 'id' }, schema: [{ name: 'id', type: 'long' }, { name: 'region', type: 'string' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '1 minute' },
    sql,
    sink: { type: 'postgres-upsert', options: { connectionString: 'postgres://u@127.0.0.1/db', table: 'totals', keyColumns } },
    outputMode: 'update',
    checkpointLocation: '/tmp/weir-validate-only',
  });

  it('refuses key columns the query does not output, naming the field', async () => {
    const { validateJob } = await import('../../engine/spec/validate-job');
    const r = validateJob(job(['region', 'country']));
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([expect.objectContaining({ path: 'sink.options.keyColumns', message: expect.stringMatching(/"country" are not in the query's output \(region, n\)/) })]);
    expect(validateJob(job(['region'])).ok).toBe(true);
  });

  it('accepts a window column by its table names', async () => {
    const { validateJob } = await import('../../engine/spec/validate-job');
    const r = validateJob(job(['window_start', 'region'], "SELECT window(ts, '1 minute'), region, count(*) AS n FROM orders GROUP BY window(ts, '1 minute'), region"));
    expect(r.errors).toEqual([]);
  });
});
