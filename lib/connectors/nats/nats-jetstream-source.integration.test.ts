// The nats-jetstream source against this machine's real NATS JetStream (unique stream per case,
// deleted after): the source contract suite, first-batch retention, filtered subjects, secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { sourceContractSchema, sourceContractSuite } from '../../engine/sources/testing/source.contract';
import { NatsJetStreamSource, type NatsJetStreamSourceOptions } from './nats-jetstream-source';
import type { Row } from '../../engine/types';

let nc: NatsConnection;
let jsm: JetStreamManager;
const tag = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
let n = 0;
const streams: string[] = [];

beforeAll(async () => {
  nc = await connect({ servers: '127.0.0.1:4222' });
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  for (const s of streams) await jsm.streams.delete(s).catch(() => undefined);
  await nc.close();
});

async function newStream(): Promise<{ stream: string; subject: string }> {
  const stream = `weir_test_${tag}_${++n}`;
  const subject = `weir.test.${tag}.${n}`;
  await jsm.streams.add({ name: stream, subjects: [`${subject}.>`] });
  streams.push(stream);
  return { stream, subject };
}

const options = (stream: string, extra: Partial<NatsJetStreamSourceOptions> = {}): NatsJetStreamSourceOptions =>
  ({ servers: 'nats://127.0.0.1:4222', stream, failOnDataLoss: true, fetchSize: 3, ...extra });

async function publish(subject: string, rows: Row[]) {
  const js = jetstream(nc);
  for (const r of rows) await js.publish(subject, JSON.stringify(r));
}

async function harness(maxMessagesPerTrigger?: number) {
  const { stream, subject } = await newStream();
  const opened: NatsJetStreamSource[] = [];
  const open = () => { const s = new NatsJetStreamSource(options(stream, { maxMessagesPerTrigger }), sourceContractSchema); opened.push(s); return s; };
  return {
    source: open(),
    append: (rows: Row[]) => publish(`${subject}.a`, rows),
    reopen: async () => open(),
    trimOldest: async (k: number) => { const info = await jsm.streams.info(stream); await jsm.streams.purge(stream, { keep: info.state.messages - k }); },
    cleanup: async () => { for (const s of opened) await s.stop(); },
  };
}

sourceContractSuite('nats-jetstream', { make: () => harness(), makeLimited: (max) => harness(max) });

describe('nats-jetstream source specifics', () => {
  it('a first batch starts where retention had left the stream, and a later purge of it is data loss', async () => {
    const { stream, subject } = await newStream();
    await publish(`${subject}.a`, [0, 1, 2, 3].map((id) => ({ id, name: 'x', amount: 1 })));
    await jsm.streams.purge(stream, { keep: 2 });
    const src = new NatsJetStreamSource(options(stream), sourceContractSchema);
    try {
      const end = await src.latestOffset();
      expect((await src.getBatch(null, end)).rows.map((r) => r.id)).toEqual([2, 3]);
      await jsm.streams.purge(stream, { keep: 1 });
      await expect(src.getBatch(null, end)).rejects.toThrow(/1 of 2 messages are left.*failOnDataLoss/);
      const lenient = new NatsJetStreamSource(options(stream, { failOnDataLoss: false }), sourceContractSchema);
      expect((await lenient.getBatch(null, end)).rows.map((r) => r.id)).toEqual([3]);
      await lenient.stop();
    } finally {
      await src.stop();
    }
  });

  it('reads only the filtered subject, and reports non-JSON payloads as bad records', async () => {
    const { stream, subject } = await newStream();
    await publish(`${subject}.keep`, [{ id: 1, name: 'a', amount: 1 }]);
    await publish(`${subject}.skip`, [{ id: 2, name: 'b', amount: 2 }]);
    await jetstream(nc).publish(`${subject}.keep`, 'not json');
    await publish(`${subject}.keep`, [{ id: 3, name: 'c', amount: 3 }]);
    const src = new NatsJetStreamSource(options(stream, { subject: `${subject}.keep` }), sourceContractSchema);
    try {
      const b = await src.getBatch(null, await src.latestOffset());
      expect(b.rows.map((r) => r.id)).toEqual([1, 3]);
      expect(b.badRecords).toHaveLength(1);
      expect(b.badRecords[0].location.offset).toEqual({ seq: 3 });
    } finally {
      await src.stop();
    }
  });

  it('a recreated stream (sequence went back) is DATA_LOSS, or with failOnDataLoss false is read from its start', async () => {
    const { stream, subject } = await newStream();
    await publish(`${subject}.a`, [1, 2, 3, 4].map((id) => ({ id, name: 'old', amount: 1 })));
    const src = new NatsJetStreamSource(options(stream), sourceContractSchema);
    const lenient = new NatsJetStreamSource(options(stream, { failOnDataLoss: false }), sourceContractSchema);
    try {
      const committed = await src.latestOffset();
      await jsm.streams.delete(stream);
      await jsm.streams.add({ name: stream, subjects: [`${subject}.>`] });
      await publish(`${subject}.a`, [5, 6].map((id) => ({ id, name: 'new', amount: 1 })));
      const end = await src.latestOffset();
      await expect(src.getBatch(committed, end!)).rejects.toThrow(/went back from 4 to 2.*failOnDataLoss/);
      expect((await lenient.getBatch(committed, end!)).rows.map((r) => r.id)).toEqual([5, 6]);
    } finally {
      await src.stop();
      await lenient.stop();
    }
  });

  it('keeps credentials in servers out of descriptions and errors', async () => {
    const src = new NatsJetStreamSource(options('nope', { servers: 'nats://user:n4ts-secret@127.0.0.1:1' }), sourceContractSchema);
    const err = await src.latestOffset().catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    for (const t of [src.description, (err as Error).message]) expect(t).not.toContain('n4ts-secret');
    await src.stop();
  });
});
