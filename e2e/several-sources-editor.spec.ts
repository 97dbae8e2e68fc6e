/**
 * The job editor over several sources: a job of two `rate` streams written in the form (a panel
 * per source, "Add source"), seen on its page, its second source's watermark delay edited and
 * saved; and a source removed, which the form saves back as a one-source spec, and which the
 * server refuses, in the form, once the job's checkpoint has batches of both sources.
 */
import { expect, test, type Page } from '@playwright/test';
import { auth, jobState, removeJobs, stopped } from './jobs-api';
import { signIn } from './sign-in';
import { rateSource } from './editor-form';

const created: string[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => removeJobs(request, created));

type Spec = { source?: { name: string; watermarkDelay?: string }; sources?: { name: string; eventTime?: string; watermarkDelay?: string }[]; multipleWatermarkPolicy?: string; sql: string };
const specOf = async (request: import('@playwright/test').APIRequestContext, id: string): Promise<Spec> =>
  ((await (await request.get(`/api/jobs/${id}`, { headers: auth })).json()) as { spec: Spec }).spec;

/** Waits for the editor to be hydrated (the SQL editor exists only then). */
async function editorReady(page: Page) {
  await expect(page.getByRole('textbox', { name: 'SQL query' })).toBeVisible();
}

test('a job of two sources written in the form, shown on its page, its second source edited', async ({ page, request }) => {
  test.setTimeout(180_000);
  const name = `e2e-two-sources-${Date.now()}`;
  await signIn(page);
  await page.goto('/jobs/new');
  await editorReady(page);
  await page.getByLabel('Name', { exact: true }).fill(name);
  await rateSource(page, 'Source', 'impressions');
  // One source has no Remove and no watermark policy.
  await expect(page.getByRole('button', { name: /^Remove source/ })).toHaveCount(0);
  await expect(page.getByLabel('Watermark of several sources')).toHaveCount(0);

  await page.getByRole('button', { name: 'Add source' }).click();
  await expect(page.getByRole('region', { name: 'Source 1', exact: true })).toBeVisible();
  await rateSource(page, 'Source 2', 'clicks');
  await page.getByLabel('Watermark of several sources').selectOption('max');
  await page.getByRole('textbox', { name: 'SQL query' }).fill('SELECT value FROM impressions UNION ALL SELECT value FROM clicks');
  await page.getByLabel('Sink type').selectOption('console');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  // The engine previews one source: the button says why it cannot run, rather than a refusal after it.
  const preview = page.getByRole('region', { name: 'Preview' });
  await expect(preview.getByRole('button', { name: 'Preview' })).toBeDisabled();
  await expect(preview).toContainText('A preview feeds one source, and this job reads several');
  await page.getByRole('button', { name: 'Save without starting' }).click();
  await page.waitForURL((u) => /^\/jobs\/[^/]+$/.test(u.pathname) && u.pathname !== '/jobs/new');
  const jobId = new URL(page.url()).pathname.split('/').pop()!;
  created.push(jobId);
  await expect(page.getByLabel('Sources', { exact: true })).toContainText('impressions (rate), clicks (rate)');
  const stored = await specOf(request, jobId);
  expect(stored.source).toBeUndefined();
  expect(stored.sources?.map((s) => s.name)).toEqual(['impressions', 'clicks']);
  expect(stored.multipleWatermarkPolicy).toBe('max');

  // The edit form loads both sources; a problem of the second lands on its field.
  await page.goto(`/jobs/${jobId}/edit`);
  await editorReady(page);
  const second = page.getByRole('region', { name: 'Source 2', exact: true });
  await expect(page.getByRole('region', { name: 'Source 1', exact: true }).getByLabel('Table name in SQL')).toHaveValue('impressions');
  await expect(second.getByLabel('Table name in SQL')).toHaveValue('clicks');
  await second.getByLabel('Event-time column').fill('timestamp');
  await second.getByLabel('Watermark delay').fill('soon');
  await expect(second.getByRole('alert').filter({ hasText: "Write it as Spark's withWatermark takes it" })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Validation' })).toContainText('Source 2: Watermark delay');
  await expect(page.getByRole('button', { name: 'Save changes' })).toBeDisabled();
  // Spark's interval strings, several units and months of 31 days, as the engine takes them.
  await second.getByLabel('Watermark delay').fill('1 hour 30 minutes');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL((u) => u.pathname === `/jobs/${jobId}`);
  const edited = await specOf(request, jobId);
  expect(edited.sources?.map((s) => [s.name, s.eventTime, s.watermarkDelay])).toEqual([
    ['impressions', undefined, undefined],
    ['clicks', 'timestamp', '1 hour 30 minutes'],
  ]);
});

test('a source removed in the form: saved as one source, and refused once the checkpoint has both', async ({ page, request }) => {
  test.setTimeout(240_000);
  const rate = (name: string) => ({ name, type: 'rate', options: { rowsPerSecond: 2 }, schema: [{ name: 'timestamp', type: 'timestamp' }, { name: 'value', type: 'long' }] });
  const spec = (name: string) => ({
    name,
    sources: [rate('impressions'), rate('clicks')],
    sql: 'SELECT value FROM impressions UNION ALL SELECT value FROM clicks',
    sink: { type: 'console', options: {} },
    trigger: { type: 'processing-time', interval: '500 milliseconds' },
  });
  const create = async (name: string) => {
    const res = await request.post('/api/jobs', { headers: auth, data: { spec: spec(name) } });
    expect(res.status(), await res.text()).toBe(201);
    const id = ((await res.json()) as { job: { id: string } }).job.id;
    created.push(id);
    return id;
  };
  const removeClicks = async (id: string) => {
    await page.goto(`/jobs/${id}/edit`);
    await editorReady(page);
    await page.getByRole('button', { name: 'Remove source 2 (clicks)' }).click();
    await expect(page.getByRole('region', { name: 'Source', exact: true }).getByLabel('Table name in SQL')).toHaveValue('impressions');
    await page.getByRole('textbox', { name: 'SQL query' }).fill('SELECT value FROM impressions');
  };
  await signIn(page);

  // Never started: nothing in its checkpoint, the change saves, written back as `source`.
  const fresh = await create(`e2e-remove-source-${Date.now()}`);
  await removeClicks(fresh);
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL((u) => u.pathname === `/jobs/${fresh}`);
  const saved = await specOf(request, fresh);
  expect(saved.sources).toBeUndefined();
  expect(saved.source?.name).toBe('impressions');
  expect(saved.sql).toBe('SELECT value FROM impressions');

  // Run a batch: the checkpoint then records two sources, and the server refuses one.
  const ran = await create(`e2e-remove-source-ran-${Date.now()}`);
  expect((await request.post(`/api/jobs/${ran}/start`, { headers: auth })).status()).toBe(200);
  await expect.poll(async () => (await jobState(request, ran)).lastBatchId ?? -1, { timeout: 90_000 }).toBeGreaterThanOrEqual(0);
  await stopped(request, ran);
  await removeClicks(ran);
  const refusal = page.getByRole('alert', { name: 'Incompatible with the checkpoint' });
  await expect(refusal).toContainText('There are [2] sources in the checkpoint offsets and now there are [1] sources');
  await expect(page.getByRole('button', { name: 'Save changes' })).toBeDisabled();
  expect((await specOf(request, ran)).sources?.map((s) => s.name)).toEqual(['impressions', 'clicks']);
});
