/**
 * The end-to-end scenarios with real worker processes (worker/testing/harness.ts) on the
 * Postgres queue backend, the alert hooks in RunRecorder and the worker's alert scheduler:
 *
 * - a per-key count with no watermark fires the state-growth alert once its window of history
 *   shows growth; the same count over event-time windows with a watermark never does (its state
 *   is evicted), though its history spans the window several times;
 * - a commit-lag alert fires while a backlog drains and resolves when it is drained;
 * - a run-failed alert fires when a run fails on a bad file and resolves when a restart (after the
 *   file is fixed) reaches RUNNING;
 * - a local webhook receiver gets exactly one signed delivery per transition.
 *
 * It prints how long after the condition began each alert fired (figures for docs/alerts.md).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@/lib/testing/wait-for';
import { WorkerHarness } from '@/worker/testing/harness';
import { evaluateRule } from './rule-evaluation';
import { verifySignature } from './webhook-notifier';
import { startReceiver } from './testing/alert-fixtures';

const SECRET = 'worker-test-secret-0123';
// The window must span several batches (docs/alerts.md: at least four) even when a loaded machine
// spaces them a second or two apart: with fewer, a half of the window holds no batch and the rule
// rightly cannot tell growth from a warm-up.
const WINDOW_MS = 8000;
// Generous: on a loaded 2-core machine a batch of this job can take a few seconds.
const PROGRESS_TIMEOUT_MS = 120_000;
const h = new WorkerHarness('postgres', 11);
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  await h.setup();
  receiver = await startReceiver();
  h.spawnWorker({ WEIR_ALERT_INTERVAL_MS: '300', LOG_LEVEL: 'warn' });
}, 60_000);
afterAll(async () => {
  await h.teardown();
  await receiver?.close();
});

/** A per-key count over a files source, with or without an event-time window and watermark. */
async function countJob(name: string, bounded: boolean) {
  const base = path.join(h.dir, name);
  mkdirSync(path.join(base, 'in'), { recursive: true });
  const spec = {
    name,
    source: {
      name: 'events',
      type: 'files',
      options: { path: path.join(base, 'in'), format: 'json', maxFilesPerTrigger: 1 },
      schema: [
        { name: 'id', type: 'long' },
        { name: 'ts', type: 'timestamp' },
      ],
      ...(bounded ? { eventTime: 'ts', watermarkDelay: '0 seconds' } : {}),
    },
    sql: bounded ? "SELECT window(ts, '1 second'), id, count(*) AS n FROM events GROUP BY window(ts, '1 second'), id" : 'SELECT id, count(*) AS n FROM events GROUP BY id',
    sink: { type: 'memory', options: { table: name } },
    outputMode: 'update',
    trigger: { type: 'processing-time', interval: '200 milliseconds' },
    checkpointLocation: path.join(base, 'cp'),
  };
  const job = await h.db.job.create({
    data: { name, spec, sql: spec.sql, sourceType: 'files', sinkType: 'memory', outputMode: 'update', trigger: spec.trigger, checkpointLocation: spec.checkpointLocation },
  });
  let k = 0;
  return {
    job,
    /** File k: 20 new keys, event time in second k (so each file opens a new window). */
    addFile: () => {
      const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ id: k * 20 + i, ts: new Date(Date.UTC(2026, 0, 1) + k * 1000 + 500).toISOString() }));
      const file = `part-${String(k++).padStart(5, '0')}.json`;
      writeFileSync(path.join(base, 'in', `.${file}`), `${lines.join('\n')}\n`);
      renameSync(path.join(base, 'in', `.${file}`), path.join(base, 'in', file));
    },
  };
}

const batchesOf = (jobId: string) =>
  h.db.batchProgress.findMany({
    where: { jobId },
    orderBy: { batchId: 'desc' },
    select: { batchId: true, timestamp: true, stateRowsTotal: true, stateMemoryBytes: true, stateDiskBytes: true, commitLag: true, batchDurationMs: true, stateRowsDroppedByWatermark: true },
  });

