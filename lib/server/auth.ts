/**
 * Who is calling, and may they do this.
 *
 * Two ways in, one Principal out:
 * - API clients send `Authorization: Bearer <token>`. Tokens are stored as SHA-256 only
 *   (credentials.ts); a revoked token is refused.
 * - The UI signs in once (POST /api/auth/signin with an API token, or a username and password)
 *   and gets an HttpOnly, SameSite=Lax cookie holding a random session token; the Session row
 *   stores its SHA-256 and an expiry, so signing out (or revoking the token it came from) ends it.
 *   A cookie-authenticated write (POST, PUT, PATCH, DELETE) must prove it comes from this app's
 *   own pages (`checkSameOrigin`): SameSite covers modern browsers, the Origin check covers the
 *   rest. Bearer-token calls carry no ambient credential, so they need no Origin.
 *
 * Roles are ordered viewer < operator < admin: viewers read; operators also start, stop and
 * restart; admins also create, edit, delete, reset checkpoints and manage tokens.
 */
// Never in a browser bundle: a client component importing this fails the build.
import 'server-only';
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { hashPassword, hashToken, verifyPassword } from './credentials';
import { BadRequestError, ForbiddenError, UnauthenticatedError } from './errors';
import { actorName } from './actor';

export type Role = 'viewer' | 'operator' | 'admin';
export const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];

export interface Principal {
  /** `token:<name>` or `user:<username>`: what AuditEvent.actor records. */
  actor: string;
  role: Role;
  via: 'bearer' | 'session';
  apiTokenId?: string;
  userId?: string;
  sessionId?: string;
  /** Signed in with a generated one-time password: only setting their own is allowed. */
  mustChangePassword?: boolean;
}

const SESSION_COOKIE = 'weir_session';
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** lastUsedAt is a hint for admins, not an access log: write it at most once a minute per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

const WHAT_ROLE_ALLOWS: Record<Role, string> = {
  viewer: 'read jobs, runs, batches, checkpoints and the audit log',
  operator: 'start, stop and restart jobs',
  admin: 'create, edit, delete jobs, reset checkpoints and manage tokens',
};

export function requireRole(p: Principal, needed: Role, action: string): void {
  if (!roleAtLeast(p.role, needed)) {
    throw new ForbiddenError(
      `${actorName(p.actor)} has the role ${p.role} and may not ${action}: that needs ${needed} (${WHAT_ROLE_ALLOWS[needed]}). Ask an admin for a token with that role.`,
      { role: p.role, needed, action },
    );
  }
}

function cookieValue(req: Request, name: string): string | undefined {
  const header = req.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/**
 * Valid bearer tokens are remembered for a few seconds: automation polls the API, and the token
 * lookup was a quarter of a list request's cost. Only valid tokens are cached (an unknown or
 * revoked one is looked up every time); revoking in this process forgets the token at once
 * (`forgetToken`), another server process honours the revocation within TOKEN_CACHE_MS.
 */
const TOKEN_CACHE_MS = 5_000;
const TOKEN_CACHE_MAX = 1_000;
const tokenCache = new Map<string, { principal: Principal; until: number }>();

export function forgetToken(apiTokenId: string): void {
  for (const [hash, entry] of tokenCache) if (entry.principal.apiTokenId === apiTokenId) tokenCache.delete(hash);
}

async function principalFromToken(db: PrismaClient, token: string): Promise<Principal | undefined> {
  const tokenHash = hashToken(token);
  const now = new Date();
  const cached = tokenCache.get(tokenHash);
  if (cached && cached.until > now.getTime()) return cached.principal;
  const row = await db.apiToken.findUnique({ where: { tokenHash } });
  if (!row || row.revokedAt) {
    tokenCache.delete(tokenHash);
    return undefined;
  }
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
  }
  const principal: Principal = { actor: `token:${row.name}`, role: row.role, via: 'bearer', apiTokenId: row.id };
  if (tokenCache.size >= TOKEN_CACHE_MAX) tokenCache.clear();
  tokenCache.set(tokenHash, { principal, until: now.getTime() + TOKEN_CACHE_MS });
  return principal;
}

function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/** The host this app answers as: what a reverse proxy forwarded, else the Host header. */
function ownHost(req: Request): string {
  return req.headers.get('x-forwarded-host')?.split(',')[0].trim() || req.headers.get('host') || new URL(req.url).host;
}

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/**
 * A write made with the session cookie must come from this app's own pages. Browsers send
 * `Origin` on every fetch and form POST, so it must be present and name this host; only a
 * browser's own `Sec-Fetch-Site: same-origin` (a header pages cannot set) stands in for a
 * missing one. `Origin: null` (sandboxed frames, file: pages, some redirects) and no Origin at
 * all are refused: they are how a cross-site form would otherwise get through.
 */
