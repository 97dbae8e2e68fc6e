/**
 * Alert rules and alerts as everyone outside the database sees them: plain JSON, never Prisma
 * rows, a rule's webhook secret masked. The presenter (alert-presenter.ts) answers reads with
 * them; the rule service returns them after a write.
 */
import type { Prisma } from '@/lib/generated/prisma/client';

export interface AlertRuleView {
  id: string;
  name: string;
  jobId: string | null;
  kind: string;
  params: unknown;
  enabled: boolean;
  webhookUrl: string | null;
  /** `********` when a secret is set; the secret itself is never read back. */
  webhookSecret: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AlertView {
  id: string;
  ruleId: string | null;
  ruleName: string | null;
  jobId: string | null;
  jobName: string | null;
  kind: string;
  state: 'FIRING' | 'RESOLVED';
  dedupKey: string;
  message: string;
  value: number | null;
  details: unknown;
  firedAt: string;
  resolvedAt: string | null;
  /** Who acknowledged the alert while it fired, and when (null: nobody). */
  acknowledgedBy: string | null;
  acknowledgedAt: string | null;
}

type RuleRow = { id: string; name: string; jobId: string | null; kind: string; params: unknown; enabled: boolean; webhookUrl: string | null; webhookSecret: string | null; createdAt: Date; updatedAt: Date };

export function presentRule(r: RuleRow): AlertRuleView {
  return { id: r.id, name: r.name, jobId: r.jobId, kind: r.kind, params: r.params, enabled: r.enabled, webhookUrl: r.webhookUrl, webhookSecret: r.webhookSecret ? '********' : null, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() };
}

export const ALERT_INCLUDE = { rule: { select: { name: true } }, job: { select: { name: true } } } as const;

export function presentAlert(a: Prisma.AlertGetPayload<{ include: typeof ALERT_INCLUDE }>): AlertView {
  return {
    id: a.id,
    ruleId: a.ruleId,
    ruleName: a.rule?.name ?? null,
    jobId: a.jobId,
    jobName: a.job?.name ?? null,
    kind: a.kind,
    state: a.state,
    dedupKey: a.dedupKey,
    message: a.message,
    value: a.value,
    details: a.details,
    firedAt: a.firedAt.toISOString(),
    resolvedAt: a.resolvedAt?.toISOString() ?? null,
    acknowledgedBy: a.acknowledgedBy,
    acknowledgedAt: a.acknowledgedAt?.toISOString() ?? null,
  };
}
