/**
 * More of what a newcomer reads on the dashboard at 1280 px: the demo's diagnosis card after both
 * incidents stays readable and its figures add up; tables keep their actions on screen; the
 * editor's errors lead with the fix and its placeholders are paths that work.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { signIn } from './sign-in';

const auth = { authorization: 'Bearer e2e-admin-token-0123456789abcdef' };


test.use({ viewport: { width: 1280, height: 800 } });

interface DemoJob {
  mode: string;
  status: string;
  lastBatchId: number | null;
  drills: { id: string; status: string; recoveredAt: string | null }[];
}
const demoJobs = async (request: APIRequestContext): Promise<DemoJob[]> => ((await (await request.get('/api/demo', { headers: auth })).json()) as { jobs: DemoJob[] }).jobs;
const bareOf = async (request: APIRequestContext) => (await demoJobs(request)).find((j) => j.mode === 'bare-append')!;
const ints = (s: string) => [...s.matchAll(/\d+/g)].map((m) => Number(m[0]));

test('demo after a drill and a lost checkpoint: the diagnosis is readable, its figures add up, recovery time stays put', async ({ page, request }) => {
  test.setTimeout(420_000);
  // Wide enough for the two demo cards side by side, as a newcomer's screen shows them.
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto('/demo');
  const setUp = page.getByRole('button', { name: 'Set up the demo' });
  const bare = page.getByTestId('demo-bare-append');
  // Another spec of this suite may have set the demo up already.
  await expect(setUp.or(bare)).toBeVisible();
  if (await setUp.isVisible()) await setUp.click();
  await expect(bare.getByText('RUNNING', { exact: true })).toBeVisible({ timeout: 60_000 });
  const drill = bare.getByRole('button', { name: /crash after the sink write/ });
  await expect(drill).toBeEnabled({ timeout: 60_000 });
  const before = (await bareOf(request)).drills.length;
  await drill.click();
  await expect.poll(async () => (await bareOf(request)).drills.length, { timeout: 30_000 }).toBeGreaterThan(before);
  // The drill crashes the next batch: give it orders to read (another spec may have drained the source).
  expect((await request.post('/api/demo', { headers: auth, data: { addFiles: 5 } })).ok()).toBe(true);
  await expect.poll(async () => (await bareOf(request)).drills[0].status, { timeout: 120_000 }).toBe('RECOVERED');

  // The drill recovered once: later batches do not move its recovery time.
  const first = (await bareOf(request)).drills[0];
  expect(first.recoveredAt).not.toBeNull();
  const batchThen = (await bareOf(request)).lastBatchId ?? 0;
  await expect.poll(async () => (await bareOf(request)).lastBatchId ?? 0, { timeout: 60_000 }).toBeGreaterThanOrEqual(batchThen + 2);
  expect.soft((await bareOf(request)).drills[0].recoveredAt).toBe(first.recoveredAt);
  await page.reload();
  const drillLine = page.getByTestId('drill-bare-append');
  await expect(drillLine).toContainText('RECOVERED');
  const shown = await drillLine.innerText();
  await page.reload();
  await expect.soft(drillLine).toHaveText(shown, { timeout: 1000 });

  await bare.getByRole('button', { name: /Lose the checkpoint/ }).click();
  await expect(bare.getByRole('status').filter({ hasText: 'Checkpoint lost' })).toBeVisible({ timeout: 150_000 });
  const diagnosis = page.getByTestId('diagnosis-bare-append').getByTestId('duplicate-diagnosis');
  await expect(diagnosis).toHaveAttribute('data-verdict', 'checkpoint-loss', { timeout: 90_000 });
  await page.screenshot({ path: 'e2e/artifacts/newcomer-demo-diagnosis.png', fullPage: true });
  // Each card's signature regions are named after its job: no two landmarks share a name.
  const landmarks = await new AxeBuilder({ page }).withRules(['landmark-unique', 'heading-order']).analyze();
  expect.soft(landmarks.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`))).toEqual([]);

  // Every finding's values get a column wide enough to read: no two-character column.
  const values = diagnosis.locator('dl.kv dd');
  expect(await values.count()).toBeGreaterThan(0);
  for (const box of await values.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width))) expect.soft(box).toBeGreaterThanOrEqual(200);
  // Values wrap between words: no word narrower than its line is broken across two lines.
  const broken = await values.evaluateAll((els) =>
    els.flatMap((dd) => {
      const out: string[] = [];
      const walker = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        // A word: no space and no hyphen (a line may break after a hyphen, as in a UUID).
        for (const m of (n.textContent ?? '').matchAll(/[^\s-]+/g)) {
          const r = document.createRange();
          r.setStart(n, m.index!);
          r.setEnd(n, m.index! + m[0].length);
          const lines = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
          if (lines.size > 1 && r.getBoundingClientRect().width < dd.getBoundingClientRect().width) out.push(m[0]);
        }
      }
      return out;
    }),
  );
  expect.soft(broken).toEqual([]);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect.soft(height).toBeLessThanOrEqual(3000);

  // The figures add up: the card's total is the sum of its parts (per batch id, and under batch
  // ids the current query has not committed yet); the per-batch parts are the diagnosis's findings.
  // The page refetches every 2 s while the new query rewrites the table: read the line and the
  // findings in one evaluation, from one render, or they may come from two responses.
  const { line, findings } = await page.evaluate(() => ({
    line: document.querySelector('[data-testid="duplicates-bare-append"]')?.textContent ?? '',
    findings: [...document.querySelectorAll('[data-testid="diagnosis-bare-append"] [data-testid="duplicate-diagnosis"] article')].map((e) => e.querySelector('dd:nth-of-type(2)')?.textContent ?? ''),
  }));
  const dupLine = line.replace(/\s+/g, ' ');
  const total = Number(/Duplicate rows in the sink: (\d+)/.exec(dupLine)![1]);
  const perBatch = [...dupLine.matchAll(/(\d+)(?:–(\d+))? \(\+(\d+)(?: each)?\)/g)].reduce((n, m) => n + Number(m[3]) * (m[2] ? Number(m[2]) - Number(m[1]) + 1 : 1), 0);
  const notCommitted = Number(/not committed yet: (\d+)/.exec(dupLine)?.[1] ?? 0);
  expect.soft(perBatch + notCommitted).toBe(total);
  expect.soft(findings.map(Number).reduce((a, b) => a + b, 0)).toBe(perBatch);
  const counts = await diagnosis.getByTestId('sink-counts').innerText({ timeout: 10_000 });
  const [actual, ...rest] = ints(counts.replace(/\s+/g, ' '));
  expect(rest.length).toBeGreaterThanOrEqual(2);
  expect(rest.reduce((a, b) => a + b, 0)).toBe(actual);
});

/** Where the e2e server keeps files (playwright.config.ts: the first of WEIR_FILES_ROOTS). */
const FILES_ROOT = path.resolve('.data/e2e/files');