function checkSameOrigin(req: Request): void {
  const origin = req.headers.get('origin');
  const host = ownHost(req);
  if (origin !== null && origin !== 'null') {
    if (originHost(origin) === host) return;
    throw new ForbiddenError(`A cross-site request (Origin ${origin.slice(0, 200)}) may not use the session cookie; call the API with a bearer token instead.`, { origin: origin.slice(0, 200) });
  }
  if (origin === null && req.headers.get('sec-fetch-site') === 'same-origin') return;
  throw new ForbiddenError(
    `A change made with the session cookie needs the Origin header of this app (${host}); this request had ${origin === null ? 'none' : 'Origin: null'}. Make it from the Weir pages, or call the API with a bearer token (Authorization: Bearer <token>).`,
    { origin },
  );
}

/**
 * The caller, or undefined when the request carries no valid credentials. `sameOrigin: false`
 * skips the Origin rule for a session write: only sign-out uses it (ending one's own session is
 * harmless whoever asks, and it must work from any state of the browser).
 */
export async function authenticate(db: PrismaClient, req: Request, opts: { sameOrigin?: boolean } = {}): Promise<Principal | undefined> {
  const authz = req.headers.get('authorization');
  if (authz) {
    const m = /^Bearer\s+(\S+)$/i.exec(authz.trim());
    if (!m) throw new UnauthenticatedError('The Authorization header must be `Bearer <api token>`.');
    const p = await principalFromToken(db, m[1]);
    if (!p) throw new UnauthenticatedError('This API token is unknown or revoked. Ask an admin for a new one (POST /api/tokens).');
    return p;
  }
  const sessionToken = cookieValue(req, SESSION_COOKIE);
  if (!sessionToken) return undefined;
  const session = await db.session.findUnique({ where: { tokenHash: hashToken(sessionToken) } });
  if (!session || session.expiresAt.getTime() <= Date.now()) return undefined;
  if (session.apiTokenId) {
    const token = await db.apiToken.findUnique({ where: { id: session.apiTokenId } });
    if (!token || token.revokedAt) return undefined;
  }
  if (!isSafeMethod(req.method) && opts.sameOrigin !== false) checkSameOrigin(req);
  const user = session.userId ? await db.user.findUnique({ where: { id: session.userId }, select: { mustChangePassword: true } }) : null;
  return {
    actor: session.actor,
    role: session.role,
    via: 'session',
    sessionId: session.id,
    userId: session.userId ?? undefined,
    apiTokenId: session.apiTokenId ?? undefined,
    ...(user?.mustChangePassword ? { mustChangePassword: true } : {}),
  };
}

export const CHANGE_PASSWORD_PAGE = '/account/password';

/**
 * authenticate + requireRole: throws 401 without credentials, 403 below the needed role, and 403
 * for a one-time password's session until its user has set their own password (unless the
 * route is part of doing so: `duringPasswordChange`).
 */
export async function authorize(db: PrismaClient, req: Request, needed: Role, action: string, opts: { duringPasswordChange?: boolean } = {}): Promise<Principal> {
  const p = await authenticate(db, req);
  if (!p) throw new UnauthenticatedError();
  if (p.mustChangePassword && !opts.duringPasswordChange) {
    throw new ForbiddenError(
      `${actorName(p.actor)} signed in with a one-time password: set your own password first, at ${CHANGE_PASSWORD_PAGE} in the dashboard or with POST /api/auth/password {"currentPassword", "newPassword"}.`,
      { mustChangePassword: true },
    );
  }
  requireRole(p, needed, action);
  return p;
}

/** Long enough that guessing it online (10 tries per quarter hour, see below) is hopeless. */
const MIN_PASSWORD_LENGTH = 12;

/**
 * A signed-in user sets their own password, proving the current one (a stolen session alone
 * cannot lock its owner out). Clears mustChangePassword and ends the user's other sessions.
 */
