/**
 * The Kafka source against a real Kafka protocol endpoint: librdkafka's mock cluster run by kcat
 * (see testing/mock-broker.ts). It is NOT Apache Kafka: it auto-creates topics with 4 partitions,
 * keeps about 4-5 MB per partition (older records are deleted, as by retention), and cannot add
 * partitions, delete records on request or answer ListOffsets by timestamp. Those paths are
 * tested by what the mock can do (retention, a new topic matching a pattern, a restarted cluster)
 * and the timestamp lookup against a fake admin answer, each saying so.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCheckpointFileManager } from '../../engine/checkpoint/local-checkpoint-file-manager';
import { DataLossError } from '../../engine/errors';
import { checkDestinationValue, describeDestination, parseDestinations } from '../../engine/outbound/destinations';
import { parseAllowList } from '../../engine/outbound/outbound-policy';
import type { Row } from '../../engine/types';
import { KafkaSource, kafkaSourceOptions, kafkaSourceSchema, type KafkaSourceOptions } from './kafka-source';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from './testing/mock-broker';

const HAVE_KCAT = kcatAvailable();
let broker: MockKafkaBroker;
const dirs: string[] = [];

beforeAll(async () => {
  if (HAVE_KCAT) broker = await startMockKafka({ brokers: 3 });
}, 120_000);
afterAll(async () => {
  await broker?.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

let topicSeq = 0;
const topicName = (p: string) => `${p}-${process.pid}-${topicSeq++}`;

async function source(opts: Partial<KafkaSourceOptions> & Record<string, unknown>, checkpoint?: string): Promise<{ src: KafkaSource; checkpoint: string }> {
  const dir = checkpoint ?? (await mkdtemp(path.join(tmpdir(), 'weir-kafka-src-')));
  if (!checkpoint) dirs.push(dir);
  const o = kafkaSourceOptions.parse({ bootstrapServers: broker.bootstrapServers, ...opts });
  const src = new KafkaSource(o, kafkaSourceSchema(true), { checkpoint: new LocalCheckpointFileManager(dir), metadataPath: 'sources/0' });
  return { src, checkpoint: dir };
}

const values = (rows: Row[]) => rows.map((r) => (r.value as Buffer).toString('utf8'));

describe.skipIf(!HAVE_KCAT)('kafka source (librdkafka mock cluster, not Apache Kafka)', () => {
  it('plans one split per topic partition that moved (map tasks), each read alone by an unopened source on the same checkpoint', async () => {
    const topic = topicName('splits');
    await produce(broker.bootstrapServers, topic, Array.from({ length: 12 }, (_, i) => ({ value: `v${i}`, partition: i % 3 })));
    const { src, checkpoint } = await source({ subscribe: topic, startingOffsets: 'earliest' });
    const end = await src.latestOffset(null);
    // A first batch's splits start at the starting offsets the source logged (null start).
    const splits = await src.planInputPartitions(null, end!);
    expect(splits).toEqual([0, 1, 2].map((p) => ({ start: { [topic]: { [p]: 0 } }, end: { [topic]: { [p]: 4 } } })));
    const read: Row[] = [];
    for (const split of splits) read.push(...(await (await source({ subscribe: topic, startingOffsets: 'earliest' }, checkpoint)).src.getBatch(split.start, split.end)).rows);
    expect(read).toEqual((await src.getBatch(null, end!)).rows);
    await produce(broker.bootstrapServers, topic, [{ value: 'late', partition: 1 }]);
    const end2 = await src.latestOffset(end);
    expect(await src.planInputPartitions(end, end2!)).toEqual([{ start: { [topic]: { 1: 4 } }, end: { [topic]: { 1: 5 } } }]);
  });

  it('reads Spark\'s columns over exact offset ranges, and replays a range exactly', async () => {
    const topic = topicName('cols');
    await produce(broker.bootstrapServers, topic, Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: JSON.stringify({ i }), partition: i % 4, headers: { h: `v${i}` } })));
    const { src } = await source({ subscribe: topic, startingOffsets: 'earliest', includeHeaders: true });
    const end = await src.latestOffset(null);
    expect(end).toEqual({ [topic]: { 0: 5, 1: 5, 2: 5, 3: 5 } });
    const a = await src.getBatch(null, end);
    const b = await src.getBatch(null, end);
    expect(a.rows).toHaveLength(20);
    expect(b.rows).toEqual(a.rows);
    const first = a.rows[0];
    expect(first).toMatchObject({ topic, partition: 0, offset: 0, timestampType: 0 });
    expect((first.key as Buffer).toString()).toBe('k0');
    expect(JSON.parse((first.value as Buffer).toString())).toEqual({ i: 0 });
    expect(typeof first.timestamp).toBe('number');
    // Spark's ARRAY<STRUCT<key: STRING, value: BINARY>>.
    expect(first.headers).toEqual([{ key: 'h', value: Buffer.from('v0') }]);
    // A spec that lists headers as a STRING (as Weir gave it before) still reads its JSON text.
    const o = kafkaSourceOptions.parse({ bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', includeHeaders: true });
    const schema = kafkaSourceSchema(true).map((f) => (f.name === 'headers' ? { name: 'headers', type: 'string' as const } : f));
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-kafka-src-'));
    dirs.push(dir);
    const legacy = new KafkaSource(o, schema, { checkpoint: new LocalCheckpointFileManager(dir), metadataPath: 'sources/0' });
    expect(await legacy.latestOffset(null)).toEqual(end);
    expect(JSON.parse((await legacy.getBatch(null, end)).rows[0].headers as string)).toEqual([{ key: 'h', value: 'v0' }]);
    // Rows come in topic, partition, offset order.
    expect(a.rows.map((r) => [r.partition, r.offset])).toEqual([0, 1, 2, 3].flatMap((p) => [0, 1, 2, 3, 4].map((o) => [p, o])));

    await produce(broker.bootstrapServers, topic, [{ value: 'late', partition: 2 }]);
    const end2 = await src.latestOffset(end);
    expect(end2).toEqual({ [topic]: { 0: 5, 1: 5, 2: 6, 3: 5 } });
    expect(values((await src.getBatch(end, end2)).rows)).toEqual(['late']);
    expect(src.offsetLag(end, end2)).toBe(1);
    expect(src.metrics(end, end2, end2)).toMatchObject({ maxOffsetsBehindLatest: '0', lagByPartition: JSON.stringify({ [`${topic}-0`]: 0, [`${topic}-1`]: 0, [`${topic}-2`]: 0, [`${topic}-3`]: 0 }) });
    await src.stop();
  });

  it('startingOffsets latest skips what is there; JSON picks per partition with -2/-1; the first start is kept in sources/0/0', async () => {
    const topic = topicName('start');
    await produce(broker.bootstrapServers, topic, Array.from({ length: 8 }, (_, i) => ({ value: `v${i}`, partition: i % 4 })));
    const latest = await source({ subscribe: topic });
    const e1 = await latest.src.latestOffset(null);
    expect(e1).toEqual({ [topic]: { 0: 2, 1: 2, 2: 2, 3: 2 } });
    expect((await latest.src.getBatch(null, e1)).rows).toHaveLength(0);
    await latest.src.stop();

    const json = await source({ subscribe: topic, startingOffsets: JSON.stringify({ [topic]: { 0: 1, 1: -2, 2: -1, 3: 2 } }) });
    const e2 = await json.src.latestOffset(null);
    const rows = (await json.src.getBatch(null, e2)).rows;
    expect(rows.map((r) => [r.partition, r.offset])).toEqual([[0, 1], [1, 0], [1, 1]]);
    // More data after planning does not change the replay of batch 0: its start was written down.
    await produce(broker.bootstrapServers, topic, [{ value: 'x', partition: 0 }]);
    const again = await source({ subscribe: topic, startingOffsets: 'latest' }, json.checkpoint);
    expect((await again.src.getBatch(null, e2)).rows.map((r) => [r.partition, r.offset])).toEqual([[0, 1], [1, 0], [1, 1]]);
    await json.src.stop();
    await again.src.stop();
  });

  it('refuses startingOffsets JSON that leaves out a partition of a listed topic, naming it', async () => {
    const topic = topicName('partial');
    await produce(broker.bootstrapServers, topic, [{ value: 'a', partition: 0 }]);
    const { src } = await source({ subscribe: topic, startingOffsets: JSON.stringify({ [topic]: { 0: 0 } }) });
    await expect(src.latestOffset(null)).rejects.toThrow(new RegExp(`startingOffsets gives ${topic} but not its partition [123]\\.`));
    await src.stop();
  });

  it('maxOffsetsPerTrigger splits the budget over partitions and reaches the end in steps', async () => {
    const topic = topicName('rate');
    await produce(broker.bootstrapServers, topic, Array.from({ length: 40 }, (_, i) => ({ value: `v${i}`, partition: i < 30 ? 0 : 1 })));
    const { src } = await source({ subscribe: topic, startingOffsets: 'earliest', maxOffsetsPerTrigger: 10 });
    let start: unknown = null;
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      const end = await src.latestOffset(start);
      if (JSON.stringify(end) === JSON.stringify(start)) break;
      const rows = (await src.getBatch(start, end)).rows;
      expect(rows.length).toBeLessThanOrEqual(10);
      seen.push(...values(rows));
      start = end;
    }
    expect(seen.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `v${i}`).sort());
    // Trigger.Once / AvailableNow ignore the limit.
    const { src: all } = await source({ subscribe: topic, startingOffsets: 'earliest', maxOffsetsPerTrigger: 10 });
    expect(await all.latestOffset(null, 'all')).toEqual({ [topic]: { 0: 30, 1: 10, 2: 0, 3: 0 } });
    await src.stop();
    await all.stop();
  });

  it('maxOffsetsPerTrigger does not starve small partitions: 1, 10 and 100 records with a limit of 10 all start in the first batch', async () => {
    // Spark's rateLimit: each partition's share of the limit is in proportion to its backlog, and
    // a share below one offset is rounded up. The 1-record partition comes last in partition order.
    const topic = topicName('starve');
    await produce(broker.bootstrapServers, topic, [
      ...Array.from({ length: 100 }, (_, i) => ({ value: `big${i}`, partition: 0 })),
      ...Array.from({ length: 10 }, (_, i) => ({ value: `mid${i}`, partition: 1 })),
      { value: 'single', partition: 2 },
    ]);
    const { src } = await source({ subscribe: topic, startingOffsets: 'earliest', maxOffsetsPerTrigger: 10 });
    const end = await src.latestOffset(null);
    // 10 * 100/111 = 9.0 → 9; 10 * 10/111 = 0.9 → 1; 10 * 1/111 = 0.09 → 1.
    expect(end).toEqual({ [topic]: { 0: 9, 1: 1, 2: 1, 3: 0 } });
    const first = values((await src.getBatch(null, end)).rows);
    expect(first).toContain('single');
    expect(first).toHaveLength(11);
    await src.stop();
  });

  it('available-now reads up to the offsets latest when the run began, not what is produced during it', async () => {
    const topic = topicName('avail');
    await produce(broker.bootstrapServers, topic, Array.from({ length: 8 }, (_, i) => ({ value: `v${i}`, partition: 0 })));
    const { src } = await source({ subscribe: topic, startingOffsets: 'earliest', maxOffsetsPerTrigger: 5 });
    await src.prepareForTriggerAvailableNow();
    const e1 = await src.latestOffset(null);
    expect(e1).toEqual({ [topic]: { 0: 5, 1: 0, 2: 0, 3: 0 } });
    await produce(broker.bootstrapServers, topic, [{ value: 'late', partition: 0 }, { value: 'late', partition: 1 }]);
    const e2 = await src.latestOffset(e1);
    expect(e2).toEqual({ [topic]: { 0: 8, 1: 0, 2: 0, 3: 0 } });
    expect(await src.latestOffset(e2)).toEqual(e2);
    await src.stop();
  });

  it('subscribePattern picks up a topic created while running and reads it from earliest', async () => {
    // The mock cannot add partitions to a topic (its controller id is wrong for KafkaJS's admin),
    // so a new matching topic stands for new partitions: both are partitions the last offset lacks.
    const prefix = topicName('pat');
    await produce(broker.bootstrapServers, `${prefix}-a`, [{ value: 'a0', partition: 0 }]);
    const { src } = await source({ subscribePattern: `^${prefix}-.*`, startingOffsets: 'latest' });
    const e1 = await src.latestOffset(null);
    expect(Object.keys(e1 as object)).toEqual([`${prefix}-a`]);
    await produce(broker.bootstrapServers, `${prefix}-b`, [{ value: 'b0', partition: 1 }, { value: 'b1', partition: 1 }]);
    const e2 = await src.latestOffset(e1);
    expect(Object.keys(e2 as object).sort()).toEqual([`${prefix}-a`, `${prefix}-b`]);
    expect(values((await src.getBatch(e1, e2)).rows)).toEqual(['b0', 'b1']);
    await src.stop();
  });

  it('assign reads only the listed partitions', async () => {
    const topic = topicName('assign');
    await produce(broker.bootstrapServers, topic, Array.from({ length: 8 }, (_, i) => ({ value: `v${i}`, partition: i % 4 })));
    const { src } = await source({ assign: JSON.stringify({ [topic]: [1, 3] }), startingOffsets: 'earliest' });
    const end = await src.latestOffset(null);
    expect(end).toEqual({ [topic]: { 1: 2, 3: 2 } });
    expect(values((await src.getBatch(null, end)).rows)).toEqual(['v1', 'v5', 'v3', 'v7']);
    await src.stop();
  });

  it('a topic whose records are gone (cluster restarted empty) is DATA_LOSS naming topic, partition and range; failOnDataLoss=false skips and counts', async () => {
    // The mock cannot delete records or topics; a fresh mock cluster with the same topic holding
    // fewer records is what a deleted-and-recreated topic looks like to a reader.
    const own = await startMockKafka({ brokers: 1 });
    try {
      const topic = topicName('loss');
      await produce(own.bootstrapServers, topic, Array.from({ length: 6 }, (_, i) => ({ value: `v${i}`, partition: 0 })));
      const dir = await mkdtemp(path.join(tmpdir(), 'weir-kafka-loss-'));
      dirs.push(dir);
      const mk = (servers: string, failOnDataLoss: boolean) =>
        new KafkaSource(kafkaSourceOptions.parse({ bootstrapServers: servers, subscribe: topic, startingOffsets: 'earliest', failOnDataLoss }), kafkaSourceSchema(false), { checkpoint: new LocalCheckpointFileManager(dir), metadataPath: 'sources/0' });
      const first = mk(own.bootstrapServers, true);
      const end = await first.latestOffset(null);
      await first.stop();
      await own.stop();

      const again = await startMockKafka({ brokers: 1 });
      try {
        await produce(again.bootstrapServers, topic, [{ value: 'n0', partition: 0 }, { value: 'n1', partition: 0 }]);
        const strict = mk(again.bootstrapServers, true);
        const err = await strict.getBatch(null, end).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DataLossError);
        expect((err as Error).message).toContain(`Kafka topic ${topic} partition 0: offsets [2, 6)`);
        // Spark's wording of the same, beside Weir's.
        expect((err as Error).message).toContain(`Partition ${topic}-0's offset was changed from 6 to 2, some data may have been missed.`);
        await strict.stop();

        const lenient = mk(again.bootstrapServers, false);
        const batch = await lenient.getBatch(null, end);
        expect(values(batch.rows)).toEqual(['n0', 'n1']);
        const m = lenient.metrics(null, end, end);
        expect(m.dataLossSkippedOffsets).toBe('4');
        expect(m.dataLossWarning).toContain(`${topic}-0 [2, 6)`);
        expect(m.dataLossWarning).toContain(`Partition ${topic}-0's offset was changed from 6 to 2`);
        // The warning the execution logs (the CLI's stderr, the worker's log), as Spark logs it.
        expect(batch.warnings).toHaveLength(1);
        expect(batch.warnings![0]).toMatch(new RegExp(`skipped offsets \\[2, 6\\) of ${topic}-0 .*Partition ${topic}-0's offset was changed from 6 to 2, some data may have been missed\\. .*set the source option "failOnDataLoss" to "true"`));
        await lenient.stop();
      } finally {
        await again.stop();
      }
    } finally {
      await own.stop();
    }
  }, 120_000);

  it('records retention deleted before a batch read them are DATA_LOSS with the range; failOnDataLoss=false skips them and counts', async () => {
    // The mock keeps about 4-5 MB per partition (measured): producing ~9 MB more moves the
    // partition's earliest offset past what the planned batch needs, as Kafka's retention would.
    const topic = topicName('retention');
    const big = 'x'.repeat(10_000);
    const burst = () => produce(broker.bootstrapServers, topic, Array.from({ length: 300 }, () => ({ value: big, partition: 0 })));
    await burst();
    const { src } = await source({ subscribe: topic, startingOffsets: 'earliest' });
    const { src: lenient } = await source({ subscribe: topic, startingOffsets: 'earliest', failOnDataLoss: false });
    const end = await src.latestOffset(null);
    expect(await lenient.latestOffset(null)).toEqual(end);
    expect(end).toEqual({ [topic]: { 0: 300, 1: 0, 2: 0, 3: 0 } });
    for (let i = 0; i < 3; i++) await burst();
    const err = await src.getBatch(null, end).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataLossError);
    expect((err as Error).message).toMatch(new RegExp(`Kafka topic ${topic} partition 0: offsets \\[0, 300\\) .*retention deleted them`));
    const batch = await lenient.getBatch(null, end);
    expect(batch.rows).toHaveLength(0);
    expect(lenient.metrics(null, end, end)).toMatchObject({ dataLossSkippedOffsets: '300' });
    expect(batch.warnings?.[0]).toMatch(new RegExp(`Cannot fetch offset 0 of ${topic}-0: the earliest available offset is \\d+, some data may have been missed`));
    await src.stop();
    await lenient.stop();
  }, 120_000);

  it('a refused broker address is refused before any connection', async () => {
    const o = kafkaSourceOptions.parse({ bootstrapServers: broker.bootstrapServers, subscribe: 'x' });
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-kafka-ref-'));
    dirs.push(dir);
    const src = new KafkaSource(o, kafkaSourceSchema(false), { checkpoint: new LocalCheckpointFileManager(dir), metadataPath: 'sources/0' }, { allow: parseAllowList('10.0.0.0/8') });
    await expect(src.latestOffset(null)).rejects.toThrow(/refused/i);
    await src.stop();
  });
});

describe('kafka bootstrapServers as an outbound destination', () => {
  it('is host:port pairs: each checked, a scheme or a missing port refused, link-local always refused', () => {
    expect(parseDestinations('kafka', 'a.example:9092, 10.1.2.3:9093').map(describeDestination)).toEqual(['kafka://a.example:9092', 'kafka://10.1.2.3:9093']);
    expect(checkDestinationValue('kafka', 'a.example:9092,10.1.2.3:9093', {})).toBeUndefined();
    expect(checkDestinationValue('kafka', 'kafka://a.example:9092', {})?.rule).toBe('scheme');
    expect(checkDestinationValue('kafka', 'a.example', {})?.rule).toBe('invalid port');
    expect(checkDestinationValue('kafka', 'a.example:9092,169.254.169.254:9092', {})?.destination).toBe('kafka://169.254.169.254:9092');
    expect(checkDestinationValue('kafka', '10.1.2.3:9092', { allow: parseAllowList('192.168.0.0/16') })).toBeDefined();
  });
});

describe('kafka source options', () => {
  it('need exactly one of subscribe, subscribePattern, assign, and valid startingOffsets', () => {
    const base = { bootstrapServers: '127.0.0.1:9092' };
    expect(kafkaSourceOptions.safeParse(base).success).toBe(false);
    expect(kafkaSourceOptions.safeParse({ ...base, subscribe: 'a', assign: '{"a":[0]}' }).success).toBe(false);
    expect(kafkaSourceOptions.safeParse({ ...base, subscribe: 'a', startingOffsets: '{"a":{"0":-3}}' }).success).toBe(false);
    expect(kafkaSourceOptions.safeParse({ ...base, subscribe: 'a', startingOffsets: '{"a":{"0":-2,"1":7}}' }).success).toBe(true);
    expect(kafkaSourceOptions.safeParse({ ...base, subscribePattern: '^orders-[a-z]+$' }).success).toBe(true);
    expect(kafkaSourceOptions.safeParse({ ...base, subscribe: 'a', securityProtocol: 'SASL_SSL' }).success).toBe(false);
    expect(kafkaSourceOptions.safeParse({ ...base, subscribe: 'a', securityProtocol: 'SASL_SSL', saslMechanism: 'PLAIN', saslUsername: 'u', saslPassword: 'p' }).success).toBe(true);
  });
});

describe('kafka source maxOffsetsPerTrigger values', () => {
  const base = { bootstrapServers: '127.0.0.1:9092', subscribe: 'a' };
  it('takes any integer up to Long.MaxValue; from 2^53 up (Long.MaxValue included, exact or not) it means no limit', () => {
    const limitOf = (v: unknown) => {
      const r = kafkaSourceOptions.safeParse({ ...base, maxOffsetsPerTrigger: v });
      return r.success ? r.data.maxOffsetsPerTrigger : `refused: ${r.error.issues[0].message}`;
    };
    expect(limitOf(10)).toBe(10);
    expect(limitOf(2 ** 53 - 1)).toBe(2 ** 53 - 1);
    // JSON.parse('9223372036854775807') is 2^63: Long.MaxValue as a JSON number that lost precision.
    expect(limitOf(JSON.parse('9223372036854775807'))).toBeUndefined();
    expect(limitOf(2 ** 53)).toBeUndefined();
    expect(limitOf(1e19)).toMatch(/^refused: .*9223372036854775807/);
    expect(limitOf(0)).toMatch(/^refused/);
    expect(limitOf(2.5)).toMatch(/^refused/);
  });
});

describe('kafka source startingTimestamp', () => {
  // The mock cluster answers ListOffsets-by-timestamp with the latest offset for any time (measured:
  // a time before the first record gave the end), so the lookup is driven here by an admin that
  // answers as Kafka's ListOffsets does: the first offset at or after the time, -1 when none is.
  it('starts each partition at its first record at or after the time, at its end when there is none (strategy latest), and only on a new checkpoint', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-kafka-ts-'));
    dirs.push(dir);
    const asked: number[] = [];
    const admin = {
      listTopics: async () => ['t'],
      fetchTopicOffsets: async () => [{ partition: 0, low: '0', high: '10' }, { partition: 1, low: '0', high: '7' }],
      fetchTopicOffsetsByTimestamp: async (_t: string, ts: number) => {
        asked.push(ts);
        return [{ partition: 0, offset: '4' }, { partition: 1, offset: '-1' }];
      },
      disconnect: async () => undefined,
    };
    const mk = (startingTimestamp: number) => {
      const src = new KafkaSource(kafkaSourceOptions.parse({ bootstrapServers: '127.0.0.1:9', subscribe: 't', startingTimestamp, startingOffsetsByTimestampStrategy: 'latest', startingOffsets: 'earliest' }), kafkaSourceSchema(false), { checkpoint: new LocalCheckpointFileManager(dir), metadataPath: 'sources/0' });
      (src as unknown as { admin: unknown }).admin = admin;
      return src;
    };
    const src = mk(1_700_000_000_000);
    expect(await src.latestOffset(null)).toEqual({ t: { 0: 10, 1: 7 } });
    expect(asked).toEqual([1_700_000_000_000]);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(path.join(dir, 'sources/0/0'), 'utf8')).toBe('v1\n{"t":{"0":4,"1":7}}');
    // A restart with another time keeps what the checkpoint says.
    const again = mk(1);
    expect(await again.latestOffset(null)).toEqual({ t: { 0: 10, 1: 7 } });
    expect(asked).toEqual([1_700_000_000_000]);
  });

  /** An admin answering ListOffsets by timestamp as Kafka does: per partition the first offset at or after the time, -1 when none. */
  const fakeAdmin = (firstAtOrAfter: (partition: number, ts: number) => number, asked: [string, number][]) => ({
    listTopics: async () => ['t'],
    fetchTopicOffsets: async () => [{ partition: 0, low: '0', high: '10' }, { partition: 1, low: '0', high: '7' }],
    fetchTopicOffsetsByTimestamp: async (topic: string, ts: number) => {
      asked.push([topic, ts]);
      return [0, 1].map((partition) => ({ partition, offset: String(firstAtOrAfter(partition, ts)) }));
    },
    disconnect: async () => undefined,
  });
  const withAdmin = async (options: Record<string, unknown>, admin: unknown) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-kafka-ts-'));
    dirs.push(dir);
    const src = new KafkaSource(kafkaSourceOptions.parse({ bootstrapServers: '127.0.0.1:9', subscribe: 't', ...options }), kafkaSourceSchema(false), { checkpoint: new LocalCheckpointFileManager(dir), metadataPath: 'sources/0' });
    (src as unknown as { admin: unknown }).admin = admin;
    return { src, dir };
  };

  it('startingOffsetsByTimestamp looks up each partition at its own time, one request per topic and time', async () => {
    const asked: [string, number][] = [];
    // Partition p's records have timestamps 1000 * offset: the first at or after ts is ceil(ts / 1000).
    const { src, dir } = await withAdmin({ startingOffsetsByTimestamp: JSON.stringify({ t: { 0: 3000, 1: 5500 } }) }, fakeAdmin((_p, ts) => Math.ceil(ts / 1000), asked));
    expect(await src.latestOffset(null)).toEqual({ t: { 0: 10, 1: 7 } });
    expect(asked).toEqual([['t', 3000], ['t', 5500]]);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(path.join(dir, 'sources/0/0'), 'utf8')).toBe('v1\n{"t":{"0":3,"1":6}}');
  });

  it('startingOffsetsByTimestamp must list every partition read, and with strategy error (Spark\'s default) a time past the last record fails in Spark\'s words', async () => {
    const partial = await withAdmin({ startingOffsetsByTimestamp: JSON.stringify({ t: { 0: 3000 } }) }, fakeAdmin(() => 0, []));
    await expect(partial.src.latestOffset(null)).rejects.toThrow(/startingOffsetsByTimestamp gives no time for t partition 1/);
    const late = await withAdmin({ startingTimestamp: 9_000_000 }, fakeAdmin((p) => (p === 1 ? -1 : 4), []));
    await expect(late.src.latestOffset(null)).rejects.toThrow('No offset matched from request of topic-partition t-1 and timestamp 9000000');
    expect(kafkaSourceOptions.safeParse({ bootstrapServers: 'a:1', subscribe: 't', startingOffsetsByTimestamp: '{"t":{"0":"soon"}}' }).success).toBe(false);
  });
});
