/** Filling the job editor's form as a person does. */
import type { Page } from '@playwright/test';

const RATE_SCHEMA = 'timestamp timestamp\nvalue long';

/** Fills the source panel named `panel` ('Source', 'Source 2', …) as a rate source read by `name`. */
export async function rateSource(page: Page, panel: string, name: string): Promise<void> {
  const source = page.getByRole('region', { name: panel, exact: true });
  await source.getByLabel('Source type').selectOption('rate');
  await source.getByLabel('Table name in SQL').fill(name);
  await source.getByLabel(/^Schema/).fill(RATE_SCHEMA);
}
