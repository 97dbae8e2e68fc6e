/**
 * The dashboard end to end, against the real app, worker and embedded PostgreSQL (see
 * playwright.config.ts): sign in; write a job over a files source in the editor, seeing a
 * validation error at its position first; deploy; watch batches arrive and the charts draw them;
 * stop; restart; open the checkpoint inspector; see a failed job's error; and check that a
 * viewer cannot start or stop. Each page is saved as a screenshot under e2e/artifacts/.
 *
 * The source is a directory this test creates under os.tmpdir(); data is added by writing new
 * files into it (complete files, renamed into place, as the files source requires).
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { signIn } from './sign-in';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
const ART = 'e2e/artifacts';

const root = mkdtempSync(path.join(tmpdir(), 'weir-e2e-dashboard-'));
// Checkpoints go under the server's checkpoint root (WEIR_CHECKPOINT_ROOT); the data under a files root.
const CHECKPOINTS = path.resolve('.data/e2e/checkpoints');
const dirs = { in: path.join(root, 'in'), out: path.join(root, 'out'), cp: path.join(CHECKPOINTS, `${path.basename(root)}-checkpoint`), badIn: path.join(root, 'bad-in') };
for (const d of [dirs.in, dirs.out, dirs.badIn]) mkdirSync(d, { recursive: true });

let fileSeq = 0;
/** Writes JSON lines as a new file, atomically (hidden name, then rename). */
function addFile(dir: string, lines: string[]): void {
  const name = `part-${String(fileSeq++).padStart(4, '0')}.json`;
  const tmp = path.join(dir, `.${name}.tmp`);
  writeFileSync(tmp, lines.join('\n') + '\n');
  renameSync(tmp, path.join(dir, name));
}
const clicks = (n: number, base: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ user: `u${(base + i) % 7}`, ts: new Date(Date.UTC(2026, 10, 29, 9, 0, base + i)).toISOString() }));

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const JOB = 'e2e-clicks';
let jobId = '';
const createdJobs: string[] = [];

async function jobStatus(request: APIRequestContext, id: string): Promise<string> {
  return (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()).status;
}

test.describe.configure({ mode: 'serial' });

// home.spec.ts (run after this file) expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => {
  for (const id of createdJobs) {
    await request.post(`/api/jobs/${id}/stop`, { headers: auth });
    await expect.poll(async () => ['STOPPED', 'FAILED'].includes(await jobStatus(request, id)), { timeout: 30_000 }).toBe(true);
    expect((await request.delete(`/api/jobs/${id}`, { headers: auth })).status()).toBe(204);
  }
});

