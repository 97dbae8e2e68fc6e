/**
 * Alerting through the running app (npm start's shape: embedded PostgreSQL, Next, a worker): an
 * admin creates a global "run failed" rule with the form on /alerts, a job fails on a bad input
 * file, and the firing alert appears on the alerts page, naming the job; acknowledging it there
 * records who did it and takes it off the navigation badge while it keeps firing.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { signIn } from './sign-in';

const dataDir = path.resolve('.data/e2e/files/alerts-spec');

test('a rule created in the UI fires when a job fails, and the alerts page shows it', async ({ page, baseURL }) => {
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(`${dataDir}/in`, { recursive: true });
  writeFileSync(`${dataDir}/in/part-00000.json`, '{"user": "ann"}\nnot json at all\n');

  await signIn(page);

  await page.goto('/alerts');
  await expect(page.getByRole('heading', { name: 'Alerts', level: 1 })).toBeVisible();
  const form = page.getByRole('form', { name: 'Create alert rule' });
  await form.getByLabel('Rule name').fill('e2e: any run failed');
  await form.getByLabel('Kind').selectOption({ label: 'Run failed or recovering' });
  await form.getByLabel('Job').selectOption({ label: 'All jobs (global)' });
  await form.getByRole('button', { name: 'Create rule' }).click();
  const rules = page.getByRole('table', { name: 'Alert rules' });
  await expect(rules.getByRole('row', { name: /e2e: any run failed/ })).toBeVisible();

  const api = page.request;
  // page.request sends the session cookie but, unlike the browser, no Origin: a cookie write needs one.
  const headers = { origin: baseURL! };
  const created = await api.post('/api/jobs', {
    headers,
    data: {
      spec: {
        name: 'e2e-alerts-failing',
        source: { name: 'clicks', type: 'files', options: { path: `${dataDir}/in`, format: 'json' }, schema: [{ name: 'user', type: 'string' }] },
        sql: 'SELECT user FROM clicks',
        sink: { type: 'files', options: { path: `${dataDir}/out`, format: 'json' } },
        outputMode: 'append',
        trigger: { type: 'processing-time', interval: '500 milliseconds' },
      },
    },
  });
  expect(created.status()).toBe(201);
  const { job } = await created.json();
  expect((await api.post(`/api/jobs/${job.id}/start`, { headers })).status()).toBe(200);

  // The page polls: the failure shows up as a firing alert naming the job and the rule.
  const firing = page.getByRole('table', { name: 'Firing alerts' });
  const row = firing.getByRole('row', { name: /e2e-alerts-failing/ });
  await expect(row).toBeVisible({ timeout: 45_000 });
  await expect(row).toContainText('e2e: any run failed');
  await expect(row).toContainText('FIRING');
  await expect(page.getByRole('heading', { name: /Firing \(\d+\)/ })).not.toHaveText('Firing (0)');

  const alerts = await (await api.get(`/api/alerts?jobId=${job.id}&state=FIRING`)).json();
  expect(alerts.items.map((a: { kind: string }) => a.kind)).toContain('run-failed');

  // Acknowledge: who is on it shows in the row, the alert keeps firing, and the navigation badge
  // counts one fewer alert needing someone.
  const unacknowledged = async () => (await (await api.get('/api/alerts/summary')).json()).unacknowledged as number;
  const before = await unacknowledged();
  expect(before).toBeGreaterThanOrEqual(1);
  const badge = page.getByRole('navigation', { name: 'Main' }).getByRole('status');
  await expect(badge).toHaveText(String(before), { timeout: 10_000 });
  await row.getByRole('button', { name: /^Acknowledge/ }).click();
  await expect(row).toContainText('by admin');
  await expect(row).toContainText('FIRING');
  expect(await unacknowledged()).toBe(before - 1);
  if (before === 1) await expect(badge).toHaveCount(0, { timeout: 10_000 });
  else await expect(badge).toHaveText(String(before - 1), { timeout: 10_000 });
  const audit = await (await api.get(`/api/audit?targetType=alert`)).json();
  expect(audit.items.map((e: { action: string }) => e.action)).toContain('alert.acknowledge');
  await page.screenshot({ path: 'e2e/artifacts/alerts-acknowledged.png', fullPage: true });
});
