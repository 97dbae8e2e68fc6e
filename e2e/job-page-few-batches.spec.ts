/**
 * A job of two batches on its page: its line charts mark each point (a line alone does not say
 * how few batches it joins), and on a narrow window the batch table scrolls sideways inside its
 * box while the page itself stays as wide as the window.
 */
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { jobState, removeJobs, startedJob } from './jobs-api';
import { signIn } from './sign-in';

const created: string[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => removeJobs(request, created));

test('two batches: the rate chart marks each point; a narrow window scrolls the batch table, not the page', async ({ page, request }) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-e2e-few-batches-'));
  const write = (name: string, text: string) => {
    writeFileSync(path.join(dir, `.${name}`), text);
    renameSync(path.join(dir, `.${name}`), path.join(dir, name));
  };
  write('part-0.json', '{"v":1}\n{"v":2}\n{"v":3}\n');
  const jobId = await startedJob(request, {
    name: `e2e-few-batches-${Date.now()}`,
    source: { name: 'events', type: 'files', options: { path: dir, format: 'json' }, schema: [{ name: 'v', type: 'long' }] },
    sql: 'SELECT v FROM events',
    sink: { type: 'console', options: {} },
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
  }, created);
  await expect.poll(async () => (await jobState(request, jobId)).lastBatchId, { timeout: 90_000 }).toBe(0);
  write('part-1.json', '{"v":4}\n');
  await expect.poll(async () => (await jobState(request, jobId)).lastBatchId, { timeout: 90_000 }).toBe(1);

  await signIn(page);
  await page.goto(`/jobs/${jobId}`);
  await page.getByRole('tab', { name: 'Charts' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^2 batches\b/ })).toBeVisible();
  const title = 'Input rate vs processing rate (rows/s)';
  const rates = page.getByRole('region', { name: title }).getByRole('img', { name: title });
  // Input and processed rate: a dot per batch each.
  await expect(rates.locator('.recharts-line-dot')).toHaveCount(4);

  await page.setViewportSize({ width: 480, height: 800 });
  await page.getByRole('tab', { name: 'Batches' }).click();
  const box = page.getByRole('region', { name: 'Batches table' });
  await expect(box.getByRole('row', { name: /^1 / })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 'the page scrolls sideways').toBeLessThanOrEqual(0);
  expect(await box.evaluate((el) => el.scrollWidth - el.clientWidth), 'the table scrolls inside its box').toBeGreaterThan(0);
  const right = await box.evaluate((el) => el.getBoundingClientRect().right);
  expect(right).toBeLessThanOrEqual(480);
});
