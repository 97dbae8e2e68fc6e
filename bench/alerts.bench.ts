/**
 * Alerting costs and delays, on a fresh database of this machine's PostgreSQL:
 *
 * - the cost of one job's evaluation (what RunRecorder adds after each committed batch) with one
 *   rule of every kind and 5,000 batches of history, the state-growth window spanning an hour
 *   (3,600 of them): p50/p95 over 50 evaluations;
 * - how late no-progress fires after its condition starts to hold, with the scheduler ticking
 *   every 1,000 ms (the delay is bounded by the tick interval plus one pass).
 *
 *   npm run bench -- alerts
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../lib/generated/prisma/client';
import { createTestDatabase } from '../lib/server/testing/database';
import { evaluateJobAlerts } from '../lib/server/alerts/alert-evaluator';
import { startAlertScheduler } from '../lib/server/alerts/alert-scheduler';
import type { BenchResult } from './run';

const BATCHES = 5000;
const TICK_MS = 1000;
const AFTER_MS = 2000;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

export async function run(): Promise<BenchResult[]> {
  const database = await createTestDatabase('weir_bench_alerts');
  const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  try {
    const job = await db.job.create({ data: { name: 'bench', spec: { name: 'bench' }, sql: 'SELECT 1', sourceType: 'memory', sinkType: 'memory', outputMode: 'append', trigger: { type: 'processing-time', interval: '1 second' }, checkpointLocation: '/tmp/bench', status: 'RUNNING' } });
    // One batch a second for the last BATCHES seconds, state growing slowly.
    await db.$executeRawUnsafe(
      `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", "stateRowsTotal", "commitLag", progress)
       SELECT gen_random_uuid()::text, $1, g, now() - (($2 - g) * interval '1 second'), 100, 100, 100, 50, '{}', 1000 + g, 10, '{}' FROM generate_series(0, $2 - 1) g`,
      job.id,
      BATCHES,
    );
    const kinds: [string, object][] = [
      ['state-rows', { threshold: 1e9 }],
      ['state-bytes', { threshold: 1e12 }],
      ['state-growth', { percentPerHour: 50, windowMs: 3_600_000 }],
      ['commit-lag', { threshold: 1000, batches: 3 }],
      ['lag-rising', { batches: 3 }],
      ['falling-behind', { batches: 3 }],
      ['no-progress', { afterMs: 600_000 }],
      ['run-failed', {}],
      ['deploy-warning', {}],
    ];
    for (const [kind, params] of kinds) await db.alertRule.create({ data: { name: kind, jobId: job.id, kind, params } });
    await evaluateJobAlerts(db, job.id); // warm up
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      await evaluateJobAlerts(db, job.id);
      times.push(performance.now() - t0);
    }

    // no-progress: condition holds from lastCommittedAt + AFTER_MS.
    const stalled = await db.job.create({ data: { name: 'stalled', spec: { name: 'stalled' }, sql: 'SELECT 1', sourceType: 'memory', sinkType: 'memory', outputMode: 'append', trigger: {}, checkpointLocation: '/tmp/stalled', status: 'RUNNING', lastCommittedAt: new Date() } });
    const rule = await db.alertRule.create({ data: { name: 'stall', jobId: stalled.id, kind: 'no-progress', params: { afterMs: AFTER_MS } } });
    const scheduler = startAlertScheduler({ db, intervalMs: TICK_MS });
    let alert = null;
    while (!alert) {
      await new Promise((r) => setTimeout(r, 50));
      alert = await db.alert.findFirst({ where: { ruleId: rule.id } });
    }
    await scheduler.stop();
    const late = alert.firedAt.getTime() - (stalled.lastCommittedAt!.getTime() + AFTER_MS);
    return [
      { name: 'alerts: one job evaluation, 9 rules, 5000 batches (p50)', value: Math.round(pct(times, 50) * 10) / 10, unit: 'ms' },
      { name: 'alerts: one job evaluation, 9 rules, 5000 batches (p95)', value: Math.round(pct(times, 95) * 10) / 10, unit: 'ms', goal: '<= 100', ok: pct(times, 95) <= 100 },
      { name: `alerts: no-progress fired after its condition held (tick ${TICK_MS} ms)`, value: late, unit: 'ms', goal: `<= ${TICK_MS + 500}`, ok: late <= TICK_MS + 500 },
    ];
  } finally {
    await db.$disconnect();
    await database.drop();
  }
}
