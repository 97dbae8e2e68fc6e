/**
 * Available-now Kafka jobs run by a real worker process end, STOPPED with "trigger finished":
 * - a run that starts by re-running a batch crashed between its sink write and its commit (the
 *   path that left a Kafka admin client connected; the CLI's process never exited, see
 *   kafka-cli.integration.test.ts; the worker's engine process is ended by the worker, so it never hung there);
 * - a run while a producer keeps writing to the topic: the run's end is the offsets latest when
 *   it began (Spark's Trigger.AvailableNow), so new records cannot keep the job RUNNING.
 * The broker is librdkafka's mock cluster run by kcat (lib/connectors/kafka/testing/mock-broker.ts),
 * not Apache Kafka.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import '@/lib/connectors';
import { MicroBatchExecution, parseJobSpec, readCommittedRows } from '@/lib/engine';
import { CrashPointError } from '@/lib/engine/errors';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from '@/lib/connectors/kafka/testing/mock-broker';
import { waitFor } from '@/lib/testing/wait-for';
import { WorkerHarness } from './testing/harness';

const HAVE_KCAT = kcatAvailable();

describe.skipIf(!HAVE_KCAT)('available-now Kafka jobs on a worker (librdkafka mock cluster)', { timeout: 240_000 }, () => {
  const h = new WorkerHarness('postgres', 0);
  let broker: MockKafkaBroker;
  beforeAll(async () => {
    broker = await startMockKafka({ brokers: 1 });
    await h.setup();
  }, 120_000);
  afterAll(async () => {
    await h.teardown();
    await broker?.stop();
  }, 60_000);
  afterEach(async () => h.killAll());

  function kafkaSpec(name: string, topic: string, maxOffsetsPerTrigger = 100) {
    const base = path.join(h.dir, name);
    return {
      name,
      source: { name: 'src', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', maxOffsetsPerTrigger }, schema: [{ name: 'value', type: 'binary' }] },
      sql: 'SELECT CAST(value AS STRING) AS v FROM src',
      sink: { type: 'files', options: { path: path.join(base, 'out'), format: 'json' } },
      outputMode: 'append',
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(base, 'cp'),
    };
  }

  async function createJob(spec: ReturnType<typeof kafkaSpec>) {
    return h.db.job.create({
      data: { name: spec.name, spec, sql: spec.sql, sourceType: 'kafka', sinkType: 'files', outputMode: 'append', trigger: spec.trigger, checkpointLocation: spec.checkpointLocation },
    });
  }

  const finished = (jobId: string) =>
    waitFor(
      'the job STOPPED by its trigger',
      async () => {
        const job = await h.db.job.findUnique({ where: { id: jobId } });
        const run = await h.db.run.findFirst({ where: { jobId }, orderBy: { startedAt: 'desc' } });
        return job?.status === 'STOPPED' && run?.status === 'STOPPED' && run;
      },
      180_000,
    );

  it('re-runs a batch crashed after its sink write, reads every record, and ends STOPPED', async () => {
    const topic = `worker-rerun-${process.pid}`;
    await produce(broker.bootstrapServers, topic, Array.from({ length: 300 }, (_, i) => ({ value: String(i), partition: i % 4 })));
    const spec = kafkaSpec('rerun', topic);
    // The crashed run, in this process: batch 1 is in the sink but not in commits/.
    const parsed = parseJobSpec(spec);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const crashed = new MicroBatchExecution({ spec: parsed.spec, crash: { point: 'after-sink', batchId: 1 } });
    await expect(crashed.run()).rejects.toBeInstanceOf(CrashPointError);
    const job = await createJob(spec);
    h.spawnWorker();
    await h.start(job.id);
    const run = await finished(job.id);
    expect(run.exitReason).toBe('trigger finished');
    const rows = (await readCommittedRows(spec.sink.options.path, 'json')).flatMap((b) => b.rows.map((r) => Number(r.v)));
    expect(new Set(rows).size).toBe(300);
  });

  it('ends at the offsets latest when it began while a producer keeps writing', async () => {
    const topic = `worker-busy-${process.pid}`;
    await produce(broker.bootstrapServers, topic, Array.from({ length: 600 }, (_, i) => ({ value: String(i), partition: i % 4 })));
    // 20 offsets a batch: 30 batches, so the run is still reading when the producer starts.
    const spec = kafkaSpec('busy', topic, 20);
    const job = await createJob(spec);
    h.spawnWorker();
    await h.start(job.id);
    // Once batch 0 is recorded the run's end is fixed (600 records); from then on a producer
    // writes faster than 20 offsets a batch can drain, so a run without a fixed end never ends.
    await waitFor('batch 0', async () => (await h.db.batchProgress.count({ where: { jobId: job.id } })) >= 1, 180_000);
    let producing = true;
    let n = 600;
    const producer = (async () => {
      while (producing) await produce(broker.bootstrapServers, topic, Array.from({ length: 200 }, () => ({ value: String(n), partition: n++ % 4 })));
    })();
    try {
      const run = await finished(job.id);
      expect(run.exitReason).toBe('trigger finished');
    } finally {
      producing = false;
      await producer;
    }
    const batches = await h.db.batchProgress.findMany({ where: { jobId: job.id }, orderBy: { batchId: 'asc' } });
    expect(batches.map((b) => b.numInputRows)).toEqual(Array.from({ length: 30 }, () => 20));
    const rows = (await readCommittedRows(spec.sink.options.path, 'json')).flatMap((b) => b.rows.map((r) => Number(r.v)));
    expect(rows.sort((a, b) => a - b)).toEqual(Array.from({ length: 600 }, (_, i) => i));
  });
});
