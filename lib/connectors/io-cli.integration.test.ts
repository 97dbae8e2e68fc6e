// The real `weir` CLI (node bin/weir.js, spawned) with the io sources and sinks against this
// machine's PostgreSQL, Redis and NATS, and a real HTTP receiver and sender on loopback:
// validate prints the contract, run processes, a crash and a re-run end exactly once.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './index'; // registers every connector, as the worker and the CLI do
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createTestDatabase, type TestDatabase } from '../testing/pg-test-database';
import type { Row } from '../engine/types';

const ROOT = path.resolve(import.meta.dirname, '../..');
let db: TestDatabase;
let dir: string;
let redis: Redis;
let nc: NatsConnection;
const tag = `${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
const schema = [{ name: 'id', type: 'long' }, { name: 'region', type: 'string' }, { name: 'amount', type: 'double' }];

beforeAll(async () => {
  db = await createTestDatabase('iocli');
  dir = await mkdtemp(path.join(tmpdir(), 'weir-iocli-'));
  redis = new Redis('redis://127.0.0.1:6379');
  nc = await connect({ servers: '127.0.0.1:4222' });
});
afterAll(async () => {
  const keys = await redis.keys(`weir:cli:${tag}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(`weir_cli_${tag}`).catch(() => undefined);
  await nc.close();
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

interface CliResult { code: number | null; stdout: string; stderr: string }

function weir(args: string[], onStdout?: (chunk: string, child: ReturnType<typeof spawn>) => void): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/weir.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; onStdout?.(stdout, child); });
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function jobFile(name: string, spec: Record<string, unknown>): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ name, trigger: { type: 'available-now' }, checkpointLocation: path.join(dir, `cp-${name}`), ...spec }));
  return file;
}

const progressLines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));

