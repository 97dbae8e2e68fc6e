// Source.waitForData against this machine's real PostgreSQL (LISTEN/NOTIFY through the trigger
// createNotifyTrigger makes, and the poll without it), Redis (XREAD BLOCK) and NATS JetStream
// (fetch with expires), and through MicroBatchExecution with trigger interval 0.
//
// No timing is asserted. Every wait is given a maxWaitMs far beyond the test's own timeout, so a
// wait that returns can only have been woken by data or by the abort, never by its time bound.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { createTestDatabase, type TestDatabase } from '../testing/pg-test-database';
import { MicroBatchExecution } from '../engine/execution/micro-batch-execution';
import { parseJobSpec } from '../engine/spec/job-spec';
import { MemorySinkTable } from '../engine/sinks/memory-sink';
import '../engine/sinks/index';
import { defaultNotifyChannel, PostgresSource, postgresSourceOptions } from './postgres/postgres-source';
import { RedisStreamSource } from './redis/redis-stream-source';
import { NatsJetStreamSource } from './nats/nats-jetstream-source';
import type { Source } from '../engine/sources/source';
import type { Schema } from '../engine/types';

/** Far beyond every test timeout below: a wait that ends was woken, not timed out. */
const NEVER_MS = 10 * 60_000;
const TEST_TIMEOUT_MS = 60_000;
const schema: Schema = [{ name: 'id', type: 'long' }];

let db: TestDatabase;
let nc: NatsConnection;
let jsm: JetStreamManager;
const redis = new Redis('redis://127.0.0.1:6379');
const tag = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const cleanups: (() => Promise<unknown>)[] = [];
let n = 0;

beforeAll(async () => {
  db = await createTestDatabase('waitfordata');
  nc = await connect({ servers: '127.0.0.1:4222' });
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  await db.drop();
  await nc.close();
  redis.disconnect();
});

interface Harness {
  source: Source;
  append(id: number): Promise<void>;
}

async function postgres(notify: boolean): Promise<Harness> {
  const table = `t${++n}`;
  await db.pool.query(`CREATE TABLE ${table} (id bigint)`);
  const source = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table, offsetColumn: 'id', createNotifyTrigger: notify }), schema);
  cleanups.push(() => source.stop());
  await source.open();
  return { source, append: async (id) => void (await db.pool.query(`INSERT INTO ${table} VALUES ($1)`, [id])) };
}

async function redisStream(): Promise<Harness> {
  const stream = `weir:test:wait:${tag}:${++n}`;
  cleanups.push(() => redis.del(stream));
  const source = new RedisStreamSource({ url: 'redis://127.0.0.1:6379', stream, format: 'json', jsonField: 'data', failOnDataLoss: true, pageSize: 100 }, schema);
  cleanups.push(() => source.stop());
  return { source, append: async (id) => void (await redis.xadd(stream, '*', 'data', JSON.stringify({ id }))) };
}

async function nats(): Promise<Harness> {
  const stream = `weir_wait_${tag}_${++n}`;
  const subject = `weir.wait.${tag}.${n}`;
  await jsm.streams.add({ name: stream, subjects: [`${subject}.>`] });
  cleanups.push(() => jsm.streams.delete(stream));
  const source = new NatsJetStreamSource({ servers: 'nats://127.0.0.1:4222', stream, failOnDataLoss: true, fetchSize: 100 }, schema);
  cleanups.push(() => source.stop());
  const js = jetstream(nc);
  return { source, append: async (id) => void (await js.publish(`${subject}.x`, JSON.stringify({ id }))) };
}

const signalled: [string, () => Promise<Harness>][] = [
  ['postgres (LISTEN/NOTIFY)', () => postgres(true)],
  ['redis-stream (XREAD BLOCK)', redisStream],
  ['nats-jetstream (fetch with expires)', nats],
];