describe('alerts with real workers', () => {
  it('state-growth fires for a per-key count with no watermark within its window, and not for the windowed count with a watermark', async () => {
    const growth = await h.db.alertRule.create({ data: { name: 'state not bounded', kind: 'state-growth', params: { percentPerHour: 1000, windowMs: WINDOW_MS } } });
    const warn = await h.db.alertRule.create({ data: { name: 'deploy warnings', kind: 'deploy-warning', params: {} } });
    const unbounded = await countJob('count-no-watermark', false);
    const bounded = await countJob('count-windowed', true);
    for (const j of [unbounded, bounded]) {
      j.addFile();
      await h.start(j.job.id);
    }
    const feeder = setInterval(() => [unbounded, bounded].forEach((j) => j.addFile()), 250);
    try {
      const fired = await waitFor('the state-growth alert on the unbounded job', () => h.db.alert.findFirst({ where: { ruleId: growth.id, jobId: unbounded.job.id } }), PROGRESS_TIMEOUT_MS);
      // Keep the bounded job going until its history spans the window twice over and hundreds of
      // keys went through it (more than 10 files of 20 new keys): conditions, not a time budget.
      await waitFor(
        'two windows of bounded history, over more than 200 keys',
        async () => {
          const b = await batchesOf(bounded.job.id);
          return b.length > 10 && b[0].timestamp.getTime() - b[b.length - 1].timestamp.getTime() > 2 * WINDOW_MS;
        },
        PROGRESS_TIMEOUT_MS,
      );
      expect(fired.state).toBe('FIRING');
      const d = fired.details as { spanMs: number; first: number; last: number; fromBatch: number };
      expect(d.spanMs).toBeGreaterThanOrEqual(WINDOW_MS);
      expect(d.last).toBeGreaterThan(d.first);

      // The bounded job: evaluated with a full window of history, evicted by its watermark, never fired.
      const b = await batchesOf(bounded.job.id);
      // Bounded: never more than two open windows of 20 keys, while hundreds of keys went through.
      expect(Math.max(...b.map((x) => Number(x.stateRowsTotal)))).toBeLessThanOrEqual(40);
      expect(b.length * 20).toBeGreaterThan(200);
      const verdict = evaluateRule('state-growth', growth.params, { job: { id: bounded.job.id, name: 'b', status: 'RUNNING', trigger: null, lastCommittedAt: null }, batches: b, runs: [], deployWarnings: [], now: new Date() });
      expect(verdict.message).not.toMatch(/Not enough history/);
      expect(verdict.holds).toBe(false);
      expect(await h.db.alert.count({ where: { ruleId: growth.id, jobId: bounded.job.id } })).toBe(0);

      // Deploy-time warning: standing on the job with no watermark only.
      const standing = await h.db.alert.findMany({ where: { ruleId: warn.id, state: 'FIRING' }, select: { jobId: true, message: true } });
      expect(standing.find((a) => a.jobId === unbounded.job.id)?.message).toMatch(/^sql: .*watermark/i);
      expect(standing.find((a) => a.jobId === bounded.job.id)?.message ?? '').not.toMatch(/^sql: /);

      // Figures: growth starts with the second batch (new keys); the alert fires at a commit.
      const u = (await batchesOf(unbounded.job.id)).reverse();
      const growthStart = u.find((x, i) => i > 0 && x.stateRowsTotal > u[i - 1].stateRowsTotal)!;
      console.log(`[alerts figures] state-growth (window ${WINDOW_MS} ms): fired ${fired.firedAt.getTime() - growthStart.timestamp.getTime()} ms after the growth began (batch ${growthStart.batchId} → alert)`);
    } finally {
      clearInterval(feeder);
      await h.stop(unbounded.job.id);
      await h.stop(bounded.job.id);
    }
  }, 3 * PROGRESS_TIMEOUT_MS);

  it('commit-lag fires while a backlog drains and resolves; one signed webhook delivery per transition', async () => {
    const j = await h.createFilesJob('lagging');
    const rule = await h.db.alertRule.create({ data: { name: 'lag > 3', jobId: j.job.id, kind: 'commit-lag', params: { threshold: 3 }, webhookUrl: receiver.url, webhookSecret: SECRET } });
    for (let i = 0; i < 8; i++) j.addRows(i * 2, 2);
    const start = Date.now();
    await h.start(j.job.id);
    const resolved = await waitFor('the lag alert resolved', () => h.db.alert.findFirst({ where: { ruleId: rule.id, state: 'RESOLVED' } }));
    const firstBatch = await h.db.batchProgress.findFirstOrThrow({ where: { jobId: j.job.id }, orderBy: { batchId: 'asc' } });
    expect(Number(firstBatch.commitLag)).toBeGreaterThan(3);
    expect(await h.db.alert.count({ where: { ruleId: rule.id } })).toBe(1);
    const lastFiringBatch = await h.db.batchProgress.findFirstOrThrow({ where: { jobId: j.job.id, commitLag: { lte: 3 } }, orderBy: { batchId: 'asc' } });
    const got = await waitFor('two deliveries', async () => {
      const r = receiver.accepted().filter((x) => JSON.parse(x.body).rule.id === rule.id);
      return r.length >= 2 && r;
    });
    expect(got.map((r) => JSON.parse(r.body).event)).toEqual(['alert.firing', 'alert.resolved']);
    for (const r of got) expect(verifySignature(SECRET, r.body, r.headers['x-weir-signature'] as string)).toBe(true);
    console.log(
      `[alerts figures] commit-lag: fired ${resolved.firedAt.getTime() - firstBatch.timestamp.getTime()} ms after batch ${firstBatch.batchId} started with lag ${firstBatch.commitLag}; resolved ${resolved.resolvedAt!.getTime() - lastFiringBatch.timestamp.getTime()} ms after batch ${lastFiringBatch.batchId} started with lag ${lastFiringBatch.commitLag} (job started ${firstBatch.timestamp.getTime() - start} ms after the request)`,
    );
    await h.stop(j.job.id);
  }, 60_000);

  it('run-failed fires when a run fails and resolves when a restart reaches RUNNING', async () => {
    const j = await h.createFilesJob('failing');
    const rule = await h.db.alertRule.create({ data: { name: 'failed', jobId: j.job.id, kind: 'run-failed', params: {}, webhookUrl: receiver.url, webhookSecret: SECRET } });
    j.addRows(0, 2);
    j.addBadFile(); // part-00001.json
    await h.start(j.job.id);
    const fired = await waitFor('the failure alert', () => h.db.alert.findFirst({ where: { ruleId: rule.id, state: 'FIRING' } }));
    const failedRun = await h.db.run.findFirstOrThrow({ where: { jobId: j.job.id, status: 'FAILED' } });
    expect(fired.message).toMatch(/FAILED/);
    // The alert can fire between the run's end and the job's; the API starts a job only once it
    // shows FAILED, so the operator's start below waits for that too.
    await waitFor('the job FAILED', () => h.db.job.findFirst({ where: { id: j.job.id, status: 'FAILED' } }));
    // The operator's fix: divert bad records to a dead-letter path, start again; the re-run of the
    // uncommitted batch reaches RUNNING.
    const spec = j.job.spec as { source: Record<string, unknown> };
    await h.db.job.update({ where: { id: j.job.id }, data: { spec: { ...spec, source: { ...spec.source, onBadRecord: 'dead-letter', badRecordsPath: path.join(j.base, 'bad') } } } });
    await h.start(j.job.id);
    const resolved = await waitFor('the failure alert resolved', () => h.db.alert.findFirst({ where: { id: fired.id, state: 'RESOLVED' } }));
    expect((await h.db.job.findUniqueOrThrow({ where: { id: j.job.id } })).status).toBe('RUNNING');
    const got = await waitFor('two deliveries', async () => {
      const r = receiver.accepted().filter((x) => JSON.parse(x.body).rule.id === rule.id);
      return r.length >= 2 && r;
    });
    expect(got.map((r) => JSON.parse(r.body).event)).toEqual(['alert.firing', 'alert.resolved']);
    for (const r of got) expect(verifySignature(SECRET, r.body, r.headers['x-weir-signature'] as string)).toBe(true);
    console.log(`[alerts figures] run-failed: fired ${fired.firedAt.getTime() - (failedRun.endedAt ?? failedRun.startedAt).getTime()} ms after the run ended FAILED; resolved when the restart reached RUNNING (${resolved.resolvedAt!.toISOString()})`);
    await h.stop(j.job.id);
  }, 60_000);
});
