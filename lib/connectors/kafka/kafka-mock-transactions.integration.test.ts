/**
 * Why the Kafka sink is not transactional: what librdkafka's MOCK CLUSTER (kcat 1.7 with
 * librdkafka 2.0.2, testing/mock-broker.ts; not Apache Kafka), the only broker these tests can
 * run, does with Kafka transactions. It answers every transactional request without an error
 * (InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn) but implements
 * none of what exactly-once rests on:
 *
 * - EndTxn writes no commit or abort marker and the fetch reports no aborted transactions, so a
 *   read_committed reader (Weir's source, PartitionReader) reads an aborted transaction's records;
 * - a second InitProducerId for the same transactional.id does not fence the first producer:
 *   the old one still produces and commits;
 * - offsets committed inside a transaction (TxnOffsetCommit, where a sink would record its last
 *   batch id atomically with the records) are not stored.
 *
 * A transactional sink tested here would pass whether or not it were right, so none is shipped
 * (kafka-sink.ts, docs/sources-and-sinks.md). This test keeps that claim checked: when the tests
 * get a broker that implements transactions, it fails, and the sink can be built and tested.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../engine/outbound/outbound-policy';
import { createKafka, kafkaClusterOptions, type KafkaConnectionOptions } from './client';
import { PartitionReader } from './fetch';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from './testing/mock-broker';

const HAVE_KCAT = kcatAvailable();
let broker: MockKafkaBroker;
let conn: KafkaConnectionOptions;

beforeAll(async () => {
  if (!HAVE_KCAT) return;
  broker = await startMockKafka({ brokers: 3 });
  conn = { bootstrapServers: broker.bootstrapServers, securityProtocol: 'PLAINTEXT', clientId: 'weir-test', requestTimeoutMs: 30_000 };
}, 120_000);
afterAll(async () => broker?.stop());

describe.skipIf(!HAVE_KCAT)('Kafka transactions on the mock cluster: acknowledged, not implemented', () => {
  it('an aborted and a fenced producer\'s records are read under read_committed, and transactional offsets are not stored', async () => {
    const topic = `txn-${process.pid}`;
    await produce(broker.bootstrapServers, topic, [{ value: 'plain', partition: 0 }]);
    const kafka = createKafka(conn, outboundPolicy());
    // KafkaJS asks the transaction coordinator (FindCoordinator) for a transactional producer's id.
    // With `idempotent: true` connect() asks the controller instead, which the mock names as
    // broker 0 while numbering its brokers from 1 ("Broker 0 not found in the cached metadata").
    const first = kafka.producer({ transactionalId: `weir-${topic}`, maxInFlightRequests: 1 });
    const second = kafka.producer({ transactionalId: `weir-${topic}`, maxInFlightRequests: 1 });
    const admin = kafka.admin();
    const reader = new PartitionReader(kafkaClusterOptions(conn, outboundPolicy()), 1 << 20);
    await Promise.all([first.connect(), second.connect(), admin.connect()]);
    try {
      let t = await first.transaction();
      await t.send({ topic, acks: -1, messages: [{ value: 'committed', partition: 0 }] });
      await t.sendOffsets({ consumerGroupId: `weir-${topic}`, topics: [{ topic, partitions: [{ partition: 0, offset: '7' }] }] });
      await t.commit();
      t = await first.transaction();
      await t.send({ topic, acks: -1, messages: [{ value: 'aborted', partition: 0 }] });
      await t.abort();
      // `first` opens a transaction; `second`, same transactional.id, starts: Kafka fences `first`.
      t = await first.transaction();
      await t.send({ topic, acks: -1, messages: [{ value: 'before-fence', partition: 0 }] });
      const t2 = await second.transaction();
      await t.send({ topic, acks: -1, messages: [{ value: 'zombie', partition: 0 }] });
      await t.commit();
      await t2.send({ topic, acks: -1, messages: [{ value: 'second', partition: 0 }] });
      await t2.commit();

      const { records } = await reader.read(topic, 0, 0, Number.MAX_SAFE_INTEGER);
      // Apache Kafka would give read_committed readers plain, committed, second (and the two of
      // the fenced transaction only if its commit had been taken, which fencing refuses).
      expect(records.map((r) => r.value?.toString())).toEqual(['plain', 'committed', 'aborted', 'before-fence', 'zombie', 'second']);
      // Offsets with no gaps: no transaction markers were written.
      expect(records.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
      const [committed] = await admin.fetchOffsets({ groupId: `weir-${topic}`, topics: [topic] });
      expect(committed.partitions.find((p) => p.partition === 0)?.offset).toBe('-1');
    } finally {
      await Promise.allSettled([first.disconnect(), second.disconnect(), admin.disconnect(), reader.close()]);
    }
  }, 120_000);
});
