// The editor offers the Kafka source and sink from the connector catalog: their fields come from
// the option schemas, SASL fields appear only for a SASL protocol, the password is marked secret,
// the source needs no schema (Spark's fixed Kafka columns), and the audit labels the Kafka sink
// at-least-once. Saves nothing (no broker is needed).
import path from 'node:path';
import { expect, test } from '@playwright/test';

test('kafka source and sink fields from the catalog, with the audit following them', async ({ page }) => {
  await page.goto('/signin?next=/jobs/new');
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('e2e-admin-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/jobs/new');
  // The SQL editor exists only once the page is hydrated: wait for it before typing.
  const sqlBox = page.getByRole('textbox', { name: 'SQL query' });
  await expect(sqlBox).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('e2e-kafka');
  await page.getByLabel('Checkpoint location').fill(path.resolve('.data/e2e/checkpoints/e2e-kafka'));

  const source = page.getByRole('region', { name: 'Source' });
  const sink = page.getByRole('region', { name: 'Sink' });
  const audit = page.getByRole('region', { name: 'Exactly-once audit' });

  await source.getByLabel('Source type').selectOption('kafka');
  await expect(source.getByLabel('Bootstrap servers')).toBeVisible();
  await expect(source.getByLabel('Subscribe', { exact: true })).toBeVisible();
  await expect(source.getByLabel('Starting offsets', { exact: true })).toBeVisible();
  // SASL options only mean something for a SASL protocol.
  await expect(source.getByLabel('Sasl password')).toHaveCount(0);
  await source.getByLabel('Security protocol').selectOption('SASL_SSL');
  await expect(source.getByLabel('Sasl password')).toBeVisible();
  await expect(source.getByText('secret: masked whenever the job is read back').first()).toBeVisible();
  await source.getByLabel('Security protocol').selectOption('PLAINTEXT');
  await expect(source.getByLabel('Sasl password')).toHaveCount(0);
  await source.getByLabel('Bootstrap servers').fill('127.0.0.1:9092');
  await source.getByLabel('Subscribe', { exact: true }).fill('orders');
  // No schema: the Kafka source has Spark's fixed columns, and the editor says so.
  await expect(source.getByLabel('Schema (one column per line: name type)')).toHaveValue('');
  await expect(source.getByText("empty for the source's own columns (key binary, value binary, topic string", { exact: false })).toBeVisible();
  await sqlBox.fill('SELECT key, value FROM events');

  await sink.getByLabel('Sink type').selectOption('kafka');
  await sink.getByLabel('Bootstrap servers').fill('127.0.0.1:9092');
  await sink.getByLabel('Topic', { exact: true }).fill('orders-out');
  await expect(page.getByText('Ready to deploy.')).toBeVisible();
  await expect(audit.getByRole('heading').getByText('at-least-once', { exact: true })).toBeVisible();
  await sink.getByText('Options as JSON').click();
  expect(JSON.parse(await sink.getByLabel('Sink options (JSON)').inputValue())).toMatchObject({ bootstrapServers: '127.0.0.1:9092', topic: 'orders-out' });
  await page.screenshot({ path: 'e2e/artifacts/kafka-editor.png', fullPage: true });
});
