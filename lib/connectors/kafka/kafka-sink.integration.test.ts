/**
 * The kafka sink against librdkafka's mock cluster (kcat): a key or value that is neither text nor
 * bytes is written as its JSON text, a decimal with its exact digits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../engine/clock';
import { outboundPolicy } from '../../engine';
import { getSinkDefinition } from '../../engine/sinks/sink-registry';
import type { Schema } from '../../engine/types';
import { kafkaClusterOptions } from './client';
import { PartitionReader } from './fetch';
import { readKafkaTopic, type KafkaSinkOptions } from './kafka-sink';
import { kcatAvailable, startMockKafka, type MockKafkaBroker } from './testing/mock-broker';

const HAVE_KCAT = kcatAvailable();
let broker: MockKafkaBroker;

beforeAll(async () => {
  if (HAVE_KCAT) broker = await startMockKafka();
}, 120_000);
afterAll(async () => {
  await broker?.stop();
});

describe.skipIf(!HAVE_KCAT)('kafka sink (librdkafka mock cluster, not Apache Kafka)', () => {
  it('writes a DECIMAL(38,2) key and value with all their digits', async () => {
    const def = getSinkDefinition('kafka')!;
    const topic = `decimals-${process.pid}`;
    const o = def.options.parse({ bootstrapServers: broker.bootstrapServers, topic });
    const sink = def.create(o, { clock: new SystemClock(), jobName: 'kafka-sink-test' });
    const schema: Schema = [
      { name: 'key', type: 'decimal', precision: 38, scale: 2 },
      { name: 'value', type: 'decimal', precision: 38, scale: 2 },
    ];
    try {
      await sink.addBatch(0, [{ key: 250n, value: 12345678901234567890123456789012345678n }], { outputMode: 'append', schema, queryId: 'q' });
    } finally {
      await sink.close?.();
    }
    const records = await readKafkaTopic(o as KafkaSinkOptions, topic);
    expect(records.map((r) => [r.key, r.value])).toEqual([['2.50', '123456789012345678901234567890123456.78']]);
  }, 120_000);

  it('writes Spark\'s headers column (ARRAY<STRUCT<key: STRING, value: BINARY>>) as the records\' headers: bytes as they are, a repeated key in order', async () => {
    const def = getSinkDefinition('kafka')!;
    const topic = `headers-${process.pid}`;
    const o = def.options.parse({ bootstrapServers: broker.bootstrapServers, topic });
    const sink = def.create(o, { clock: new SystemClock(), jobName: 'kafka-sink-test' });
    const headerType = { name: 'element', type: 'struct' as const, fields: [{ name: 'key', type: 'string' as const }, { name: 'value', type: 'binary' as const }] };
    const schema: Schema = [{ name: 'value', type: 'string' }, { name: 'headers', type: 'array', elementType: headerType }];
    const headers = [{ key: 'trace', value: new Uint8Array([0xff, 0x00, 0x41]) }, { key: 'tag', value: null }, { key: 'trace', value: new Uint8Array(Buffer.from('second')) }];
    try {
      await sink.addBatch(0, [{ value: 'v', headers }], { outputMode: 'append', schema, queryId: 'q' });
    } finally {
      await sink.close?.();
    }
    const reader = new PartitionReader(kafkaClusterOptions(o as KafkaSinkOptions, outboundPolicy()), 1024 * 1024);
    try {
      const found = [];
      for (const partition of [0, 1, 2, 3]) found.push(...(await reader.read(topic, partition, 0, 1).catch(() => ({ records: [] }))).records);
      expect(found).toHaveLength(1);
      const own = found[0].headers.filter((h) => !h.key.startsWith('weir-'));
      expect(own.map((h) => [h.key, h.value === null ? null : [...h.value]])).toEqual([['trace', [0xff, 0x00, 0x41]], ['trace', [...Buffer.from('second')]], ['tag', []]]);
    } finally {
      await reader.close();
    }
  }, 120_000);
});