test('sign in, write a job in the editor (error first), deploy it', async ({ page }) => {
  addFile(dirs.in, clicks(5, 0));
  await page.goto('/signin');
  await page.screenshot({ path: `${ART}/signin.png`, fullPage: true });
  await signIn(page);

  await page.getByRole('main').getByRole('link', { name: 'New job' }).click();
  await expect(page.getByRole('heading', { name: 'New job', level: 1 })).toBeVisible();
  // The SQL editor exists only once the page is hydrated; typing before that can be lost when
  // React takes over the inputs (seen on a loaded machine), so wait for it first.
  const sqlBox = page.getByRole('textbox', { name: 'SQL query' });
  await expect(sqlBox).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill(JOB);
  await page.getByLabel('Input directory').fill(dirs.in);
  await page.getByLabel('Output directory').fill(dirs.out);
  await page.getByLabel('Checkpoint location').fill(dirs.cp);
  await page.getByLabel('Restarts after a failure').fill('2');
  await page.getByLabel('First restart delay (ms)').fill('250');
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue(JOB);

  await sqlBox.fill('SELECT usr, ts FROM events');
  // The analysis error, placed at its line and column, in the editor and as text.
  await expect(page.getByRole('region', { name: 'Query' }).getByText(/Line 1, column 8: \[UNRESOLVED_COLUMN\.WITH_SUGGESTION\] A column, variable, or function parameter with name `usr` cannot be resolved\..* Column "usr" does not exist/)).toBeVisible();
  // The Validation panel lists it first, in words, with its position.
  await expect(page.getByRole('region', { name: 'Validation' }).locator('li').first()).toContainText(/Query, line 1, column 8: \[UNRESOLVED_COLUMN\.WITH_SUGGESTION\] .*Column "usr" does not exist/);
  await expect(page.locator('.cm-lintRange-error')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Deploy' })).toBeDisabled();
  await page.screenshot({ path: `${ART}/editor-error.png`, fullPage: true });

  // A windowed count with a watermark: stateful, legal in Append (a window is written once the
  // watermark passes its end), so the charts and the checkpoint have state to show.
  await page.getByLabel('Event-time column').fill('ts');
  await page.getByLabel('Watermark delay').fill('10 seconds');
  await sqlBox.fill("SELECT user, window(ts, '1 minute') AS w, count(*) AS n FROM events GROUP BY user, window(ts, '1 minute')");
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  await expect(page.getByText('The query analyses.')).toBeVisible();
  const explain = page.getByRole('region', { name: 'Explain' });
  await expect(explain.getByText('1 stateful operator')).toBeVisible();
  // The output columns head the plan with Spark's type names, as Spark's analyzed plan does.
  await expect(explain.getByTestId('output-columns')).toHaveText('Output: user: string, w: struct<start:timestamp,end:timestamp>, n: bigint');
  await expect(explain.getByText(/evicted when the watermark passes the window end/)).toBeVisible();
  // Output modes: the files sink only appends, and the picker says so on the other two.
  await expect(page.getByText('The files sink cannot write Update output: choose Append, or another sink type that takes Update.')).toBeVisible();
  await expect(page.getByText('Invalid streaming output mode: update. This output mode is not supported in Data Source files.', { exact: false })).toBeVisible();
  await expect(page.getByRole('radio', { name: /^Update/ })).toBeDisabled();
  const audit = page.getByRole('region', { name: 'Exactly-once audit' });
  await expect(audit.getByText('exactly-once', { exact: true })).toBeVisible();
  await expect(audit.getByText('replayable', { exact: true })).toBeVisible();
  await expect(audit.getByText('idempotent', { exact: true })).toBeVisible();
  await page.screenshot({ path: `${ART}/editor-valid.png`, fullPage: true });

  await page.getByRole('button', { name: 'Deploy' }).click();
  await page.waitForURL(/\/jobs\/[0-9a-f-]{36}$/);
  jobId = page.url().split('/').pop()!;
  createdJobs.push(jobId);
  await expect(page.getByRole('heading', { name: JOB, level: 1 })).toBeVisible();
  expect((await (await page.request.get(`/api/jobs/${jobId}`, { headers: auth })).json()).restartPolicy).toEqual({ maxRestarts: 2, backoffMs: 250 });
  await page.getByRole('tab', { name: 'Definition' }).click();
  await expect(page.getByText('Up to 2 restarts after a failure, the first 250 ms later')).toBeVisible();
  await page.getByRole('tab', { name: 'Charts' }).click();
});

test('batches arrive, the charts draw them, the table drills down to a batch', async ({ page }) => {
  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await expect(page.locator('.subtitle .badge').first()).toHaveText('RUNNING', { timeout: 30_000 });
  await expect(page.getByText(/^[1-9]\d* batches/)).toBeVisible({ timeout: 30_000 });
  addFile(dirs.in, clicks(8, 100));
  addFile(dirs.in, clicks(3, 200));
  // Live: the new batches appear without a reload.
  await expect(page.getByText(/^([2-9]|\d\d+) batches/)).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.recharts-line-curve').first()).toBeVisible();
  await expect(page.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await page.screenshot({ path: `${ART}/job-charts.png`, fullPage: true });

  await page.getByRole('tab', { name: 'Batches' }).click();
  const table = page.getByRole('table', { name: 'Batches' });
  await expect(table.getByRole('row')).not.toHaveCount(1);
  await table.getByRole('button', { name: 'Details of batch 0' }).click();
  const detail = page.getByRole('region', { name: 'Batch 0 progress' });
  // The figures first, as Spark's batch page: rows in, time by phase, the source range, state.
  await expect(detail.locator('.stat').filter({ hasText: 'Input rows' }).locator('.value')).toHaveText('5');
  const phases = detail.getByRole('table', { name: 'Duration by phase' });
  await expect(phases.getByRole('row')).toHaveCount(8); // header, six Spark phases, other
  await expect(phases.getByRole('row').filter({ hasText: 'addBatch' })).toBeVisible();
  await expect(detail.getByText('Offsets read')).toBeVisible();
  await expect(detail.getByRole('table', { name: 'State operators' }).getByRole('row').filter({ hasText: 'stateStoreSave' })).toBeVisible();
  // The raw progress stays one click away.
  await detail.getByText('Full progress JSON').click();
  const json = detail.getByLabel('Progress JSON');
  await expect(json).toBeVisible();
  await expect(json).toContainText('"batchId": 0');
  await expect(json).toContainText('"numInputRows": 5');
  await page.screenshot({ path: `${ART}/job-batches.png`, fullPage: true });

  await page.goto('/');
  await expect(page.getByRole('link', { name: JOB })).toBeVisible();
  // Other specs share this server and may list jobs of their own: look at this job's row.
  const row = page.getByRole('table', { name: 'Jobs' }).getByRole('row').filter({ hasText: JOB });
  await expect(row.getByText('exactly-once', { exact: true })).toBeVisible();
  await page.screenshot({ path: `${ART}/jobs-list.png`, fullPage: true });
});

test('stop, restart, runs, and the checkpoint inspector', async ({ page, request }) => {
  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  const actions = page.getByRole('group', { name: `Actions for ${JOB}` });
  await actions.getByRole('button', { name: 'Stop' }).click();
  await expect(page.locator('.subtitle .badge').first()).toHaveText('STOPPED', { timeout: 30_000 });
  await expect.poll(() => jobStatus(request, jobId)).toBe('STOPPED');

  // The edit page opens on the stored spec, checked like a new one.
  await actions.getByRole('link', { name: 'Edit' }).click();
  await expect(page.getByRole('heading', { name: `Edit ${JOB}`, level: 1 })).toBeVisible();
  await expect(page.getByLabel('Watermark delay')).toHaveValue('10 seconds');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Save changes' })).toBeEnabled();
  await page.screenshot({ path: `${ART}/job-edit.png`, fullPage: true });
  await page.goto(`/jobs/${jobId}`);

  await actions.getByRole('button', { name: 'Restart' }).click();
  await expect(page.locator('.subtitle .badge').first()).toHaveText('RUNNING', { timeout: 30_000 });
  addFile(dirs.in, clicks(4, 300));
  await page.getByRole('tab', { name: 'Runs' }).click();
  // Header + the first run + the restart's run (at least: a recovery would add one).
  await expect.poll(() => page.getByRole('table', { name: 'Runs' }).getByRole('row').count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
  await page.screenshot({ path: `${ART}/job-runs.png`, fullPage: true });

  await page.getByRole('tab', { name: 'Checkpoint' }).click();
  const tree = page.getByRole('navigation', { name: 'Checkpoint files' });
  // The per-batch logs start collapsed, with their file counts (commits/: offsets/ opens by
  // itself when it holds the running job's pending batch).
  await expect(tree.locator('summary', { hasText: /^commits\/ \(\d+\)$/ })).toBeVisible();
  await expect(tree.getByRole('button', { name: 'commits/0', exact: true })).toBeHidden();
  // Open each log directory unless it is open: the running job's next batch may be pending (its
  // offsets file written, its commit not yet), and the tree opens the directory holding it.
  for (const dir of ['offsets', 'commits']) {
    const summary = tree.locator('summary', { hasText: new RegExp(`^${dir}/ \\(\\d+\\)$`) });
    await expect(async () => {
      if (!(await summary.evaluate((s) => (s.parentElement as HTMLDetailsElement).open))) await summary.click();
      await expect(tree.getByRole('button', { name: `${dir}/0`, exact: true })).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
  }
  await expect(tree.locator('summary', { hasText: 'state/' })).toBeVisible();
  await tree.getByRole('button', { name: 'metadata', exact: true }).click();
  await expect(page.getByLabel('File contents')).toContainText('"id"');
  await tree.getByRole('button', { name: 'offsets/0', exact: true }).click();
  await expect(page.getByLabel('File contents')).toContainText('v1');
  // The windowed count keeps state: its store's versions line up with commits/.
  const stores = page.getByRole('table', { name: 'State store versions' });
  await expect(stores.getByRole('row').filter({ hasText: 'aggregate' })).toContainText(': ok');
  await page.screenshot({ path: `${ART}/job-checkpoint.png`, fullPage: true });

  // A pending batch: an offsets file with no commit, as a crash after the write-ahead leaves it.
  await actions.getByRole('button', { name: 'Stop' }).click();
  await expect.poll(() => jobStatus(request, jobId), { timeout: 30_000 }).toBe('STOPPED');
  const cp = await (await request.get(`/api/jobs/${jobId}/checkpoint`, { headers: auth })).json();
  const next = (cp.latestOffsetsBatch as number) + 1;
  writeFileSync(path.join(dirs.cp, 'offsets', String(next)), `v1\n{"batchWatermarkMs":0,"batchTimestampMs":${Date.now()},"conf":{}}\n{"logOffset":${next}}`);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByText(`offsets/${next} has no commits/${next}`)).toBeVisible();
  await expect(page.getByRole('button', { name: `offsets/${next} (pending batch)` })).toBeVisible();
  await page.screenshot({ path: `${ART}/job-checkpoint-pending.png`, fullPage: true });
});

test('a failed job shows its error', async ({ page, request }) => {
  addFile(dirs.badIn, ['{"user": "ok", "ts": "2026-11-29T09:00:00Z"}', '{"user": "broken", "ts": ']);
  const spec = {
    name: 'e2e-bad-records',
    source: { name: 'events', type: 'files', options: { path: dirs.badIn, format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }], onBadRecord: 'fail' },
    sql: 'SELECT user FROM events',
    sink: { type: 'files', options: { path: path.join(root, 'bad-out') } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '1 second' },
    checkpointLocation: path.join(CHECKPOINTS, `${path.basename(root)}-bad-checkpoint`),
  };
  const created = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(created.status()).toBe(201);
  const id = (await created.json()).job.id as string;
  createdJobs.push(id);
  expect((await request.post(`/api/jobs/${id}/start`, { headers: auth })).ok()).toBe(true);
  await expect.poll(() => jobStatus(request, id), { timeout: 45_000 }).toBe('FAILED');

  await signIn(page);
  await page.goto(`/jobs/${id}`);
  await expect(page.getByRole('alert').filter({ hasText: 'The last run failed' })).toContainText('BAD_RECORD');
  await page.getByRole('tab', { name: 'Runs' }).click();
  await expect(page.getByRole('table', { name: 'Runs' }).getByRole('alert')).toContainText('BAD_RECORD');
  // The error is said once: the exit reason is the error's message, shown in the error box only.
  await expect(page.getByRole('table', { name: 'Runs' }).getByText(/Fix or remove the record/)).toHaveCount(1);
  await page.screenshot({ path: `${ART}/job-failed.png`, fullPage: true });
});

test('a viewer cannot start or stop', async ({ browser, request, baseURL }) => {
  const t = await request.post('/api/tokens', { headers: auth, data: { name: 'e2e-viewer', role: 'viewer' } });
  expect(t.status()).toBe(201);
  const viewerToken = (await t.json()).token as string;
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  // Signed out, a job page sends the browser to sign in, and back to the job afterwards.
  await page.goto(`/jobs/${jobId}`);
  await expect(page).toHaveURL(new RegExp(`/signin\\?next=${encodeURIComponent(`/jobs/${jobId}`)}$`));
  await page.getByRole('radio', { name: 'API token' }).check();
  await page.locator('input[name="token"]').fill(viewerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: JOB, level: 1 })).toBeVisible();
  const actions = page.getByRole('group', { name: `Actions for ${JOB}` });
  await expect(actions.getByText(/read only/)).toBeVisible();
  await expect(actions.getByRole('button', { name: 'Start', exact: true })).toBeDisabled();
  await expect(actions.getByRole('button', { name: 'Stop', exact: true })).toBeDisabled();
  await expect(actions.getByRole('button', { name: 'Restart' })).toBeDisabled();
  // And the API refuses the same session, whatever the page shows.
  // With the Origin the browser would send, so that the refusal is the role's, not the Origin rule's.
  const res = await page.request.post(`/api/jobs/${jobId}/start`, { headers: { origin: baseURL! } });
  expect(res.status()).toBe(403);
  await page.screenshot({ path: `${ART}/viewer-job.png`, fullPage: true });
  await ctx.close();
});

test('reset checkpoint needs the job name typed, then the history is gone', async ({ page, request }) => {
  expect(await jobStatus(request, jobId)).toBe('STOPPED');
  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await page.getByRole('button', { name: 'Reset checkpoint…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reset checkpoint' });
  const confirm = dialog.getByRole('button', { name: 'Delete checkpoint' });
  await dialog.getByLabel('Type the job name to confirm the reset').fill('e2e-click');
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel('Type the job name to confirm the reset').fill(JOB);
  await page.screenshot({ path: `${ART}/job-reset-confirm.png`, fullPage: true });
  await confirm.click();
  await expect(page.getByRole('status').filter({ hasText: 'Checkpoint reset:' })).toContainText(/\d+ files and [1-9]\d* batches deleted/);
  await expect(page.getByRole('heading', { name: 'No batches yet' })).toBeVisible();
  const cp = await (await request.get(`/api/jobs/${jobId}/checkpoint`, { headers: auth })).json();
  expect(cp.files).toEqual([]);
});

test('delete job, with its checkpoint, needs the name typed; the job and the files are gone', async ({ page, request }) => {
  expect(await jobStatus(request, jobId)).toBe('STOPPED');
  // The reset emptied the checkpoint: put a file back, so there is something to delete.
  mkdirSync(dirs.cp, { recursive: true });
  writeFileSync(path.join(dirs.cp, 'metadata'), '{"id":"e2e"}');
  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await page.getByRole('button', { name: 'Delete job…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete job' });
  await expect(dialog.getByRole('checkbox')).toBeChecked();
  await expect(dialog).toContainText(dirs.cp);
  const confirm = dialog.getByRole('button', { name: 'Delete job' });
  await dialog.getByLabel('Type the job name to confirm the deletion').fill('e2e-click');
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel('Type the job name to confirm the deletion').fill(JOB);
  await confirm.click();
  await page.waitForURL((u) => u.pathname === '/');
  await expect(page.getByRole('link', { name: JOB, exact: true })).toHaveCount(0);
  expect((await request.get(`/api/jobs/${jobId}`, { headers: auth })).status()).toBe(404);
  expect(existsSync(path.join(dirs.cp, 'metadata'))).toBe(false);
  createdJobs.splice(createdJobs.indexOf(jobId), 1);
});
