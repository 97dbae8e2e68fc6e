/**
 * The editor never hides an error, and shows none before there is one: on an untouched form no
 * error and Append not "not allowed"; an unknown column in an aggregation comes first in every output
 * mode (the mode's legality is judged only once the query analyses); options show only where they
 * apply to the format; the completion icons are letters the usual fonts have.
 */
import { expect, test } from '@playwright/test';
import { signIn } from './sign-in';

test('untouched, nothing is an error; an unknown column comes first in every mode', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto('/jobs/new');
  const sql = page.getByRole('textbox', { name: 'SQL query' });
  await expect(sql).toBeVisible();
  const validation = page.getByRole('region', { name: 'Validation' });
  const modes = page.getByRole('region', { name: 'Output mode' });
  // The debounced validation has answered for the form as it stands (not "Checking…"): only now
  // does the absence of an error mean anything.
  await expect(page.getByText(/^The query (analyses|is analysed once the source's schema is valid)\.$/)).toBeVisible({ timeout: 20_000 });
  await expect(validation.getByText('Checking…')).toHaveCount(0);
  await expect(page.getByText(/Too small|expected string|>=1 characters/)).toHaveCount(0);
  // The default query is a stateless filter: Append is legal (Complete, rightly, is not).
  await expect(modes.locator('.mode-option', { hasText: /^Append/ }).getByText('not allowed')).toHaveCount(0);
  await expect(page.locator('.field-error')).toHaveCount(0);

  // The CSV-only Header option: hidden for JSON, shown for CSV.
  const source = page.getByRole('region', { name: 'Source' });
  await expect(source.getByLabel('File format')).toHaveValue('json');
  await expect(source.getByText(/^Header/)).toHaveCount(0);
  await source.getByLabel('File format').selectOption('csv');
  await expect(source.getByText(/^Header/).first()).toBeVisible();
  await source.getByLabel('File format').selectOption('json');

  await sql.fill('SELECT usr, count(*) FROM events GROUP BY usr');
  for (const mode of ['Append', 'Update', 'Complete']) {
    await modes.getByRole('radio', { name: new RegExp(`^${mode}`) }).check();
    // First, in plain words with its position; and the query is not said to analyse.
    await expect(validation.locator('li').first()).toContainText('Column "usr" does not exist', { timeout: 20_000 });
    await expect(validation.locator('li').first()).toContainText(/line 1, column \d+/);
    await expect(page.getByText('The query analyses.')).toHaveCount(0);
    // Complete is not told there is no aggregation: the GROUP BY is there.
    await expect(page.getByText(/no streaming aggregations/)).toHaveCount(0);
  }
  await page.screenshot({ path: 'e2e/artifacts/editor-unknown-column.png', fullPage: true });

  // The completion icons are letters, not symbols the usual Linux fonts lack (empty boxes).
  await sql.click();
  await page.keyboard.press('End');
  await page.keyboard.type(' HAV');
  const icon = page.locator('.cm-tooltip-autocomplete .cm-completionIcon').first();
  await expect(icon).toBeVisible();
  const content = await icon.evaluate((el) => getComputedStyle(el, '::after').content);
  expect(content).toMatch(/^"[A-Za-z]{1,3}"$/);
});

test("the editor completes the source's columns and the engine's functions, with their signatures", async ({ page }) => {
  await signIn(page);
  await page.goto('/jobs/new');
  const sql = page.getByRole('textbox', { name: 'SQL query' });
  await expect(sql).toBeVisible();
  // The completion comes with the draft check's answer: wait for the default query to analyse.
  await expect(page.getByText('The query analyses.')).toBeVisible({ timeout: 20_000 });
  await sql.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('SELECT us');
  const list = page.locator('.cm-tooltip-autocomplete');
  // The default source's column `user` (a string), from its schema.
  await expect(list.locator('li', { hasText: /^x?user/ }).first()).toBeVisible();
  await expect(list.locator('li', { hasText: /^x?user/ }).first()).toContainText('string');
  await page.keyboard.press('Escape');
  await page.keyboard.type(', regexp_rep');
  // A function the engine runs, with its signature.
  await expect(list.getByText('regexp_replace(expr1, expr2, expr3[, expr4])')).toBeVisible();
  await page.keyboard.press('Escape');
  await page.keyboard.type(' FROM ev');
  await expect(list.locator('li', { hasText: 'events' }).first()).toBeVisible();
});

test('the state store is chosen in the editor, each choice saying when it fits', async ({ page }) => {
  await signIn(page);
  await page.goto('/jobs/new');
  const store = page.getByLabel('State store');
  await expect(store).toHaveValue('hdfs');
  await expect(page.getByText(/In the run's memory \(Spark's HDFS-backed store/)).toBeVisible();
  await store.selectOption('lmdb');
  await expect(page.getByText(/On the worker's disk \(LMDB\)/)).toBeVisible();
  // The choice is part of the spec the draft check validates: the default query still analyses.
  await expect(page.getByText('The query analyses.')).toBeVisible({ timeout: 20_000 });
});
