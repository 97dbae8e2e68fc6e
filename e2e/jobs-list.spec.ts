/**
 * The jobs list at scale, in Chromium against the running app: 60 jobs page at 50, the filter,
 * sort and page live in the URL (a reload shows the same page), and the status filter shows the
 * number of jobs in each status.
 */
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_ADMIN_TOKEN } from '../playwright.config';
import { signIn } from './sign-in';

const auth = { authorization: `Bearer ${E2E_ADMIN_TOKEN}` };
const dataDir = path.resolve('.data/e2e/files/jobs-list-spec');
const N = 60;
const name = (i: number) => `e2e-page-${String(i).padStart(3, '0')}`;

function spec(n: string) {
  return {
    name: n,
    source: { name: 'clicks', type: 'files', options: { path: `${dataDir}/${n}/in`, format: 'json' }, schema: [{ name: 'user', type: 'string' }] },
    sql: 'SELECT user FROM clicks',
    sink: { type: 'files', options: { path: `${dataDir}/${n}/out`, format: 'json' } },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '1 second' },
  };
}

test('60 jobs page at 50 with filter, sort and page in the URL, and totals per status', async ({ page, request }) => {
  test.setTimeout(240_000);
  for (let i = 0; i < N; i++) {
    const res = await request.post('/api/jobs', { headers: auth, data: { spec: spec(name(i)), description: i % 2 ? 'odd team' : 'even team' } });
    expect(res.status(), await res.text()).toBe(201);
  }
  await signIn(page);
  const rows = page.getByRole('table', { name: 'Jobs' }).locator('tbody tr');

  // Typing filters (name or description), and the filter goes into the URL.
  await page.getByLabel('Filter by name or description').fill('e2e-page');
  await page.waitForURL((u) => u.searchParams.get('q') === 'e2e-page');
  await expect(rows).toHaveCount(50);
  await expect(page.getByRole('status').filter({ hasText: 'matching jobs' })).toHaveText('50 shown of 60 matching jobs');
  await expect(rows.first()).toContainText(name(0));
  // Totals per status in the status filter: all 60 are STOPPED.
  await expect(page.getByRole('combobox', { name: /^Status/ }).locator('option', { hasText: 'STOPPED' })).toHaveText('STOPPED (60)');

  // The next page by keyset cursor: the last 10.
  await page.getByRole('link', { name: 'Next page' }).click();
  await page.waitForURL((u) => u.searchParams.has('cursor'));
  await expect(rows).toHaveCount(10);
  await expect(rows.first()).toContainText(name(50));
  await expect(page.getByRole('link', { name: 'Next page' })).toHaveCount(0);
  // A reload shows the same page.
  await page.reload();
  await expect(rows).toHaveCount(10);
  await expect(rows.last()).toContainText(name(59));

  // Sort by name, descending: back to the first page, newest names first.
  await page.getByRole('link', { name: 'First page' }).click();
  await expect(rows).toHaveCount(50);
  await page.getByRole('button', { name: /^Name/ }).click();
  await page.waitForURL((u) => u.searchParams.get('dir') === 'desc' && !u.searchParams.has('cursor'));
  await expect(rows.first()).toContainText(name(59));
  await expect(page.getByRole('columnheader', { name: /Name/ })).toHaveAttribute('aria-sort', 'descending');

  // A description word filters too, and a status with no job shows none.
  await page.getByLabel('Filter by name or description').fill('odd team');
  await page.waitForURL((u) => u.searchParams.get('q') === 'odd team');
  await expect(page.getByRole('status').filter({ hasText: 'matching jobs' })).toHaveText('30 shown of 30 matching jobs');
  await page.getByRole('combobox', { name: /^Status/ }).selectOption('RUNNING');
  await page.waitForURL((u) => u.searchParams.get('status') === 'RUNNING');
  await expect(page.getByText('No job matches this filter.').first()).toBeVisible();
});
