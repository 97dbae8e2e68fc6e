/**
 * First start with no admin configured: bootstrap creates `admin` with a one-time password; its
 * session may do nothing but set its own password (POST /api/auth/password, audited), after which
 * it is an ordinary admin; a start before that reissues the one-time password; WEIR_ADMIN_PASSWORD
 * and WEIR_ADMIN_TOKEN create credentials with no forced change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapCredentials, generateOneTimePassword } from './bootstrap';
import { setupApiTestKit, type ApiTestKit } from './testing/api-test-kit';

let kit: ApiTestKit;
let signin: typeof import('@/app/api/auth/signin/route');
let me: typeof import('@/app/api/auth/me/route');
let password: typeof import('@/app/api/auth/password/route');
let jobs: typeof import('@/app/api/jobs/route');

beforeAll(async () => {
  kit = await setupApiTestKit();
  // The kit's user would make this a second start: this file starts with no user at all.
  await kit.db.user.deleteMany();
  signin = await import('@/app/api/auth/signin/route');
  me = await import('@/app/api/auth/me/route');
  password = await import('@/app/api/auth/password/route');
  jobs = await import('@/app/api/jobs/route');
});
afterAll(async () => kit?.teardown());

const ORIGIN = { origin: 'http://localhost:3000', host: 'localhost:3000' };

async function signInAs(username: string, pw: string) {
  const res = await kit.call(signin.POST, '/api/auth/signin', { method: 'POST', body: { username, password: pw } });
  return { res, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? '' };
}

describe('the one-time password', () => {
  it('is 16 characters from an alphabet without look-alikes, different every time', () => {
    const seen = new Set(Array.from({ length: 200 }, generateOneTimePassword));
    expect(seen.size).toBe(200);
    for (const p of seen) expect(p).toMatch(/^[a-km-zA-HJ-NP-Z2-9]{16}$/);
  });
});

describe('first start with no admin configured', () => {
  let otp: string;

  it('creates admin with a one-time password; its session may only see itself and set a password', async () => {
    const r = await bootstrapCredentials(kit.db, {});
    expect(r).toMatchObject({ tokenCreated: false, userCreated: true, oneTimePassword: { username: 'admin', reissued: false } });
    otp = r.oneTimePassword!.password;
    const user = await kit.db.user.findUniqueOrThrow({ where: { username: 'admin' } });
    expect(user).toMatchObject({ role: 'admin', mustChangePassword: true });
    expect(user.passwordHash).not.toContain(otp);

    const { res, cookie } = await signInAs('admin', otp);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ actor: 'user:admin', role: 'admin', mustChangePassword: true });
    expect((await kit.call(me.GET, '/api/auth/me', { cookie })).body).toEqual({ actor: 'user:admin', name: 'admin', role: 'admin', via: 'session', mustChangePassword: true });
    const refused = await kit.call(jobs.GET, '/api/jobs', { cookie });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/one-time password: set your own password first, at \/account\/password .*POST \/api\/auth\/password/);
  });

  it('a start before the admin chose a password issues a new one; the earlier one stops working', async () => {
    const before = await signInAs('admin', otp);
    const r = await bootstrapCredentials(kit.db, {});
    expect(r.oneTimePassword).toMatchObject({ username: 'admin', reissued: true });
    expect(r.oneTimePassword!.password).not.toBe(otp);
    expect((await signInAs('admin', otp)).res.status).toBe(401);
    // The session opened with the old one ended with it.
    expect((await kit.call(me.GET, '/api/auth/me', { cookie: before.cookie })).status).toBe(401);
    otp = r.oneTimePassword!.password;
  });

  it('POST /api/auth/password needs the current password and a long enough new one, then the admin is an ordinary admin', async () => {
    const { cookie } = await signInAs('admin', otp);
    const other = await signInAs('admin', otp);
    const post = (body: unknown, c = cookie) => kit.call(password.POST, '/api/auth/password', { method: 'POST', cookie: c, body, headers: ORIGIN });

    const wrong = await post({ currentPassword: 'not-it', newPassword: 'a-long-enough-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/current password is wrong/);
    const short = await post({ currentPassword: otp, newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toMatch(/at least 12 characters/);
    expect((await post({ currentPassword: otp, newPassword: otp })).body.error.message).toMatch(/is the current one/);
    expect((await post({ currentPassword: otp })).status).toBe(400);

    const ok = await post({ currentPassword: otp, newPassword: 'my-own-password-42' });
    expect(ok.status).toBe(200);
    expect((await kit.db.user.findUniqueOrThrow({ where: { username: 'admin' } })).mustChangePassword).toBe(false);
    const ev = await kit.db.auditEvent.findFirstOrThrow({ where: { action: 'user.password.change' } });
    expect(ev).toMatchObject({ actor: 'user:admin', actorRole: 'admin', targetType: 'user' });
    expect(ev.after).toEqual({ replacedOneTimePassword: true });

    // This session goes on, now unrestricted; the other one was signed out; the old password is dead.
    expect((await kit.call(jobs.GET, '/api/jobs', { cookie })).status).toBe(200);
    expect((await kit.call(me.GET, '/api/auth/me', { cookie: other.cookie })).status).toBe(401);
    expect((await signInAs('admin', otp)).res.status).toBe(401);
    const again = await signInAs('admin', 'my-own-password-42');
    expect(again.res.body.mustChangePassword).toBe(false);

    // Claimed: the next start prints nothing.
    expect((await bootstrapCredentials(kit.db, {})).oneTimePassword).toBeUndefined();
  });

  it('an API token has no password to change', async () => {
    const r = await kit.call(password.POST, '/api/auth/password', { method: 'POST', token: kit.tokens.admin, body: { currentPassword: 'x', newPassword: 'y'.repeat(20) } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/API token, which has no password/);
  });
});

describe('WEIR_ADMIN_PASSWORD / WEIR_ADMIN_TOKEN (automation)', () => {
  it('create the admin with no forced change and no one-time password', async () => {
    await kit.db.session.deleteMany();
    await kit.db.user.deleteMany();
    const r = await bootstrapCredentials(kit.db, { adminPassword: 'automation-password', adminToken: 'automation-token-0123456789' });
    expect(r).toEqual({ tokenCreated: true, userCreated: true });
    const { res, cookie } = await signInAs('admin', 'automation-password');
    expect(res.body.mustChangePassword).toBe(false);
    expect((await kit.call(jobs.GET, '/api/jobs', { cookie })).status).toBe(200);
    expect((await kit.call(jobs.GET, '/api/jobs', { token: 'automation-token-0123456789' })).status).toBe(200);
  });

  it('a token alone on a database with no user: no UI admin is made behind its back', async () => {
    await kit.db.user.deleteMany();
    const r = await bootstrapCredentials(kit.db, { adminToken: 'automation-token-0123456789' });
    expect(r.oneTimePassword).toBeUndefined();
    expect(await kit.db.user.count()).toBe(0);
  });
});
