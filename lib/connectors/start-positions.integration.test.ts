/**
 * Start positions of the replayable sources (files modifiedAfter, postgres startingOffset,
 * redis-stream startingId, nats-jetstream startSequence / startTime), against this machine's
 * PostgreSQL, Redis and NATS. A position applies to a new query's first batch, is kept in that
 * batch's end offset (so a replay of batch 0 reads the same range), and later batches go on from
 * the checkpoint.
 */
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { LocalCheckpointFileManager } from '../engine/checkpoint/local-checkpoint-file-manager';
import { ManualClock } from '../engine/clock';
import { createTestDatabase, type TestDatabase } from '../testing/pg-test-database';
import { FilesSource } from '../engine/sources/files-source';
import { NatsJetStreamSource, natsJetStreamSourceOptions } from './nats/nats-jetstream-source';
import { PostgresSource, postgresSourceOptions } from './postgres/postgres-source';
import { RedisStreamSource, redisStreamSourceOptions } from './redis/redis-stream-source';
import { sourceContractSchema } from '../engine/sources/testing/source.contract';

const tag = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
let db: TestDatabase;
let redis: Redis;
let nc: NatsConnection;
let jsm: JetStreamManager;
const dirs: string[] = [];
const streams: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase('start_pos');
  redis = new Redis('redis://127.0.0.1:6379');
  nc = await connect({ servers: '127.0.0.1:4222' });
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await db?.drop();
  await redis?.del(`weir:test:start:${tag}`, `weir:test:start2:${tag}`);
  redis?.disconnect();
  for (const s of streams) await jsm.streams.delete(s).catch(() => undefined);
  await nc?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const ids = (rows: Record<string, unknown>[]) => rows.map((r) => r.id);

