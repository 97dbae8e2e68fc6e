/**
 * The alert routes through their handlers on a real database: admins create, edit and delete
 * rules (audited, secret masked on read, bad params a 400 naming the field), viewers read alerts,
 * the summary counts firing alerts per job, an alert shows its delivery log, and operators
 * acknowledge firing alerts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as alertsRoute from '@/app/api/alerts/route';
import * as alertRoute from '@/app/api/alerts/[id]/route';
import * as ackRoute from '@/app/api/alerts/[id]/acknowledge/route';
import * as summaryRoute from '@/app/api/alerts/summary/route';
import * as rulesRoute from '@/app/api/alert-rules/route';
import * as ruleRoute from '@/app/api/alert-rules/[id]/route';
import { setupApiTestKit, type ApiTestKit } from '../testing/api-test-kit';
import { evaluateJobAlerts } from './alert-evaluator';
import { addBatch, createJob } from './testing/alert-fixtures';

let kit: ApiTestKit;
beforeAll(async () => {
  kit = await setupApiTestKit();
});
afterAll(async () => kit?.teardown());

describe('alert API', () => {
  it('creates, reads, edits and deletes a rule; the secret never reads back; each change is audited', async () => {
    const job = await createJob(kit.db, 'api-rule-job');
    const body = { name: 'rows', jobId: job.id, kind: 'state-rows', params: { threshold: 10 }, webhookUrl: 'http://127.0.0.1:9/hook', webhookSecret: 'hook-secret-123' };
    const created = await kit.call(rulesRoute.POST, '/api/alert-rules', { method: 'POST', token: kit.tokens.admin, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'rows', kind: 'state-rows', params: { threshold: 10 }, webhookSecret: '********', enabled: true });
    const id = created.body.id;

    const listed = await kit.call(rulesRoute.GET, `/api/alert-rules?jobId=${job.id}`, { token: kit.tokens.viewer });
    expect(listed.body.items.map((r: { id: string }) => r.id)).toContain(id);

    const edited = await kit.call(ruleRoute.PUT, `/api/alert-rules/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { params: { threshold: 20 }, webhookSecret: '********' } });
    expect(edited.status).toBe(200);
    expect(edited.body.params).toEqual({ threshold: 20 });
    expect((await kit.db.alertRule.findUniqueOrThrow({ where: { id } })).webhookSecret).toBe('hook-secret-123');

    const bad = await kit.call(ruleRoute.PUT, `/api/alert-rules/${id}`, { method: 'PUT', token: kit.tokens.admin, params: { id }, body: { params: { threshold: 'lots' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('params.threshold');

    expect((await kit.call(ruleRoute.DELETE, `/api/alert-rules/${id}`, { method: 'DELETE', token: kit.tokens.admin, params: { id } })).status).toBe(204);
    expect((await kit.call(ruleRoute.GET, `/api/alert-rules/${id}`, { token: kit.tokens.viewer, params: { id } })).status).toBe(404);
    const audit = await kit.db.auditEvent.findMany({ where: { targetType: 'alert-rule', targetId: id }, orderBy: { createdAt: 'asc' } });
    expect(audit.map((a) => a.action)).toEqual(['alert-rule.create', 'alert-rule.update', 'alert-rule.delete']);
    expect(JSON.stringify(audit)).not.toContain('hook-secret-123');
  });

  it('refuses bad rules with a 400 naming the field', async () => {
    const cases: [object, string][] = [
      [{ name: 'x', kind: 'state-growth', params: { windowMs: 1000 } }, 'params.percentPerHour'],
      [{ name: 'x', kind: 'no-such-kind' }, 'kind'],
      [{ name: 'x', kind: 'run-failed', webhookUrl: 'http://127.0.0.1/h' }, 'webhookSecret'],
      [{ name: 'x', kind: 'run-failed', jobId: 'missing-job' }, 'jobId'],
    ];
    for (const [body, path] of cases) {
      const r = await kit.call(rulesRoute.POST, '/api/alert-rules', { method: 'POST', token: kit.tokens.admin, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(r.body.error.details), JSON.stringify(body)).toContain(path);
    }
  });

  it('lists firing alerts first, counts them per job, and shows one alert with its delivery log', async () => {
    const job = await createJob(kit.db, 'api-alert-job');
    const rule = await kit.call(rulesRoute.POST, '/api/alert-rules', { method: 'POST', token: kit.tokens.admin, body: { name: 'lag', jobId: job.id, kind: 'commit-lag', params: { threshold: 5 } } });
    await addBatch(kit.db, job.id, 0, { lag: 9 });
    await evaluateJobAlerts(kit.db, job.id);
    await addBatch(kit.db, job.id, 1, { lag: 0 });
    await evaluateJobAlerts(kit.db, job.id);
    await addBatch(kit.db, job.id, 2, { lag: 7 });
    await evaluateJobAlerts(kit.db, job.id);

    const list = await kit.call(alertsRoute.GET, `/api/alerts?jobId=${job.id}`, { token: kit.tokens.viewer });
    expect(list.body.items.map((a: { state: string }) => a.state)).toEqual(['FIRING', 'RESOLVED']);
    expect(list.body.items[0]).toMatchObject({ ruleId: rule.body.id, ruleName: 'lag', jobName: 'api-alert-job', kind: 'commit-lag', value: 7 });
    const summary = await kit.call(summaryRoute.GET, '/api/alerts/summary', { token: kit.tokens.viewer });
    expect(summary.body.byJob[job.id]).toBe(1);
    expect(summary.body.firing).toBeGreaterThanOrEqual(1);
    const one = await kit.call(alertRoute.GET, `/api/alerts/${list.body.items[0].id}`, { token: kit.tokens.viewer, params: { id: list.body.items[0].id } });
    expect(one.body).toMatchObject({ state: 'FIRING', deliveries: [] });
    expect((await kit.call(alertsRoute.GET, '/api/alerts?state=LOUD', { token: kit.tokens.viewer })).status).toBe(400);
  });

  it('an operator acknowledges a firing alert once (audited); it keeps firing but leaves the unacknowledged count; viewers cannot; a resolved one is 409', async () => {
    const job = await createJob(kit.db, 'api-ack-job');
    await kit.call(rulesRoute.POST, '/api/alert-rules', { method: 'POST', token: kit.tokens.admin, body: { name: 'lag', jobId: job.id, kind: 'commit-lag', params: { threshold: 5 } } });
    await addBatch(kit.db, job.id, 0, { lag: 9 });
    await evaluateJobAlerts(kit.db, job.id);
    const [alert] = (await kit.call(alertsRoute.GET, `/api/alerts?jobId=${job.id}&state=FIRING`, { token: kit.tokens.viewer })).body.items;
    expect(alert).toMatchObject({ state: 'FIRING', acknowledgedBy: null, acknowledgedAt: null });
    const summary = async () => (await kit.call(summaryRoute.GET, '/api/alerts/summary', { token: kit.tokens.viewer })).body;
    const before = await summary();
    const ack = (token: string) => kit.call(ackRoute.POST, `/api/alerts/${alert.id}/acknowledge`, { method: 'POST', token, params: { id: alert.id } });

    expect((await ack(kit.tokens.viewer)).status).toBe(403);
    const first = await ack(kit.tokens.operator);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: alert.id, state: 'FIRING', acknowledgedBy: expect.any(String) });
    expect(Date.parse(first.body.acknowledgedAt)).toBeGreaterThanOrEqual(Date.parse(alert.firedAt));
    const again = await ack(kit.tokens.admin);
    expect(again.status).toBe(200);
    expect(again.body.acknowledgedBy).toBe(first.body.acknowledgedBy); // the first acknowledgement stands
    const after = await summary();
    expect(after.firing).toBe(before.firing);
    expect(after.unacknowledged).toBe(before.unacknowledged - 1);
    expect(after.byJob[job.id]).toBe(1);
    const audit = await kit.db.auditEvent.findMany({ where: { targetType: 'alert', targetId: alert.id } });
    expect(audit.map((a) => [a.action, a.actorRole])).toEqual([['alert.acknowledge', 'operator']]);

    // Resolved (the lag cleared): nothing left to acknowledge.
    await addBatch(kit.db, job.id, 1, { lag: 0 });
    await evaluateJobAlerts(kit.db, job.id);
    const resolved = await ack(kit.tokens.operator);
    expect(resolved.status).toBe(409);
    expect(resolved.body.error.message).toContain('only a firing alert can be acknowledged');
    expect((await kit.call(ackRoute.POST, '/api/alerts/missing-0/acknowledge', { method: 'POST', token: kit.tokens.operator, params: { id: 'missing-0' } })).status).toBe(404);
  });
});
