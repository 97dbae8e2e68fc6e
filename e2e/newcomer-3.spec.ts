/**
 * The rest of what a newcomer read on the job page at 1280 px: the Runs tab follows a restart at
 * once; a files source on a folder that does not exist says so before it deploys, on the job page
 * and when it starts; a run has one id everywhere; the rate and offset charts read right.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { signIn } from './sign-in';

const auth = { authorization: 'Bearer e2e-admin-token-0123456789abcdef' };

test.use({ viewport: { width: 1280, height: 800 } });

/** A folder with one complete JSON file of two rows (written elsewhere, then renamed in). */
function inputFolder(prefix: string): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), `weir-e2e-${prefix}-`)), 'in');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, '.part-0.tmp'), '{"user": "ann", "ts": "2026-11-29T09:00:00Z"}\n{"user": "bob", "ts": "2026-11-29T09:00:01Z"}\n');
  renameSync(path.join(dir, '.part-0.tmp'), path.join(dir, 'part-0.json'));
  return dir;
}

function filesSpec(name: string, dir: string) {
  return {
    name,
    source: { name: 'events', type: 'files', options: { path: dir, format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }] },
    sql: 'SELECT user, count(*) AS n FROM events GROUP BY user',
    sink: { type: 'console', options: {} },
    outputMode: 'update',
    trigger: { type: 'processing-time', interval: '1 second' },
  };
}

const jobOf = async (request: APIRequestContext, id: string) => (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()) as { status: string; lastBatchId: number | null };

async function cleanUp(request: APIRequestContext, id: string): Promise<void> {
  await request.post(`/api/jobs/${id}/stop`, { headers: auth });
  await expect.poll(async () => ['STOPPED', 'FAILED'].includes((await jobOf(request, id)).status), { timeout: 60_000 }).toBe(true);
  await request.delete(`/api/jobs/${id}`, { headers: auth });
}

test('after Restart the Runs tab never shows the old run still RUNNING, and the new run appears', async ({ page, request }) => {
  test.setTimeout(180_000);
  const created = await request.post('/api/jobs', { headers: auth, data: { spec: filesSpec(`e2e-newcomer3-restart-${Date.now()}`, inputFolder('newcomer3-restart')) } });
  expect(created.status(), await created.text()).toBe(201);
  const id = (await created.json()).job.id as string;
  try {
    expect((await request.post(`/api/jobs/${id}/start`, { headers: auth })).ok()).toBe(true);
    await expect.poll(async () => (await jobOf(request, id)).lastBatchId, { timeout: 120_000 }).not.toBeNull();
    await signIn(page);
    await page.goto(`/jobs/${id}`);
    await expect(page.getByText('RUNNING', { exact: true }).first()).toBeVisible();
    await page.getByRole('tab', { name: 'Runs', exact: true }).click();
    const runs = page.getByRole('table', { name: 'Runs' });
    const firstRow = runs.getByRole('row').nth(1);
    await expect(firstRow).toContainText('RUNNING');
    const oldRun = (await firstRow.locator('code').first().innerText()).trim();

    // Every runs response after the restart's own: the first is what the tab shows right after
    // the click, and it must not be the old run still RUNNING.
    // Each body is read as its response arrives. A request the page cancelled (a refetch that
    // superseded it) has no body the browser keeps, and was never shown: it is skipped, so the
    // first body read is the first the tab could show.
    type RunsPage = { items: { runId: string; status: string }[] };
    const after: (RunsPage | undefined)[] = [];
    let restarted = false;
    page.on('response', (r) => {
      if (r.url().endsWith(`/api/jobs/${id}/restart`)) restarted = true;
      else if (restarted && r.url().includes(`/api/jobs/${id}/runs?`)) {
        const slot = after.length;
        after.push(undefined);
        r.json().then((b: RunsPage) => (after[slot] = b), () => undefined);
      }
    });
    await page.getByRole('button', { name: 'Restart', exact: true }).click();
    await expect.poll(() => after.some((b) => b !== undefined), { timeout: 30_000 }).toBe(true);
    const first = after.find((b) => b !== undefined)!;
    const top = first.items[0];
    expect(top.runId.startsWith(oldRun) && top.status === 'RUNNING', `right after Restart the newest run is ${top.runId} ${top.status}`).toBe(false);

    // The table: the new run arrives on top and runs; the old one is stopped.
    await expect(firstRow.locator('code').first()).not.toHaveText(oldRun, { timeout: 60_000 });
    await expect(firstRow).toContainText('RUNNING', { timeout: 60_000 });
    await expect(runs.getByRole('row').filter({ hasText: oldRun })).toContainText('STOPPED');
  } finally {
    await cleanUp(request, id);
  }
});

