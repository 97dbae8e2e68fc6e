/**
 * Transitions on the real PostgreSQL: FIRING → RESOLVED with history, de-duplicated by rule and
 * job (also under concurrent evaluations), global rules per job, disabled rules resolve, and a
 * real local webhook receiver gets exactly one signed delivery per transition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateJobAlerts } from './alert-evaluator';
import { verifySignature } from './webhook-notifier';
import { addBatch, alertTestDb, createJob, startReceiver, type AlertTestDb } from './testing/alert-fixtures';

const SECRET = 'test-secret-0123456789';
let t: AlertTestDb;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await alertTestDb();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const opts = { deliveries: 'await' as const, notifier: { backoffBaseMs: 20 } };

describe('alert transitions', () => {
  it('fires once, refreshes while firing, resolves, fires again as a new alert; one signed delivery per transition', async () => {
    const job = await createJob(t.db, 'rows-job');
    const rule = await t.db.alertRule.create({ data: { name: 'rows > 5', jobId: job.id, kind: 'state-rows', params: { threshold: 5 }, webhookUrl: receiver.url, webhookSecret: SECRET } });
    const before = receiver.received.length;
    const events: string[][] = [];
    for (const [i, rows] of [1, 7, 8, 3, 2, 9].entries()) {
      await addBatch(t.db, job.id, i, { rows });
      events.push((await evaluateJobAlerts(t.db, job.id, opts)).map((x) => x.event));
    }
    expect(events).toEqual([[], ['alert.firing'], [], ['alert.resolved'], [], ['alert.firing']]);

    const alerts = await t.db.alert.findMany({ where: { ruleId: rule.id }, orderBy: { firedAt: 'asc' } });
    expect(alerts.map((a) => a.state)).toEqual(['RESOLVED', 'FIRING']);
    expect(alerts[0].value).toBe(8); // refreshed while firing
    expect(alerts[0].resolvedAt).not.toBeNull();
    expect(new Set(alerts.map((a) => a.dedupKey))).toEqual(new Set([`${rule.id}:${job.id}`]));

    const got = receiver.received.slice(before);
    expect(got.map((r) => JSON.parse(r.body).event)).toEqual(['alert.firing', 'alert.resolved', 'alert.firing']);
    for (const r of got) {
      expect(verifySignature(SECRET, r.body, r.headers['x-weir-signature'] as string)).toBe(true);
      expect(verifySignature('another-secret', r.body, r.headers['x-weir-signature'] as string)).toBe(false);
      expect(r.headers['x-weir-event']).toBe(JSON.parse(r.body).event);
    }
    expect(JSON.parse(got[1].body)).toMatchObject({ alert: { id: alerts[0].id, state: 'RESOLVED' }, rule: { id: rule.id, kind: 'state-rows' }, job: { id: job.id, name: 'rows-job' } });
    const log = await t.db.notificationDelivery.findMany({ where: { ruleId: rule.id }, orderBy: { createdAt: 'asc' } });
    expect(log.map((d) => [d.event, d.status, d.attemptCount, d.lastStatus])).toEqual([
      ['alert.firing', 'DELIVERED', 1, 200],
      ['alert.resolved', 'DELIVERED', 1, 200],
      ['alert.firing', 'DELIVERED', 1, 200],
    ]);
    expect(got.map((r) => r.headers['x-weir-delivery'])).toEqual(log.map((d) => d.id));
  });

  it('concurrent evaluations make exactly one alert and one delivery per transition', async () => {
    const job = await createJob(t.db, 'race-job');
    const rule = await t.db.alertRule.create({ data: { name: 'lag', jobId: job.id, kind: 'commit-lag', params: { threshold: 10 }, webhookUrl: receiver.url, webhookSecret: SECRET } });
    await addBatch(t.db, job.id, 0, { lag: 50 });
    const fired = (await Promise.all(Array.from({ length: 6 }, () => evaluateJobAlerts(t.db, job.id, opts)))).flat();
    expect(fired.map((x) => x.event)).toEqual(['alert.firing']);
    await addBatch(t.db, job.id, 1, { lag: 0 });
    const resolved = (await Promise.all(Array.from({ length: 6 }, () => evaluateJobAlerts(t.db, job.id, opts)))).flat();
    expect(resolved.map((x) => x.event)).toEqual(['alert.resolved']);
    expect(await t.db.alert.count({ where: { ruleId: rule.id } })).toBe(1);
    expect(await t.db.notificationDelivery.count({ where: { ruleId: rule.id, status: 'DELIVERED' } })).toBe(2);
  });

  it('a global rule alerts per job; disabling a rule resolves its alerts', async () => {
    const a = await createJob(t.db, 'global-a');
    const b = await createJob(t.db, 'global-b');
    const rule = await t.db.alertRule.create({ data: { name: 'any failure', kind: 'run-failed', params: {} } });
    await t.db.run.create({ data: { jobId: a.id, runId: 'run-a', status: 'FAILED' } });
    await t.db.run.create({ data: { jobId: b.id, runId: 'run-b', status: 'RUNNING' } });
    expect((await evaluateJobAlerts(t.db, a.id)).length).toBe(1);
    expect((await evaluateJobAlerts(t.db, b.id)).length).toBe(0);
    expect(await t.db.alert.findMany({ where: { ruleId: rule.id, state: 'FIRING' }, select: { jobId: true } })).toEqual([{ jobId: a.id }]);
    await t.db.alertRule.update({ where: { id: rule.id }, data: { enabled: false } });
    expect((await evaluateJobAlerts(t.db, a.id)).map((x) => x.event)).toEqual(['alert.resolved']);
  });
});