test('the editor: output-mode errors lead with the fix and link to its fields; placeholders are paths that work', async ({ page }) => {
  await signIn(page);
  await page.goto('/jobs/new');
  const sqlBox = page.getByRole('textbox', { name: 'SQL query' });
  await expect(sqlBox).toBeVisible();
  const modes = page.getByRole('region', { name: 'Output mode' });

  // The directories' placeholders are under the server's files root, and the hint names the roots.
  const input = page.getByLabel('Input directory');
  const output = page.getByLabel('Output directory');
  await expect(input).toHaveAttribute('placeholder', path.join(FILES_ROOT, 'in'));
  await expect(output).toHaveAttribute('placeholder', path.join(FILES_ROOT, 'out'));
  await expect(page.getByRole('region', { name: 'Source' })).toContainText(`Must be under WEIR_FILES_ROOTS: ${FILES_ROOT}`);
  // Preview says why it cannot run yet, naming what to fill in.
  const preview = page.getByRole('region', { name: 'Preview' });
  await expect(preview.getByRole('button', { name: 'Preview' })).toBeDisabled();
  await expect(preview.locator('#preview-why')).toContainText('Name');
  await expect(preview.locator('#preview-why')).toContainText('Output directory');
  // The placeholders, typed in, are accepted.
  await page.getByLabel('Name', { exact: true }).fill(`e2e-newcomer2-${Date.now()}`);
  await input.fill((await input.getAttribute('placeholder'))!);
  await output.fill((await output.getAttribute('placeholder'))!);
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  await expect(page.getByText(/outside WEIR_FILES_ROOTS/)).toHaveCount(0);
  await expect(preview.locator('#preview-why')).toHaveCount(0);

  // A grouped count with the files sink and no watermark: no mode is allowed, and each says what to do.
  await sqlBox.fill('SELECT user, count(*) AS n FROM events GROUP BY user');
  await expect(modes.getByRole('note')).toContainText('No output mode is allowed');
  const append = modes.locator('.mode-option', { hasText: /^Append/ });
  await expect(append.locator('.mode-advice > span').first()).toHaveText(/^Set an event-time column and a watermark delay/);
  await expect(append.locator('.spark-detail')).toContainText('Append output mode not supported');
  const update = modes.locator('.mode-option', { hasText: /^Update/ });
  await expect(update.locator('.mode-advice > span').first()).toHaveText(/^The files sink cannot write Update output/);
  // The Validation panel leads with the same fix, not with "[CLASS]".
  const validation = page.getByRole('region', { name: 'Validation' });
  await expect(validation.locator('li').filter({ hasText: 'Output mode' }).first()).toContainText('Output mode: Set an event-time column');
  // The link goes to the field.
  await append.getByRole('button', { name: 'Event-time column' }).click();
  await expect(page.getByLabel('Event-time column')).toBeFocused();
  await page.screenshot({ path: 'e2e/artifacts/newcomer-output-modes.png', fullPage: true });
});

