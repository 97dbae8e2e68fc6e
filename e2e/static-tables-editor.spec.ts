/**
 * The job editor's static tables: a job of a files stream and a static file table written in the
 * form ("Add static table"), a path outside the files roots refused at its field, the SQL editor
 * completing the table's columns after its alias, the plan showing the join, a preview over a
 * pasted sample joining the file's rows, saved, and reopened with the table still there.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { auth, removeJobs } from './jobs-api';
import { signIn } from './sign-in';

const created: string[] = [];
// home.spec.ts expects the empty jobs list: leave the app as we found it.
test.afterAll(async ({ request }) => removeJobs(request, created));

// Under the temp dir, one of the e2e server's files roots (playwright.config.ts).
const root = mkdtempSync(path.join(tmpdir(), 'weir-e2e-static-'));
const inDir = path.join(root, 'in');
mkdirSync(inDir, { recursive: true });
const regionsFile = path.join(root, 'regions.json');
writeFileSync(regionsFile, [{ code: 'eu', label: 'Europe' }, { code: 'us', label: 'United States' }].map((r) => JSON.stringify(r)).join('\n') + '\n');

type Spec = { staticTables?: Record<string, unknown>[]; sql: string };

test('a stream joined with a static file table: written in the form, validated, previewed, saved and reopened', async ({ page, request }) => {
  test.setTimeout(180_000);
  const name = `e2e-static-table-${Date.now()}`;
  await signIn(page);
  await page.goto('/jobs/new');
  const sql = page.getByRole('textbox', { name: 'SQL query' });
  await expect(sql).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill(name);
  const source = page.getByRole('region', { name: 'Source', exact: true });
  await source.getByLabel('Input directory').fill(inDir);
  await source.getByLabel(/^Schema/).fill('user string\nregion string');
  await page.getByLabel('Output directory').fill(path.join(root, 'out'));

  const tables = page.getByRole('region', { name: 'Static tables' });
  await expect(tables.getByRole('group')).toHaveCount(0);
  await tables.getByRole('button', { name: 'Add static table' }).click();
  const table = tables.getByRole('group', { name: 'Static table 1' });
  await expect(table.getByLabel('Table name in SQL')).toHaveValue('regions');
  await expect(table.getByLabel('Kind')).toHaveValue('file');
  // A file outside the server's files roots: the server's refusal lands on the path field.
  await table.getByLabel('File path').fill('/etc/regions.json');
  await sql.fill('SELECT e.user, r.label FROM events e LEFT JOIN regions r ON e.region = r.code');
  await expect(table.getByRole('alert').filter({ hasText: 'outside WEIR_FILES_ROOTS' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Validation' })).toContainText('Static table 1: File path');
  await table.getByLabel('File path').fill(regionsFile);
  await expect(table.getByLabel(/^Schema/)).toHaveValue('code string\nlabel string');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();

  // The plan: the stream's rows look the static table up.
  const operators = page.getByRole('region', { name: 'Explain' }).getByRole('list', { name: 'Operators' });
  await expect(operators).toContainText('Join LeftOuter (region = code)');
  await expect(operators).toContainText(`StaticRelation regions [label] (${regionsFile})`);

  // Completion: after the static table's alias (FROM names it), its columns.
  const query = 'SELECT e.user, r.label FROM events e LEFT JOIN regions r ON e.region = r.code';
  await sql.fill(query.replace('r.label', 'r.'));
  await sql.press('Control+Home');
  for (let i = 0; i < 'SELECT e.user, r.'.length; i++) await sql.press('ArrowRight');
  await sql.press('Control+Space');
  const listbox = page.getByRole('listbox');
  await expect(listbox.getByRole('option', { name: /^code/ })).toBeVisible();
  await expect(listbox.getByRole('option', { name: /^label/ })).toBeVisible();
  await expect(listbox.getByRole('option', { name: /^region/ })).toHaveCount(0);
  await page.getByRole('region', { name: 'Static tables' }).screenshot({ path: 'e2e/artifacts/editor-static-tables.png' });
  await sql.press('Escape');
  await sql.fill(query);
  await expect(page.getByText('Ready to deploy.')).toBeVisible();

  // Preview over a pasted sample: each record with its region's label, empty (NULL) without one.
  const preview = page.getByRole('region', { name: 'Preview' });
  await preview.getByRole('checkbox', { name: 'Paste a sample instead of reading the source' }).check();
  await preview.getByLabel('Sample records (one JSON object per line)').fill(['{"user": "ann", "region": "eu"}', '{"user": "bob", "region": "xx"}'].join('\n'));
  await preview.getByRole('button', { name: 'Preview', exact: true }).click();
  const rows = preview.getByRole('region', { name: 'Preview result' }).getByRole('table', { name: 'Preview rows' });
  await expect(rows.getByRole('columnheader')).toHaveText(['user string', 'label string']);
  await expect(rows.locator('tbody tr')).toHaveCount(2);
  expect(await rows.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)))).toEqual([
    ['ann', 'Europe'],
    ['bob', ''],
  ]);

  await page.getByRole('button', { name: 'Save without starting' }).click();
  await page.waitForURL((u) => /^\/jobs\/[^/]+$/.test(u.pathname) && u.pathname !== '/jobs/new');
  const jobId = new URL(page.url()).pathname.split('/').pop()!;
  created.push(jobId);
  const stored = ((await (await request.get(`/api/jobs/${jobId}`, { headers: auth })).json()) as { spec: Spec }).spec;
  expect(stored.staticTables).toEqual([{ name: 'regions', path: regionsFile, format: 'json', schema: [{ name: 'code', type: 'string' }, { name: 'label', type: 'string' }] }]);

  // Reopened: the table is in its fields, and saving unchanged keeps it as it was.
  await page.goto(`/jobs/${jobId}/edit`);
  await expect(sql).toBeVisible();
  const reopened = page.getByRole('region', { name: 'Static tables' }).getByRole('group', { name: 'Static table 1' });
  await expect(reopened.getByLabel('Table name in SQL')).toHaveValue('regions');
  await expect(reopened.getByLabel('Kind')).toHaveValue('file');
  await expect(reopened.getByLabel('File path')).toHaveValue(regionsFile);
  await expect(reopened.getByLabel('File format')).toHaveValue('json');
  await expect(reopened.getByLabel(/^Schema/)).toHaveValue('code string\nlabel string');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL((u) => u.pathname === `/jobs/${jobId}`);
  const saved = ((await (await request.get(`/api/jobs/${jobId}`, { headers: auth })).json()) as { spec: Spec }).spec;
  expect(saved.staticTables).toEqual(stored.staticTables);
});
