/**
 * Reads for the alerts page, the badges and the API: alerts (firing first, then history), the
 * firing count overall and per job, rules with their webhook secret masked, and an alert's
 * delivery log. Plain JSON views, never Prisma rows.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { NotFoundError } from '../errors';
import { ALERT_INCLUDE, presentAlert, presentRule, type AlertRuleView, type AlertView } from './alert-view';

export interface DeliveryView {
  id: string;
  event: string;
  url: string;
  status: string;
  attemptCount: number;
  lastStatus: number | null;
  lastError: string | null;
  attempts: unknown;
  createdAt: string;
  deliveredAt: string | null;
}

export async function listAlerts(db: PrismaClient, q: { state?: 'FIRING' | 'RESOLVED'; jobId?: string; limit: number }): Promise<AlertView[]> {
  const rows = await db.alert.findMany({
    where: { ...(q.state ? { state: q.state } : {}), ...(q.jobId ? { jobId: q.jobId } : {}) },
    // FIRING sorts before RESOLVED (enum order), newest first within each.
    orderBy: [{ state: 'asc' }, { firedAt: 'desc' }],
    take: q.limit,
    include: ALERT_INCLUDE,
  });
  return rows.map(presentAlert);
}

export async function getAlert(db: PrismaClient, id: string): Promise<AlertView & { deliveries: DeliveryView[] }> {
  const a = await db.alert.findUnique({ where: { id }, include: { ...ALERT_INCLUDE, deliveries: { orderBy: { createdAt: 'asc' } } } });
  if (!a) throw new NotFoundError('alert', id);
  return {
    ...presentAlert(a),
    deliveries: a.deliveries.map((d) => ({ id: d.id, event: d.event, url: d.url, status: d.status, attemptCount: d.attemptCount, lastStatus: d.lastStatus, lastError: d.lastError, attempts: d.attempts, createdAt: d.createdAt.toISOString(), deliveredAt: d.deliveredAt?.toISOString() ?? null })),
  };
}

/**
 * What the badges show: firing alerts overall and per job, and how many of the firing ones
 * nobody has acknowledged yet (the navigation badge: what still needs someone).
 */
export async function alertSummary(db: PrismaClient): Promise<{ firing: number; unacknowledged: number; byJob: Record<string, number> }> {
  const groups = await db.alert.groupBy({ by: ['jobId', 'acknowledgedBy'], where: { state: 'FIRING' }, _count: { _all: true } });
  const byJob: Record<string, number> = {};
  let firing = 0;
  let unacknowledged = 0;
  for (const g of groups) {
    firing += g._count._all;
    if (g.acknowledgedBy === null) unacknowledged += g._count._all;
    if (g.jobId) byJob[g.jobId] = (byJob[g.jobId] ?? 0) + g._count._all;
  }
  return { firing, unacknowledged, byJob };
}

export async function listAlertRules(db: PrismaClient, q: { jobId?: string } = {}): Promise<AlertRuleView[]> {
  const rows = await db.alertRule.findMany({ where: q.jobId ? { OR: [{ jobId: q.jobId }, { jobId: null }] } : {}, orderBy: { createdAt: 'asc' } });
  return rows.map(presentRule);
}

export async function getAlertRule(db: PrismaClient, id: string): Promise<AlertRuleView> {
  const r = await db.alertRule.findUnique({ where: { id } });
  if (!r) throw new NotFoundError('alert-rule', id);
  return presentRule(r);
}

/** Everything the alerts page shows first: alerts (firing first), rules, and jobs to pick from. */
export async function alertsPageData(db: PrismaClient) {
  const [alerts, rules, jobs] = await Promise.all([listAlerts(db, { limit: 200 }), listAlertRules(db), db.job.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } })]);
  return { alerts, rules, jobs };
}
