/**
 * The plan graph, as someone who knows Spark's SQL tab reads it: in the job editor, a join of two
 * streams drawn with both its inputs (left and right) above the join and the sink below; on a
 * join job's page, the Plan tab's join box with the state figures of the newest batch, the same
 * figures the batch's progress holds.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { auth, jobState, removeJobs, stopped } from './jobs-api';
import { signIn } from './sign-in';
import { rateSource } from './editor-form';

const created: string[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => removeJobs(request, created));

/** Serious and critical axe violations inside `selector`, in the light and the dark colour scheme. */
async function violations(page: Page, selector: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const r = await new AxeBuilder({ page }).include(selector).analyze();
    found.push(...r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => v.nodes.map((n) => `${colorScheme}: ${v.id}: ${n.target.join(' ')}`)));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

test('the job editor draws a join of two streams with both its inputs', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.goto('/jobs/new');
  await expect(page.getByRole('textbox', { name: 'SQL query' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill(`e2e-plan-graph-editor-${Date.now()}`);
  await rateSource(page, 'Source', 'impressions');
  await page.getByRole('button', { name: 'Add source' }).click();
  await rateSource(page, 'Source 2', 'clicks');
  await page.getByRole('textbox', { name: 'SQL query' }).fill('SELECT i.value FROM impressions i JOIN clicks c ON i.value = c.value');
  await page.getByLabel('Sink type').selectOption('console');
  const explain = page.getByRole('region', { name: 'Explain' });
  await expect(explain.getByText('1 stateful operator')).toBeVisible();

  // The list by default; the graph a click away, and back.
  await expect(explain.getByRole('list', { name: 'Operators' })).toBeVisible();
  await explain.getByRole('button', { name: 'Graph' }).click();
  await expect(explain.getByRole('button', { name: 'Graph' })).toHaveAttribute('aria-pressed', 'true');
  const graph = explain.getByRole('img', { name: /^Plan graph of \d+ operators: rows flow from 2 sources impressions, clicks through 1 stateful operator \(Join\) into the console sink\.$/ });
  await expect(graph).toBeVisible();
  const box = (operator: string) => graph.locator(`g.plan-node[data-operator="${operator}"]`);
  await expect(box('StreamingRelation')).toHaveCount(2);
  await expect(box('StreamingRelation').first()).toContainText('impressions');
  await expect(box('StreamingRelation').last()).toContainText('clicks');
  await expect(box('Join')).toHaveClass(/stateful/);
  await expect(box('Join')).toContainText('stateful');
  await expect(box('Sink')).toContainText('console');
  // Both inputs of the join, labelled, the left one drawn left of the right one, both above it.
  const labels = graph.locator('text.plan-edge-label');
  await expect(labels).toHaveText(['left', 'right']);
  const [left, right, join] = await Promise.all([labels.first().boundingBox(), labels.last().boundingBox(), box('Join').boundingBox()]);
  expect(left!.x).toBeLessThan(right!.x);
  expect(left!.y).toBeLessThan(join!.y);
  // Every operator in full for a screen reader, the sink last.
  const items = explain.getByRole('list', { name: 'Plan operators' }).getByRole('listitem');
  await expect(items.first()).toHaveText(/^StreamingRelation impressions/);
  await expect(items.last()).toHaveText('Sink console');
  expect(await violations(page, 'section[aria-label="Explain"]')).toEqual([]);
  if (process.env.E2E_SCREENSHOT) await explain.screenshot({ path: process.env.E2E_SCREENSHOT.replace(/(\.png)?$/, '-editor.png') });

  await explain.getByRole('button', { name: 'List' }).click();
  await expect(explain.getByRole('list', { name: 'Operators' })).toBeVisible();
  await expect(graph).toHaveCount(0);
});

test("a join job's Plan tab shows the newest batch's state in the join's box", async ({ page, request }) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-plan-'));
  const write = (folder: string, name: string, rows: object[]) => {
    mkdirSync(path.join(dir, folder), { recursive: true });
    writeFileSync(path.join(dir, folder, `.${name}`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    renameSync(path.join(dir, folder, `.${name}`), path.join(dir, folder, name));
  };
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();
  write('impressions', 'part-0.json', [0, 1, 2, 3].map((id) => ({ id, ts: at(id) })));
  write('clicks', 'part-0.json', [{ id: 1, ts: at(30) }]);
  const source = (name: string, delay: string) => ({ name, type: 'files', options: { path: path.join(dir, name), format: 'json' }, schema: [{ name: 'id', type: 'long' }, { name: 'ts', type: 'timestamp' }], eventTime: 'ts', watermarkDelay: delay });
  const spec = {
    name: `e2e-plan-graph-${Date.now()}`,
    sources: [source('impressions', '10 seconds'), source('clicks', '20 seconds')],
    sql: 'SELECT i.id, i.ts AS shown, c.ts AS clicked FROM impressions i JOIN clicks c ON i.id = c.id AND c.ts BETWEEN i.ts AND i.ts + INTERVAL 1 MINUTE',
    sink: { type: 'console', options: {} },
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
  };
  const res = await request.post('/api/jobs', { headers: auth, data: { spec } });
  expect(res.status(), await res.text()).toBe(201);
  const jobId = ((await res.json()) as { job: { id: string } }).job.id;
  created.push(jobId);
  expect((await request.post(`/api/jobs/${jobId}/start`, { headers: auth })).status()).toBe(200);
  await expect.poll(async () => (await jobState(request, jobId)).lastBatchId ?? -1, { timeout: 90_000 }).toBeGreaterThanOrEqual(0);
  // Stopped, its newest batch stays the newest while the page is read.
  await stopped(request, jobId);

  // The API behind the tab: the plan's operators, the join stateful.
  const plan = (await (await request.get(`/api/jobs/${jobId}/plan`, { headers: auth })).json()) as { operators: { operator: string; kind: string }[]; problem: string | null };
  expect(plan.problem).toBeNull();
  expect(plan.operators.filter((o) => o.kind === 'stateful').map((o) => o.operator.split(' ')[0])).toEqual(['Join']);
  // What the newest batch's progress says, which the boxes must show.
  const newest = ((await (await request.get(`/api/jobs/${jobId}/batches?limit=1`, { headers: auth })).json()) as { items: { batchId: number }[] }).items[0].batchId;
  type Progress = { stateOperators: { numRowsTotal: number; customMetrics?: { leftBufferedRows?: number; rightBufferedRows?: number } }[]; sources: { numInputRows: number }[] };
  const progress = ((await (await request.get(`/api/jobs/${jobId}/batches/${newest}`, { headers: auth })).json()) as { progress: Progress }).progress;
  const [join] = progress.stateOperators;
  expect(join.numRowsTotal).toBeGreaterThan(0);

  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await page.getByRole('tab', { name: 'Plan', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Plan', exact: true });
  await expect(panel.getByText(`Figures of batch ${newest}, the newest committed`)).toBeVisible();
  const graph = panel.getByRole('img', { name: /^Plan graph of .* 2 sources impressions, clicks through 1 stateful operator \(Join\) into the console sink\. Figures of batch \d+\.$/ });
  await expect(graph).toBeVisible();
  const box = (operator: string) => graph.locator(`g.plan-node[data-operator="${operator}"]`);
  const rows = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
  await expect(box('Join')).toContainText(`state: ${rows(join.numRowsTotal)}`);
  await expect(box('Join')).toContainText(`left ${join.customMetrics!.leftBufferedRows} · right ${join.customMetrics!.rightBufferedRows} buffered`);
  await expect(box('StreamingRelation').first()).toContainText(`${rows(progress.sources[0].numInputRows)} in`);
  await expect(box('StreamingRelation').last()).toContainText(`${rows(progress.sources[1].numInputRows)} in`);
  await expect(graph.locator('text.plan-edge-label')).toHaveText(['left', 'right']);
  expect(await violations(page, 'section[aria-label="Plan"]')).toEqual([]);
  if (process.env.E2E_SCREENSHOT) await panel.screenshot({ path: process.env.E2E_SCREENSHOT.replace(/(\.png)?$/, '-job.png') });
});
