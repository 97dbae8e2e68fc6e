/**
 * The audit log, newest first, keyset-paginated on (createdAt, id): `nextCursor` is opaque to
 * clients (`<iso time>|<id>`). Optional filters by target.
 */
import type { AuditEvent, PrismaClient } from '@/lib/generated/prisma/client';
import { BadRequestError } from '../errors';

export interface AuditEventView {
  id: string;
  actor: string;
  actorRole: string;
  action: string;
  targetType: string;
  targetId: string | null;
  before: unknown;
  after: unknown;
  createdAt: string;
}

function present(e: AuditEvent): AuditEventView {
  return { id: e.id, actor: e.actor, actorRole: e.actorRole, action: e.action, targetType: e.targetType, targetId: e.targetId, before: e.before, after: e.after, createdAt: e.createdAt.toISOString() };
}

export async function listAuditEvents(
  db: PrismaClient,
  opts: { targetType?: string; targetId?: string; cursor?: string; limit?: number } = {},
): Promise<{ items: AuditEventView[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
  let keyset = {};
  if (opts.cursor) {
    const [iso, id] = opts.cursor.split('|');
    const at = new Date(iso);
    if (!id || Number.isNaN(at.getTime())) throw new BadRequestError('cursor is not one this API returned; pass nextCursor from the previous page.', { path: 'cursor' });
    keyset = { OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: id } }] };
  }
  const rows = await db.auditEvent.findMany({
    where: { ...(opts.targetType ? { targetType: opts.targetType } : {}), ...(opts.targetId ? { targetId: opts.targetId } : {}), ...keyset },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page.map(present), nextCursor: rows.length > limit && last ? `${last.createdAt.toISOString()}|${last.id}` : null };
}
