/** Signing in as the e2e admin (playwright.config.ts sets WEIR_ADMIN_PASSWORD to this password). */
import { expect, type Page } from '@playwright/test';

const ADMIN_PASSWORD = 'e2e-admin-password';

/** Signs in through the form, as a person does, and waits for the jobs list. */
export async function signIn(page: Page): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Jobs', level: 1 })).toBeVisible();
}
