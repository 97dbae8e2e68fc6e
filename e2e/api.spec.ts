/**
 * The API through the running app (npm start's shape: embedded PostgreSQL, Next, a worker):
 * sign in through the UI form, then the browser's session cookie carries the admin role to the
 * API; a bearer token works without the cookie; no credentials is 401.
 */
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_ADMIN_TOKEN } from '../playwright.config';

const dataDir = path.resolve('.data/e2e/files/api-spec');

function spec(name: string) {
  return {
    name,
    source: { name: 'clicks', type: 'files', options: { path: `${dataDir}/in`, format: 'json' }, schema: [{ name: 'user', type: 'string' }] },
    sql: 'SELECT user FROM clicks',
    sink: { type: 'postgres', options: { connectionString: 'postgres://writer:e2e-sink-secret@127.0.0.1:5432/nowhere', table: 'out' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '1 second' },
  };
}

test('sign in through the form, then create, read (masked), stop and audit a job with the session', async ({ page, baseURL }) => {
  await page.goto('/signin');
  await expect(page.getByRole('heading', { name: 'Sign in', level: 1 })).toBeVisible();
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('e2e-admin-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'weir_session');
  expect(session?.httpOnly).toBe(true);

  const api = page.request; // shares the browser context's cookies
  // page.request sends the session cookie but, unlike the browser, no Origin: a cookie write needs one.
  const headers = { origin: baseURL! };
  expect(await (await api.get('/api/auth/me')).json()).toMatchObject({ actor: 'user:admin', role: 'admin', via: 'session' });

  const created = await api.post('/api/jobs', { headers, data: { spec: spec('e2e-api-job') } });
  expect(created.status()).toBe(201);
  const { job } = await created.json();
  expect(job).toMatchObject({ name: 'e2e-api-job', status: 'STOPPED', guarantee: 'exactly-once' });

  const read = await (await api.get(`/api/jobs/${job.id}`)).json();
  expect(read.spec.sink.options.connectionString).toBe('********');
  expect(JSON.stringify(read)).not.toContain('e2e-sink-secret');

  const list = await (await api.get('/api/jobs')).json();
  expect(list.items.map((j: { name: string }) => j.name)).toContain('e2e-api-job');

  const stopped = await api.post(`/api/jobs/${job.id}/stop`, { headers });
  expect(stopped.status()).toBe(200);
  const batches = await (await api.get(`/api/jobs/${job.id}/batches?limit=5`)).json();
  expect(batches).toEqual({ items: [], nextBefore: null });

  const audit = await (await api.get(`/api/audit?targetId=${job.id}`)).json();
  expect(audit.items.map((e: { action: string }) => e.action)).toContain('job.create');
  expect(audit.items[audit.items.length - 1]).toMatchObject({ actor: 'user:admin', actorRole: 'admin' });

  const invalid = await api.post('/api/jobs', { headers, data: { spec: { ...spec('e2e-bad'), sql: 'SELECT nosuch FROM clicks' } } });
  expect(invalid.status()).toBe(422);
  expect((await invalid.json()).error.details.errors[0].path).toBe('sql');

  const deleted = await api.delete(`/api/jobs/${job.id}`, { headers });
  expect(deleted.status()).toBe(204);
});

test('a bearer token reaches the API without a session; no credentials is 401; the OpenAPI document is public', async ({ request }) => {
  expect((await request.get('/api/jobs')).status()).toBe(401);
  const me = await request.get('/api/auth/me', { headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}` } });
  expect(await me.json()).toMatchObject({ role: 'admin', via: 'bearer' });
  const doc = await (await request.get('/api/openapi.json')).json();
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/jobs', '/api/jobs/{id}/start', '/api/auth/signin']));
});
