/**
 * Every role boundary of every operation, driven by the OpenAPI table (so a new route is covered
 * the day it is documented): no credentials → 401, an unknown or revoked token → 401, each role
 * below the operation's minimum → 403, the minimum role passes authorization (it then meets a
 * missing id or an empty body, so nothing changes).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from './credentials';
import { OPERATIONS, type Operation } from './http/openapi';
import { ROLES } from './auth';
import { setupApiTestKit, type ApiTestKit, type Handler } from './testing/api-test-kit';

let kit: ApiTestKit;
beforeAll(async () => {
  kit = await setupApiTestKit();
  await kit.db.apiToken.create({ data: { name: 'revoked', role: 'admin', tokenHash: hashToken('revoked-admin-token-0123'), revokedAt: new Date() } });
});
afterAll(async () => kit?.teardown());

async function handlerOf(op: Operation): Promise<Handler> {
  const dir = op.path.replace(/^\/api/, '').replace(/\{(\w+)\}/g, '[$1]');
  const mod = (await import(path.resolve(import.meta.dirname, '../../app/api', `.${dir}`, 'route.ts'))) as Record<string, Handler>;
  return mod[op.method.toUpperCase()];
}

const guarded = OPERATIONS.filter((o) => o.role !== 'public' && !o.path.endsWith('/progress/stream'));

describe.each(guarded.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))('%s', (_name, op) => {
  const url = op.path.replace(/\{(\w+)\}/g, 'missing-0');
  const params = Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], m[1] === 'batchId' ? '0' : 'missing-0']));
  const call = async (token?: string) => kit.call(await handlerOf(op), url, { method: op.method.toUpperCase(), token, params, body: op.method === 'get' ? undefined : {} });

  it('401 without credentials and with a revoked token', async () => {
    const none = await call();
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHENTICATED');
    expect((await call('revoked-admin-token-0123')).status).toBe(401);
  });

  it(`403 below ${op.role}, authorized at ${op.role}`, async () => {
    const needed = ROLES.indexOf(op.role as (typeof ROLES)[number]);
    for (const role of ROLES.slice(0, needed)) {
      const r = await call(kit.tokens[role]);
      expect(r.status, role).toBe(403);
      expect(r.body.error.message).toContain(`needs ${op.role}`);
    }
    for (const role of ROLES.slice(needed)) {
      const r = await call(kit.tokens[role]);
      expect([401, 403], `${role}: ${JSON.stringify(r.body)}`).not.toContain(r.status);
      expect(r.status).toBeLessThan(500);
    }
  });
});

describe('the progress stream', () => {
  it('needs credentials too', async () => {
    const op = OPERATIONS.find((o) => o.path.endsWith('/progress/stream'))!;
    const r = await kit.call(await handlerOf(op), '/api/jobs/x/progress/stream', { params: { id: 'x' } });
    expect(r.status).toBe(401);
  });
});
