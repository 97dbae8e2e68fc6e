/**
 * The crash matrix from a Kafka topic: a run dies at each point of the write-ahead protocol, a
 * new run starts on the same checkpoint, and the files sink and the transactional postgres sink
 * end with every input record exactly once, while more records arrive during the outage. Then the
 * Kafka sink after an after-sink crash: at-least-once, and the duplicate audit, reading the topic
 * back by weir-batch-id header, shows exactly the replayed batch twice.
 *
 * The broker is librdkafka's mock cluster run by kcat (testing/mock-broker.ts), not Apache Kafka.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../engine/clock';
import { CRASH_POINTS } from '../../engine/execution/crash-points';
import { AddData, CheckAnswer, CrashAt, ProcessAllAvailable, StopStream, testStream, type StreamHarness } from '../../engine/execution/testing/stream-test';
import { eventGenerator, mustParse } from '../../engine/execution/testing/test-fixtures';
import { readCommittedRows } from '../../engine/sinks/files-sink';
import { createTestDatabase, type TestDatabase } from '../../testing/pg-test-database';
import type { Row, Schema } from '../../engine/types';
import { auditSink } from '../../server/drills/sink-audit';
import '../index'; // registers every connector, as the worker and the CLI do
import { readKafkaTopic } from './kafka-sink';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from './testing/mock-broker';

const HAVE_KCAT = kcatAvailable();
let broker: MockKafkaBroker;
let db: TestDatabase;
const dirs: string[] = [];

beforeAll(async () => {
  if (!HAVE_KCAT) return;
  broker = await startMockKafka({ brokers: 3 });
  db = await createTestDatabase('kafka_crash');
}, 120_000);
afterAll(async () => {
  await broker?.stop();
  await db?.drop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const SOURCE_SCHEMA: Schema = [
  { name: 'key', type: 'binary' },
  { name: 'value', type: 'binary' },
  { name: 'partition', type: 'long' },
  { name: 'offset', type: 'long' },
];

// JSON parsed with get_json_object over CAST(value AS STRING), as a Kafka job does.
const SQL = `SELECT CAST(get_json_object(CAST(value AS STRING), '$.id') AS BIGINT) AS id,
  upper(get_json_object(CAST(value AS STRING), '$.name')) AS name_upper, \`partition\` AS part
  FROM events WHERE CAST(get_json_object(CAST(value AS STRING), '$.amount') AS DOUBLE) >= 5`;

const OUT_SCHEMA: Schema = [
  { name: 'id', type: 'long' },
  { name: 'name_upper', type: 'string' },
  { name: 'part', type: 'long' },
];

const expected = (rows: Row[]): Row[] =>
  rows.filter((r) => (r.amount as number) >= 5).map((r) => ({ id: r.id, name_upper: (r.name as string).toUpperCase(), part: (r.id as number) % 4 }));

let seq = 0;
async function kafkaHarness(sink: 'files' | 'postgres' | 'kafka', point: string): Promise<{ harness: StreamHarness; topic: string; sinkOptions: Record<string, unknown>; checkpoint: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'weir-kafka-crash-'));
  dirs.push(root);
  const topic = `crash-${sink}-${point}-${process.pid}-${seq++}`;
  const outTopic = `${topic}-out`;
  const table = `out_${point.replace(/-/g, '_')}_${seq}`;
  const sinkOptions: Record<string, unknown> =
    sink === 'files' ? { path: path.join(root, 'out'), format: 'json' } : sink === 'postgres' ? { connectionString: db.url, table, mode: 'transactional' } : { bootstrapServers: broker.bootstrapServers, topic: outTopic };
  const spec = mustParse({
    name: `kafka-${sink}`,
    source: { name: 'events', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest' }, schema: SOURCE_SCHEMA },
    sql: sink === 'kafka' ? 'SELECT key, value FROM events' : SQL,
    sink: { type: sink, options: sinkOptions },
    outputMode: 'append',
    trigger: { type: 'available-now' },
    checkpointLocation: path.join(root, 'checkpoint'),
  });
  const harness: StreamHarness = {
    spec,
    clock: new ManualClock(Date.UTC(2024, 5, 1)),
    addData: (rows) => produce(broker.bootstrapServers, topic, rows.map((r) => ({ key: String(r.id), value: JSON.stringify(r), partition: (r.id as number) % 4 }))),
    readAnswer: async () => {
      if (sink === 'files') return (await readCommittedRows(String(sinkOptions.path), 'json', { schema: OUT_SCHEMA })).flatMap((b) => b.rows);
      const r = await db.pool.query(`SELECT id::bigint AS id, name_upper, part::bigint AS part FROM ${table}`).catch(() => ({ rows: [] as Row[] }));
      return r.rows.map((x: Row) => ({ id: Number(x.id), name_upper: x.name_upper, part: Number(x.part) }));
    },
    expected,
  };
  return { harness, topic, sinkOptions, checkpoint: path.join(root, 'checkpoint') };
}

describe.skipIf(!HAVE_KCAT)('kafka → files / transactional postgres: crash at every point, restart, exactly once (librdkafka mock cluster)', () => {
  describe.each(['files', 'postgres'] as const)('kafka → %s', (sink) => {
    it.each(CRASH_POINTS)('crash at %s of batch 1', async (point) => {
      const { harness } = await kafkaHarness(sink, point);
      const gen = eventGenerator(point.length * 17 + sink.length);
      const state = await testStream(harness, [
        AddData(gen(16)),
        CheckAnswer(),
        AddData(gen(16)),
        CrashAt(point, 1),
        // Records produced during the outage must not leak into the re-run of batch 1.
        AddData(gen(16)),
        CheckAnswer(),
        AddData(gen(9)),
        CheckAnswer(),
        StopStream(),
      ]);
      expect(state.crashes.map((c) => [c.point, c.batchId])).toEqual([[point, 1]]);
      const ids = state.progress.map((p) => p.batchId);
      expect(ids).toEqual(point === 'after-commit' ? [0, 2, 3] : [0, 1, 2, 3]);
      if (point !== 'after-commit') {
        const rerun = state.progress.find((p) => p.batchId === 1)!;
        // The re-run covered exactly batch 1's 16 records, in Spark's offset JSON.
        expect(rerun.numInputRows).toBe(16);
        expect(Object.keys((rerun.sources[0].endOffset as Record<string, unknown>))).toHaveLength(1);
      }
      const last = state.progress[state.progress.length - 1];
      expect(last.sources[0].metrics?.maxOffsetsBehindLatest).toBe('0');
    }, 120_000);
  });
});

describe.skipIf(!HAVE_KCAT)('kafka sink: at-least-once, audited by weir-batch-id (librdkafka mock cluster)', () => {
  it('after an after-sink crash the replayed batch is in the topic twice, and the duplicate audit shows exactly that batch', async () => {
    const { harness, sinkOptions } = await kafkaHarness('kafka', 'after-sink');
    const gen = eventGenerator(7);
    const state = await testStream(harness, [AddData(gen(10)), ProcessAllAvailable(), AddData(gen(6)), CrashAt('after-sink', 1), AddData(gen(4)), ProcessAllAvailable(), StopStream()]);
    expect(state.crashes.map((c) => [c.point, c.batchId])).toEqual([['after-sink', 1]]);
    expect(state.progress.map((p) => p.batchId)).toEqual([0, 1, 2]);
    expect(state.progress[0].contract.guarantee).toBe('at-least-once');
    expect(state.progress[0].contract.sink.signature).toBe('at-least-once');

    const records = await readKafkaTopic(sinkOptions as never, String(sinkOptions.topic));
    expect(records).toHaveLength(10 + 6 * 2 + 4);
    // Each record is the source record's value, with the batch id and query id headers.
    expect(records.every((r) => r.headers['weir-query-id'] === state.queryIds[0])).toBe(true);
    expect(new Set(records.map((r) => r.value))).toEqual(new Set(state.added.map((r) => JSON.stringify(r))));

    const audit = await auditSink(harness.spec, state.progress.map((p) => ({ batchId: p.batchId, numOutputRows: p.sink.numOutputRows })));
    expect(audit).toMatchObject({ sinkType: 'kafka', readable: true, perBatch: true, totalExpected: 20, totalActual: 26, duplicateRows: 6 });
    expect(audit.batches.map((b) => [b.batchId, b.expected, b.actual, b.duplicates])).toEqual([[0, 10, 10, 0], [1, 6, 12, 6], [2, 4, 4, 0]]);
  }, 120_000);
});
