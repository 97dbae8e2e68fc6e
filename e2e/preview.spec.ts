/**
 * The editor's Preview, as a user drives it: over a files source's most recent records (the
 * default), where the read stops at the preview's record bound and says so, with the output schema
 * and the first rows; then over a pasted sample, where a stateful query gets its note. Nothing is
 * deployed: the jobs list stays as it was.
 */
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { signIn } from './sign-in';

const root = mkdtempSync(path.join(tmpdir(), 'weir-e2e-preview-'));
const inDir = path.join(root, 'in');
mkdirSync(inDir, { recursive: true });
// More records than the preview reads (1,000), so the bound is what stops the read.
const RECORDS = 1200;
const tmp = path.join(inDir, '.part-0.json.tmp');
writeFileSync(tmp, Array.from({ length: RECORDS }, (_, i) => JSON.stringify({ user: `u${i % 5}`, ts: new Date(Date.UTC(2026, 10, 29, 9, 0, i % 60)).toISOString() })).join('\n') + '\n');
renameSync(tmp, path.join(inDir, 'part-0.json'));

async function openEditor(page: Page): Promise<void> {
  await signIn(page);
  await page.goto('/jobs/new');
  // Typing before hydration can be lost: the SQL editor exists only once the page is hydrated.
  await expect(page.getByRole('textbox', { name: 'SQL query' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill(`e2e-preview-${Date.now()}`);
  await page.getByLabel('Input directory').fill(inDir);
  await page.getByLabel('Output directory').fill(path.join(root, 'out'));
}

test('preview reads the source’s recent records: bound, schema, first rows', async ({ page }) => {
  await openEditor(page);
  await page.getByRole('textbox', { name: 'SQL query' }).fill("SELECT user, upper(user) AS loud FROM events WHERE user <> 'u0'");
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  const panel = page.getByRole('region', { name: 'Preview' });
  await expect(panel.getByRole('checkbox', { name: 'Paste a sample instead of reading the source' })).not.toBeChecked();
  await panel.getByRole('button', { name: 'Preview', exact: true }).click();
  const result = panel.getByRole('region', { name: 'Preview result' });
  // 1,000 of the 1,200 records are read; a fifth of them are u0 and filtered out.
  await expect(result.getByRole('status')).toContainText('Read 1000 recent records from');
  await expect(result.getByRole('status')).toContainText('(the preview’s limit; the source holds more)');
  await expect(result.getByRole('status')).toContainText('800 output rows from 1000 records, first 100 shown.');
  const table = result.getByRole('table', { name: 'Preview rows' });
  await expect(table.getByRole('columnheader')).toHaveText(['user string', 'loud string']);
  await expect(table.locator('tbody tr')).toHaveCount(100);
  const first = table.locator('tbody tr').first().getByRole('cell');
  const user = (await first.nth(0).textContent())!;
  expect(user).toMatch(/^u[1-4]$/);
  await expect(first.nth(1)).toHaveText(user.toUpperCase());
  // A stateless query gets no note.
  await expect(result.locator('p.muted-text')).toHaveCount(0);
  await page.screenshot({ path: 'e2e/artifacts/editor-preview-recent.png', fullPage: true });
});

test('preview over a pasted sample; a stateful query gets its note', async ({ page }) => {
  await openEditor(page);
  await page.getByLabel('Event-time column').fill('ts');
  await page.getByLabel('Watermark delay').fill('10 seconds');
  await page.getByRole('textbox', { name: 'SQL query' }).fill("SELECT user, window(ts, '1 minute') AS w, count(*) AS n FROM events GROUP BY user, window(ts, '1 minute')");
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  const panel = page.getByRole('region', { name: 'Preview' });
  await panel.getByRole('checkbox', { name: 'Paste a sample instead of reading the source' }).check();
  const preview = panel.getByRole('button', { name: 'Preview', exact: true });
  // Nothing pasted yet: nothing to preview.
  await expect(preview).toBeDisabled();
  // Two users in the 09:00 window, then a record at 09:05 moves the watermark past its end.
  const sample = [
    { user: 'ann', ts: '2026-11-29T09:00:01Z' },
    { user: 'ann', ts: '2026-11-29T09:00:20Z' },
    { user: 'bob', ts: '2026-11-29T09:00:30Z' },
    { user: 'cy', ts: '2026-11-29T09:05:00Z' },
  ];
  await panel.getByLabel('Sample records (one JSON object per line)').fill(sample.map((r) => JSON.stringify(r)).join('\n'));
  await preview.click();
  const result = panel.getByRole('region', { name: 'Preview result' });
  const status = result.getByRole('status');
  await expect(status).toContainText('from 4 records.');
  // A pasted sample reads nothing from the source.
  await expect(status).not.toContainText('Read ');
  await expect(result.getByText('The result after all 4 sample records, as the state holds it (append mode).')).toBeVisible();
  await expect(result.getByText(/Append mode emits a window only once the watermark passes its end/)).toBeVisible();
  const table = result.getByRole('table', { name: 'Preview rows' });
  await expect(table.getByRole('columnheader')).toHaveText(['user string', 'w struct<start:timestamp,end:timestamp>', 'n bigint']);
  // The 09:00 window closed (ann 2, bob 1); cy's 09:05 window is still open and not shown.
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(table).not.toContainText('cy');
  const counts = Object.fromEntries(await rows.evaluateAll((trs) => trs.map((tr) => [tr.children[0]!.textContent, tr.children[2]!.textContent])));
  expect(counts).toEqual({ ann: '2', bob: '1' });
  await page.screenshot({ path: 'e2e/artifacts/editor-preview-sample.png', fullPage: true });
});

test('a pasted 64-bit id keeps every digit, with the schema written as Spark DDL', async ({ page }) => {
  await openEditor(page);
  await page.getByLabel('Schema (one column per line: name type)').fill('user STRING, id BIGINT, price DECIMAL(10,2)');
  await page.getByRole('textbox', { name: 'SQL query' }).fill('SELECT user, id, id - 1 AS prev, price * 3 AS triple FROM events');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  const panel = page.getByRole('region', { name: 'Preview' });
  await panel.getByRole('checkbox', { name: 'Paste a sample instead of reading the source' }).check();
  await panel.getByLabel('Sample records (one JSON object per line)').fill('{"user": "ann", "id": 9223372036854775807, "price": 0.1}');
  await panel.getByRole('button', { name: 'Preview', exact: true }).click();
  const table = panel.getByRole('region', { name: 'Preview result' }).getByRole('table', { name: 'Preview rows' });
  await expect(table.locator('tbody tr')).toHaveCount(1);
  const cells = await table.locator('tbody tr td').allTextContents();
  expect(cells).toEqual(['ann', '9223372036854775807', '9223372036854775806', '0.30']);
});
