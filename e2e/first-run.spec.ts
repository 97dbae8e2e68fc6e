// A newcomer's first start: an empty data directory and no admin configured (no WEIR_ADMIN_PASSWORD,
// no WEIR_ADMIN_TOKEN). npm start prints a one-time password beside the dashboard URL; signing in
// with it leads to choosing one's own password, and every page leads there until then.
//
// The suite's webServer runs with an admin configured, so this spec starts its own
// `scripts/start.ts` (own ports and data directory), reusing the production build the webServer
// made (WEIR_SKIP_BUILD), and stops it with SIGINT, as Ctrl-C does.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { trackRequests } from './requests-settled';

const PORT = Number(process.env.E2E_FIRST_RUN_PORT ?? Number(process.env.E2E_PORT ?? 3100) + 1);
const PG_PORT = Number(process.env.E2E_FIRST_RUN_PG_PORT ?? 54510);
const ROOT = path.resolve(import.meta.dirname, '..');

let child: ChildProcess | undefined;
let dataDir = '';
let output = '';

test.afterAll(() => {
  // Only if the test failed before its own Ctrl-C: end what it started, by pid.
  if (child && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    const lock = path.join(dataDir, 'pg', 'postmaster.pid');
    if (existsSync(lock)) {
      try {
        process.kill(Number(readFileSync(lock, 'utf8').split('\n')[0]), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function startFresh(): Promise<{ url: string; password: string }> {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'weir-first-run-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: '',
    REDIS_URL: '',
    PORT: String(PORT),
    WEIR_DATA_DIR: dataDir,
    WEIR_EMBEDDED_PG_PORT: String(PG_PORT),
    WEIR_SKIP_BUILD: 'true',
  };
  delete env.WEIR_ADMIN_PASSWORD;
  delete env.WEIR_ADMIN_TOKEN;
  // Its own process group, as a terminal gives it: SIGINT to the group is Ctrl-C.
  child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'scripts/start.ts'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  // Generous: a loaded machine starts PostgreSQL, the server and the worker slowly.
  await expect.poll(() => child!.exitCode ?? /\[weir\] Ctrl-C stops everything/.test(output), { timeout: 240_000, message: `npm start did not get ready:\n${output}` }).toBe(true);
  const url = /\[weir\] dashboard: (\S+)/.exec(output)?.[1];
  const password = /Password {4}(\S+) {3}\(one-time\)/.exec(output)?.[1];
  expect(url, output).toBe(`http://127.0.0.1:${PORT}`);
  expect(password, output).toMatch(/^[A-Za-z0-9]{16}$/);
  // Printed once, framed, right after the dashboard URL.
  expect(output.indexOf(password!)).toBeGreaterThan(output.indexOf('[weir] dashboard:'));
  expect(output.split(password!)).toHaveLength(2);
  return { url: url!, password: password! };
}

test('first start: sign in with the printed one-time password, then choose your own', async ({ page }) => {
  test.setTimeout(360_000);
  const { url, password } = await startFresh();
  expect(output).toMatch(/First start: an admin was created for you\./);
  expect(output).toContain(`Open        ${url}/signin`);

  await page.goto(`${url}/`);
  await page.waitForURL((u) => u.pathname === '/signin');
  // The page says where the password is; the username is a hint, not a value to type after.
  await expect(page.getByRole('note', { name: 'First sign-in' })).toContainText('the terminal where npm start runs');
  const username = page.getByLabel('Username', { exact: true });
  await expect(username).toHaveValue('');
  await expect(username).toHaveAttribute('placeholder', 'admin');
  await page.screenshot({ path: 'e2e/artifacts/first-run-signin.png', fullPage: true });
  await username.click();
  await username.pressSequentially('admin');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.waitForURL((u) => u.pathname === '/account/password');
  await expect(page.getByRole('heading', { name: 'Choose your password', level: 1 })).toBeVisible();
  // Nothing on the page asks what a one-time session may not read (a 403 in the console).
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const requests = trackRequests(page);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Choose your password', level: 1 })).toBeVisible();
  // The navigation shows the session once its mount effects (where the alert badge would ask) ran.
  await expect(page.getByRole('navigation', { name: 'Main' }).getByText(/Signed in as/)).toBeVisible();
  await expect(page.getByRole('form', { name: 'Set password' })).toHaveAttribute('aria-busy', 'false');
  await requests.settled();
  expect(requests.urls.filter((u) => u.includes('/api/alerts/summary'))).toEqual([]);
  expect(requests.failed).toEqual([]);
  expect(errors).toEqual([]);
  // Every page leads here until it is done; the API refuses the one-time session anything else.
  await page.goto(`${url}/alerts`);
  await page.waitForURL((u) => u.pathname === '/account/password' && u.searchParams.get('next') === '/alerts');
  expect((await page.request.get(`${url}/api/jobs`)).status()).toBe(403);
  await page.screenshot({ path: 'e2e/artifacts/first-run-password.png', fullPage: true });

  await page.getByLabel('One-time password').fill(password);
  await page.getByLabel('New password', { exact: true }).fill('my-own-password-2026');
  await page.getByLabel('New password again').fill('my-own-password-2026');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL((u) => u.pathname === '/alerts');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByText('Signed in as')).toHaveText('Signed in as admin (admin)');
  expect((await page.request.get(`${url}/api/jobs`)).status()).toBe(200);
  // Audited.
  const audit = await (await page.request.get(`${url}/api/audit?targetType=user`)).json();
  expect(audit.items.map((e: { action: string; actor: string }) => [e.action, e.actor])).toEqual([['user.password.change', 'user:admin']]);

  // The one-time password is spent; the chosen one works.
  await nav.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL((u) => u.pathname === '/signin');
  await expect(page.getByRole('note', { name: 'First sign-in' })).toHaveCount(0);
  const signIn = (pw: string) => page.request.post(`${url}/api/auth/signin`, { data: { username: 'admin', password: pw } });
  expect((await signIn(password)).status()).toBe(401);
  expect((await signIn('my-own-password-2026')).status()).toBe(200);

  // Ctrl-C stops everything.
  const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
  process.kill(-child!.pid!, 'SIGINT');
  expect(await exited).toBe(0);
  expect(output).toMatch(/\[weir\] stopped/);
});
