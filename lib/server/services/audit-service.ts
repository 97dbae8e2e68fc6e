/**
 * The audit log: every change made through the API is one AuditEvent (who, what, when, the state
 * before and after). Written in the same transaction as the change it records, so there is never
 * a change without its event or an event without its change. Before/after are presenter views
 * (secrets masked): the audit log is itself something viewers read.
 */
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import type { Principal } from '../auth';

export type Db = PrismaClient | Prisma.TransactionClient;

export interface AuditInput {
  action: string;
  targetType: 'job' | 'token' | 'session' | 'alert-rule' | 'alert' | 'user';
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
}

const json = (v: unknown): Prisma.InputJsonValue | undefined =>
  v === undefined || v === null ? undefined : (JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue);

export async function recordAudit(db: Db, who: Principal, e: AuditInput): Promise<void> {
  await db.auditEvent.create({
    data: {
      actor: who.actor,
      actorRole: who.role,
      action: e.action,
      targetType: e.targetType,
      targetId: e.targetId ?? null,
      before: json(e.before),
      after: json(e.after),
    },
  });
}