describe('weir CLI with io sources and sinks', () => {
  it('postgres → postgres-upsert (update mode): validate, crash after the sink, re-run, exact counts', async () => {
    const url = `postgres://postgres:cli-pass@127.0.0.1:5432/${db.name}`;
    await db.pool.query(`CREATE TABLE orders (id bigint, region text, amount double precision)`);
    await db.pool.query(`INSERT INTO orders SELECT i, (ARRAY['eu','us','apac'])[1 + i % 3], i FROM generate_series(1, 30) i`);
    const file = await jobFile('pg_upsert', {
      source: { name: 'orders', type: 'postgres', options: { connectionString: url, table: 'orders', offsetColumn: 'id' }, schema },
      sql: 'SELECT region, count(*) AS orders, sum(amount) AS total FROM orders GROUP BY region',
      sink: { type: 'postgres-upsert', options: { connectionString: url, table: 'totals', keyColumns: ['region'] } },
      outputMode: 'update',
    });
    const v = await weir(['validate', file]);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/contract: exactly-once/);
    expect(v.stdout).toMatch(/ok {2}sink idempotent: INSERT … ON CONFLICT \(region\)/);
    const json = JSON.parse((await weir(['validate', file, '--json'])).stdout);
    expect(json.contract.sink).toMatchObject({ signature: 'idempotent', reason: expect.stringMatching(/ON CONFLICT \(region\)/) });
    expect(JSON.stringify(json)).not.toContain('cli-pass');

    const crashed = await weir(['run', file, '--crash-at', 'after-sink', '--crash-batch', '0']);
    expect(crashed.code).toBe(3);
    await db.pool.query(`INSERT INTO orders SELECT i, (ARRAY['eu','us','apac'])[1 + i % 3], i FROM generate_series(31, 45) i`);
    const rerun = await weir(['run', file]);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout + rerun.stderr).not.toContain('cli-pass');
    expect(progressLines(rerun.stdout).map((p) => p.batchId)).toEqual([0, 1]);
    const got = (await db.pool.query(`SELECT region, orders, total FROM totals ORDER BY region`)).rows;
    const want = (await db.pool.query(`SELECT region, count(*) AS orders, sum(amount) AS total FROM orders GROUP BY region ORDER BY region`)).rows;
    expect(got.map((r) => [r.region, Number(r.orders), r.total])).toEqual(want.map((r) => [r.region, Number(r.orders), r.total]));
  });

  it('postgres → postgres transactional and postgres-replace (complete): crash after the sink, re-run, exactly once', async () => {
    await db.pool.query(`CREATE TABLE sales (id bigint, region text, amount double precision)`);
    await db.pool.query(`INSERT INTO sales SELECT i, (ARRAY['eu','us'])[1 + i % 2], i FROM generate_series(1, 20) i`);
    const source = { name: 'sales', type: 'postgres', options: { connectionString: db.url, table: 'sales', offsetColumn: 'id' }, schema };
    const append = await jobFile('pg_tx', { source, sql: 'SELECT id, amount FROM sales', sink: { type: 'postgres', options: { connectionString: db.url, table: 'sales_copy' } } });
    const complete = await jobFile('pg_replace', {
      source, sql: 'SELECT region, sum(amount) AS total FROM sales GROUP BY region', outputMode: 'complete',
      sink: { type: 'postgres-replace', options: { connectionString: db.url, table: 'sales_totals' } },
    });
    for (const file of [append, complete]) {
      expect((await weir(['run', file, '--crash-at', 'after-sink', '--crash-batch', '0'])).code).toBe(3);
      expect((await weir(['run', file])).code).toBe(0);
    }
    const copy = (await db.pool.query('SELECT count(*) AS n, count(DISTINCT id) AS d FROM sales_copy')).rows[0];
    const input = Number((await db.pool.query('SELECT count(*) AS n FROM sales')).rows[0].n);
    expect([Number(copy.n), Number(copy.d)]).toEqual([input, input]);
    const totals = (await db.pool.query('SELECT region, total FROM sales_totals ORDER BY region')).rows;
    const want = (await db.pool.query('SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY region')).rows;
    expect(totals).toEqual(want);
    // weir sink read prints what readers of the destination see.
    const read = await weir(['sink', 'read', complete]);
    expect(read.code).toBe(0);
    expect(read.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual(want);
    const copied = await weir(['sink', 'read', append]);
    expect(copied.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual((await db.pool.query('SELECT id FROM sales ORDER BY id')).rows.map((r) => Number(r.id)));
  });

  it('redis-stream → redis-stream: progress says at-least-once, and why', async () => {
    const input = `weir:cli:${tag}:in`;
    const output = `weir:cli:${tag}:out`;
    for (let i = 1; i <= 12; i++) await redis.xadd(input, '*', 'data', JSON.stringify({ id: i, region: 'eu', amount: i }));
    const file = await jobFile('redis', {
      source: { name: 'events', type: 'redis-stream', options: { stream: input }, schema },
      sql: "SELECT id, amount, CAST(amount AS DECIMAL(6,2)) AS price, TIMESTAMP '2026-01-02 03:04:05' AS at, window(TIMESTAMP '2026-01-02 03:04:05', '1 hour') AS w FROM events WHERE amount > 2",
      sink: { type: 'redis-stream', options: { stream: output } },
    });
    const r = await weir(['run', file]);
    expect(r.code).toBe(0);
    const [p] = progressLines(r.stdout);
    expect(p.numInputRows).toBe(12);
    expect(p.contract.guarantee).toBe('at-least-once');
    expect(p.contract.sink.reason).toMatch(/XADD/);
    expect(await redis.xlen(output)).toBe(10);
    // sink read prints each entry as the sink wrote it: a DECIMAL with its scale, a timestamp and a window as text.
    const read = await weir(['sink', 'read', file]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.trim().split('\n')).toEqual(Array.from({ length: 10 }, (_, i) => i + 3).map((i) =>
      `{"id":${i},"amount":${i}.0,"price":${i}.00,"at":"2026-01-02T03:04:05.000Z","w":{"start":"2026-01-02T03:00:00.000Z","end":"2026-01-02T04:00:00.000Z"}}`));
    const written = await redis.xrange(output, '-', '+');
    expect(read.stdout.trim().split('\n')).toEqual(written.map(([, f]) => f[f.indexOf('data') + 1]));
    // An entry of the query's columns that does not read as them (another writer's) is printed
    // as stored, with a warning naming it, as a files sink's row is; the others still print.
    const foreign = { id: 99, amount: 1, price: 1, at: 'soon', w: null };
    const foreignId = await redis.xadd(output, '*', 'data', JSON.stringify(foreign));
    const mixed = await weir(['sink', 'read', file]);
    expect(mixed.code, mixed.stderr).toBe(0);
    expect(mixed.stdout.trim().split('\n')).toEqual([...written.map(([, f]) => f[f.indexOf('data') + 1]), JSON.stringify(foreign)]);
    expect(mixed.stderr).toContain(`warning: entry ${foreignId} of stream ${output} does not hold the query's output (field "at"`);
  });

  it('nats-jetstream → webhook: every message delivered with its Idempotency-Key', async () => {
    const stream = `weir_cli_${tag}`;
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`weir.cli.${tag}.>`] });
    for (let i = 1; i <= 7; i++) await jetstream(nc).publish(`weir.cli.${tag}.orders`, JSON.stringify({ id: i, region: 'us', amount: i }));
    const got: { key: string; rows: unknown[] }[] = [];
    const receiver = http.createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => { got.push({ key: String(req.headers['idempotency-key']), rows: JSON.parse(b).rows }); res.end(); });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const file = await jobFile('nats_hook', {
      source: { name: 'orders', type: 'nats-jetstream', options: { stream }, schema },
      sql: 'SELECT id, region FROM orders',
      sink: { type: 'webhook', options: { url: `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hook` } },
    });
    const r = await weir(['run', file]);
    await new Promise((res) => receiver.close(res));
    expect(r.code).toBe(0);
    expect(got).toHaveLength(1);
    expect(got[0].key).toMatch(/^nats_hook\/[0-9a-f-]{36}\/0$/);
    expect(got[0].rows).toHaveLength(7);
  });

  it('http source → postgres bare-append: records POSTed to the running CLI land; the contract says at-most-once', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => resolve(p)); });
    });
    const file = await jobFile('http_pg', {
      source: { name: 'hits', type: 'http', options: { port, path: '/ingest' }, schema },
      sql: 'SELECT id, region FROM hits',
      sink: { type: 'postgres', options: { connectionString: db.url, table: 'hits', mode: 'bare-append' } },
      trigger: { type: 'processing-time', interval: '100 milliseconds' },
    });
    const running = weir(['run', file], (stdout, child) => {
      if (progressLines(stdout).some((p) => p.numInputRows === 3)) child.kill('SIGTERM');
    });
    // The listener opens when the run starts (a CLI start can take many seconds on a loaded
    // machine): retry the POST until it is accepted, or the run has ended without taking it.
    let exited = false;
    void running.then(() => (exited = true));
    let status = 0;
    const deadline = Date.now() + 120_000;
    while (status !== 202 && !exited && Date.now() < deadline) {
      status = await fetch(`http://127.0.0.1:${port}/ingest`, { method: 'POST', body: JSON.stringify([1, 2, 3].map((id) => ({ id, region: 'eu', amount: id }))) })
        .then((res) => res.status, () => 0);
      if (status !== 202) await new Promise((res) => setTimeout(res, 100));
    }
    expect(status).toBe(202);
    const r = await running;
    expect(r.code).toBe(0);
    const [p] = progressLines(r.stdout);
    expect(p.contract.guarantee).toBe('at-most-once');
    expect(p.sources[0].description).toBe(`HttpSource[http://127.0.0.1:${port}/ingest]`);
    expect(Number((await db.pool.query('SELECT count(*) AS n FROM hits')).rows[0].n)).toBe(3);
  });
});

