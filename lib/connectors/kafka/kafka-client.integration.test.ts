/**
 * The Kafka client's connections are quiet while idle: KafkaJS 2.2.4's request queue, unpatched,
 * re-arms a timer every millisecond per connection with a negative delay (CPU while idle, and a
 * TimeoutNegativeWarning on Node 24's stderr); client.ts arms it only while a request waits.
 * The broker is librdkafka's mock cluster run by kcat (testing/mock-broker.ts), not Apache Kafka.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../engine/outbound/outbound-policy';
import { createKafka } from './client';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from './testing/mock-broker';

const HAVE_KCAT = kcatAvailable();
let broker: MockKafkaBroker;

beforeAll(async () => {
  if (HAVE_KCAT) broker = await startMockKafka({ brokers: 1 });
}, 120_000);
afterAll(async () => broker?.stop());

describe.skipIf(!HAVE_KCAT)('Kafka client (librdkafka mock cluster)', () => {
  it('an idle connected client arms no timers and prints no TimeoutNegativeWarning', async () => {
    const topic = `idle-${process.pid}`;
    await produce(broker.bootstrapServers, topic, [{ value: 'x' }]);
    const queue = (createRequire(import.meta.url)('kafkajs/src/network/requestQueue') as { prototype: { checkPendingRequests(): void } }).prototype;
    const original = queue.checkPendingRequests;
    let checks = 0;
    queue.checkPendingRequests = function counted(this: unknown) {
      checks++;
      original.call(this);
    };
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const admin = createKafka({ bootstrapServers: broker.bootstrapServers, securityProtocol: 'PLAINTEXT', clientId: 'weir-test', requestTimeoutMs: 30_000 }, outboundPolicy());
    const client = admin.admin();
    try {
      await client.connect();
      expect((await client.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0)).toBe(1);
      const afterRequests = checks;
      // Idle for a while: a check is due only when a response arrives (none is asked for).
      await new Promise((r) => setTimeout(r, 500));
      expect(checks - afterRequests).toBe(0);
      expect(warnings).not.toContain('TimeoutNegativeWarning');
    } finally {
      queue.checkPendingRequests = original;
      process.off('warning', onWarning);
      await client.disconnect();
    }
  }, 60_000);
});
