// Fault tests of the exactly-once contract, end to end through MicroBatchExecution against this
// machine's real PostgreSQL, Redis and a real HTTP receiver: for every sink and every crash
// point, run, crash at batch 1, add more data while down, restart, count.
// - exactly-once sinks (postgres transactional, postgres-upsert, postgres-replace, webhook whose
//   receiver honours Idempotency-Key) hold every input row once;
// - at-least-once sinks (postgres bare-append, redis-stream, webhook) hold duplicates only of the
//   replayed batch, and only after an after-sink crash: the test asserts exactly how many;
// - a running count per name into postgres-replace (complete) and postgres-upsert (update) ends
//   equal to the count over all input, for every crash point including mid-state-commit;
// - a sink that is down (a TCP forwarder in front of the real service, closed) fails its batch
//   without committing it, and the run resumes cleanly once it is back.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './index'; // registers every connector, as the worker and the CLI do
import { Redis } from 'ioredis';
import { MicroBatchExecution } from '../engine/execution/micro-batch-execution';
import type { CrashPointName } from '../engine/execution/crash-points';
import { parseJobSpec, type JobSpec } from '../engine/spec/job-spec';
import { CommitLog } from '../engine/checkpoint/commit-log';
import { LocalCheckpointFileManager } from '../engine/checkpoint/local-checkpoint-file-manager';
import { CrashPointError, DataLossError, SinkError } from '../engine/errors';
import { createTestDatabase, type TestDatabase } from '../testing/pg-test-database';
import { TcpProxy } from './testing/tcp-proxy';
import type { Row } from '../engine/types';
import '../engine/sources/index';
import '../engine/sinks/index';

let db: TestDatabase;
let redis: Redis;
let receiver: http.Server;
let hookUrl = '';
const posts: { key: string; rows: Row[] }[] = [];
const dirs: string[] = [];
const tag = `${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
let n = 0;

beforeAll(async () => {
  db = await createTestDatabase('faults');
  redis = new Redis('redis://127.0.0.1:6379');
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      posts.push({ key: String(req.headers['idempotency-key']), rows: JSON.parse(body).rows });
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  const keys = await redis.keys(`weir:faults:${tag}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await new Promise((r) => receiver.close(r));
  await db.drop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

interface SinkCase {
  name: string;
  exactlyOnce: boolean;
  sql?: string;
  outputMode?: 'append' | 'update' | 'complete';
  sink(id: string, url: string): { type: string; options: Record<string, unknown> };
  /** What the destination holds, as rows with `id` (or, for the replace case, `name`/`n`). */
  read(id: string): Promise<Row[]>;
}

const readPg = async (table: string, cols = 'id') =>
  (await db.pool.query(`SELECT ${cols} FROM "${table}"`)).rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v])));

const cases: SinkCase[] = [
  { name: 'postgres transactional', exactlyOnce: true, sink: (id, url) => ({ type: 'postgres', options: { connectionString: url, table: id } }), read: (id) => readPg(id) },
  { name: 'postgres bare-append', exactlyOnce: false, sink: (id, url) => ({ type: 'postgres', options: { connectionString: url, table: id, mode: 'bare-append' } }), read: (id) => readPg(id) },
  { name: 'postgres-upsert', exactlyOnce: true, sink: (id, url) => ({ type: 'postgres-upsert', options: { connectionString: url, table: id, keyColumns: ['id'] } }), read: (id) => readPg(id) },
  {
    name: 'redis-stream', exactlyOnce: false,
    sink: (id) => ({ type: 'redis-stream', options: { stream: `weir:faults:${tag}:${id}` } }),
    read: async (id) => ((await redis.xrange(`weir:faults:${tag}:${id}`, '-', '+')) as [string, string[]][]).map(([, f]) => ({ ...JSON.parse(f[3]), batchId: Number(f[1]) })),
  },
  {
    name: 'webhook', exactlyOnce: false,
    sink: (id) => ({ type: 'webhook', options: { url: `${hookUrl}?job=${id}`, initialBackoffMs: 5 } }),
    read: async (id) => posts.filter((p) => p.key.startsWith(`${id}/`)).flatMap((p) => p.rows),
  },
  {
    name: 'webhook, receiver honours Idempotency-Key', exactlyOnce: true,
    sink: (id) => ({ type: 'webhook', options: { url: `${hookUrl}?job=${id}`, receiverHonoursIdempotencyKey: true, initialBackoffMs: 5 } }),
    // The receiving side's dedup by key, as a receiver that honours the header does it.
    read: async (id) => [...new Map(posts.filter((p) => p.key.startsWith(`${id}/`)).map((p) => [p.key, p.rows])).values()].flat(),
  },
];