export async function changePassword(db: PrismaClient, p: Principal, input: { currentPassword: string; newPassword: string }): Promise<void> {
  if (!p.userId) {
    throw new BadRequestError(`${actorName(p.actor)} is an API token, which has no password to change; sign in with a username and password to change one.`);
  }
  const user = await db.user.findUnique({ where: { id: p.userId } });
  if (!user) throw new UnauthenticatedError('This session belongs to a user that no longer exists; sign in again.');
  if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
    throw new BadRequestError('The current password is wrong: type the password you signed in with (a one-time password is the one npm start printed).', { field: 'currentPassword' });
  }
  if (input.newPassword.length < MIN_PASSWORD_LENGTH) {
    throw new BadRequestError(`The new password is too short: use at least ${MIN_PASSWORD_LENGTH} characters.`, { field: 'newPassword' });
  }
  if (input.newPassword === input.currentPassword) {
    throw new BadRequestError('The new password is the current one: choose a different password.', { field: 'newPassword' });
  }
  await db.user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(input.newPassword), mustChangePassword: false } });
  await db.session.deleteMany({ where: { userId: user.id, ...(p.sessionId ? { id: { not: p.sessionId } } : {}) } });
}

export type SignInInput = { token: string } | { username: string; password: string };

/**
 * Online password guessing: after SIGN_IN_MAX_FAILURES wrong passwords for one username within
 * SIGN_IN_WINDOW_MS, that username is refused (even with the right password) until the window
 * has passed. The failures are rows in PostgreSQL (SignInFailure), so every server process
 * behind a load balancer counts the same ones: spreading guesses over replicas gains nothing.
 * Enough to turn a guessing attack from scrypt speed into a handful of tries per quarter hour.
 * Tokens need no limiter (192 random bits).
 */
export const SIGN_IN_MAX_FAILURES = 10;
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/** The username's failures inside the window, oldest first (at most the limit's worth). */
async function recentFailures(db: PrismaClient, username: string, now: number): Promise<Date[]> {
  const rows = await db.signInFailure.findMany({
    where: { username, at: { gt: new Date(now - SIGN_IN_WINDOW_MS) } },
    orderBy: { at: 'desc' },
    take: SIGN_IN_MAX_FAILURES,
    select: { at: true },
  });
  return rows.map((r) => r.at).reverse();
}

/** Checks the credentials and opens a session; returns the cookie token (shown once). */
export async function signIn(db: PrismaClient, input: SignInInput): Promise<{ sessionToken: string; principal: Principal; expiresAt: Date }> {
  let actor: string;
  let role: Role;
  let userId: string | undefined;
  let apiTokenId: string | undefined;
  let mustChangePassword = false;
  if ('token' in input) {
    const p = await principalFromToken(db, input.token);
    if (!p) throw new UnauthenticatedError('This API token is unknown or revoked.');
    ({ actor, role, apiTokenId } = p);
  } else {
    const now = Date.now();
    const recent = await recentFailures(db, input.username, now);
    if (recent.length >= SIGN_IN_MAX_FAILURES) {
      const retryAt = new Date(recent[0].getTime() + SIGN_IN_WINDOW_MS).toISOString();
      throw new UnauthenticatedError(`Too many failed sign-ins for ${input.username}; try again after ${retryAt}, or sign in with an API token.`);
    }
    const user = await db.user.findUnique({ where: { username: input.username } });
    // Verify against a dummy hash when the user is missing so both paths take similar time.
    const ok = await verifyPassword(input.password, user?.passwordHash ?? 'scrypt$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    if (!user || !ok) {
      await db.signInFailure.create({ data: { username: input.username, at: new Date(now) } });
      // Failures older than the window count for nothing: swept here (indexed), no background job.
      await db.signInFailure.deleteMany({ where: { at: { lt: new Date(now - SIGN_IN_WINDOW_MS) } } });
      throw new UnauthenticatedError('Wrong username or password.');
    }
    await db.signInFailure.deleteMany({ where: { username: input.username } });
    actor = `user:${user.username}`;
    role = user.role;
    userId = user.id;
    mustChangePassword = user.mustChangePassword;
  }
  const sessionToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  const s = await db.session.create({ data: { tokenHash: hashToken(sessionToken), actor, role, userId, apiTokenId, expiresAt } });
  // Expired sessions are swept on sign-in: cheap (indexed) and no background job needed.
  await db.session.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  return { sessionToken, expiresAt, principal: { actor, role, via: 'session', sessionId: s.id, userId, apiTokenId, ...(mustChangePassword ? { mustChangePassword } : {}) } };
}

export async function signOut(db: PrismaClient, req: Request): Promise<void> {
  const token = cookieValue(req, SESSION_COOKIE);
  if (token) await db.session.deleteMany({ where: { tokenHash: hashToken(token) } });
}

export function sessionCookie(req: Request, token: string, expiresAt: Date): string {
  const secure = new URL(req.url).protocol === 'https:' || req.headers.get('x-forwarded-proto') === 'https';
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}