describe("weir CLI: Spark's types from a files source's DDL schema into every offline sink", () => {
  // Every digit of a BIGINT past 2^53 and of a DECIMAL, a date, timestamps with microseconds,
  // nested types and bytes: each sink gives a Spark user the type and the value they expect.
  const DDL = 'id BIGINT, tags ARRAY<STRING>, price DECIMAL(10,2), d DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, m MAP<STRING,INT>, s STRUCT<a: INT, b: STRING>, i INT, f FLOAT, b BINARY';
  const LINES = [
    '{"id": 9007199254740993, "tags": ["a", "b"], "price": 12345678.91, "d": "2024-02-29", "ts": "2024-02-29T12:34:56.123456Z", "ntz": "2024-02-29T12:34:56.123456", "m": {"x": 1, "y": null}, "s": {"a": 1, "b": "q"}, "i": 2147483647, "f": 1.1, "b": "AQID"}',
    '{"id": 9223372036854775807, "tags": [], "price": "99999999.99", "d": "1969-12-31", "ts": "1969-12-31T23:59:59.999999Z", "ntz": "2024-02-29 00:00:00", "m": {}, "s": {"a": -1, "b": "x, \\"y\\""}, "i": -2147483648, "f": 3.4028235E38, "b": ""}',
    '{"id": -9223372036854775808, "price": -0.01}',
  ];
  // As Spark's JSON writer writes them (and Weir's files sink), row by row.
  const JSON_ROWS = [
    '{"id":-9223372036854775808,"tags":null,"price":-0.01,"d":null,"ts":null,"ntz":null,"m":null,"s":null,"i":null,"f":null,"b":null}',
    '{"id":9007199254740993,"tags":["a","b"],"price":12345678.91,"d":"2024-02-29","ts":"2024-02-29T12:34:56.123Z","ntz":"2024-02-29T12:34:56.123","m":{"x":1,"y":null},"s":{"a":1,"b":"q"},"i":2147483647,"f":1.1,"b":"AQID"}',
    '{"id":9223372036854775807,"tags":[],"price":99999999.99,"d":"1969-12-31","ts":"1969-12-31T23:59:59.999Z","ntz":"2024-02-29T00:00:00.000","m":{},"s":{"a":-1,"b":"x, \\"y\\""},"i":-2147483648,"f":3.4028235E38,"b":""}',
  ];
  const sorted = (lines: string) => lines.trim().split('\n').sort();

  it('postgres: Spark JDBC column types, every digit and byte; sink read prints what the files sink writes', async () => {
    const input = path.join(dir, 'types-in');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'part-1.json'), `${LINES.join('\n')}\n`);
    const source = { name: 'events', type: 'files', options: { path: input, format: 'json' }, schema: DDL };
    const pgJob = await jobFile('types_pg', { source, sql: 'SELECT * FROM events', sink: { type: 'postgres', options: { connectionString: db.url, table: 'typed' } } });
    const ran = await weir(['run', pgJob]);
    expect(ran.code, ran.stderr).toBe(0);
    const columns = (await db.pool.query(`SELECT attname AS c, format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'typed'::regclass AND attnum > 0 ORDER BY attnum`)).rows;
    expect(Object.fromEntries(columns.map((r) => [r.c, r.t]))).toEqual({
      id: 'bigint', tags: 'jsonb', price: 'numeric(10,2)', d: 'date', ts: 'timestamp with time zone', ntz: 'timestamp without time zone',
      m: 'jsonb', s: 'jsonb', i: 'integer', f: 'real', b: 'bytea',
    });
    const rows = (await db.pool.query(`SET TIME ZONE 'UTC'; SELECT id::text, tags::text, price::text, d::text, ts::text, ntz::text, m::text, s::text, i, f::float8, encode(b, 'hex') AS b FROM typed ORDER BY id`) as unknown as { rows: Row[] }[])[1].rows;
    expect(rows).toEqual([
      { id: '-9223372036854775808', tags: null, price: '-0.01', d: null, ts: null, ntz: null, m: null, s: null, i: null, f: null, b: null },
      { id: '9007199254740993', tags: '["a", "b"]', price: '12345678.91', d: '2024-02-29', ts: '2024-02-29 12:34:56.123456+00', ntz: '2024-02-29 12:34:56.123456', m: '{"x": 1, "y": null}', s: '{"a": 1, "b": "q"}', i: 2147483647, f: Math.fround(1.1), b: '010203' },
      { id: '9223372036854775807', tags: '[]', price: '99999999.99', d: '1969-12-31', ts: '1969-12-31 23:59:59.999999+00', ntz: '2024-02-29 00:00:00', m: '{}', s: '{"a": -1, "b": "x, \\"y\\""}', i: -2147483648, f: Math.fround(3.4028235e38), b: '' },
    ]);
    const read = await weir(['sink', 'read', pgJob]);
    expect(read.code).toBe(0);
    expect(sorted(read.stdout)).toEqual([...JSON_ROWS].sort());
  });

  it('files (JSON and CSV) and console: the text Spark writes and shows', async () => {
    const input = path.join(dir, 'types-in-files');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'part-1.json'), `${LINES.join('\n')}\n`);
    const source = { name: 'events', type: 'files', options: { path: input, format: 'json' }, schema: DDL };
    const out = (format: string) => path.join(dir, `types-out-${format}`);
    for (const format of ['json', 'csv']) {
      const job = await jobFile(`types_${format}`, { source, sql: 'SELECT * FROM events', sink: { type: 'files', options: { path: out(format), format } } });
      expect((await weir(['run', job])).code).toBe(0);
    }
    const written = async (format: string) => {
      const files = (await readdir(out(format))).filter((f) => f.endsWith(`.${format}`));
      return (await Promise.all(files.map((f) => readFile(path.join(out(format), f), 'utf8')))).join('');
    };
    expect(sorted(await written('json'))).toEqual([...JSON_ROWS].sort());
    expect((await written('csv')).trim().split('\n')).toEqual([
      'id,tags,price,d,ts,ntz,m,s,i,f,b',
      '9007199254740993,"[""a"",""b""]",12345678.91,2024-02-29,2024-02-29T12:34:56.123Z,2024-02-29T12:34:56.123,"{""x"":1,""y"":null}","{""a"":1,""b"":""q""}",2147483647,1.1,AQID',
      '9223372036854775807,[],99999999.99,1969-12-31,1969-12-31T23:59:59.999Z,2024-02-29T00:00:00.000,{},"{""a"":-1,""b"":""x, \\""y\\""""}",-2147483648,3.4028235E38,""',
      '-9223372036854775808,,-0.01,,,,,,,,',
    ]);
    const consoleJob = await jobFile('types_console', { source, sql: 'SELECT id, price, d, i, f, b FROM events', sink: { type: 'console', options: {} } });
    const shown = await weir(['run', consoleJob]);
    expect(shown.code).toBe(0);
    // Dataset.show(): every digit, a DATE as yyyy-MM-dd, BINARY as its hex bytes.
    expect(`${shown.stdout}${shown.stderr}`).toContain('|    9007199254740993|12345678.91|2024-02-29| 2147483647|         1.1|[01 02 03]|');
    expect(`${shown.stdout}${shown.stderr}`).toContain('|-9223372036854775808|      -0.01|      NULL|       NULL|        NULL|      NULL|');
  });
});
