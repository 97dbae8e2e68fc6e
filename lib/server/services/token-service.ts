/**
 * API tokens (admin only): created with a role, shown in plain text exactly once, stored as
 * SHA-256; revoking one also ends the UI sessions signed in with it (auth.ts checks).
 */
// Never in a browser bundle: a client component importing this fails the build.
import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { forgetToken, requireRole, type Principal, type Role } from '../auth';
import { hashToken, newToken } from '../credentials';
import { NotFoundError } from '../errors';
import { recordAudit } from './audit-service';

export interface TokenView {
  id: string;
  name: string;
  role: Role;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

function present(t: { id: string; name: string; role: Role; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null }): TokenView {
  return { id: t.id, name: t.name, role: t.role, createdAt: t.createdAt.toISOString(), lastUsedAt: t.lastUsedAt?.toISOString() ?? null, revokedAt: t.revokedAt?.toISOString() ?? null };
}

export async function listTokens(db: PrismaClient, who: Principal): Promise<TokenView[]> {
  requireRole(who, 'admin', 'list API tokens');
  return (await db.apiToken.findMany({ orderBy: { createdAt: 'desc' } })).map(present);
}

export async function createToken(db: PrismaClient, who: Principal, input: { name: string; role: Role }): Promise<TokenView & { token: string }> {
  requireRole(who, 'admin', 'create API tokens');
  const token = newToken();
  const row = await db.$transaction(async (tx) => {
    const r = await tx.apiToken.create({ data: { name: input.name, role: input.role, tokenHash: hashToken(token) } });
    await recordAudit(tx, who, { action: 'token.create', targetType: 'token', targetId: r.id, after: present(r) });
    return r;
  });
  return { ...present(row), token };
}

export async function revokeToken(db: PrismaClient, who: Principal, id: string): Promise<TokenView> {
  requireRole(who, 'admin', 'revoke API tokens');
  const before = await db.apiToken.findUnique({ where: { id } });
  if (!before) throw new NotFoundError('token', id);
  if (before.revokedAt) return present(before);
  const row = await db.$transaction(async (tx) => {
    const r = await tx.apiToken.update({ where: { id }, data: { revokedAt: new Date() } });
    await tx.session.deleteMany({ where: { apiTokenId: id } });
    await recordAudit(tx, who, { action: 'token.revoke', targetType: 'token', targetId: id, before: present(before), after: present(r) });
    return r;
  });
  forgetToken(id);
  return present(row);
}
