import { expect, test } from '@playwright/test';
import { signIn } from './sign-in';

// The incident, rehearsed in the browser: set up the demo, crash each job after the sink write and
// before the commit, and read the numbers the page shows once both have recovered.
test('demo drills: the bare append doubles the replayed batch, the transactional sink stays correct', async ({ page }) => {
  test.setTimeout(300_000);
  await signIn(page);

  await page.goto('/demo');
  await page.getByRole('button', { name: 'Set up the demo' }).click();
  const bare = page.getByTestId('demo-bare-append');
  const tx = page.getByTestId('demo-transactional');
  await expect(bare.getByText('RUNNING', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(tx.getByText('RUNNING', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(bare.getByText('at-least-once', { exact: true })).toBeVisible();
  await expect(tx.getByText('exactly-once', { exact: true })).toBeVisible();

  for (const card of [bare, tx]) {
    const drill = card.getByRole('button', { name: /crash after the sink write/ });
    await expect(drill).toBeEnabled({ timeout: 30_000 });
    await drill.click();
  }
  await expect(page.getByTestId('drill-bare-append')).toContainText('RECOVERED', { timeout: 90_000 });
  await expect(page.getByTestId('drill-transactional')).toContainText('RECOVERED', { timeout: 90_000 });

  // Bare append: the replayed batch is in the table twice, so some regions' revenue is too high.
  await expect(page.getByTestId('duplicates-bare-append')).toContainText(/Duplicate rows in the sink: [1-9]\d*/);
  await expect(page.getByTestId('duplicates-bare-append')).toContainText(/by batch id: \d+ \(\+\d+\)/);
  const diffs = await Promise.all(['north', 'south', 'east', 'west'].map(async (r) => (await page.getByTestId(`diff-bare-append-${r}`).innerText()).trim()));
  expect(diffs.some((d) => d.startsWith('+'))).toBe(true);
  // Transactional: the replay committed nothing; every region's revenue counts each order once.
  await expect(page.getByTestId('duplicates-transactional')).toContainText('Duplicate rows in the sink: 0');
  for (const r of ['north', 'south', 'east', 'west']) {
    await expect(page.getByTestId(`diff-transactional-${r}`)).toHaveText('0');
  }
  await page.screenshot({ path: 'e2e/artifacts/demo.png', fullPage: true });

  // The second incident: lose the bare-append job's checkpoint. The new query reads every order
  // file again into the same table: duplicates across batch ids, beside the replay's one batch.
  await bare.getByRole('button', { name: /Lose the checkpoint/ }).click();
  await expect(bare.getByRole('status').filter({ hasText: 'Checkpoint lost' })).toBeVisible({ timeout: 150_000 });
  await expect(page.getByTestId('replay-signature-bare-append')).toContainText(/confined to batch \d+/);
  const diagnosis = page.getByTestId('diagnosis-bare-append').getByTestId('duplicate-diagnosis');
  await expect(diagnosis).toHaveAttribute('data-verdict', 'checkpoint-loss', { timeout: 90_000 });
  await expect(diagnosis).toContainText('the checkpoint reset by admin at');
  // The transactional job was not touched: still no duplicates.
  await expect(page.getByTestId('duplicates-transactional')).toContainText('Duplicate rows in the sink: 0');
  await page.screenshot({ path: 'e2e/artifacts/demo-checkpoint-loss.png', fullPage: true });
});
