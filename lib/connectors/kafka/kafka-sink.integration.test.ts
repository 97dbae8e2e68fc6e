/**
 * The kafka sink against librdkafka's mock cluster (kcat): a key or value that is neither text nor
 * bytes is written as its JSON text, a decimal with its exact digits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../engine/clock';
import { getSinkDefinition } from '../../engine/sinks/sink-registry';
import type { Schema } from '../../engine/types';
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
});