test('the editor: size limits are said where they apply; the sample checkbox, the trigger and preview headers read right', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.goto('/jobs/new');
  const sqlBox = page.getByRole('textbox', { name: 'SQL query' });
  await expect(sqlBox).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill(`e2e-newcomer2-${Date.now()}`);
  await page.getByLabel('Input directory').fill(path.join(FILES_ROOT, 'in'));
  await page.getByLabel('Output directory').fill(path.join(FILES_ROOT, 'out'));
  await expect(page.getByText('Ready to deploy.')).toBeVisible();

  // The Trigger select shows its whole choice.
  const trigger = page.getByRole('combobox', { name: /^Trigger/ });
  const fits = await trigger.evaluate((el: HTMLSelectElement) => {
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.font = getComputedStyle(el).font;
    // The arrow and the padding take about 32 px.
    return [...el.options].map((o) => ({ text: o.text, fits: ctx.measureText(o.text).width <= el.clientWidth - 32 }));
  });
  expect(fits.filter((f) => !f.fits)).toEqual([]);

  // The sample checkbox sits left of its words, on their line.
  const preview = page.getByRole('region', { name: 'Preview' });
  const box = preview.getByRole('checkbox', { name: /Paste a sample/ });
  await box.check();
  const cb = (await box.boundingBox())!;
  const words = (await preview.getByText('Paste a sample instead of reading the source').boundingBox())!;
  expect(cb.x + cb.width).toBeLessThanOrEqual(words.x);
  expect(Math.abs(cb.y + cb.height / 2 - (words.y + words.height / 2))).toBeLessThan(8);

  // A sample over the request limit: the message is about the sample and its limit, not SQL.
  const sample = preview.getByLabel(/Sample records/);
  // 900 records of 3 KB: under the record limit, 2.7 MB. Set at once: typing it would take minutes.
  const line = JSON.stringify({ user: 'u'.repeat(3000), ts: '2026-11-29T09:00:00Z' });
  await sample.evaluate((el: HTMLTextAreaElement, text) => {
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(el, text);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, Array.from({ length: 900 }, () => line).join('\n'));
  await preview.getByRole('button', { name: 'Preview' }).click();
  const err = preview.getByRole('alert');
  await expect(err).toContainText('The sample');
  await expect(err).toContainText('1.0 MiB');
  await expect(err).not.toContainText('SQL');

  // A small sample: the headers are the column's name and, beneath, its type, as written.
  await sample.fill([{ user: 'a', ts: '2026-11-29T09:00:00Z' }, { user: 'b', ts: '2026-11-29T09:00:01Z' }].map((r) => JSON.stringify(r)).join('\n'));
  await preview.getByRole('button', { name: 'Preview' }).click();
  const head = preview.getByRole('table', { name: 'Preview rows' }).getByRole('columnheader').first();
  await expect(head.locator('.col-name')).toHaveText('user');
  await expect(head.locator('.col-type')).toHaveText('string');
  expect(await head.evaluate((th) => getComputedStyle(th).textTransform)).toBe('none');
  const name = (await head.locator('.col-name').boundingBox())!;
  const type = (await head.locator('.col-type').boundingBox())!;
  expect(type.y).toBeGreaterThanOrEqual(name.y + name.height - 1);

  // A query over the API's limits: the Query field says how large it is and what the limit is.
  await sqlBox.evaluate((el, text) => {
    // CodeMirror takes a paste as one transaction; typing 1.2 MB would take minutes.
    const dt = new DataTransfer();
    dt.setData('text/plain', text);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, ` AND user NOT IN ('${'x'.repeat(1_200_000)}')`);
  const query = page.getByRole('region', { name: 'Query' });
  await expect(query.locator('.field-error')).toContainText(/The query is 1\.\d MiB; a query may be at most 64\.0 KiB/);
  await expect(page.getByText('Could not check the spec')).toHaveCount(0);
});

/** How far a table sticks out of its scroll box, and whether each named button is inside the box's visible part. */
async function clipped(page: Page, table: string, button: RegExp): Promise<{ overflow: number | string; outside: string[] }> {
  const t = page.getByRole('table', { name: table, exact: true });
  await expect(t).toBeVisible();
  const scroll = page.locator('.table-scroll').filter({ has: t }).first();
  // What sticks out past the box's right edge, if anything (named, so a failure says what).
  const overflow = await scroll.evaluate((el) => {
    const right = el.getBoundingClientRect().right + 0.5;
    const out = [...el.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > right).map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${(e.textContent ?? '').slice(0, 40)}`);
    return el.scrollWidth - el.clientWidth > 0 ? `${el.scrollWidth - el.clientWidth} px: ${out.slice(-3).join(' | ')}` : 0;
  });
  const view = (await scroll.boundingBox())!;
  const outside: string[] = [];
  for (const b of await t.getByRole('button', { name: button }).all()) {
    const r = (await b.boundingBox())!;
    if (r.x < view.x - 0.5 || r.x + r.width > view.x + view.width + 0.5 || r.x + r.width > 1280) outside.push((await b.innerText()).trim());
  }
  return { overflow, outside };
}

test('at 1280x800 every table keeps its actions on screen: Jobs, Contracts, Runs with an error', async ({ page, request }) => {
  test.setTimeout(240_000);
  const root = mkdtempSync(path.join(tmpdir(), 'weir-e2e-newcomer2-'));
  const badDir = path.join(root, 'bad');
  mkdirSync(badDir, { recursive: true });
  writeFileSync(path.join(badDir, 'part-0.json'), '{"user": "ann"}\nnot json at all, and a long line of it to make the error as wide as a real one is: ' + 'x'.repeat(300) + '\n');
  const name = `e2e-newcomer2-failing-with-a-long-name-${Date.now()}`;
  const created = await request.post('/api/jobs', {
    headers: auth,
    data: {
      spec: {
        name,
        source: { name: 'clicks', type: 'files', options: { path: badDir, format: 'json' }, schema: [{ name: 'user', type: 'string' }] },
        sql: 'SELECT user FROM clicks',
        sink: { type: 'files', options: { path: path.join(root, 'out'), format: 'json' } },
        outputMode: 'append',
        trigger: { type: 'processing-time', interval: '500 milliseconds' },
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const id = (await created.json()).job.id as string;
  try {
    expect((await request.post(`/api/jobs/${id}/start`, { headers: auth })).ok()).toBe(true);
    await expect.poll(async () => (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()).status, { timeout: 120_000 }).toBe('FAILED');

    await signIn(page);
    await page.goto('/');
    const jobs = await clipped(page, 'Jobs', /Start|Stop|Restart|Delete/);
    expect(jobs.outside).toEqual([]);
    expect(jobs.overflow).toBe(0);

    await page.goto('/audit/contracts');
    const contracts = page.getByRole('table', { name: 'Contract audit' });
    await expect(contracts.getByRole('row').nth(1)).toBeVisible();
    const c = await clipped(page, 'Contract audit', /./);
    expect(c.overflow).toBe(0);
    for (const h of ['Last restart', 'Fix']) await expect(contracts.getByRole('columnheader', { name: new RegExp(h, 'i') })).toBeInViewport({ ratio: 0.95 });

    await page.goto(`/jobs/${id}`);
    await page.getByRole('tab', { name: 'Runs' }).click();
    const runs = page.getByRole('table', { name: 'Runs' });
    await expect(runs.locator('.error-box').first()).toBeVisible();
    const r = await clipped(page, 'Runs', /./);
    expect(r.overflow).toBe(0);
    // The error is inside the table's box and wide enough to read (not a sliver of a column).
    const error = (await runs.locator('.error-box').first().boundingBox())!;
    const scrollBox = (await page.locator('.table-scroll').filter({ has: runs }).boundingBox())!;
    expect(error.x + error.width).toBeLessThanOrEqual(scrollBox.x + scrollBox.width + 0.5);
    expect(error.width).toBeGreaterThanOrEqual(260);
    await page.screenshot({ path: 'e2e/artifacts/newcomer-runs-error.png', fullPage: true });
  } finally {
    await request.delete(`/api/jobs/${id}`, { headers: auth });
  }
});

test('signed out, the navigation offers sign-in only, not links that all lead there', async ({ page }) => {
  await page.goto('/signin');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Sign in' })).toBeVisible();
  for (const l of ['Jobs', 'New job', 'Alerts', 'Contracts', 'Demo']) await expect(nav.getByRole('link', { name: l, exact: true })).toHaveCount(0);
});

test('axe: the Runs table scrolls by keyboard, headings go down one level at a time on Charts, Checkpoint and a batch', async ({ page, request }) => {
  test.setTimeout(180_000);
  const root = mkdtempSync(path.join(tmpdir(), 'weir-e2e-newcomer2-axe-'));
  // Long unbreakable paths, whatever the checkout's own path: the edit page must wrap or cut them.
  const long = 'a_deliberately_long_folder_name_without_any_break'.repeat(3);
  const inDir = path.join(root, long, 'in');
  mkdirSync(inDir, { recursive: true });
  writeFileSync(path.join(inDir, '.part-0.tmp'), '{"user": "ann", "ts": "2026-11-29T09:00:00Z"}\n{"user": "bob", "ts": "2026-11-29T09:00:01Z"}\n');
  renameSync(path.join(inDir, '.part-0.tmp'), path.join(inDir, 'part-0.json'));
  const created = await request.post('/api/jobs', {
    headers: auth,
    data: {
      spec: {
        name: `e2e-newcomer2-axe-${Date.now()}`,
        source: { name: 'events', type: 'files', options: { path: inDir, format: 'json' }, schema: [{ name: 'user', type: 'string' }, { name: 'ts', type: 'timestamp' }] },
        sql: 'SELECT user, count(*) AS n FROM events GROUP BY user',
        sink: { type: 'console', options: {} },
        outputMode: 'update',
        trigger: { type: 'processing-time', interval: '1 second' },
        checkpointLocation: path.resolve('.data/e2e/checkpoints', `${long}_${Date.now()}`),
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const id = (await created.json()).job.id as string;
  const rules = ['scrollable-region-focusable', 'heading-order', 'landmark-unique'];
  const violations = async () => (await new AxeBuilder({ page }).withRules(rules).analyze()).violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
  try {
    expect((await request.post(`/api/jobs/${id}/start`, { headers: auth })).ok()).toBe(true);
    await expect.poll(async () => (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()).lastBatchId, { timeout: 120_000 }).not.toBeNull();
    await signIn(page);
    await page.goto(`/jobs/${id}`);
    for (const tab of ['Charts', 'Runs', 'Checkpoint']) {
      await page.getByRole('tab', { name: tab, exact: true }).click();
      if (tab === 'Charts') await expect(page.locator('.recharts-wrapper').first()).toBeVisible();
      if (tab === 'Runs') await expect(page.getByRole('table', { name: 'Runs' })).toBeVisible();
      if (tab === 'Checkpoint') await expect(page.getByRole('region', { name: 'State stores' })).toBeVisible();
      expect(await violations(), tab).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), `${tab}: nothing runs past the page`).toBeLessThanOrEqual(0);
    }
    // The Runs table's box is reachable by Tab and named, whether or not it scrolls now.
    const box = page.getByRole('region', { name: 'Runs table' });
    await page.getByRole('tab', { name: 'Runs', exact: true }).click();
    await expect(box).toHaveAttribute('tabindex', '0');
    await page.getByRole('tab', { name: 'Batches', exact: true }).click();
    await page.getByRole('table', { name: 'Batches' }).getByRole('button', { name: /^Details/ }).first().click();
    await expect(page.getByRole('table', { name: 'Duration by phase' })).toBeVisible();
    expect(await violations(), 'batch drill-down').toEqual([]);

    // The edit page: the checkpoint path stays in its row (its full text in the title), nothing
    // runs past the page.
    await page.goto(`/jobs/${id}/edit`);
    const cp = page.getByLabel('Checkpoint location');
    const location = (await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()).checkpointLocation as string;
    await expect(cp).toHaveValue(location);
    await expect(cp).toHaveAttribute('title', location);
    await expect(page.getByRole('region', { name: 'Validation' }).getByText('Ready to deploy')).toBeVisible();
    // The audit names the checkpoint's full path: it wraps inside its panel.
    await expect(page.getByRole('region', { name: 'Exactly-once audit' })).toContainText(long);
    const field = (await page.locator('[data-control="checkpointLocation"]').boundingBox())!;
    const input = (await cp.boundingBox())!;
    expect(input.x + input.width).toBeLessThanOrEqual(field.x + field.width + 0.5);
    await page.screenshot({ path: 'e2e/artifacts/newcomer-edit.png', fullPage: true });
    const wide = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 20));
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), wide.join('\n')).toBeLessThanOrEqual(0);
  } finally {
    await request.post(`/api/jobs/${id}/stop`, { headers: auth });
    await expect.poll(async () => ['STOPPED', 'FAILED'].includes((await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()).status), { timeout: 60_000 }).toBe(true);
    await request.delete(`/api/jobs/${id}`, { headers: auth });
  }
});
