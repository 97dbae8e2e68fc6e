/**
 * What a newcomer reads on the dashboard, at 1280 px: who did something is a name (not the audit
 * log's `user:admin`); the state chart keeps state rows removed apart from late rows dropped by
 * the watermark, and the Batches table shows output rows and late rows dropped, fitting its box;
 * instants are written one way, in UTC; alert rules, restarts, windows and warnings are in words;
 * an unknown address is a themed 404 with the way back.
 *
 * One job over a files source with a watermarked windowed count: a first file, a file an hour of
 * event time later (the watermark passes the first window), then a late file behind the
 * watermark, each waited for, so the batches have evictions and late rows to show.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { signIn } from './sign-in';

const auth = { authorization: 'Bearer e2e-admin-token-0123456789abcdef' };
const UTC_SECONDS = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/;
const UTC_MILLIS = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC$/;

const root = mkdtempSync(path.join(tmpdir(), 'weir-e2e-newcomer-'));
const dirs = { in: path.join(root, 'in'), out: path.join(root, 'out') };
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
const NAME = `e2e-newcomer-${Date.now()}`;

let fileSeq = 0;
function addFile(rows: { user: string; ts: string }[]): void {
  const name = `part-${String(fileSeq++).padStart(4, '0')}.json`;
  const tmp = path.join(dirs.in, `.${name}.tmp`);
  writeFileSync(tmp, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  renameSync(tmp, path.join(dirs.in, name));
}

interface Batch {
  batchId: number;
  numOutputRows: number;
  stateRowsRemoved: number;
  stateRowsDroppedByWatermark: number;
}
const batches = async (request: APIRequestContext, id: string): Promise<Batch[]> => (await (await request.get(`/api/jobs/${id}/batches?limit=100`, { headers: auth })).json()).items;
const jobOf = async (request: APIRequestContext, id: string) => (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()) as { status: string; lastBatchId: number | null };


test.use({ viewport: { width: 1280, height: 900 } });
test.describe.configure({ mode: 'serial' });

let jobId = '';
// Each runs with afterAll's request context: a test's own is closed by then.
const cleanups: ((r: APIRequestContext) => Promise<unknown>)[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => {
  for (const c of cleanups.reverse()) await c(request);
  if (jobId) {
    await request.post(`/api/jobs/${jobId}/stop`, { headers: auth });
    await expect.poll(async () => ['STOPPED', 'FAILED'].includes((await jobOf(request, jobId)).status), { timeout: 60_000 }).toBe(true);
    expect((await request.delete(`/api/jobs/${jobId}`, { headers: auth })).status()).toBe(204);
  }
});

test('late rows dropped and state rows removed are two figures; the Batches table shows them and fits', async ({ page, request }) => {
  test.setTimeout(240_000);
  const spec = {
    name: NAME,
    source: {
      name: 'events',
      type: 'files',
      options: { path: dirs.in, format: 'json', maxFilesPerTrigger: 1 },
      schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }],
      eventTime: 'ts',
      watermarkDelay: '10 seconds',
    },
    sql: "SELECT user, window(ts, '1 minute') AS w, count(*) AS n FROM events GROUP BY user, window(ts, '1 minute')",
    sink: { type: 'files', options: { path: dirs.out, format: 'json' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
    checkpointLocation: path.resolve('.data/e2e/checkpoints', path.basename(root)),
  };
  const created = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(created.status(), await created.text()).toBe(201);
  jobId = ((await created.json()) as { job: { id: string } }).job.id;
  expect((await request.post(`/api/jobs/${jobId}/start`, { headers: auth })).status()).toBe(200);

  addFile([
    { user: 'u0', ts: '2026-11-29T09:00:00Z' },
    { user: 'u1', ts: '2026-11-29T09:00:01Z' },
    { user: 'u0', ts: '2026-11-29T09:00:02Z' },
  ]);
  // Batch 0 reads it; a no-data batch may follow at once (the watermark moved), so wait for any.
  await expect.poll(async () => (await jobOf(request, jobId)).lastBatchId, { timeout: 90_000 }).not.toBeNull();
  // An hour of event time later: the watermark passes the 09:00 windows, which are written and evicted.
  addFile([{ user: 'u0', ts: '2026-11-29T10:00:00Z' }]);
  await expect.poll(async () => (await batches(request, jobId)).some((b) => b.stateRowsRemoved >= 2), { timeout: 60_000 }).toBe(true);
  // Behind the watermark: dropped as late, never in state.
  addFile([
    { user: 'u0', ts: '2026-11-29T09:00:05Z' },
    { user: 'u1', ts: '2026-11-29T09:00:06Z' },
  ]);
  await expect.poll(async () => (await batches(request, jobId)).some((b) => b.stateRowsDroppedByWatermark === 2), { timeout: 60_000 }).toBe(true);
  const all = await batches(request, jobId);
  const late = all.find((b) => b.stateRowsDroppedByWatermark === 2)!;
  const evicting = all.find((b) => b.stateRowsRemoved >= 2)!;
  // Late rows are not evictions: the batch that dropped them removed nothing from state.
  expect(late.stateRowsRemoved).toBe(0);
  expect(evicting.stateRowsDroppedByWatermark).toBe(0);
  // The two 09:00 windows were written when they were evicted.
  expect(all.reduce((n, b) => n + b.numOutputRows, 0)).toBe(2);

  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await page.getByRole('tab', { name: 'Batches' }).click();
  const table = page.getByRole('table', { name: 'Batches' });
  const headers = await table.getByRole('columnheader').allInnerTexts();
  expect(headers.map((h) => h.replace(/\s+/g, ' ').toLowerCase())).toEqual(expect.arrayContaining(['output rows', 'dropped by watermark']));
  const col = (name: string) => headers.findIndex((h) => h.replace(/\s+/g, ' ').toLowerCase() === name);
  // A batch's row by its first cell, the batch id (another cell may hold the same number).
  const rowOf = (batchId: number) => table.locator('tbody tr').filter({ has: page.locator('td:first-child', { hasText: new RegExp(`^${batchId}$`) }) }).first();
  const lateRow = rowOf(late.batchId);
  await expect(lateRow.getByRole('cell').nth(col('dropped by watermark'))).toHaveText('2');
  const evictRow = rowOf(evicting.batchId);
  await expect(evictRow.getByRole('cell').nth(col('output rows'))).toHaveText(String(evicting.numOutputRows));
  await expect(lateRow.getByRole('cell').nth(1)).toHaveText(UTC_MILLIS);
  // The table fits its box at 1280 px: nothing scrolls sideways, the Details button is on screen.
  const scroll = page.locator('.table-scroll').filter({ has: table });
  const overflow = await scroll.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await expect(lateRow.getByRole('button', { name: /Details/ })).toBeInViewport();

  await page.getByRole('tab', { name: 'Charts' }).click();
  const stateChart = page.getByRole('region', { name: 'State rows' });
  await expect(stateChart).toContainText('removed (evicted)');
  await expect(stateChart).toContainText('late rows dropped by watermark');
  await expect(stateChart).not.toContainText('evicted by watermark');
});

test('who acted is a name: a savepoint is by "admin", a 403 names the token', async ({ page, request }) => {
  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await page.getByRole('tab', { name: 'Checkpoint', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Savepoints' });
  await panel.getByLabel('Name').fill('newcomer-sp');
  await panel.getByRole('button', { name: 'Take savepoint' }).click();
  const row = panel.getByRole('table', { name: 'Savepoints' }).getByRole('row', { name: /newcomer-sp/ });
  await expect(row).toBeVisible();
  await expect(row.getByRole('cell').nth(4)).toHaveText('admin');
  await expect(row.getByRole('cell').nth(3)).toHaveText(UTC_SECONDS);
  await expect(panel).not.toContainText('user:admin');

  const made = await request.post('/api/tokens', { headers: auth, data: { name: 'e2e-newcomer-viewer', role: 'viewer' } });
  expect(made.status()).toBe(201);
  const viewer = (await made.json()) as { id: string; token: string };
  cleanups.push((r) => r.delete(`/api/tokens/${viewer.id}`, { headers: auth }));
  const refused = await request.post(`/api/jobs/${jobId}/stop`, { headers: { authorization: `Bearer ${viewer.token}` } });
  expect(refused.status()).toBe(403);
  const message = ((await refused.json()) as { error: { message: string } }).error.message;
  expect(message).toMatch(/^e2e-newcomer-viewer has the role viewer and may not /);
  expect(message).not.toContain('token:');
});

test('raw values read as words: alert rule params, a restart, a window, the unbounded-state warning', async ({ page, request }) => {
  test.setTimeout(180_000);
  const rule = await request.post('/api/alert-rules', { headers: auth, data: { name: 'e2e-newcomer-growth', kind: 'state-growth', jobId, params: { percentPerHour: 50, windowMs: 1_800_000 } } });
  expect(rule.status(), await rule.text()).toBe(201);
  const ruleId = ((await rule.json()) as { id: string }).id;
  cleanups.push((r) => r.delete(`/api/alert-rules/${ruleId}`, { headers: auth }));

  // A Restart: the contract audit calls it a restart, when in UTC.
  const runsBefore = ((await (await request.get(`/api/jobs/${jobId}/runs`, { headers: auth })).json()).items as unknown[]).length;
  expect((await request.post(`/api/jobs/${jobId}/restart`, { headers: auth })).status()).toBe(200);
  await expect.poll(async () => ((await (await request.get(`/api/jobs/${jobId}/runs`, { headers: auth })).json()).items as unknown[]).length, { timeout: 60_000 }).toBeGreaterThan(runsBefore);

  await signIn(page);
  await page.goto('/alerts');
  const ruleRow = page.getByRole('table', { name: 'Alert rules' }).getByRole('row', { name: /e2e-newcomer-growth/ });
  await expect(ruleRow).toContainText('growth above 50% per hour');
  await expect(ruleRow).toContainText('window 30 min');
  await expect(ruleRow).not.toContainText('1800000');
  await expect(page.getByLabel('For a window of (minutes)')).toHaveValue('30');

  await page.goto(`/audit/contracts?q=${NAME}`);
  const contract = page.getByTestId(`contract-${NAME}`);
  await expect(contract).toContainText(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\s*restart/);

  // The editor: a one-minute window is "1 minute"; a grouped count without a watermark is
  // warned about in the form's words.
  await page.goto('/jobs/new');
  const sqlBox = page.getByRole('textbox', { name: 'SQL query' });
  await expect(sqlBox).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('e2e-newcomer-draft');
  await page.getByLabel('Input directory').fill(dirs.in);
  await page.getByLabel('Output directory').fill(dirs.out);
  await page.getByLabel('Checkpoint location').fill(path.resolve('.data/e2e/checkpoints', 'e2e-newcomer-draft'));
  await page.getByLabel('Event-time column').fill('ts');
  await page.getByLabel('Watermark delay').fill('10 seconds');
  await sqlBox.fill("SELECT user, window(ts, '1 minute') AS w, count(*) AS n FROM events GROUP BY user, window(ts, '1 minute')");
  const explain = page.getByRole('region', { name: 'Explain' });
  await expect(explain).toContainText('window tumbling 1 minute)');
  await expect(explain).not.toContainText('1 minutes');

  await page.getByLabel('Event-time column').fill('');
  await page.getByLabel('Watermark delay').fill('');
  await sqlBox.fill('SELECT user, count(*) AS n FROM events GROUP BY user');
  // The console sink takes Complete mode, so the only word left is the warning.
  await page.getByRole('region', { name: 'Sink' }).getByLabel('Sink type').selectOption('console');
  await page.getByRole('radio', { name: /^Complete/ }).check();
  const validation = page.getByRole('region', { name: 'Validation' });
  await expect(validation).toContainText('Unbounded state');
  await expect(validation).toContainText('Set “Event-time column” and “Watermark delay”');
  await expect(validation).not.toContainText('source.eventTime');
});

test('an unknown address is a 404 in the dashboard, one window high, with the way back', async ({ page }) => {
  await signIn(page);
  const res = await page.goto('/no-such-page-for-a-newcomer');
  expect(res?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  const tooTall = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  expect(tooTall).toBeLessThanOrEqual(0);
  await page.getByRole('link', { name: 'Back to the jobs list' }).click();
  await expect(page.getByRole('heading', { name: 'Jobs', level: 1 })).toBeVisible();
});
