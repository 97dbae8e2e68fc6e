/**
 * Alert state transitions, de-duplicated by dedupKey = `<ruleId>:<jobId>`:
 *
 *   condition holds,  no FIRING alert  → create one FIRING alert            (transition: fired)
 *   condition holds,  FIRING alert     → refresh its message and value     (no transition)
 *   condition clears, FIRING alert     → set it RESOLVED with resolvedAt    (transition: resolved)
 *   condition clears, no FIRING alert  → nothing
 *
 * A resolved alert is history; the next firing creates a new row. Evaluations race (after each
 * batch, on run changes, on the schedule, in several workers): the partial unique index
 * `Alert_dedupKey_firing_key` (migration 20261129110000_alerts) lets only one FIRING row exist per
 * key, and a resolve is a conditional update (`WHERE state = 'FIRING'`), so exactly one evaluator
 * wins each transition and only the winner queues its notification. The notification row is
 * written in the same transaction as the transition, so a crash cannot lose or double it.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Condition } from './rule-evaluation';

export interface RuleForTransition {
  id: string;
  name: string;
  kind: string;
  webhookUrl: string | null;
  webhookSecret: string | null;
}

export interface Transition {
  event: 'alert.firing' | 'alert.resolved';
  alertId: string;
  dedupKey: string;
  deliveryId: string | null;
}

const dedupKeyOf = (ruleId: string, jobId: string) => `${ruleId}:${jobId}`;

const json = (v: unknown) => JSON.parse(JSON.stringify(v ?? null));

function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; meta?: { code?: string }; message?: string };
  return err?.code === 'P2002' || err?.meta?.code === '23505' || /unique constraint/i.test(err?.message ?? '');
}

/** The webhook body of one transition; fixed at creation so each retry sends the same bytes. */
function deliveryBody(deliveryId: string, event: Transition['event'], alert: { id: string; state: string; kind: string; dedupKey: string; message: string; value: number | null; firedAt: Date; resolvedAt: Date | null }, rule: RuleForTransition, job: { id: string; name: string }): string {
  return JSON.stringify({
    event,
    deliveryId,
    alert: { id: alert.id, state: alert.state, kind: alert.kind, dedupKey: alert.dedupKey, message: alert.message, value: alert.value, firedAt: alert.firedAt.toISOString(), resolvedAt: alert.resolvedAt?.toISOString() ?? null },
    rule: { id: rule.id, name: rule.name, kind: rule.kind },
    job,
  });
}

export async function applyCondition(db: PrismaClient, rule: RuleForTransition, job: { id: string; name: string }, c: Condition, now: Date): Promise<Transition | null> {
  const dedupKey = dedupKeyOf(rule.id, job.id);
  const firing = await db.alert.findFirst({ where: { dedupKey, state: 'FIRING' } });
  if (c.holds && firing) {
    if (firing.message !== c.message || firing.value !== c.value) {
      await db.alert.updateMany({ where: { id: firing.id, state: 'FIRING' }, data: { message: c.message, value: c.value, details: json(c.details) } });
    }
    return null;
  }
  if (!c.holds && !firing) return null;
  const deliveryId = rule.webhookUrl ? randomUUID() : null;
  if (c.holds) {
    try {
      return await db.$transaction(async (tx) => {
        const alert = await tx.alert.create({ data: { ruleId: rule.id, jobId: job.id, kind: rule.kind, state: 'FIRING', dedupKey, message: c.message, value: c.value, details: json(c.details), firedAt: now } });
        if (deliveryId) {
          await tx.notificationDelivery.create({ data: { id: deliveryId, alertId: alert.id, ruleId: rule.id, event: 'alert.firing', url: rule.webhookUrl!, body: deliveryBody(deliveryId, 'alert.firing', alert, rule, job), nextAttemptAt: now } });
        }
        return { event: 'alert.firing' as const, alertId: alert.id, dedupKey, deliveryId };
      });
    } catch (e) {
      if (isUniqueViolation(e)) return null; // another evaluator fired it first
      throw e;
    }
  }
  return db.$transaction(async (tx) => {
    const won = await tx.alert.updateMany({ where: { id: firing!.id, state: 'FIRING' }, data: { state: 'RESOLVED', resolvedAt: now } });
    if (won.count !== 1) return null; // another evaluator resolved it first
    const alert = { ...firing!, state: 'RESOLVED', resolvedAt: now };
    if (deliveryId) {
      await tx.notificationDelivery.create({ data: { id: deliveryId, alertId: alert.id, ruleId: rule.id, event: 'alert.resolved', url: rule.webhookUrl!, body: deliveryBody(deliveryId, 'alert.resolved', alert, rule, job), nextAttemptAt: now } });
    }
    return { event: 'alert.resolved' as const, alertId: alert.id, dedupKey, deliveryId };
  });
}
