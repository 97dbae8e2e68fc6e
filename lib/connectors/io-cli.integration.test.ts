// The real `weir` CLI (node bin/weir.js, spawned) with the io sources and sinks against this
// machine's PostgreSQL, Redis and NATS, and a real HTTP receiver and sender on loopback:
// validate prints the contract, run processes, a crash and a re-run end exactly once.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './index'; // registers every connector, as the worker and the CLI do
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createTestDatabase, type TestDatabase } from '../testing/pg-test-database';

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
      sql: 'SELECT id, amount FROM events WHERE amount > 2',
      sink: { type: 'redis-stream', options: { stream: output } },
    });
    const r = await weir(['run', file]);
    expect(r.code).toBe(0);
    const [p] = progressLines(r.stdout);
    expect(p.numInputRows).toBe(12);
    expect(p.contract.guarantee).toBe('at-least-once');
    expect(p.contract.sink.reason).toMatch(/XADD/);
    expect(await redis.xlen(output)).toBe(10);
    const read = await weir(['sink', 'read', file]);
    expect(read.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(Array.from({ length: 10 }, (_, i) => i + 3));
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