describe('start positions (only a new checkpoint\'s first batch)', () => {
  it('files: modifiedAfter skips files modified before it, before maxFilesPerTrigger counts', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-start-files-'));
    dirs.push(dir);
    const old = new Date('2020-01-01T00:00:00Z');
    for (const [i, name] of ['a.json', 'b.json', 'c.json'].entries()) {
      await writeFile(path.join(dir, name), JSON.stringify({ id: i, name: 'x', amount: 1 }) + '\n');
      if (name !== 'c.json') await utimes(path.join(dir, name), old, old);
    }
    const cp = new LocalCheckpointFileManager(path.join(dir, '_cp'));
    const src = new FilesSource({ path: dir, format: 'json', header: true, maxFilesPerTrigger: 1, modifiedAfter: '2021-01-01T00:00:00Z' }, { name: 'src', schema: sourceContractSchema, checkpoint: cp, metadataPath: 'sources/0', clock: new ManualClock() });
    await src.open();
    const end = await src.latestOffset(null);
    expect(ids((await src.getBatch(null, end!)).rows)).toEqual([2]);
    expect(await src.latestOffset(end)).toEqual(end);
  });

  it('postgres: startingOffset reads past the value; an end below it is the value itself', async () => {
    await db.pool.query('CREATE TABLE sp (id bigint PRIMARY KEY, name text, amount double precision)');
    await db.pool.query("INSERT INTO sp SELECT g, 'n', 1 FROM generate_series(1, 10) g");
    const mk = (startingOffset: string, maxRowsPerTrigger?: number) => new PostgresSource(postgresSourceOptions.parse({ connectionString: db.url, table: 'sp', offsetColumn: 'id', startingOffset, maxRowsPerTrigger }), sourceContractSchema);
    const src = mk('6');
    const end = await src.latestOffset(null);
    expect(end).toEqual({ id: '10', $startingAfter: '6' });
    expect(ids((await src.getBatch(null, end)).rows)).toEqual([7, 8, 9, 10]);
    // A replay of batch 0 reads the same rows even with the option edited.
    const edited = mk('2');
    expect(ids((await edited.getBatch(null, end)).rows)).toEqual([7, 8, 9, 10]);
    const limited = mk('3', 2);
    const e2 = await limited.latestOffset(null);
    expect(ids((await limited.getBatch(null, e2)).rows)).toEqual([4, 5]);
    const ahead = mk('50');
    const e3 = await ahead.latestOffset(null);
    expect(e3).toEqual({ id: '50', $startingAfter: '50' });
    expect((await ahead.getBatch(null, e3)).rows).toEqual([]);
    await db.pool.query("INSERT INTO sp VALUES (40, 'n', 1), (60, 'n', 1)");
    expect(ids((await ahead.getBatch(e3, await ahead.latestOffset(e3))).rows)).toEqual([60]);
    for (const s of [src, edited, limited, ahead]) await s.stop();
  });

  it('redis-stream: startingId reads the entries after it, with and without maxEntriesPerTrigger', async () => {
    const key = `weir:test:start:${tag}`;
    const added: string[] = [];
    for (let i = 0; i < 6; i++) added.push((await redis.xadd(key, '*', 'data', JSON.stringify({ id: i, name: 'x', amount: 1 })))!);
    const mk = (maxEntriesPerTrigger?: number) => new RedisStreamSource(redisStreamSourceOptions.parse({ stream: key, startingId: added[1], maxEntriesPerTrigger }), sourceContractSchema);
    const src = mk();
    const end = await src.latestOffset(null);
    expect(ids((await src.getBatch(null, end)).rows)).toEqual([2, 3, 4, 5]);
    const lim = mk(3);
    let start: unknown = null;
    const seen: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      const e = await lim.latestOffset(start);
      if (JSON.stringify(e) === JSON.stringify(start)) break;
      seen.push(...ids((await lim.getBatch(start, e)).rows));
      start = e;
    }
    expect(seen).toEqual([2, 3, 4, 5]);
    await src.stop();
    await lim.stop();
  });

  it('nats-jetstream: startSequence and startTime pick the first message; batch 0 keeps it', async () => {
    const stream = `weir_start_${tag}`;
    const subject = `weir.start.${tag}`;
    await jsm.streams.add({ name: stream, subjects: [`${subject}.>`] });
    streams.push(stream);
    const js = jetstream(nc);
    for (let i = 0; i < 3; i++) await js.publish(`${subject}.a`, JSON.stringify({ id: i, name: 'x', amount: 1 }));
    // The time between two publishes: stored times are the server's, taken from the third message.
    const third = await jsm.streams.getMessage(stream, { seq: 3 });
    const cut = new Date(third!.timestamp).getTime() + 1;
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 3; i < 5; i++) await js.publish(`${subject}.a`, JSON.stringify({ id: i, name: 'x', amount: 1 }));
    const mk = (o: Record<string, unknown>) => new NatsJetStreamSource(natsJetStreamSourceOptions.parse({ servers: 'nats://127.0.0.1:4222', stream, ...o }), sourceContractSchema);
    const bySeq = mk({ startSequence: 2 });
    const e1 = await bySeq.latestOffset(null);
    expect(e1).toMatchObject({ seq: 5, from: 2 });
    expect(ids((await bySeq.getBatch(null, e1)).rows)).toEqual([1, 2, 3, 4]);
    const byTime = mk({ startTime: new Date(cut).toISOString() });
    const e2 = await byTime.latestOffset(null);
    expect(e2).toMatchObject({ seq: 5, from: 4 });
    expect(ids((await byTime.getBatch(null, e2)).rows)).toEqual([3, 4]);
    // Later batches start from the checkpoint, not the option.
    await js.publish(`${subject}.a`, JSON.stringify({ id: 5, name: 'x', amount: 1 }));
    const e3 = await byTime.latestOffset(e2);
    expect(e3).toEqual({ seq: 6, first: 1 });
    expect(ids((await byTime.getBatch(e2, e3)).rows)).toEqual([5]);
    await bySeq.stop();
    await byTime.stop();
  });
});
