/**
 * First-start bootstrap: the admin API token from WEIR_ADMIN_TOKEN and the UI admin user from
 * WEIR_ADMIN_PASSWORD, each created once (an existing token or user is left alone).
 *
 * With neither set and no user yet, a newcomer would face a sign-in that cannot succeed, so the
 * admin is created with a generated one-time password, which `npm start` prints beside the
 * dashboard URL; the first sign-in with it leads to /account/password, where the admin sets their
 * own. Until they do, every start issues a new one-time password (the one printed earlier stops
 * working), so a lost terminal is not a lost way in.
 */
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { hashToken, hashPassword } from './credentials';

const ADMIN_USERNAME = 'admin';

/** 16 characters from base64url without the ones easy to misread (a mistyped copy is the usual failure). */
export function generateOneTimePassword(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(32);
  let out = '';
  for (const b of bytes) {
    // 224 = 4 × 56: rejecting the rest keeps every character equally likely.
    if (b < 224) out += alphabet[b % alphabet.length];
    if (out.length === 16) break;
  }
  return out.length === 16 ? out : generateOneTimePassword();
}

export interface BootstrapResult {
  tokenCreated: boolean;
  userCreated: boolean;
  /** The admin's one-time password, to print once: set when it was created or reissued now. */
  oneTimePassword?: { username: string; password: string; reissued: boolean };
}

export async function bootstrapCredentials(db: PrismaClient, opts: { adminToken?: string; adminPassword?: string }): Promise<BootstrapResult> {
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
    const existing = await db.user.findUnique({ where: { username: ADMIN_USERNAME } });
    if (!existing) {
      await db.user.create({ data: { username: ADMIN_USERNAME, passwordHash: await hashPassword(opts.adminPassword), role: 'admin' } });
      userCreated = true;
    }
  }
  if (opts.adminToken || opts.adminPassword) return { tokenCreated, userCreated };

  // Nothing configured: the first start's admin, or a new one-time password while it is unclaimed.
  const password = generateOneTimePassword();
  const passwordHash = await hashPassword(password);
  if ((await db.user.count()) === 0) {
    await db.user.create({ data: { username: ADMIN_USERNAME, passwordHash, role: 'admin', mustChangePassword: true } });
    return { tokenCreated, userCreated: true, oneTimePassword: { username: ADMIN_USERNAME, password, reissued: false } };
  }
  const unclaimed = await db.user.findFirst({ where: { username: ADMIN_USERNAME, mustChangePassword: true } });
  if (!unclaimed) return { tokenCreated, userCreated };
  await db.user.update({ where: { id: unclaimed.id }, data: { passwordHash } });
  // A session opened with the previous one-time password could no longer change it: end it.
  await db.session.deleteMany({ where: { userId: unclaimed.id } });
  return { tokenCreated, userCreated, oneTimePassword: { username: ADMIN_USERNAME, password, reissued: true } };
}
