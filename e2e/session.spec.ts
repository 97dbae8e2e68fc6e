// The session in the navigation: who is signed in, and signing out ends the session for real.
import { expect, test } from '@playwright/test';

test('the navigation shows who is signed in, and Sign out ends the session', async ({ page }) => {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await page.goto('/signin');
  await expect(nav.getByRole('link', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('e2e-admin-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  // The name, not the audit log's `user:admin`.
  await expect(nav.getByText('Signed in as')).toHaveText('Signed in as admin (admin)');
  await page.screenshot({ path: 'e2e/artifacts/nav-session.png' });
  expect((await page.request.get('/api/auth/me')).status()).toBe(200);
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  expect(cookie).not.toBe('');

  await nav.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL((u) => u.pathname === '/signin');
  await expect(nav.getByRole('link', { name: 'Sign in' })).toBeVisible();
  expect((await page.request.get('/api/auth/me')).status()).toBe(401);
  // The session is gone on the server, not only the cookie in this browser: the old cookie, sent
  // again as it was, is refused.
  expect((await page.request.get('/api/auth/me', { headers: { cookie } })).status()).toBe(401);
  await page.goto('/alerts');
  await page.waitForURL((u) => u.pathname === '/signin' && u.searchParams.get('next') === '/alerts');
});

test('the sign-in form is disabled until hydrated and posts: a click before then sends no password in a URL', async ({ request }) => {
  // The server-rendered HTML, before any script runs.
  const html = await (await request.get('/signin')).text();
  const form = /<form[^>]*aria-label="Sign in"[^>]*>/.exec(html)?.[0];
  expect(form).toContain('method="post"');
  expect(html).toMatch(/<fieldset class="plain" disabled="">/);
});
