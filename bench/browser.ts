/**
 * Debian's Chromium for the benches that measure a page in a browser (never a downloaded one),
 * with the background work that would add noise to a timing turned off.
 */
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The page's main-thread task time so far, in seconds (CDP Performance.TaskDuration). Unlike wall
 * time it does not count waiting for a core, so it stays meaningful on a loaded machine.
 */
export async function taskSecondsOf(ctx: BrowserContext, page: Page): Promise<() => Promise<number>> {
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Performance.enable');
  return async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
}
