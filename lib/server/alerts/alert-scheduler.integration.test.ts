/**
 * The scheduled pass on the real database: no-progress fires only from the schedule (nothing else
 * happens while a job is stuck) and resolves after a commit; the pass also sweeps due webhook
 * deliveries. Ticks are driven by hand (`tick()`), so nothing here depends on timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlertScheduler } from './alert-scheduler';
import { evaluateJobAlerts } from './alert-evaluator';
import { addBatch, alertTestDb, createJob, startReceiver, type AlertTestDb } from './testing/alert-fixtures';

let t: AlertTestDb;
beforeAll(async () => {
  t = await alertTestDb();
});
afterAll(async () => t?.close());

describe('alert scheduler', () => {
  it('fires no-progress for a RUNNING job with no commit for afterMs, resolves after a commit, and sweeps deliveries', async () => {
    const receiver = await startReceiver();
    const scheduler = startAlertScheduler({ db: t.db, intervalMs: 3_600_000, notifier: { backoffBaseMs: 1 } });
    try {
      const stuck = await createJob(t.db, 'stuck');
      await createJob(t.db, 'stopped', { status: 'STOPPED' }); // not RUNNING: never stalled
      const rule = await t.db.alertRule.create({ data: { name: 'stalled', kind: 'no-progress', params: { afterMs: 60_000 }, webhookUrl: receiver.url, webhookSecret: 'scheduler-secret' } });
      const longAgo = new Date(Date.now() - 10 * 60_000);
      await t.db.run.create({ data: { jobId: stuck.id, runId: 'r-stuck', status: 'RUNNING', startedAt: longAgo } });
      await addBatch(t.db, stuck.id, 0, { at: longAgo });
      await t.db.job.updateMany({ data: { lastCommittedAt: longAgo } });

      await scheduler.tick();
      const firing = await t.db.alert.findMany({ where: { ruleId: rule.id, state: 'FIRING' } });
      expect(firing.map((a) => a.jobId)).toEqual([stuck.id]);
      expect(firing[0].value).toBeGreaterThan(60_000);

      // A commit arrives: the after-batch hook resolves it.
      await addBatch(t.db, stuck.id, 1, { at: new Date() });
      await t.db.job.update({ where: { id: stuck.id }, data: { lastCommittedAt: new Date() } });
      expect((await evaluateJobAlerts(t.db, stuck.id, { deliveries: 'sweep' })).map((x) => x.event)).toEqual(['alert.resolved']);

      // Both transitions' deliveries are sent by the sweep, once each.
      for (let i = 0; i < 50 && receiver.accepted().length < 2; i++) await scheduler.tick();
      expect(receiver.accepted().map((r) => JSON.parse(r.body).event)).toEqual(['alert.firing', 'alert.resolved']);
    } finally {
      await scheduler.stop();
      await receiver.close();
    }
  });
});
