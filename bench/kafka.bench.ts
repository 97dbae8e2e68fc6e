/**
 * Kafka → parse JSON → filter → files sink, against a hand-written loop that reads the same
 * offset ranges the same way (fetch by offset from each partition's leader, as Weir's source does)
 * and does the same parse, filter and write, in the same run; both outputs are compared row by
 * row. Goal: Weir at >= 80% of the loop's rows/s.
 * Rows: WEIR_BENCH_ROWS (default 160,000) JSON records in a 4-partition topic. Not 1,000,000:
 * the mock cluster keeps only about 4-5 MB per partition (measured: producing more moves each
 * partition's earliest offset up, i.e. retention deletes), so 1M records of ~80 bytes cannot be
 * held at once; the bench refuses to run if retention already deleted some of its input.
 *
 * The broker is librdkafka's mock cluster inside kcat (not Apache Kafka): in-memory, on this
 * machine, so the figures say what the client and the engine cost, not what a network costs.
 * The JSON is parsed once per record on both sides (from_json in the query, JSON.parse in the loop).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MicroBatchExecution, SystemClock, parseJobSpec, readCommittedRows } from '../lib/engine/index';
import { createKafka, kafkaClusterOptions } from '../lib/connectors/kafka/client';
import { PartitionReader } from '../lib/connectors/kafka/fetch';
import { outboundPolicy } from '../lib/engine/outbound/outbound-policy';
import { produce, startMockKafka } from '../lib/connectors/kafka/testing/mock-broker';
import '../lib/connectors/index'; // registers the kafka source type for parseJobSpec
import type { BenchResult } from './run';

// As a Spark user writes it: the value parsed once with from_json, then the struct's fields.
const SQL = `SELECT o.id AS id, upper(o.user) AS who
  FROM (SELECT from_json(CAST(value AS STRING), 'id BIGINT, user STRING, amount DOUBLE') AS o FROM orders)
  WHERE o.amount > 50`;

/**
 * The hand-written equivalent of SQL, reading as Weir reads: each partition's offset range
 * [0, end) fetched from its leader by offset (PartitionReader, Spark's assign + seek: no consumer
 * group to join), 50,000 records a fetch call like Weir's maxOffsetsPerTrigger, then one
 * JSON.parse per record, the filter, and one file per call. Returns the rows written.
 */
async function handLoop(bootstrapServers: string, topic: string, ends: number[], output: string): Promise<number> {
  await mkdir(output, { recursive: true });
  const reader = new PartitionReader(
    kafkaClusterOptions({ bootstrapServers, securityProtocol: 'PLAINTEXT', clientId: 'bench-hand', requestTimeoutMs: 30_000 }, outboundPolicy()),
    4 * 1024 * 1024,
  );
  let written = 0;
  let file = 0;
  try {
    for (let partition = 0; partition < ends.length; partition++) {
      for (let from = 0; from < ends[partition]; from += STEP) {
        const { records } = await reader.read(topic, partition, from, Math.min(ends[partition], from + STEP));
        const out: string[] = [];
        for (const m of records) {
          const r = JSON.parse(m.value!.toString('utf8')) as { id: number; user: string; amount: number };
          if (r.amount > 50) out.push(JSON.stringify({ id: r.id, who: r.user.toUpperCase() }));
        }
        written += out.length;
        if (out.length) await writeFile(path.join(output, `part-${file++}.json`), out.join('\n') + '\n');
      }
    }
  } finally {
    await reader.close();
  }
  return written;
}

/** Records per fetch call of the hand loop, and Weir's maxOffsetsPerTrigger. */
const STEP = 50_000;

/** Every row a directory of JSON-lines files holds, sorted by id (to compare two outputs by value). */
async function rowsOf(dir: string): Promise<string[]> {
  const lines: { id: number; line: string }[] = [];
  for (const f of await readdir(dir)) {
    if (!f.endsWith('.json')) continue;
    for (const line of (await readFile(path.join(dir, f), 'utf8')).split('\n')) {
      if (line) lines.push({ id: (JSON.parse(line) as { id: number }).id, line });
    }
  }
  return lines.sort((a, b) => a.id - b.id).map((x) => x.line);
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
    const ends = [...offsets].sort((a, b) => a.partition - b.partition).map((p) => Number(p.high));

    // Alternating rounds (hand, weir, hand, weir) and the best of each, so neither side alone
    // pays for JIT warm-up or a noisy neighbour on the shared cores.
    let handMs = Infinity;
    let weirMs = Infinity;
    let handRows = 0;
    let weirRows = 0;
    let batches = 0;
    for (let round = 0; round < 2; round++) {
      const t0 = performance.now();
      handRows = await handLoop(broker.bootstrapServers, topic, ends, path.join(root, `hand-${round}`));
      handMs = Math.min(handMs, performance.now() - t0);
      process.stderr.write(`  round ${round}: hand loop ${Math.round(performance.now() - t0)} ms\n`);

      const parsed = parseJobSpec({
        name: 'bench-kafka',
        source: {
          name: 'orders', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', maxOffsetsPerTrigger: STEP },
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
      // Row by row, by value: the same ids with the same names.
      const [hand, weir] = [await rowsOf(path.join(root, `hand-${round}`)), await rowsOf(path.join(root, `weir-${round}`))];
      const differ = hand.findIndex((line, k) => line !== weir[k]);
      if (differ >= 0 || hand.length !== weir.length) throw new Error(`outputs differ at row ${differ}: hand ${hand[differ]}, weir ${weir[differ]}`);
      await rm(path.join(root, `hand-${round}`), { recursive: true, force: true });
      await rm(path.join(root, `weir-${round}`), { recursive: true, force: true });
    }
    const handRate = (rows * 1000) / handMs;
    const weirRate = (rows * 1000) / weirMs;
    const ratio = weirRate / handRate;
    return [
      { name: 'kafka: input records (4 partitions)', value: rows, unit: 'rows', note: `${handRows} pass the filter` },
      { name: 'kafka: hand-written loop (fetch by offset, JSON.parse)', value: handRate, unit: 'rows/s' },
      { name: `kafka: weir (${batches} batches)`, value: weirRate, unit: 'rows/s' },
      { name: 'kafka: weir / hand-written', value: ratio, unit: 'ratio', goal: '>= 0.8', ok: ratio >= 0.8 },
    ];
  } finally {
    await broker.stop();
    await rm(root, { recursive: true, force: true });
  }
}