async function job(id: string, sink: { type: string; options: Record<string, unknown> }, extra: Partial<JobSpec> = {}): Promise<JobSpec> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-faults-'));
  dirs.push(dir);
  const r = parseJobSpec({
    name: id,
    source: { name: 'orders', type: 'postgres', options: { connectionString: db.url, table: `${id}_in`, offsetColumn: 'id' }, schema: [{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }, { name: 'amount', type: 'double' }] },
    sql: 'SELECT id, name, amount FROM orders',
    sink,
    outputMode: 'append',
    trigger: { type: 'available-now' },
    checkpointLocation: dir,
    ...extra,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  await db.pool.query(`CREATE TABLE "${id}_in" (id bigint, name text, amount double precision)`);
  return r.spec;
}

let nextId = 1;
async function addInput(id: string, count: number, names = ['eu', 'us', 'apac']): Promise<number[]> {
  const ids = Array.from({ length: count }, () => nextId++);
  await db.pool.query(`INSERT INTO "${id}_in" SELECT i, ($2::text[])[1 + i % 3], i / 2.0 FROM unnest($1::bigint[]) AS i`, [ids, names]);
  return ids;
}

const counts = (rows: Row[]) => {
  const m = new Map<unknown, number>();
  for (const r of rows) m.set(r.id, (m.get(r.id) ?? 0) + 1);
  return m;
};


describe.each(cases)('$name through MicroBatchExecution', (c) => {
  it.each(['after-offsets', 'after-sink', 'after-commit'] as CrashPointName[])('crash %s of batch 1, restart: counts hold', async (point) => {
    const id = `f${++n}_${point.replace('-', '_')}`;
    const spec = await job(id, c.sink(id, db.url));
    const a = await addInput(id, 5);
    const first = new MicroBatchExecution({ spec, crash: { point, batchId: 1 } });
    await first.processAllAvailable(); // batch 0
    const b = await addInput(id, 4);
    await expect(first.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
    await first.stop();
    const cIds = await addInput(id, 3); // arrives while the query is down
    const second = new MicroBatchExecution({ spec });
    await second.processAllAvailable();
    await second.stop();

    const got = counts(await c.read(id));
    const replayedTwice = !c.exactlyOnce && point === 'after-sink';
    for (const x of [...a, ...cIds]) expect(got.get(x)).toBe(1);
    for (const x of b) expect(got.get(x)).toBe(replayedTwice ? 2 : 1);
    expect([...got.values()].reduce((s, v) => s + v, 0)).toBe(a.length + b.length + cIds.length + (replayedTwice ? b.length : 0));
    // The re-run covered exactly the recorded range of batch 1: C went to batch 2, not into 1.
    if (c.name === 'redis-stream') {
      const rows = await c.read(id);
      expect(new Set(rows.filter((r) => cIds.includes(r.id as number)).map((r) => r.batchId))).toEqual(new Set([2]));
      expect(new Set(rows.filter((r) => b.includes(r.id as number)).map((r) => r.batchId))).toEqual(new Set([1]));
    }
  });
});

const aggregateCases = [
  { name: 'postgres-replace, complete mode', outputMode: 'complete' as const, sink: (table: string) => ({ type: 'postgres-replace', options: { connectionString: db.url, table } }) },
  { name: 'postgres-upsert, update mode', outputMode: 'update' as const, sink: (table: string) => ({ type: 'postgres-upsert', options: { connectionString: db.url, table, keyColumns: ['name'] } }) },
];
const aggregatePoints = ['after-offsets', 'after-sink', 'mid-state-commit', 'after-commit'] as CrashPointName[];

describe.each(aggregateCases)('a running count per name, $name, through MicroBatchExecution', (c) => {
  it.each(aggregatePoints)('crash %s of batch 1, restart: the table is the full, correct result', async (point) => {
    const id = `r${++n}_${point.replace(/-/g, '_')}`;
    const spec = await job(id, c.sink(id), { sql: 'SELECT name, count(*) AS n FROM orders GROUP BY name', outputMode: c.outputMode });
    const all = [...(await addInput(id, 5))];
    const first = new MicroBatchExecution({ spec, crash: { point, batchId: 1 } });
    await first.processAllAvailable();
    all.push(...(await addInput(id, 4)));
    await expect(first.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
    await first.stop();
    all.push(...(await addInput(id, 3)));
    const second = new MicroBatchExecution({ spec });
    await second.processAllAvailable();
    await second.stop();
    const want = new Map<string, number>();
    for (const i of all) want.set(['eu', 'us', 'apac'][i % 3], (want.get(['eu', 'us', 'apac'][i % 3]) ?? 0) + 1);
    const got = await readPg(id, 'name, n');
    expect(new Map(got.map((r) => [r.name as string, r.n as number]))).toEqual(want);
  });
});

describe('a sink that is down', () => {
  const downCases = [
    { name: 'postgres transactional', exactlyOnce: true, targetPort: () => 5432, sink: (id: string, port: number) => ({ type: 'postgres', options: { connectionString: `postgres://postgres@127.0.0.1:${port}/${db.name}`, table: id } }), read: (id: string) => readPg(id) },
    { name: 'redis-stream', exactlyOnce: false, targetPort: () => 6379, sink: (id: string, port: number) => ({ type: 'redis-stream', options: { url: `redis://127.0.0.1:${port}`, stream: `weir:faults:${tag}:${id}` } }), read: async (id: string) => ((await redis.xrange(`weir:faults:${tag}:${id}`, '-', '+')) as [string, string[]][]).map(([, f]) => JSON.parse(f[3])) },
    {
      name: 'webhook', exactlyOnce: false, targetPort: () => Number(new URL(hookUrl).port),
      sink: (id: string, port: number) => ({ type: 'webhook', options: { url: `http://127.0.0.1:${port}/hook`, maxRetries: 2, initialBackoffMs: 5 } }),
      read: async (id: string) => posts.filter((p) => p.key.startsWith(`${id}/`)).flatMap((p) => p.rows),
    },
  ];
  it.each(downCases)('$name: fails the batch without committing it, resumes cleanly when back', async (c) => {
    const id = `d${++n}`;
    const proxy = new TcpProxy('127.0.0.1', c.targetPort());
    const port = await proxy.up();
    const spec = await job(id, c.sink(id, port));
    const a = await addInput(id, 5);
    const run1 = new MicroBatchExecution({ spec });
    await run1.processAllAvailable();
    await proxy.down();
    const b = await addInput(id, 4);
    await expect(run1.processAllAvailable()).rejects.toBeInstanceOf(SinkError);
    await run1.stop();
    const commits = new CommitLog(new LocalCheckpointFileManager(spec.checkpointLocation));
    expect((await commits.getLatest())?.batchId).toBe(0); // batch 1 planned, not committed
    await proxy.up();
    const run2 = new MicroBatchExecution({ spec });
    await run2.processAllAvailable();
    await run2.stop();
    await proxy.down();
    expect((await commits.getLatest())?.batchId).toBe(1);
    const got = counts(await c.read(id));
    for (const x of [...a, ...b]) expect(got.get(x)).toBe(1);
    expect(got.size).toBe(a.length + b.length);
  });
});

describe('secrets', () => {
  it('connection strings never reach progress records or log events', async () => {
    const id = `s${++n}`;
    // Trust auth on this machine accepts any password, so a password-bearing URL really runs.
    const url = `postgres://postgres:pg-pass-w0rd@127.0.0.1:5432/${db.name}`;
    const spec = await job(id, { type: 'postgres', options: { connectionString: url, table: id } });
    spec.source.options = { ...spec.source.options, connectionString: url };
    await addInput(id, 3);
    const seen: string[] = [];
    const q = new MicroBatchExecution({ spec, onProgress: (p) => void seen.push(JSON.stringify(p)), log: (e) => void seen.push(JSON.stringify(e)) });
    await q.processAllAvailable();
    await q.stop();
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.some((s) => s.includes('"numInputRows":3'))).toBe(true);
    for (const s of seen) {
      expect(s).not.toContain('pg-pass-w0rd');
      expect(s).not.toContain(url);
    }
    expect(JSON.parse(seen.find((s) => s.includes('numInputRows'))!).contract.guarantee).toBe('exactly-once');
  });
});

describe('a replay whose source data was trimmed away', () => {
  it.each([true, false])('redis-stream source, failOnDataLoss %s: DATA_LOSS, or continue with what is left', async (failOnDataLoss) => {
    const id = `t${++n}`;
    const stream = `weir:faults:${tag}:${id}:in`;
    const spec = await job(id, { type: 'postgres', options: { connectionString: db.url, table: id } });
    spec.source = { ...spec.source, type: 'redis-stream', options: { url: 'redis://127.0.0.1:6379', stream, format: 'json', jsonField: 'data', failOnDataLoss, pageSize: 1000 } };
    // A parsed spec lists its sources in `sources` (one here): the engine reads that list.
    spec.sources = [spec.source];
    const add = async (ids: number[]) => { for (const i of ids) await redis.xadd(stream, '*', 'data', JSON.stringify({ id: i, name: 'x', amount: i })); };
    await add([1, 2, 3]);
    const first = new MicroBatchExecution({ spec, crash: { point: 'after-offsets', batchId: 1 } });
    await first.processAllAvailable();
    await add([4, 5, 6]);
    await expect(first.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
    await first.stop();
    await redis.xtrim(stream, 'MAXLEN', 1); // retention removes 4 and 5 before the re-run
    const second = new MicroBatchExecution({ spec });
    if (failOnDataLoss) {
      const err = await second.processAllAvailable().catch((e) => e);
      await second.stop();
      expect(err).toBeInstanceOf(DataLossError);
      expect(err.message).toMatch(/held 3 entries.*only 1 are left.*failOnDataLoss/);
      expect((await readPg(id)).map((r) => r.id).sort()).toEqual([1, 2, 3]);
    } else {
      await second.processAllAvailable();
      await second.stop();
      expect((await readPg(id)).map((r) => r.id).sort()).toEqual([1, 2, 3, 6]);
    }
  });
});

describe('read limits through the engine', () => {
  it('postgres maxRowsPerTrigger splits a backlog into batches; a crash mid-backlog still ends with every row once', async () => {
    const id = `l${++n}`;
    const spec = await job(id, { type: 'postgres', options: { connectionString: db.url, table: id } });
    spec.source.options = { ...spec.source.options, maxRowsPerTrigger: 4 };
    const ids = await addInput(id, 10);
    const first = new MicroBatchExecution({ spec, crash: { point: 'after-sink', batchId: 1 } });
    await expect(first.processAllAvailable()).rejects.toBeInstanceOf(CrashPointError);
    await first.stop();
    const seen: number[] = [];
    const second = new MicroBatchExecution({ spec, onProgress: (p) => void seen.push(p.numInputRows) });
    await second.processAllAvailable();
    await second.stop();
    expect(seen).toEqual([4, 2]); // batch 1 re-run over its recorded range, then the rest
    expect((await readPg(id)).map((r) => r.id).sort((a, b) => (a as number) - (b as number))).toEqual(ids);
  });
});
