/**
 * Sign-in (API token or username/password) into an HttpOnly session cookie, the session's role
 * enforced like a token's, sign-out, cross-site writes refused, API tokens created (shown once,
 * stored hashed), listed and revoked (which ends their sessions), all audited.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashToken } from './credentials';
import { setupApiTestKit, filesSpec, type ApiTestKit } from './testing/api-test-kit';

let kit: ApiTestKit;
let signin: typeof import('@/app/api/auth/signin/route');
let signout: typeof import('@/app/api/auth/signout/route');
let me: typeof import('@/app/api/auth/me/route');
let tokens: typeof import('@/app/api/tokens/route');
let token: typeof import('@/app/api/tokens/[id]/route');
let jobs: typeof import('@/app/api/jobs/route');
let start: typeof import('@/app/api/jobs/[id]/start/route');

beforeAll(async () => {
  kit = await setupApiTestKit();
  signin = await import('@/app/api/auth/signin/route');
  signout = await import('@/app/api/auth/signout/route');
  me = await import('@/app/api/auth/me/route');
  tokens = await import('@/app/api/tokens/route');
  token = await import('@/app/api/tokens/[id]/route');
  jobs = await import('@/app/api/jobs/route');
  start = await import('@/app/api/jobs/[id]/start/route');
});
afterAll(async () => kit?.teardown());

function cookieOf(setCookie: string | null): string {
  expect(setCookie).toBeTruthy();
  return setCookie!.split(';')[0];
}

describe('sign-in', () => {
  it('with username and password sets an HttpOnly SameSite cookie that carries the user role', async () => {
    const res = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { username: 'alice', password: 'alice-password' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ actor: 'user:alice', role: 'operator' });
    const set = res.headers.get('set-cookie')!;
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    const cookie = cookieOf(set);
    const session = await kit.db.session.findFirstOrThrow({ where: { actor: 'user:alice' } });
    expect(cookie).not.toContain(session.tokenHash); // only the hash is stored
    expect(session.tokenHash).toBe(hashToken(decodeURIComponent(cookie.split('=')[1])));
    expect((await kit.call(me.GET, '/api/auth/me', { cookie })).body).toEqual({ actor: 'user:alice', name: 'alice', role: 'operator', via: 'session', mustChangePassword: false });
    // an operator session may start but not create
    const sameOrigin = { origin: 'http://localhost:3000', host: 'localhost:3000' };
    const refused = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', cookie, body: filesSpec('s', '/tmp/weir-auth'), headers: sameOrigin });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ role: 'operator', needed: 'admin' });
    const created = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: filesSpec('session-start', '/tmp/weir-auth') });
    const id = created.body.job.id;
    const started = await kit.call(start.POST, `/api/jobs/${id}/start`, { method: 'POST', cookie, params: { id }, headers: { origin: 'http://localhost:3000', host: 'localhost:3000' } });
    expect(started.status).toBe(200);
    const ev = await kit.db.auditEvent.findFirstOrThrow({ where: { targetId: id, action: 'job.start' } });
    expect(ev).toMatchObject({ actor: 'user:alice', actorRole: 'operator' });
  });

  it('refuses a wrong password and an unknown user alike, and sets no cookie', async () => {
    for (const body of [{ username: 'alice', password: 'nope-nope' }, { username: 'mallory', password: 'alice-password' }]) {
      const res = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe('Wrong username or password.');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect((await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { username: 'alice' } })).status).toBe(400);
  });

  it('with an API token takes that token’s role; a cross-site write with the cookie is refused', async () => {
    const res = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { token: kit.tokens.admin } });
    const cookie = cookieOf(res.headers.get('set-cookie'));
    expect((await kit.call(me.GET, '/api/auth/me', { cookie })).body.role).toBe('admin');
    const evil = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', cookie, body: filesSpec('evil', '/tmp/weir-auth'), headers: { origin: 'https://evil.example', host: 'localhost:3000' } });
    expect(evil.status).toBe(403);
    expect(await kit.db.job.count({ where: { name: 'evil' } })).toBe(0);
    const same = await kit.call(jobs.POST, '/api/jobs', { method: 'POST', cookie, body: filesSpec('same-site', '/tmp/weir-auth'), headers: { origin: 'http://localhost:3000', host: 'localhost:3000' } });
    expect(same.status).toBe(201);
  });

  it('sign-out ends the session and clears the cookie; an expired session is no session', async () => {
    const res = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { username: 'alice', password: 'alice-password' } });
    const cookie = cookieOf(res.headers.get('set-cookie'));
    const out = await kit.call(signout.POST, '/api/auth/signout', { method: 'POST', cookie });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await kit.call(me.GET, '/api/auth/me', { cookie })).status).toBe(401);
    const again = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { username: 'alice', password: 'alice-password' } });
    const c2 = cookieOf(again.headers.get('set-cookie'));
    await kit.db.session.updateMany({ where: { tokenHash: hashToken(decodeURIComponent(c2.split('=')[1])) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await kit.call(me.GET, '/api/auth/me', { cookie: c2 })).status).toBe(401);
    const actions = (await kit.db.auditEvent.findMany({ where: { targetType: 'session', actor: 'user:alice' } })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['session.signin', 'session.signout']));
  });

  it('locks a username after repeated wrong passwords, even against the right one; other users are unaffected', async () => {
    const { SIGN_IN_MAX_FAILURES } = await import('./auth');
    await kit.db.user.create({ data: { username: 'bob', role: 'viewer', passwordHash: await (await import('./credentials')).hashPassword('bob-password') } });
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) {
      expect((await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { username: 'bob', password: `guess-${i}` } })).status).toBe(401);
    }
    const locked = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { username: 'bob', password: 'bob-password' } });
    expect(locked.status).toBe(401);
    expect(locked.body.error.message).toMatch(/Too many failed sign-ins for bob/);
    expect(locked.headers.get('set-cookie')).toBeNull();
    expect((await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { username: 'alice', password: 'alice-password' } })).status).toBe(200);

    // The failures live in PostgreSQL: another server process (a fresh copy of the modules, as a
    // second replica behind a load balancer would have) refuses bob as well.
    expect(await kit.db.signInFailure.count({ where: { username: 'bob' } })).toBe(SIGN_IN_MAX_FAILURES);
    vi.resetModules();
    const replica = await import('@/app/api/auth/signin/route');
    expect(replica.POST).not.toBe(signin.POST);
    const elsewhere = await kit.call(replica.POST, '/api/auth/signin', { method: 'POST', body: { username: 'bob', password: 'bob-password' } });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.error.message).toMatch(/Too many failed sign-ins for bob/);
    // Once the window has passed the failures count for nothing, and the right password works;
    // a successful sign-in clears the username's failures.
    const { SIGN_IN_WINDOW_MS } = await import('./auth');
    await kit.db.signInFailure.updateMany({ where: { username: 'bob' }, data: { at: new Date(Date.now() - SIGN_IN_WINDOW_MS - 1000) } });
    expect((await kit.call(replica.POST, '/api/auth/signin', { method: 'POST', body: { username: 'bob', password: 'bob-password' } })).status).toBe(200);
    expect(await kit.db.signInFailure.count({ where: { username: 'bob' } })).toBe(0);
  });

  it('a malformed Authorization header is 401 with what to send', async () => {
    const res = await kit.call(me.GET, '/api/auth/me', { headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/Bearer/);
  });
});

describe('API tokens', () => {
  it('are created with a role (shown once, stored hashed), listed without values, and revoked with their sessions', async () => {
    const created = await kit.call(tokens.POST, '/api/tokens', { method: 'POST', token: kit.tokens.admin, body: { name: 'ci', role: 'operator' } });
    expect(created.status).toBe(201);
    const plain: string = created.body.token;
    expect(plain).toMatch(/^weir_/);
    const row = await kit.db.apiToken.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.tokenHash).toBe(hashToken(plain));
    expect((await kit.call(me.GET, '/api/auth/me', { token: plain })).body).toMatchObject({ actor: 'token:ci', role: 'operator' });
    const list = await kit.call(tokens.GET, '/api/tokens', { token: kit.tokens.admin });
    expect(list.body.items.map((t: { name: string }) => t.name)).toContain('ci');
    expect(JSON.stringify(list.body)).not.toContain(plain);
    expect(JSON.stringify(list.body)).not.toContain(row.tokenHash);
    const bad = await kit.call(tokens.POST, '/api/tokens', { method: 'POST', token: kit.tokens.admin, body: { name: 'x', role: 'root' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('role');

    const sess = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { token: plain } });
    const cookie = cookieOf(sess.headers.get('set-cookie'));
    const revoked = await kit.call(token.DELETE, `/api/tokens/${row.id}`, { method: 'DELETE', token: kit.tokens.admin, params: { id: row.id } });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    expect((await kit.call(me.GET, '/api/auth/me', { token: plain })).status).toBe(401);
    expect((await kit.call(me.GET, '/api/auth/me', { cookie })).status).toBe(401);
    const events = await kit.db.auditEvent.findMany({ where: { targetType: 'token', targetId: row.id }, orderBy: { createdAt: 'asc' } });
    expect(events.map((e) => e.action)).toEqual(['token.create', 'token.revoke']);
    expect(events[1].before).toMatchObject({ revokedAt: null });
    expect(events[1].after).toMatchObject({ revokedAt: expect.any(String) });
    expect(JSON.stringify(events)).not.toContain(plain);
  });
});
