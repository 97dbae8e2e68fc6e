/**
 * A data-loss alert from a real Kafka job: a worker process runs a job with failOnDataLoss false
 * whose first batch's records retention deleted before it read them (the mock broker keeps about
 * 5 MiB per partition: padding records moves the partition's start, as retention would). The
 * batch skips them and goes on, as Spark does; the data-loss rule fires at that batch's commit
 * with Spark's sentence in its message, sends one signed webhook delivery, and resolves at the
 * first batch that lost nothing. The broker is librdkafka's mock cluster run by kcat
 * (lib/connectors/kafka/testing/mock-broker.ts), not Apache Kafka.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '@/lib/connectors';
import { MicroBatchExecution, parseJobSpec } from '@/lib/engine';
import { CrashPointError } from '@/lib/engine/errors';
import { kcatAvailable, produce, startMockKafka, type MockKafkaBroker } from '@/lib/connectors/kafka/testing/mock-broker';
import { startReceiver } from '@/lib/server/alerts/testing/alert-fixtures';
import { verifySignature } from '@/lib/server/alerts/webhook-notifier';
import { waitFor } from '@/lib/testing/wait-for';
import { WorkerHarness } from './testing/harness';

const HAVE_KCAT = kcatAvailable();
const SECRET = 'data-loss-secret-0123';

describe.skipIf(!HAVE_KCAT)('the data-loss alert on a Kafka job (librdkafka mock cluster)', { timeout: 300_000 }, () => {
  const h = new WorkerHarness('postgres', 12);
  let broker: MockKafkaBroker;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    broker = await startMockKafka({ brokers: 1 });
    receiver = await startReceiver();
    await h.setup();
  }, 120_000);
  afterAll(async () => {
    await h.teardown();
    await broker?.stop();
    await receiver?.close();
  }, 60_000);

  it('fires when a batch skips records retention deleted, and resolves at the next batch that lost none', async () => {
    const topic = `worker-loss-${process.pid}`;
    const big = 'x'.repeat(10_000);
    const burst = () => produce(broker.bootstrapServers, topic, Array.from({ length: 300 }, () => ({ value: big, partition: 0 })));
    await burst();
    const base = path.join(h.dir, 'loss');
    const spec = {
      name: 'kafka-loss',
      // No source.schema: Spark's Kafka columns. failOnDataLoss as a Spark job writes it.
      source: { name: 'src', type: 'kafka', options: { bootstrapServers: broker.bootstrapServers, subscribe: topic, startingOffsets: 'earliest', failOnDataLoss: 'false' } },
      sql: 'SELECT `offset` AS o, `partition` AS p FROM src',
      sink: { type: 'files', options: { path: path.join(base, 'out'), format: 'json' } },
      outputMode: 'append',
      trigger: { type: 'processing-time', interval: '200 milliseconds' },
      checkpointLocation: path.join(base, 'cp'),
    };
    // A run that planned batch 0 over the 300 records (offsets/0 written) and died before reading them.
    const parsed = parseJobSpec(spec);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    await expect(new MicroBatchExecution({ spec: parsed.spec, crash: { point: 'after-offsets', batchId: 0 } }).run()).rejects.toBeInstanceOf(CrashPointError);
    // About 9 MB more: the partition's start moves past the planned range, as retention would.
    for (let i = 0; i < 3; i++) await burst();

    const job = await h.db.job.create({
      data: { name: spec.name, spec, sql: spec.sql, sourceType: 'kafka', sinkType: 'files', outputMode: 'append', trigger: spec.trigger, checkpointLocation: spec.checkpointLocation },
    });
    const rule = await h.db.alertRule.create({ data: { name: 'kafka data loss', jobId: job.id, kind: 'data-loss', params: {}, webhookUrl: receiver.url, webhookSecret: SECRET } });
    h.spawnWorker({ LOG_LEVEL: 'warn' });
    await h.start(job.id);

    const firing = await waitFor('the data-loss alert', () => h.db.alert.findFirst({ where: { ruleId: rule.id } }), 180_000);
    expect(firing.kind).toBe('data-loss');
    // A firing alert's message follows the newest evaluation: batch 0, or a later one that lost more.
    expect(firing.message).toMatch(/^Data loss: batch \d+ skipped \d+ offset\(s\) its source no longer had, and went on \(failOnDataLoss is false\)/);
    expect(firing.message).toMatch(new RegExp(`Cannot fetch offset \\d+ of ${topic}-0: the earliest available offset is \\d+, some data may have been missed`));
    const batch0 = await h.db.batchProgress.findUniqueOrThrow({ where: { jobId_batchId: { jobId: job.id, batchId: 0 } } });
    expect(Number((batch0.progress as { sources: { metrics: Record<string, string> }[] }).sources[0].metrics.dataLossSkippedOffsets)).toBeGreaterThan(0);
    expect(firing.firedAt.getTime()).toBeGreaterThanOrEqual(batch0.createdAt.getTime());

    // Wait until the run has read what is there (the backlog may itself be partly aged out, which
    // keeps the alert firing), then a few new records make a batch that loses nothing.
    const caughtUp = await waitFor('the backlog read', async () => {
      const last = await h.db.batchProgress.findFirst({ where: { jobId: job.id }, orderBy: { batchId: 'desc' } });
      return last && last.commitLag === 0n && last;
    }, 180_000);
    await produce(broker.bootstrapServers, topic, Array.from({ length: 5 }, (_, i) => ({ value: `late-${i}`, partition: 0 })));
    const resolved = await waitFor('the alert resolved', () => h.db.alert.findFirst({ where: { ruleId: rule.id, state: 'RESOLVED' } }), 180_000);
    const clean = await h.db.batchProgress.findFirstOrThrow({ where: { jobId: job.id, batchId: { gt: caughtUp.batchId } }, orderBy: { batchId: 'asc' } });
    expect(clean.numInputRows).toBe(5);
    expect(resolved.resolvedAt!.getTime()).toBeGreaterThanOrEqual(firing.firedAt.getTime());
    expect(await h.db.alert.count({ where: { ruleId: rule.id } })).toBe(1);

    const got = await waitFor('two deliveries', async () => {
      const r = receiver.accepted().filter((x) => JSON.parse(x.body).rule.id === rule.id);
      return r.length >= 2 && r;
    });
    expect(got.map((r) => JSON.parse(r.body).event)).toEqual(['alert.firing', 'alert.resolved']);
    for (const r of got) expect(verifySignature(SECRET, r.body, r.headers['x-weir-signature'] as string)).toBe(true);
  });
});
