/**
 * Accessibility: axe-core on every page of the dashboard (signed out and in, each job tab, the
 * batch drill-down, the editor, the edit page, alerts, the demo, the account page, a page that is
 * not there) in the light and the dark colour scheme. Any serious or critical violation fails,
 * listed with the elements it names, so the failure says what to fix. Signed out, the sign-in page
 * logs no console errors (it used to ask the API who is signed in and log two 401s).
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { trackRequests } from './requests-settled';
import { signIn } from './sign-in';

const auth = { authorization: 'Bearer e2e-admin-token-0123456789abcdef' };
const root = mkdtempSync(path.join(tmpdir(), 'weir-e2e-a11y-'));
const inDir = path.join(root, 'in');
mkdirSync(inDir, { recursive: true });
let jobId = '';
let failingJobId = '';
let ruleId = '';

const status = async (request: APIRequestContext, id: string) => (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()) as { status: string; lastBatchId: number | null };

/** The serious and critical violations on the page as it is now, one line per element. */
async function seriousViolations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1).join(' ').trim() ?? v.help}`));
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  // A stateful job (a streaming aggregation) with a batch committed: every chart and tab has data.
  const tmp = path.join(inDir, '.part-0.json.tmp');
  writeFileSync(tmp, Array.from({ length: 8 }, (_, i) => JSON.stringify({ user: `u${i % 3}`, ts: new Date(Date.UTC(2026, 10, 29, 9, 0, i)).toISOString() })).join('\n') + '\n');
  renameSync(tmp, path.join(inDir, 'part-0.json'));
  const spec = {
    name: `e2e-a11y-${Date.now()}`,
    source: { name: 'events', type: 'files', options: { path: inDir, format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }] },
    sql: 'SELECT user, count(*) AS n FROM events GROUP BY user',
    // The console sink takes Update (the files sink only appends); it prints to the worker's log.
    sink: { type: 'console', options: {} },
    outputMode: 'update',
    trigger: { type: 'processing-time', interval: '1 second' },
  };
  const created = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(created.status(), await created.text()).toBe(201);
  jobId = (await created.json()).job.id;
  expect((await request.post(`/api/jobs/${jobId}/start`, { headers: auth })).ok()).toBe(true);
  // A job that fails on a bad line, with a rule for it: the alerts page shows a firing alert (its
  // badges and Acknowledge button) besides the rules table and the form. Scoped to this job, so
  // other specs' alert counts do not see it.
  const badDir = path.join(root, 'bad');
  mkdirSync(badDir, { recursive: true });
  writeFileSync(path.join(badDir, 'part-0.json'), '{"user": "ann"}\nnot json at all\n');
  const failing = await request.post('/api/jobs', {
    headers: auth,
    data: {
      spec: {
        name: `e2e-a11y-failing-${Date.now()}`,
        source: { name: 'clicks', type: 'files', options: { path: badDir, format: 'json' }, schema: [{ name: 'user', type: 'string' }] },
        sql: 'SELECT user FROM clicks',
        sink: { type: 'files', options: { path: path.join(root, 'bad-out'), format: 'json' } },
        outputMode: 'append',
        trigger: { type: 'processing-time', interval: '500 milliseconds' },
      },
    },
  });
  expect(failing.status(), await failing.text()).toBe(201);
  failingJobId = (await failing.json()).job.id;
  const rule = await request.post('/api/alert-rules', { headers: auth, data: { name: 'e2e-a11y: run failed', kind: 'run-failed', jobId: failingJobId } });
  expect(rule.status(), await rule.text()).toBe(201);
  ruleId = (await rule.json()).id ?? (await rule.json()).rule?.id ?? '';
  expect((await request.post(`/api/jobs/${failingJobId}/start`, { headers: auth })).ok()).toBe(true);
  // Generous: the first batch waits for the worker to pick the run up on a loaded machine.
  await expect.poll(async () => (await status(request, jobId)).lastBatchId, { timeout: 90_000 }).not.toBeNull();
  // A savepoint, so the Checkpoint tab's savepoints table and its dialog are checked too.
  const savepoint = await request.post(`/api/jobs/${jobId}/savepoints`, { headers: auth, data: { name: 'a11y' } });
  expect(savepoint.ok(), await savepoint.text()).toBe(true);
});

test.afterAll(async ({ request }) => {
  if (ruleId) await request.delete(`/api/alert-rules/${ruleId}`, { headers: auth });
  // Deleting the failed job takes its alerts with it.
  if (failingJobId) await request.delete(`/api/jobs/${failingJobId}`, { headers: auth });
  if (!jobId) return;
  await request.post(`/api/jobs/${jobId}/stop`, { headers: auth });
  await expect.poll(async () => ['STOPPED', 'FAILED'].includes((await status(request, jobId)).status), { timeout: 30_000 }).toBe(true);
  expect((await request.delete(`/api/jobs/${jobId}`, { headers: auth })).status()).toBe(204);
});

/** Every page signed in, with what makes it ready. */
const views: { name: string; open: (page: Page) => Promise<void> }[] = [
  { name: 'jobs', open: async (p) => void (await p.goto('/'), await expect(p.getByRole('heading', { name: 'Jobs', level: 1 })).toBeVisible()) },
  { name: 'editor', open: async (p) => void (await p.goto('/jobs/new'), await expect(p.getByRole('textbox', { name: 'SQL query' })).toBeVisible()) },
  {
    name: 'editor-touched',
    // Errors shown after the user has touched a field: the error styles must read too.
    open: async (p) => {
      await p.goto('/jobs/new');
      const sql = p.getByRole('textbox', { name: 'SQL query' });
      await sql.click();
      await p.keyboard.type('SELECT usr, count(*) FROM events GROUP BY usr');
      // Close the completion list: CodeMirror's listbox is driven from the editor through
      // aria-activedescendant (the combobox pattern), which axe's scrollable-region rule does not
      // model; the rest of the page is what this view checks.
      await p.keyboard.press('Escape');
      await p.getByRole('heading', { level: 1 }).click();
      // The debounced validation has answered for the query as typed (the count of problems
      // replaces "Checking…"): its error styles are on the page.
      const validation = p.getByRole('region', { name: 'Validation' });
      await expect(validation.getByText(/^\d+ problems?$/)).toBeVisible({ timeout: 20_000 });
      await expect(validation.getByText('Checking…')).toHaveCount(0);
    },
  },
  {
    name: 'editor-preview',
    // The Preview panel with a result: the read's summary, the schema and the rows.
    open: async (p) => {
      await p.goto('/jobs/new');
      await expect(p.getByRole('textbox', { name: 'SQL query' })).toBeVisible();
      await p.getByLabel('Name', { exact: true }).fill('e2e-a11y-preview');
      await p.getByLabel('Input directory').fill(inDir);
      await p.getByLabel('Output directory').fill(path.join(root, 'preview-out'));
      await expect(p.getByText('Ready to deploy.')).toBeVisible();
      await p.getByRole('region', { name: 'Preview' }).getByRole('button', { name: 'Preview', exact: true }).click();
      await expect(p.getByRole('table', { name: 'Preview rows' }).locator('tbody tr').first()).toBeVisible();
    },
  },
  { name: 'job-edit', open: async (p) => void (await p.goto(`/jobs/${jobId}/edit`), await expect(p.getByRole('textbox', { name: 'SQL query' })).toBeVisible()) },
  ...['Charts', 'Plan', 'Batches', 'Runs', 'Checkpoint', 'Drills', 'Definition'].map((t) => ({
    name: `job-${t.toLowerCase()}`,
    open: async (p: Page) => {
      await p.goto(`/jobs/${jobId}`);
      await p.getByRole('tab', { name: t, exact: true }).click();
      await expect(p.getByRole('tab', { name: t, exact: true })).toHaveAttribute('aria-selected', 'true');
      if (t === 'Batches') await expect(p.getByRole('table', { name: 'Batches' })).toBeVisible();
      if (t === 'Runs') await expect(p.getByRole('table', { name: 'Runs' })).toBeVisible();
      if (t === 'Checkpoint') await expect(p.getByRole('region', { name: 'Checkpoint inspector' })).toBeVisible();
      if (t === 'Charts') await expect(p.locator('.recharts-wrapper').first()).toBeVisible();
      if (t === 'Plan') await expect(p.getByRole('img', { name: /^Plan graph of .* Figures of batch \d+\.$/ })).toBeVisible();
    },
  })),
  {
    name: 'job-checkpoint-savepoint-dialog',
    // The savepoints table with a savepoint, and the new-job dialog open on it.
    open: async (p) => {
      await p.goto(`/jobs/${jobId}`);
      await p.getByRole('tab', { name: 'Checkpoint', exact: true }).click();
      const panel = p.getByRole('region', { name: 'Savepoints' });
      await panel.getByRole('table', { name: 'Savepoints' }).getByRole('button', { name: 'New job from this savepoint' }).first().click();
      await expect(panel.getByRole('dialog', { name: 'New job from savepoint' })).toBeVisible();
    },
  },
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
    name: 'alerts',
    open: async (p) => {
      await p.goto('/alerts');
      await expect(p.getByRole('table', { name: 'Alert rules' })).toBeVisible();
      // Generous: the failing job's run must be picked up, fail, and the alert fire.
      await expect(p.getByRole('table', { name: 'Firing alerts' }).getByRole('button', { name: /^Acknowledge/ }).first()).toBeVisible({ timeout: 90_000 });
    },
  },
  {
    name: 'audit-contracts',
    // The fleet's contract audit with this spec's jobs in it: the table, its badges and fixes.
    open: async (p) => {
      await p.goto('/audit/contracts');
      await expect(p.getByRole('heading', { name: 'Contract audit', level: 1 })).toBeVisible();
      await expect(p.getByRole('table', { name: 'Contract audit' }).getByRole('row').nth(1)).toBeVisible();
    },
  },
  { name: 'demo', open: async (p) => void (await p.goto('/demo'), await expect(p.getByRole('heading', { level: 1 })).toBeVisible()) },
  { name: 'account-password', open: async (p) => void (await p.goto('/account/password'), await expect(p.getByRole('heading', { level: 1 })).toBeVisible()) },
  { name: 'job-not-found', open: async (p) => void (await p.goto('/jobs/00000000-0000-0000-0000-000000000000'), await expect(p.getByRole('heading', { level: 1 })).toBeVisible()) },
  { name: 'page-not-found', open: async (p) => void (await p.goto('/no-such-page'), await expect(p.getByRole('heading').first()).toBeVisible()) },
];

test('signed out, the sign-in page logs no console errors and asks the API nothing', async ({ page }) => {
  const errors: string[] = [];
  const requests = trackRequests(page);
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/signin');
  // Enabled once hydrated: the mount effects, where a poll or a who-am-I would start, have run.
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign in' })).toBeVisible();
  await requests.settled();
  expect(requests.urls.filter((u) => /\/api\/(auth\/me|alerts\/summary)/.test(u))).toEqual([]);
  expect(requests.failed).toEqual([]);
  expect(errors).toEqual([]);
});

test('with an ended session the navigation asks nothing either (the cookie alone is not a session)', async ({ page, context, baseURL }) => {
  await context.addCookies([{ name: 'weir_session', value: 'ended-or-expired-session-token', url: baseURL! }]);
  const errors: string[] = [];
  const requests = trackRequests(page);
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto('/signin');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign in' })).toBeVisible();
  await requests.settled();
  expect(requests.urls.filter((u) => /\/api\/(auth\/me|alerts\/summary)/.test(u))).toEqual([]);
  expect(requests.failed).toEqual([]);
  expect(errors).toEqual([]);
});

test('the sign-in radio buttons sit beside their labels at 1440x900', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/signin');
  for (const name of ['Username and password', 'API token']) {
    const radio = page.getByRole('radio', { name });
    const label = page.locator('label', { has: radio });
    const r = (await radio.boundingBox())!;
    const l = (await label.boundingBox())!;
    // Inline: the label is one line high (stacked, it was the radio, a gap and a line: over 30 px),
    // the radio at its left (its own margin aside) and vertically inside it.
    expect(l.height, name).toBeLessThan(28);
    expect(r.x - l.x, name).toBeLessThan(10);
    expect(r.y, name).toBeGreaterThanOrEqual(l.y - 1);
    expect(r.y + r.height, name).toBeLessThanOrEqual(l.y + l.height + 1);
  }
});

for (const scheme of ['light', 'dark'] as const) {
  test(`no serious or critical axe violations on any page, ${scheme}`, async ({ page }) => {
    // A tour of every page and dialog: 1.7–2.7 min under load here; the limit catches a hang.
    test.setTimeout(480_000);
    // Reduced motion: recharts then draws its charts at once, so there is no animation to wait out.
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    await page.setViewportSize({ width: 1440, height: 900 });
    const requests = trackRequests(page);
    const found: string[] = [];
    await page.goto('/signin');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
    found.push(...(await seriousViolations(page)).map((v) => `signin: ${v}`));
    await signIn(page);
    for (const v of views) {
      await v.open(page);
      // The nav badge and the figures come from what the page asks after load: scan once answered.
      await requests.settled();
      found.push(...(await seriousViolations(page)).map((x) => `${v.name}: ${x}`));
    }
    // Report every page's violations at once: the whole list is what there is to fix.
    writeFileSync(test.info().outputPath('axe-violations.txt'), found.join('\n'));
    expect(found, found.join('\n')).toEqual([]);
  });
}
