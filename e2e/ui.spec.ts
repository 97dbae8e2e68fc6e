/**
 * Every page reads right at a glance, at the two common laptop widths and in both themes: no page
 * is wider than the window, relative times advance on the client, a stateless job's page says
 * why it has no state charts, the job tabs work with the arrow keys, a skip link leads to the
 * content, and signed out nothing polls the API. Saves a screenshot of each page at 1280x800 and
 * 1440x900 in light and dark under e2e/artifacts/.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { trackRequests } from './requests-settled';
import { signIn } from './sign-in';

const auth = { authorization: 'Bearer e2e-admin-token-0123456789abcdef' };
const ART = 'e2e/artifacts';
const root = mkdtempSync(path.join(tmpdir(), 'weir-e2e-ui-'));
const inDir = path.join(root, 'in');
mkdirSync(inDir, { recursive: true });
let jobId = '';

const status = async (request: APIRequestContext, id: string) => (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()) as { status: string; lastBatchId: number | null };

/** The page's width beyond the window, in px (0: nothing sticks out). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  // A stateless job (a filter), with a batch committed, so its page has everything but state.
  const tmp = path.join(inDir, '.part-0.json.tmp');
  writeFileSync(tmp, Array.from({ length: 6 }, (_, i) => JSON.stringify({ user: `u${i}`, ts: new Date(Date.UTC(2026, 10, 29, 9, 0, i)).toISOString() })).join('\n') + '\n');
  renameSync(tmp, path.join(inDir, 'part-0.json'));
  const spec = {
    name: 'e2e-ui-stateless',
    source: { name: 'events', type: 'files', options: { path: inDir, format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }] },
    sql: "SELECT user, ts FROM events WHERE user <> 'nobody-with-a-name-long-enough-to-need-wrapping-in-the-definition-tab-of-the-job-page'",
    sink: { type: 'files', options: { path: path.join(root, 'out'), format: 'json' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '1 second' },
    // Relative: under the server's checkpoint root (WEIR_CHECKPOINT_ROOT), the only place it may be.
    checkpointLocation: `checkpoint-with-a-rather-long-directory-name-so-the-location-must-be-cut-${Date.now()}`,
  };
  const created = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(created.status()).toBe(201);
  jobId = (await created.json()).job.id;
  expect((await request.post(`/api/jobs/${jobId}/start`, { headers: auth })).ok()).toBe(true);
  // Generous: the first batch waits for the worker to pick the run up on a loaded machine.
  await expect.poll(async () => (await status(request, jobId)).lastBatchId, { timeout: 60_000 }).not.toBeNull();
});

test.afterAll(async ({ request }) => {
  if (!jobId) return;
  await request.post(`/api/jobs/${jobId}/stop`, { headers: auth });
  await expect.poll(async () => ['STOPPED', 'FAILED'].includes((await status(request, jobId)).status), { timeout: 30_000 }).toBe(true);
  expect((await request.delete(`/api/jobs/${jobId}`, { headers: auth })).status()).toBe(204);
});

test('signed out, the navigation polls nothing', async ({ page }) => {
  const requests = trackRequests(page);
  await page.goto('/signin');
  // Enabled once hydrated: the navigation's mount effects, where a poll starts, have run.
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  await requests.settled();
  expect(requests.urls.filter((u) => u.includes('/api/alerts/summary'))).toEqual([]);
});

test('the relative commit time advances on the client', async ({ page }) => {
  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  const ago = page.getByTestId('last-commit-ago');
  await expect(ago).toHaveText(/ago|just now/);
  const first = await ago.textContent();
  // No reload, no new batch needed: the clock alone moves it (it froze at the render time before).
  await expect.poll(() => ago.textContent(), { timeout: 20_000 }).not.toBe(first);
  await expect(ago).toHaveText(/\d+ (s|min) ago/);
});

test('a stateless job says why it has no state charts', async ({ page }) => {
  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  for (const name of ['State rows', 'State bytes']) {
    const panel = page.getByRole('region', { name, exact: true });
    await expect(panel).toContainText('No state to draw');
    await expect(panel.locator('.recharts-wrapper')).toHaveCount(0);
  }
  await expect(page.getByText(/^1 batch\b|^\d+ batches/)).toBeVisible();
});

test('the job tabs work with the arrow keys, Home and End', async ({ page }) => {
  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  const tab = (name: string) => page.getByRole('tab', { name, exact: true });
  await expect(tab('Charts')).toHaveAttribute('aria-selected', 'true');
  // One tab stop: only the selected tab is in the tab order.
  await expect(page.locator('[role=tab][tabindex="0"]')).toHaveCount(1);
  await tab('Charts').focus();
  await page.keyboard.press('ArrowRight');
  await expect(tab('Plan')).toBeFocused();
  await expect(tab('Plan')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tabpanel')).toHaveAttribute('aria-labelledby', 'tab-plan');
  await page.keyboard.press('ArrowRight');
  await expect(tab('Batches')).toBeFocused();
  await expect(tab('Batches')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tabpanel')).toHaveAttribute('aria-labelledby', 'tab-batches');
  await page.keyboard.press('End');
  await expect(tab('Definition')).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(tab('Charts')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(tab('Definition')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Home');
  await expect(tab('Charts')).toHaveAttribute('aria-selected', 'true');
});

test('a skip link is the first stop and leads to the content', async ({ page }) => {
  await signIn(page);
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main#main')).toBeFocused();
});

/** Every page and job tab, with what makes it ready. */
const views: { name: string; open: (page: Page) => Promise<void> }[] = [
  { name: 'jobs', open: async (p) => void (await p.goto('/'), await expect(p.getByRole('heading', { name: 'Jobs', level: 1 })).toBeVisible()) },
  { name: 'editor', open: async (p) => void (await p.goto('/jobs/new'), await expect(p.getByRole('textbox', { name: 'SQL query' })).toBeVisible()) },
  ...['Charts', 'Batches', 'Runs', 'Checkpoint', 'Drills', 'Definition'].map((t) => ({
    name: `job-${t.toLowerCase()}`,
    open: async (p: Page) => {
      await p.goto(`/jobs/${jobId}`);
      await p.getByRole('tab', { name: t, exact: true }).click();
      await expect(p.getByRole('tab', { name: t, exact: true })).toHaveAttribute('aria-selected', 'true');
      if (t === 'Batches') await expect(p.getByRole('table', { name: 'Batches' })).toBeVisible();
      if (t === 'Checkpoint') await expect(p.getByRole('region', { name: 'Checkpoint inspector' })).toBeVisible();
      // The panel renders its loading line with the tab: ready once it is gone.
      if (t === 'Drills') await expect(p.getByText('Loading drills…')).toHaveCount(0);
    },
  })),
  {
    name: 'job-batch-drilldown',
    open: async (p) => {
      await p.goto(`/jobs/${jobId}`);
      await p.getByRole('tab', { name: 'Batches', exact: true }).click();
      await p.getByRole('table', { name: 'Batches' }).getByRole('button', { name: /^Details/ }).first().click();
      await expect(p.getByRole('table', { name: 'Duration by phase' })).toBeVisible();
    },
  },
  {
    name: 'job-edit',
    open: async (p) => {
      await p.goto(`/jobs/${jobId}/edit`);
      await expect(p.getByRole('region', { name: 'Validation' }).getByText('Ready to deploy')).toBeVisible();
    },
  },
  { name: 'alerts', open: async (p) => void (await p.goto('/alerts'), await expect(p.getByRole('heading', { level: 1 })).toBeVisible()) },
  { name: 'contracts', open: async (p) => void (await p.goto('/audit/contracts'), await expect(p.getByRole('heading', { level: 1 })).toBeVisible()) },
  { name: 'not-found', open: async (p) => void (await p.goto('/no-such-page'), await expect(p.getByRole('heading', { level: 1 })).toBeVisible()) },
  {
    name: 'demo',
    open: async (p) => {
      await p.goto('/demo');
      await expect(p.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(p.getByText('Loading the demo…')).toHaveCount(0);
    },
  },
];

for (const width of [1280, 1440]) {
  test(`no page is wider than a ${width} px window`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await signIn(page);
    for (const v of views) {
      await v.open(page);
      expect(await overflow(page), `${v.name} at ${width} px`).toBeLessThanOrEqual(0);
    }
    // The definition wraps the SQL and the spec instead of clipping them.
    await views.find((v) => v.name === 'job-definition')!.open(page);
    for (const pre of await page.locator('pre.wrap').all()) {
      expect(await pre.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    }
  });
}

for (const scheme of ['light', 'dark'] as const) {
  test(`screenshots of every page at 1280x800 and 1440x900, ${scheme}`, async ({ page }) => {
    test.setTimeout(300_000);
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [
      [1280, 800],
      [1440, 900],
    ]) {
      await page.setViewportSize({ width, height });
      await page.goto('/signin');
      await page.screenshot({ path: `${ART}/${scheme}-${width}-signin.png` });
    }
    await signIn(page);
    for (const v of views) {
      for (const [width, height] of [
        [1280, 800],
        [1440, 900],
      ]) {
        await page.setViewportSize({ width, height });
        await v.open(page);
        await page.screenshot({ path: `${ART}/${scheme}-${width}-${v.name}.png`, fullPage: true });
      }
    }
    if (scheme === 'dark') {
      // The theme follows the system: the page background is the dark one.
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(13, 17, 23)');
    }
  });
}
