/**
 * Kafka → parse JSON → filter → files sink, against a hand-written KafkaJS consumer loop doing the
 * same parse, filter and write, in the same run. Goal: Weir at >= 50% of the loop's rows/s.
 * Rows: WEIR_BENCH_ROWS (default 160,000) JSON records in a 4-partition topic. Not 1,000,000:
 * the mock cluster keeps only about 4-5 MB per partition (measured: producing more moves each
 * partition's earliest offset up, i.e. retention deletes), so 1M records of ~80 bytes cannot be
 * held at once; the bench refuses to run if retention already deleted some of its input.
 *
 * The broker is librdkafka's mock cluster inside kcat (not Apache Kafka): in-memory, on this
 * machine, so the figures say what the client and the engine cost, not what a network costs.
 * The JSON is parsed with get_json_object (from_json is not in the SQL yet), which parses each
 * value once per call: three calls here, against one JSON.parse in the loop.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MicroBatchExecution, SystemClock, parseJobSpec, readCommittedRows } from '../lib/engine/index';
import { createKafka } from '../lib/connectors/kafka/client';
import { outboundPolicy } from '../lib/engine/outbound/outbound-policy';
import { produce, startMockKafka } from '../lib/connectors/kafka/testing/mock-broker';
import type { BenchResult } from './run';

const SQL = `SELECT CAST(get_json_object(CAST(value AS STRING), '$.id') AS BIGINT) AS id,
  upper(get_json_object(CAST(value AS STRING), '$.user')) AS who
  FROM orders WHERE CAST(get_json_object(CAST(value AS STRING), '$.amount') AS DOUBLE) > 50`;

/** The hand-written equivalent of SQL with KafkaJS's consumer: every record once, then stop. */
async function handLoop(bootstrapServers: string, topic: string, total: number, output: string, round: number): Promise<number> {
  await mkdir(output, { recursive: true });
  const kafka = createKafka({ bootstrapServers, securityProtocol: 'PLAINTEXT', clientId: 'bench-hand', requestTimeoutMs: 30_000 }, outboundPolicy());
  const consumer = kafka.consumer({ groupId: `bench-hand-${process.pid}-${round}`, maxBytes: 16 * 1024 * 1024, maxBytesPerPartition: 4 * 1024 * 1024 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let seen = 0;
  let written = 0;
  let file = 0;
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          const out: string[] = [];
          for (const m of batch.messages) {
            const r = JSON.parse(m.value!.toString('utf8')) as { id: number; user: string; amount: number };
            if (r.amount > 50) out.push(JSON.stringify({ id: r.id, who: r.user.toUpperCase() }));
          }
          seen += batch.messages.length;
          written += out.length;
          if (out.length) await writeFile(path.join(output, `part-${file++}.json`), out.join('\n') + '\n');
          if (seen >= total) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return written;
}

export async function run(): Promise<BenchResult[]> {
  const rows = Number(process.env.WEIR_BENCH_ROWS ?? 160_000);
  const broker = await startMockKafka({ brokers: 1 });
  const root = await mkdtemp(path.join(tmpdir(), 'weir-bench-kafka-'));
  try {
    const topic = 'bench-orders';
    let seed = 1;
    const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff);
    const chunk = 40_000;
    for (let i = 0; i < rows; i += chunk) {
      const recs = [];
      for (let j = i; j < Math.min(rows, i + chunk); j++) recs.push({ value: JSON.stringify({ id: j, user: `user-${Math.floor(next() * 5000)}`, amount: Math.round(next() * 10000) / 100, ts: 1_700_000_000_000 + j }), partition: j % 4 });
      await produce(broker.bootstrapServers, topic, recs);
      if ((i / chunk) % 4 === 3) process.stderr.write(`  produced ${i + chunk}\n`);
    }

    const admin = createKafka({ bootstrapServers: broker.bootstrapServers, securityProtocol: 'PLAINTEXT', clientId: 'bench', requestTimeoutMs: 30_000 }, outboundPolicy()).admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    if (offsets.some((p) => p.low !== '0')) throw new Error(`the mock cluster's retention already deleted input (${JSON.stringify(offsets)}): lower WEIR_BENCH_ROWS`);

    // Alternating rounds (hand, weir, hand, weir) and the best of each, so neither side alone
    // pays for JIT warm-up or a noisy neighbour on the shared cores.
    let handMs = Infinity;
    let weirMs = Infinity;
    let handRows = 0;
    let weirRows = 0;
    let batches = 0;
    for (let round = 0; round < 2; round++) {
      const t0 = performance.now();
      handRows = await handLoop(broker.bootstrapServers, topic, rows, path.join(root, `hand-${round}`), round);
      handMs = Math.min(handMs, performance.now() - t0);
      process.stderr.write(`  round ${round}: hand loop ${Math.round(performance.now() - t0)} ms\n`);

      const parsed = parseJobSpec({
        name: 'bench-kafka',
        source: {
          name: 'orders', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', maxOffsetsPerTrigger: 50_000 },
          schema: [{ name: 'value', type: 'binary' }],
        },
        sql: SQL,
        sink: { type: 'files', options: { path: path.join(root, `weir-${round}`), format: 'json' } },
        trigger: { type: 'available-now' },
        checkpointLocation: path.join(root, `cp-${round}`),
      });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      batches = 0;
      const t1 = performance.now();
      await new MicroBatchExecution({ spec: parsed.spec, clock: new SystemClock(), onProgress: () => void batches++ }).run();
      weirMs = Math.min(weirMs, performance.now() - t1);
      process.stderr.write(`  round ${round}: weir ${Math.round(performance.now() - t1)} ms\n`);
      weirRows = (await readCommittedRows(path.join(root, `weir-${round}`), 'json')).reduce((n, b) => n + b.rows.length, 0);
      if (weirRows !== handRows) throw new Error(`outputs differ: weir ${weirRows} rows, hand loop ${handRows}`);
      await rm(path.join(root, `hand-${round}`), { recursive: true, force: true });
      await rm(path.join(root, `weir-${round}`), { recursive: true, force: true });
    }
    const handRate = (rows * 1000) / handMs;
    const weirRate = (rows * 1000) / weirMs;
    const ratio = weirRate / handRate;
    return [
      { name: 'kafka: input records (4 partitions)', value: rows, unit: 'rows', note: `${handRows} pass the filter` },
      { name: 'kafka: hand-written KafkaJS consumer loop', value: handRate, unit: 'rows/s' },
      { name: `kafka: weir (${batches} batches)`, value: weirRate, unit: 'rows/s' },
      { name: 'kafka: weir / hand-written', value: ratio, unit: 'ratio', goal: '>= 0.5', ok: ratio >= 0.5 },
    ];
  } finally {
    await broker.stop();
    await rm(root, { recursive: true, force: true });
  }
}
