/**
 * Preview without a sample: the query over the most recent records of the spec's own source,
 * through the API, against this machine's real PostgreSQL, Redis, NATS JetStream and kcat's mock
 * Kafka. Per source: the newest records come back oldest first and nothing is moved (no
 * checkpoint written, no consumer group, no durable consumer). Then the bounds (more records
 * than the limit), the roles (admin only: reading a source is reading its data), a refused destination, an unreachable source, a push source and a
 * files path outside the roots, each a 4xx saying what to do.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from '@/lib/connectors/kafka/testing/mock-broker';
import { filesSpec, setupApiTestKit, type ApiTestKit } from './testing/api-test-kit';

let kit: ApiTestKit;
let preview: typeof import('@/app/api/jobs/preview/route');
let dir: string;
const tag = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const redis = new Redis('redis://127.0.0.1:6379');
const redisKeys: string[] = [];
let nc: NatsConnection;
let jsm: JetStreamManager;
const natsStreams: string[] = [];
const HAVE_KCAT = kcatAvailable();
let broker: MockKafkaBroker | undefined;

beforeAll(async () => {
  kit = await setupApiTestKit();
  preview = await import('@/app/api/jobs/preview/route');
  dir = await mkdtemp(path.join(tmpdir(), 'weir-preview-recent-'));
  nc = await connect({ servers: '127.0.0.1:4222' });
  jsm = await jetstreamManager(nc);
  if (HAVE_KCAT) broker = await startMockKafka({ brokers: 1 });
}, 120_000);

afterAll(async () => {
  if (redisKeys.length) await redis.del(...redisKeys);
  redis.disconnect();
  for (const s of natsStreams) await jsm.streams.delete(s).catch(() => undefined);
  await nc?.close();
  await broker?.stop();
  await rm(dir, { recursive: true, force: true });
  await kit?.teardown();
});

// Reading a source's records needs admin (a pasted sample: any role); the roles test below.
const call = (body: unknown, token: string | undefined = kit.tokens.admin) => kit.call(preview.POST, '/api/jobs/preview', { method: 'POST', token, body });

const userN = [{ name: 'user', type: 'string' }, { name: 'n', type: 'long' }];
/** A spec over `source` (name clicks, columns user and n unless given) selecting every row. */
function spec(name: string, source: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return filesSpec(name, dir, { source: { name: 'clicks', schema: userN, ...source }, sql: 'SELECT user, n FROM clicks', ...extra });
}
const ns = (rows: { n: number }[]) => rows.map((r) => r.n);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('POST /api/jobs/preview without a sample: the source’s most recent records', () => {
  it('files: the newest files’ last records, oldest first, and no checkpoint or source log', async () => {
    const input = path.join(dir, 'files-in');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'a.json'), range(0, 5).map((n) => JSON.stringify({ user: 'a', n })).join('\n'));
    await new Promise((r) => setTimeout(r, 20)); // distinct modification times
    await writeFile(path.join(input, 'b.json'), `${range(5, 8).map((n) => JSON.stringify({ user: 'b', n })).join('\n')}\n{"user": "c", "n": "many"}\n`);
    await writeFile(path.join(input, '.hidden.json'), JSON.stringify({ user: 'hidden', n: 99 }));
    const res = await call({ spec: spec('pr-files', { type: 'files', options: { path: input, format: 'json' } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(ns(res.body.rows)).toEqual(range(0, 8));
    expect(res.body).toMatchObject({ input: 'recent', inputRows: 8, read: { records: 9, badRecords: 1, bounded: false } });
    expect(res.body.read.source).toContain(input);
    expect(res.body.notes.join(' ')).toMatch(/did not fit the source schema/);
    expect(existsSync(path.join(kit.checkpointRoot, 'preview'))).toBe(false);
  });

  it('files: more records than the bound reads only the newest 1,000, and says it was bounded', async () => {
    const input = path.join(dir, 'files-big');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'old.json'), range(0, 700).map((n) => JSON.stringify({ user: 'o', n })).join('\n'));
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(path.join(input, 'new.json'), range(700, 1500).map((n) => JSON.stringify({ user: 'n', n })).join('\n'));
    const res = await call({ spec: spec('pr-bound', { type: 'files', options: { path: input, format: 'json' } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ inputRows: 1000, totalRows: 1000, truncated: true, read: { records: 1000, bounded: true } });
    expect(res.body.rows).toHaveLength(100);
    expect(res.body.rows[0].n).toBe(500);
  });

  it('files: a stateful query shows its result table after the records read, with the watermark note', async () => {
    const input = path.join(dir, 'files-window');
    await mkdir(input, { recursive: true });
    const ts = ['2026-12-01T10:01:00Z', '2026-12-01T10:05:00Z', '2026-12-01T10:31:00Z'];
    await writeFile(path.join(input, 'w.json'), ts.map((t, i) => JSON.stringify({ user: `u${i}`, ts: t })).join('\n'));
    const res = await call({
      spec: spec('pr-window', { type: 'files', options: { path: input, format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: '1 minute' }, {
        sql: "SELECT window(ts, '10 minutes') AS w, count(*) AS n FROM clicks GROUP BY window(ts, '10 minutes')",
      }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.stateful).toBe(true);
    expect(ns(res.body.rows)).toEqual([2]);
    expect(res.body.notes.join(' ')).toMatch(/watermark/);
  });

  it('postgres: ORDER BY the offset column DESC LIMIT n, returned oldest first', async () => {
    const table = `preview_src_${tag}`;
    await kit.database.pool.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, "user" text, n bigint)`);
    await kit.database.pool.query(`INSERT INTO ${table} SELECT g, 'u' || g, g FROM generate_series(1, 1200) g`);
    const res = await call({ spec: spec('pr-pg', { type: 'postgres', options: { connectionString: kit.database.url, table, offsetColumn: 'id' } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ inputRows: 1000, read: { records: 1000, bounded: true } });
    expect(res.body.rows[0]).toEqual({ user: 'u201', n: 201 });
    expect(res.body.rows.at(-1)).toEqual({ user: 'u300', n: 300 });
  });

  it('redis-stream: XREVRANGE’s newest entries, oldest first, and no consumer group', async () => {
    const stream = `weir:test:preview:${tag}`;
    redisKeys.push(stream);
    for (const n of range(0, 30)) await redis.xadd(stream, '*', 'data', JSON.stringify({ user: 'r', n }));
    const res = await call({ spec: spec('pr-redis', { type: 'redis-stream', options: { url: 'redis://127.0.0.1:6379', stream } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(ns(res.body.rows)).toEqual(range(0, 30));
    expect(await redis.xinfo('GROUPS', stream)).toEqual([]);
  });

  it('nats-jetstream: the last messages by sequence, and no consumer left on the stream', async () => {
    const stream = `weir_preview_${tag}`;
    const subject = `weir.preview.${tag}`;
    await jsm.streams.add({ name: stream, subjects: [`${subject}.>`] });
    natsStreams.push(stream);
    const js = jetstream(nc);
    for (const n of range(0, 1100)) await js.publish(`${subject}.x`, JSON.stringify({ user: 's', n }));
    const res = await call({ spec: spec('pr-nats', { type: 'nats-jetstream', options: { servers: 'nats://127.0.0.1:4222', stream } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ inputRows: 1000, read: { records: 1000, bounded: true } });
    expect(res.body.rows[0].n).toBe(100);
    expect((await jsm.streams.info(stream)).state.consumer_count).toBe(0);
  });

  it.skipIf(!HAVE_KCAT)('kafka (kcat mock cluster): the last records of every partition, by offsets, with no group', async () => {
    const topic = `weir-preview-${tag}`;
    await produce(broker!.bootstrapServers, topic, range(0, 40).map((i) => ({ key: `k${i}`, value: JSON.stringify({ i }), partition: i % 4, timestamp: 1_790_000_000_000 + i })));
    const res = await call({
      spec: spec('pr-kafka', { type: 'kafka', options: { bootstrapServers: broker!.bootstrapServers, subscribe: topic, startingOffsets: 'earliest' }, schema: [{ name: 'value', type: 'binary' }, { name: 'partition', type: 'long' }, { name: 'offset', type: 'long' }] }, {
        sql: 'SELECT CAST(value AS STRING) AS v FROM clicks',
      }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rows.map((r: { v: string }) => JSON.parse(r.v).i)).toEqual(range(0, 40));
    expect(res.body.read).toMatchObject({ records: 40, bounded: false });
  });

  it('rate: generated rows, values from 0', async () => {
    const res = await call({
      spec: spec('pr-rate', { type: 'rate', options: { rowsPerSecond: 10 }, schema: [{ name: 'timestamp', type: 'timestamp' }, { name: 'value', type: 'long' }] }, { sql: 'SELECT value FROM clicks' }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ inputRows: 1000, read: { records: 1000 } });
    expect(res.body.rows.slice(0, 3)).toEqual([{ value: 0 }, { value: 1 }, { value: 2 }]);
  });

  it('only an admin may preview a source\'s records (403 for the others, naming the role); without credentials it is 401', async () => {
    const body = { spec: spec('pr-roles', { type: 'rate', options: { rowsPerSecond: 1 }, schema: [{ name: 'value', type: 'long' }] }, { sql: 'SELECT value FROM clicks' }) };
    for (const token of [kit.tokens.viewer, kit.tokens.operator]) {
      const refused = await call(body, token);
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/that needs admin/);
    }
    expect((await call(body, kit.tokens.admin)).status).toBe(200);
    expect((await kit.call(preview.POST, '/api/jobs/preview', { method: 'POST', body })).status).toBe(401);
  });

  it('refuses what validation refuses, with the same status and code: a link-local address, a path outside the roots', async () => {
    const pgSpec = spec('pr-refused', { type: 'postgres', options: { connectionString: 'postgres://reader@169.254.169.254:5432/shop', table: 'orders', offsetColumn: 'id' } });
    const validate = await import('@/app/api/jobs/validate/route');
    const v = await kit.call(validate.POST, '/api/jobs/validate', { method: 'POST', token: kit.tokens.admin, body: pgSpec });
    const refused = await call({ spec: pgSpec });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/169\.254\.169\.254/);
    expect(v.body.ok).toBe(false);
    expect(refused.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual(v.body.errors.map((e: { path: string }) => e.path));
    const outside = await call({ spec: spec('pr-outside', { type: 'files', options: { path: '/etc', format: 'json' } }) });
    expect(outside.status).toBe(422);
    expect(outside.body.error.message).toMatch(/\/etc/);
  });

  it('an unreachable source is a 424 naming it; a push source is a 422 saying to paste a sample', async () => {
    const down = await call({ spec: spec('pr-down', { type: 'redis-stream', options: { url: 'redis://127.0.0.1:1', stream: 'nope' } }) });
    expect(down.status, JSON.stringify(down.body)).toBe(424);
    expect(down.body.error).toMatchObject({ code: 'PREVIEW_SOURCE_UNAVAILABLE' });
    expect(down.body.error.message).toMatch(/RedisStreamSource\[nope\].*paste a sample/);
    const push = await call({ spec: spec('pr-push', { type: 'http', options: {} }) });
    expect(push.status, JSON.stringify(push.body)).toBe(422);
    expect(push.body.error).toMatchObject({ code: 'PREVIEW_NOT_SUPPORTED' });
    expect(push.body.error.message).toMatch(/Paste a sample/);
  });
});