test('a files source on a folder that does not exist: warned at validation and on the job page, failed at start saying to create it', async ({ page, request }) => {
  test.setTimeout(180_000);
  const missing = path.join(mkdtempSync(path.join(tmpdir(), 'weir-e2e-newcomer3-missing-')), 'mistyped-in');
  const spec = filesSpec(`e2e-newcomer3-missing-${Date.now()}`, missing);

  // The API's check: valid (the folder may be made before the start), with a warning on the field.
  const checked = (await (await request.post('/api/jobs/validate', { headers: auth, data: { spec } })).json()) as { ok: boolean; warnings: { path: string; message: string }[] };
  expect(checked.ok).toBe(true);
  const warning = checked.warnings.find((w) => w.path === 'source.options.path');
  expect(warning?.message).toContain(`Path does not exist: ${missing}`);
  expect(warning?.message).toContain('create the folder');

  // Outside the files roots nothing tells whether a path exists: the same answer for both.
  const outside = async (p: string) => JSON.stringify(await (await request.post('/api/jobs/validate', { headers: auth, data: { spec: filesSpec('e2e-outside', p) } })).json()).replaceAll(p, '<p>');
  const [there, notThere] = [await outside('/usr/share'), await outside(`/usr/share/weir-nothing-${Date.now()}`)];
  expect(there).toBe(notThere);
  expect(there).not.toContain('does not exist');

  const created = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(created.status(), await created.text()).toBe(201);
  const body = (await created.json()) as { job: { id: string }; warnings: { path: string; message: string }[] };
  const id = body.job.id;
  try {
    expect(body.warnings.map((w) => w.path)).toContain('source.options.path');
    await signIn(page);

    // The editor's Validation panel: ready, and the warning under the field's label.
    await page.goto(`/jobs/${id}/edit`);
    const validation = page.getByRole('region', { name: 'Validation' });
    await expect(validation.getByText('Ready to deploy')).toBeVisible();
    await expect(validation).toContainText(`Input directory: Path does not exist: ${missing}`);

    // The job page says it before anyone starts the job.
    await page.goto(`/jobs/${id}`);
    await expect(page.getByRole('status').filter({ hasText: 'Path does not exist' })).toContainText(missing);

    // Started, the run fails at once with Spark's class and what to do, rather than run with no batches.
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'The last run failed' });
    await expect(failed).toContainText('PATH_NOT_FOUND', { timeout: 60_000 });
    await expect(failed).toContainText(`mkdir -p '${missing}'`);
    expect((await jobOf(request, id)).lastBatchId).toBeNull();
  } finally {
    await cleanUp(request, id);
  }
});

/** CIELAB (D65) of a computed `rgb(r, g, b)` colour. */
function lab(rgb: string): [number, number, number] {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
    const v = Number(c) / 255;
    return v > 0.04045 ? ((v + 0.055) / 1.055) ** 2.4 : v / 12.92;
  });
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const [x, y, z] = [(r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047, r * 0.2126 + g * 0.7152 + b * 0.0722, (r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883];
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

test('charts: both rates on one rows/s axis; the phases, latestOffset and commitOffsets among them, in colours apart in light and dark', async ({ page, request }) => {
  test.setTimeout(180_000);
  const created = await request.post('/api/jobs', { headers: auth, data: { spec: filesSpec(`e2e-newcomer3-charts-${Date.now()}`, inputFolder('newcomer3-charts')) } });
  expect(created.status(), await created.text()).toBe(201);
  const id = (await created.json()).job.id as string;
  try {
    expect((await request.post(`/api/jobs/${id}/start`, { headers: auth })).ok()).toBe(true);
    await expect.poll(async () => (await jobOf(request, id)).lastBatchId, { timeout: 120_000 }).not.toBeNull();
    await signIn(page);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`/jobs/${id}`);
      await page.getByRole('tab', { name: 'Charts', exact: true }).click();
      const rates = page.getByRole('img', { name: 'Input rate vs processing rate (rows/s)' });
      await expect(rates.locator('.recharts-line')).toHaveCount(2);
      expect(await rates.locator('.recharts-yAxis').count(), 'one axis for rows/s').toBe(1);
      await expect(rates.locator('.recharts-legend-item-text')).toHaveText(['input rows/s', 'processed rows/s']);

      // Each phase's colour as its legend draws it (a chart of one batch draws no area yet).
      const phases = page.getByRole('img', { name: 'Batch duration by phase (ms)' });
      await expect(phases.locator('.recharts-legend-item')).toHaveCount(7);
      const legend = await phases.locator('.recharts-legend-item-text').allInnerTexts();
      expect(legend).toEqual(expect.arrayContaining(['latestOffset', 'commitOffsets']));
      const colours = await phases.locator('.recharts-legend-icon').evaluateAll((els) => els.map((e) => getComputedStyle(e).stroke));
      for (let i = 0; i < colours.length; i++) {
        for (let j = i + 1; j < colours.length; j++) {
          const d = Math.hypot(...lab(colours[i]).map((v, k) => v - lab(colours[j])[k]));
          expect(d, `${colorScheme}: ${legend[i]} ${colours[i]} vs ${legend[j]} ${colours[j]}`).toBeGreaterThanOrEqual(20);
        }
      }
    }
  } finally {
    await cleanUp(request, id);
  }
});

test('one id per run: the Runs tab, each batch, and its progress JSON name the run by the same runId', async ({ request }) => {
  test.setTimeout(180_000);
  const created = await request.post('/api/jobs', { headers: auth, data: { spec: filesSpec(`e2e-newcomer3-runid-${Date.now()}`, inputFolder('newcomer3-runid')) } });
  expect(created.status(), await created.text()).toBe(201);
  const id = (await created.json()).job.id as string;
  try {
    expect((await request.post(`/api/jobs/${id}/start`, { headers: auth })).ok()).toBe(true);
    await expect.poll(async () => (await jobOf(request, id)).lastBatchId, { timeout: 120_000 }).not.toBeNull();
    const runs = (await (await request.get(`/api/jobs/${id}/runs`, { headers: auth })).json()).items as { id: string; runId: string }[];
    expect(runs).toHaveLength(1);
    const batches = (await (await request.get(`/api/jobs/${id}/batches`, { headers: auth })).json()).items as { batchId: number; runId: string }[];
    expect(batches.map((b) => b.runId)).toEqual(batches.map(() => runs[0].runId));
    const one = (await (await request.get(`/api/jobs/${id}/batches/${batches[0].batchId}`, { headers: auth })).json()) as { progress: { runId: string } };
    expect(one.progress.runId).toBe(runs[0].runId);
  } finally {
    await cleanUp(request, id);
  }
});
