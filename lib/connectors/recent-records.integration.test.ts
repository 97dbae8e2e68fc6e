/**
 * Source.sampleRecent's byte bound in the connectors, against this machine's PostgreSQL, Redis
 * and NATS: with records larger than the bound allows, each returns the newest records that fit,
 * oldest first, says the bound stopped it, and reads no more bytes than the bound.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecentRecordsLimit } from '../engine/sources/source';
import type { Schema } from '../engine/types';
import { createTestDatabase, type TestDatabase } from '../testing/pg-test-database';
import { NatsJetStreamSource, natsJetStreamSourceOptions } from './nats/nats-jetstream-source';
import { PostgresSource, postgresSourceOptions } from './postgres/postgres-source';
import { RedisStreamSource, redisStreamSourceOptions } from './redis/redis-stream-source';

const schema: Schema = [{ name: 'n', type: 'long' }, { name: 'pad', type: 'string' }];
const PAD = 'x'.repeat(1000);
const limit = (bytes: number, records = 1000): RecentRecordsLimit => ({ records, bytes, timeoutMs: 5_000, signal: new AbortController().signal });
const tag = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
let db: TestDatabase;
const redis = new Redis('redis://127.0.0.1:6379');
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  db = await createTestDatabase('weir_recent');
  nc = await connect({ servers: '127.0.0.1:4222' });
  jsm = await jetstreamManager(nc);
}, 60_000);
afterAll(async () => {
  await redis.del(`weir:test:recent:${tag}`);
  redis.disconnect();
  await jsm?.streams.delete(`weir_recent_${tag}`).catch(() => undefined);
  await nc?.close();
  await db?.drop();
});

describe('sampleRecent under a byte bound', () => {
  it('postgres: the running pg_column_size sum stops the rows in the database', async () => {
    await db.pool.query('CREATE TABLE big (id bigint PRIMARY KEY, n bigint, pad text)');
    await db.pool.query(`INSERT INTO big SELECT g, g, repeat('x', 1000) FROM generate_series(1, 50) g`);
    const src = new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'big', offsetColumn: 'id' }), schema);
    try {
      const got = await src.sampleRecent(limit(10_000));
      expect(got.stoppedAtBytes).toBe(true);
      expect(got.bytesRead).toBeLessThanOrEqual(10_000);
      expect(got.rows.length).toBeGreaterThan(5);
      expect(got.rows.map((r) => r.n)).toEqual(Array.from({ length: got.rows.length }, (_, i) => 51 - got.rows.length + i));
      const none = await src.sampleRecent(limit(100));
      expect(none).toMatchObject({ rows: [], stoppedAtBytes: true });
      expect(await src.sampleRecent(limit(1 << 20, 10))).toMatchObject({ stoppedAtBytes: false });
    } finally {
      await src.stop();
    }
  });

  it('redis-stream: XREVRANGE pages stop at the bound', async () => {
    const stream = `weir:test:recent:${tag}`;
    for (let n = 0; n < 40; n++) await redis.xadd(stream, '*', 'data', JSON.stringify({ n, pad: PAD }));
    const src = new RedisStreamSource(redisStreamSourceOptions.parse({ url: 'redis://127.0.0.1:6379', stream }), schema);
    try {
      const got = await src.sampleRecent(limit(5_500));
      expect(got).toMatchObject({ stoppedAtBytes: true });
      expect(got.bytesRead).toBeLessThanOrEqual(5_500);
      expect(got.rows.map((r) => r.n)).toEqual([35, 36, 37, 38, 39]);
    } finally {
      await src.stop();
    }
  });

  it('nats-jetstream: chunked fetches stop at the bound and leave no consumer', async () => {
    const stream = `weir_recent_${tag}`;
    await jsm.streams.add({ name: stream, subjects: [`weir.recent.${tag}.>`] });
    const js = jetstream(nc);
    for (let n = 0; n < 40; n++) await js.publish(`weir.recent.${tag}.x`, JSON.stringify({ n, pad: PAD }));
    const src = new NatsJetStreamSource(natsJetStreamSourceOptions.parse({ servers: 'nats://127.0.0.1:4222', stream }), schema);
    try {
      const got = await src.sampleRecent(limit(5_500, 10));
      expect(got).toMatchObject({ stoppedAtBytes: true });
      expect(got.bytesRead).toBeLessThanOrEqual(5_500);
      // The last sequences that fit by the stream's average message size, oldest first.
      expect(got.rows.map((r) => r.n)).toEqual([35, 36, 37, 38, 39]);
      expect((await jsm.streams.info(stream)).state.consumer_count).toBe(0);
    } finally {
      await src.stop();
    }
  });
});
