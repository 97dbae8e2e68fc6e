// Runs first (Playwright takes spec files in name order with one worker): it checks the fresh
// server's empty state, before other specs create jobs.
import { expect, test } from '@playwright/test';
import { E2E_ADMIN_TOKEN } from '../playwright.config';

test('the jobs page asks for sign-in, then opens with its empty state and shared navigation', async ({ page }) => {
  // The pages run under next.config.js's Content-Security-Policy: nothing they need may be blocked.
  const cspViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  const first = await page.goto('/');
  expect(first?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  // Job data is for signed-in viewers only: the page sends us to sign in and back.
  await page.waitForURL((u) => u.pathname === '/signin' && u.searchParams.get('next') === '/');
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('e2e-admin-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  await expect(page.getByRole('heading', { name: 'Jobs', level: 1 })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'No jobs yet' })).toBeVisible();
  await expect(page.getByText('POST /api/jobs')).toBeVisible();
  expect(cspViolations).toEqual([]);
  await page.screenshot({ path: 'e2e/artifacts/home.png', fullPage: true });
});

test('health reports the database, the postgres queue backend and one live worker', async ({ request }) => {
  // The worker heartbeats once it is up; wait for it rather than racing the start.
  await expect
    .poll(async () => (await (await request.get('/api/health')).json()).workers.length, { timeout: 60_000 })
    .toBe(1);
  const health = await (await request.get('/api/health')).json();
  expect(health.database.ok).toBe(true);
  expect(health.queue).toEqual({ backend: 'postgres', ok: true });
  expect(health.status).toBe('ok');
});

test('through the real server, unknown /api paths, a NUL id, an oversized body and a path or query that is not UTF-8 answer the JSON envelope', async ({ request }) => {
  const auth = { authorization: `Bearer ${E2E_ADMIN_TOKEN}` };
  for (const [method, url] of [['GET', '/api/no/such/thing'], ['POST', '/api/jobs/x/no-such-action'], ['DELETE', '/api/nothing']] as const) {
    const res = await request.fetch(url, { method, headers: auth });
    expect(res.status(), `${method} ${url}`).toBe(404);
    expect(res.headers()['content-type']).toContain('application/json');
    expect((await res.json()).error.code).toBe('NOT_FOUND');
  }
  const nul = await request.get('/api/jobs/%00', { headers: auth });
  expect(nul.status()).toBe(400);
  expect((await nul.json()).error.code).toBe('BAD_REQUEST');
  const big = await request.post('/api/jobs/validate', { headers: { ...auth, 'content-type': 'application/json' }, data: JSON.stringify({ spec: { sql: 'x'.repeat(2 * 1024 * 1024) } }) });
  expect(big.status()).toBe(413);
  expect(big.headers()['x-content-type-options']).toBe('nosniff');
  // Next's router decodes dynamic segments itself and once answered these with a plain-text 500
  // before any handler ran: proxy.ts answers the JSON 400 first, token or not.
  for (const url of ['/api/jobs/%FF', '/api/jobs/%ED%A0%80/runs', '/api/jobs/x/batches/%E2%82', '/api/no/such/%FF', '/api/jobs?q=%FF']) {
    for (const headers of [auth, {}]) {
      const res = await request.get(url, { headers });
      expect(res.status(), `${url} ${Object.keys(headers).length ? 'with' : 'without'} a token`).toBe(400);
      expect(res.headers()['content-type']).toContain('application/json');
      expect((await res.json()).error.code).toBe('BAD_REQUEST');
    }
  }
  const page = await request.get('/jobs/%FF');
  expect(page.status()).toBe(400);
});
