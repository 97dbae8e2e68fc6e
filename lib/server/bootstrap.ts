/**
 * First-start bootstrap: the admin API token from WEIR_ADMIN_TOKEN and the UI admin user from
 * WEIR_ADMIN_PASSWORD, each created once (an existing token or user is left alone).
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { hashToken, hashPassword } from './credentials';

export async function bootstrapCredentials(
  db: PrismaClient,
  opts: { adminToken?: string; adminPassword?: string },
): Promise<{ tokenCreated: boolean; userCreated: boolean }> {
  let tokenCreated = false;
  let userCreated = false;
  if (opts.adminToken) {
    const tokenHash = hashToken(opts.adminToken);
    const existing = await db.apiToken.findUnique({ where: { tokenHash } });
    if (!existing) {
      await db.apiToken.create({ data: { name: 'admin (WEIR_ADMIN_TOKEN)', tokenHash, role: 'admin' } });
      tokenCreated = true;
    }
  }
  if (opts.adminPassword) {
    const existing = await db.user.findUnique({ where: { username: 'admin' } });
    if (!existing) {
      await db.user.create({ data: { username: 'admin', passwordHash: await hashPassword(opts.adminPassword), role: 'admin' } });
      userCreated = true;
    }
  }
  return { tokenCreated, userCreated };
}
