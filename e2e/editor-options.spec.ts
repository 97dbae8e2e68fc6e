// The editor's source and sink options: fields generated from each type's option schema, over
// the options JSON, with the exactly-once audit following what the fields say. Saves nothing.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';

test('option fields follow the sink type, carry shared options over, and drive the contract audit', async ({ page }) => {
  await page.goto('/signin?next=/jobs/new');
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('e2e-admin-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/jobs/new');
  await expect(page.getByRole('textbox', { name: 'SQL query' })).toBeVisible();

  const sink = page.getByRole('region', { name: 'Sink' });
  const audit = page.getByRole('region', { name: 'Exactly-once audit' });
  await page.getByLabel('Name', { exact: true }).fill('e2e-options');
  // Inside the server's roots (playwright.config.ts): a files root and the checkpoint root.
  await page.getByLabel('Input directory').fill(path.join(tmpdir(), 'weir-e2e-options', 'in'));
  await page.getByLabel('Checkpoint location').fill(path.resolve('.data/e2e/checkpoints/e2e-options'));

  // The CSV-only header option appears only once the format is csv.
  const source = page.getByRole('region', { name: 'Source' });
  await expect(source.getByLabel(/^Header/)).toHaveCount(0);
  await source.getByLabel('File format').selectOption('csv');
  await expect(source.getByLabel(/^Header/)).toBeVisible();
  await source.getByLabel('File format').selectOption('json');
  await expect(source.getByLabel(/^Header/)).toHaveCount(0);

  // A postgres sink: its own fields, required ones refused until filled.
  await sink.getByLabel('Sink type').selectOption('postgres');
  await expect(sink.getByLabel('Connection string')).toBeVisible();
  await expect(sink.getByLabel('Mode')).toBeVisible();
  await expect(sink.getByText('secret: masked whenever the job is read back')).toBeVisible();
  // Not an error before it is touched: listed as still to fill in, and nothing deploys.
  await expect(sink.getByRole('alert')).toHaveCount(0);
  await expect(page.getByText(/Still to fill in: .*Sink: Connection string/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Deploy' })).toBeDisabled();
  await sink.getByLabel('Connection string').fill('postgres://writer@127.0.0.1:5432/analytics');
  await sink.getByLabel('Table', { exact: true }).fill('clicks');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  await expect(audit.getByText('exactly-once', { exact: true })).toBeVisible();
  await expect(audit.getByText('transactional', { exact: true })).toBeVisible();

  // The mode field changes the guarantee the audit shows.
  await sink.getByLabel('Mode').selectOption('bare-append');
  await expect(audit.getByRole('heading').getByText('at-least-once', { exact: true })).toBeVisible();

  // The JSON below the fields is the same options.
  await sink.getByText('Options as JSON').click();
  const json = JSON.parse(await sink.getByLabel('Sink options (JSON)').inputValue());
  expect(json).toEqual({ connectionString: 'postgres://writer@127.0.0.1:5432/analytics', table: 'clicks', mode: 'bare-append' });

  // Another postgres sink keeps the connection string and table, drops what it has not got.
  await sink.getByLabel('Sink type').selectOption('postgres-upsert');
  await expect(sink.getByLabel('Connection string')).toHaveValue('postgres://writer@127.0.0.1:5432/analytics');
  await expect(sink.getByLabel('Table', { exact: true })).toHaveValue('clicks');
  await expect(page.getByRole('button', { name: 'Deploy' })).toBeDisabled(); // key columns are required
  await sink.getByLabel('Key columns').fill('user, ts');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  expect(JSON.parse(await sink.getByLabel('Sink options (JSON)').inputValue())).toEqual({
    connectionString: 'postgres://writer@127.0.0.1:5432/analytics',
    table: 'clicks',
    keyColumns: ['user', 'ts'],
  });

  // A number field with text that is not a number: flagged, kept, and not deployable.
  await sink.getByLabel('Sink type').selectOption('redis-stream');
  await sink.getByLabel('Stream', { exact: true }).fill('results');
  await sink.getByLabel('Max len').fill('lots');
  await expect(sink.getByText('must be a whole number')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Deploy' })).toBeDisabled();
  await page.screenshot({ path: 'e2e/artifacts/editor-options.png', fullPage: true });
  await sink.getByLabel('Max len').fill('1000');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
});
