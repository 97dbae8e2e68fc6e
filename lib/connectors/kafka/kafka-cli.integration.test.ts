// The real `weir` CLI (node bin/weir.js, spawned) with a kafka source and a kafka sink against
// librdkafka's mock cluster run by kcat (testing/mock-broker.ts; not Apache Kafka): validate
// states the at-least-once contract, run copies the topic, `weir sink read` shows the batch ids;
// and the job Kafka users run first (from_json orders counted per region in 1-minute windows
// with a watermark on the order's ts, into postgres-upsert) validates and runs from the CLI.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../testing/pg-test-database';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from './testing/mock-broker';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const HAVE_KCAT = kcatAvailable();
let broker: MockKafkaBroker;
let dir: string;
let db: TestDatabase;

beforeAll(async () => {
  if (!HAVE_KCAT) return;
  broker = await startMockKafka({ brokers: 1 });
  dir = await mkdtemp(path.join(tmpdir(), 'weir-kafka-cli-'));
  db = await createTestDatabase('kafka_cli');
}, 120_000);
afterAll(async () => {
  await broker?.stop();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Runs the CLI and waits for its exit. A process still alive after `killAfterMs` (a hang: some
 * handle left open) is killed by its pid and reported with code null, so a test says "did not
 * exit" instead of timing out blind.
 */
function weir(args: string[], killAfterMs = 150_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/weir.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const hang = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => {
      clearTimeout(hang);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(!HAVE_KCAT)('weir CLI with kafka (librdkafka mock cluster)', () => {
  it('validates, runs kafka → kafka, and reads the sink back with batch ids', async () => {
    const topic = `cli-in-${process.pid}`;
    await produce(broker.bootstrapServers, topic, Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, value: JSON.stringify({ id: i }), partition: i % 4 })));
    const file = path.join(dir, 'job.json');
    await writeFile(file, JSON.stringify({
      name: 'kafka-cli',
      source: { name: 'src', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest' } },
      // No source.schema, as a Spark user writes it: the source has Spark's fixed columns.
      sql: 'SELECT key, value FROM src WHERE partition >= 0 AND timestampType = 0',
      sink: { type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, topic: `${topic}-out` } },
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(dir, 'cp'),
    }));
    const v = await weir(['validate', file]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain('at-least-once');
    const r = await weir(['run', file]);
    expect(r.code, r.stderr).toBe(0);
    const read = await weir(['sink', 'read', file]);
    expect(read.code, read.stderr).toBe(0);
    const rows = read.stdout.trim().split('\n').map((l) => JSON.parse(l) as { value: string; batchId: number });
    expect(rows.map((x) => JSON.parse(x.value).id).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(rows.map((x) => x.batchId))).toEqual(new Set([0]));
  }, 120_000);

  it('an available-now run re-running a batch crashed after its sink write reads every record, commits and exits 0', async () => {
    // 300 records, 100 per trigger: three batches; batch 1 crashes between the sink write and
    // commits/1, so the next run starts by re-running batch 1 over its recorded range.
    const topic = `cli-rerun-${process.pid}`;
    await produce(broker.bootstrapServers, topic, Array.from({ length: 300 }, (_, i) => ({ value: JSON.stringify({ id: i }), partition: i % 4 })));
    const out = path.join(dir, 'rerun-out');
    const file = path.join(dir, 'rerun.json');
    await writeFile(file, JSON.stringify({
      name: 'kafka-rerun',
      source: { name: 'src', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', maxOffsetsPerTrigger: 100 }, schema: [{ name: 'value', type: 'binary' }] },
      sql: 'SELECT CAST(value AS STRING) AS v FROM src',
      sink: { type: 'files', options: { path: out, format: 'json' } },
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(dir, 'cp-rerun'),
    }));
    const crashed = await weir(['run', file, '--crash-at', 'after-sink', '--crash-batch', '1']);
    expect(crashed.code, crashed.stderr).toBe(3);
    const again = await weir(['run', file]);
    // null: the process was still alive and had to be killed (a client, socket or timer left open).
    expect(again.code, again.stderr).toBe(0);
    const batches = again.stdout.trim().split('\n').map((l) => JSON.parse(l) as { batchId: number; numInputRows: number });
    expect(batches.map((b) => b.batchId)).toEqual([1, 2]);
    expect(batches.map((b) => b.numInputRows)).toEqual([100, 100]);
    const read = await weir(['sink', 'read', file]);
    expect(read.code, read.stderr).toBe(0);
    const ids = read.stdout.trim().split('\n').map((l) => (JSON.parse(JSON.parse(l).v) as { id: number }).id);
    expect(new Set(ids).size).toBe(300);
  }, 240_000);

  it("runs a Spark job's options map pasted as it is (kafka.-prefixed settings, string values, Long.MaxValue)", async () => {
    const topic = `cli-spark-${process.pid}`;
    await produce(broker.bootstrapServers, topic, Array.from({ length: 40 }, (_, i) => ({ value: `v${i}`, partition: i % 4 })));
    const file = path.join(dir, 'spark-options.json');
    await writeFile(file, JSON.stringify({
      name: 'kafka-spark-options',
      source: {
        name: 'src', type: 'kafka',
        // As a Spark job sets them: .option("kafka.bootstrap.servers", …).option("maxOffsetsPerTrigger", Long.MaxValue.toString) …
        options: { 'kafka.bootstrap.servers': broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', maxOffsetsPerTrigger: '9223372036854775807', failOnDataLoss: 'false', includeHeaders: 'false', 'kafka.group.id': 'spark-reader', groupIdPrefix: 'spark-kafka-source' },
        schema: [{ name: 'value', type: 'binary' }],
      },
      sql: 'SELECT CAST(value AS STRING) AS v FROM src',
      sink: { type: 'files', options: { path: path.join(dir, 'spark-out'), format: 'json' } },
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(dir, 'cp-spark'),
    }));
    const r = await weir(['run', file]);
    expect(r.code, r.stderr).toBe(0);
    // Long.MaxValue is no limit: all 40 records in one batch.
    const batches = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { batchId: number; numInputRows: number });
    expect(batches.map((b) => [b.batchId, b.numInputRows])).toEqual([[0, 40]]);
  }, 120_000);

  it('with failOnDataLoss false, records retention deleted are skipped with a warning on stderr, in Spark\'s words, and in the batch progress', async () => {
    // The first run plans batch 0 over 300 records and dies after writing offsets/0; ~9 MB more
    // then moves the partition's start past them (the mock keeps about 5 MB per partition, as
    // retention would), and the re-run of batch 0 finds them gone.
    const topic = `cli-loss-${process.pid}`;
    const big = 'x'.repeat(10_000);
    const burst = () => produce(broker.bootstrapServers, topic, Array.from({ length: 300 }, () => ({ value: big, partition: 0 })));
    await burst();
    const file = path.join(dir, 'loss.json');
    await writeFile(file, JSON.stringify({
      name: 'kafka-loss',
      source: { name: 'src', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', failOnDataLoss: 'false' }, schema: [{ name: 'offset', type: 'long' }] },
      sql: 'SELECT `offset` AS o FROM src',
      sink: { type: 'files', options: { path: path.join(dir, 'loss-out'), format: 'json' } },
      trigger: { type: 'once' },
      checkpointLocation: path.join(dir, 'cp-loss'),
    }));
    const crashed = await weir(['run', file, '--crash-at', 'after-offsets', '--crash-batch', '0']);
    expect(crashed.code, crashed.stderr).toBe(3);
    for (let i = 0; i < 3; i++) await burst();
    const r = await weir(['run', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`warn: Batch 0: Kafka source KafkaV2\\[${topic}\\] skipped offsets \\[0, \\d+\\) of ${topic}-0 \\(retention deleted them.*\\)\\. Cannot fetch offset 0 of ${topic}-0: .*some data may have been missed\\. .*"failOnDataLoss" to "true"`));
    const progress = JSON.parse(r.stdout.trim().split('\n')[0]) as { batchId: number; sources: { metrics: Record<string, string> }[] };
    expect(progress.batchId).toBe(0);
    expect(Number(progress.sources[0].metrics.dataLossSkippedOffsets)).toBeGreaterThan(0);
    expect(progress.sources[0].metrics.dataLossWarning).toContain(`${topic}-0 [0, `);
  }, 240_000);

  it('validates and runs from_json orders → windowed count per region → postgres-upsert', async () => {
    const topic = `cli-orders-${process.pid}`;
    const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
    // 30 orders over minutes 0–2, regions in turn; the record timestamps are left to the broker.
    const orders = Array.from({ length: 30 }, (_, i) => ({ order_id: i, region: ['eu', 'us', 'apac'][i % 3], amount: i * 2.5, ts: T0 + Math.floor(i / 10) * 60_000 + (i % 10) * 1000 }));
    await produce(broker.bootstrapServers, topic, orders.map((o) => ({ value: JSON.stringify({ ...o, ts: new Date(o.ts).toISOString() }), partition: o.order_id % 4 })));
    const file = path.join(dir, 'orders.json');
    await writeFile(file, JSON.stringify({
      name: 'orders-per-region-cli',
      source: {
        name: 'orders', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest' },
        schema: [{ name: 'value', type: 'binary' }], eventTime: 'ts', watermarkDelay: '1 minute',
      },
      sql:
        "WITH o AS (SELECT p.region AS region, p.ts AS ts FROM (SELECT from_json(CAST(value AS STRING), 'order_id BIGINT, region STRING, amount DOUBLE, ts TIMESTAMP') AS p FROM orders)) " +
        "SELECT window(ts, '1 minute'), region, count(*) AS n FROM o GROUP BY window(ts, '1 minute'), region",
      sink: { type: 'postgres-upsert', options: { connectionString: db.url, table: 'per_region', keyColumns: ['window_start', 'region'] } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(dir, 'cp-orders'),
    }));
    const v = await weir(['validate', file]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain('exactly-once');
    const r = await weir(['run', file]);
    expect(r.code, r.stderr).toBe(0);
    const got = await db.pool.query<{ window_start: Date; region: string; n: string }>('SELECT window_start, region, n FROM per_region');
    const want = new Map<string, number>();
    for (const o of orders) {
      const k = `${Math.floor(o.ts / 60_000) * 60_000}|${o.region}`;
      want.set(k, (want.get(k) ?? 0) + 1);
    }
    expect(new Map(got.rows.map((x) => [`${new Date(x.window_start).getTime()}|${x.region}`, Number(x.n)]))).toEqual(want);
  }, 120_000);
});