describe.each(signalled)('%s waitForData', (_name, make) => {
  it('wakes when data arrives after planning saw none', async () => {
    const h = await make();
    expect(await h.source.latestOffset(null)).toBeNull();
    const ac = new AbortController();
    let woke = false;
    const wait = h.source.waitForData!(ac.signal, NEVER_MS).then(() => (woke = true));
    // The first wait of a LISTEN source may return at once (LISTEN just began): wait again until
    // a wait is really pending, then add the row.
    await new Promise((r) => setTimeout(r, 50));
    if (woke) {
      woke = false;
      const again = h.source.waitForData!(ac.signal, NEVER_MS).then(() => (woke = true));
      await new Promise((r) => setTimeout(r, 50));
      expect(woke).toBe(false);
      await h.append(1);
      await again;
    } else {
      await h.append(1);
      await wait;
    }
    expect(woke).toBe(true);
    expect(await h.source.latestOffset(null)).not.toBeNull();
  }, TEST_TIMEOUT_MS);

  it('returns at once when data came between planning and the wait', async () => {
    const h = await make();
    await h.append(1);
    const first = await h.source.latestOffset(null);
    // Warm any LISTEN connection (its first wait may return at once), then plan again.
    await h.source.waitForData!(new AbortController().signal, 1);
    expect(await h.source.latestOffset(null)).toEqual(first);
    await h.append(2);
    await h.source.waitForData!(new AbortController().signal, NEVER_MS);
    expect(await h.source.latestOffset(null)).not.toEqual(first);
  }, TEST_TIMEOUT_MS);

  it('an abort ends a pending wait (the query stops)', async () => {
    const h = await make();
    await h.source.latestOffset(null);
    const ac = new AbortController();
    await h.source.waitForData!(ac.signal, 1); // LISTEN set up, if any
    const wait = h.source.waitForData!(ac.signal, NEVER_MS);
    await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    await wait;
    // Still usable after an aborted wait.
    await h.append(1);
    expect(await h.source.latestOffset(null)).not.toBeNull();
  }, TEST_TIMEOUT_MS);
});

describe('postgres waitForData without a notify channel', () => {
  it('is a bounded poll: it returns without data', async () => {
    const h = await postgres(false);
    await h.source.latestOffset(null);
    await h.source.waitForData!(new AbortController().signal, NEVER_MS);
  }, TEST_TIMEOUT_MS);

  it('the default channel is a short, stable identifier', () => {
    expect(defaultNotifyChannel('public', 'x'.repeat(63))).toMatch(/^weir_[0-9a-f]{8}$/);
    expect(defaultNotifyChannel('public', 'orders')).toBe(defaultNotifyChannel('public', 'orders'));
    expect(defaultNotifyChannel('public', 'orders')).not.toBe(defaultNotifyChannel('shop', 'orders'));
  });

  it('explains what to do when the trigger cannot be created', async () => {
    const s = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'no_such_table', offsetColumn: 'id', createNotifyTrigger: true }), schema);
    cleanups.push(() => s.stop());
    await expect(s.open()).rejects.toThrow(/could not create its notify trigger.*set createNotifyTrigger to false/);
  });
});

describe('MicroBatchExecution, trigger interval 0, idle on a LISTEN/NOTIFY source', () => {
  it('runs a batch for each row inserted while idle, and stop() ends the idle wait', async () => {
    const table = `q${++n}`;
    await db.pool.query(`CREATE TABLE ${table} (id bigint)`);
    const cp = await mkdtemp(path.join(tmpdir(), 'weir-wait-'));
    cleanups.push(() => rm(cp, { recursive: true, force: true }));
    const r = parseJobSpec({
      name: 'wait',
      source: { name: 'events', type: 'postgres', options: { connectionString: db.url, table, offsetColumn: 'id', createNotifyTrigger: true }, schema },
      sql: 'SELECT id FROM events',
      sink: { type: 'memory', options: { table: `wait-${tag}` } },
      trigger: { type: 'processing-time', interval: '0 seconds' },
      checkpointLocation: cp,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const out = MemorySinkTable.named(`wait-${tag}`);
    let notify = () => {};
    let batches = 0;
    const q = new MicroBatchExecution({ spec: r.spec, onProgress: () => { batches++; notify(); } });
    const running = q.run();
    for (let id = 1; id <= 3; id++) {
      // Idle first (the engine is waiting on the source), then one row.
      while (q.status.message !== 'Waiting for data to arrive') await new Promise((res) => setTimeout(res, 10));
      const next = new Promise<void>((res) => (notify = res));
      await db.pool.query(`INSERT INTO ${table} VALUES ($1)`, [id]);
      await next;
    }
    expect(batches).toBe(3);
    expect(out.rows.map((row) => row.id)).toEqual([1, 2, 3]);
    await q.stop();
    await running;
    expect(q.status.message).toBe('Stopped');
  }, TEST_TIMEOUT_MS);
});
