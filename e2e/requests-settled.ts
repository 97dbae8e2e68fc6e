/**
 * What a page asked the server, and a wait until all of it has been answered. A check that a page
 * asks nothing (or logs no error) after a fixed wait passes without testing anything when the
 * page is slow; this waits for a condition instead: call `settled()` once the page shows it has
 * run its mount effects (a hydrated form enabled, a session shown).
 */
import { expect, type Page, type Request } from '@playwright/test';

export interface PageRequests {
  /** Every URL the page has requested since `trackRequests`, in order (the probe aside). */
  urls: string[];
  /** Every response with status 400 or more: `<status> <url>`. */
  failed: string[];
  /**
   * Resolves once a request the page sends now has been answered and nothing else is in flight.
   * The browser reports a page's requests in the order it sends them, so by then every request
   * made before (on mount, say) has been seen, and answered.
   */
  settled(): Promise<void>;
}

const PROBE = '/api/health?probe=settled';

export function trackRequests(page: Page): PageRequests {
  const inFlight = new Set<Request>();
  const urls: string[] = [];
  const failed: string[] = [];
  page.on('request', (r) => {
    // An event stream (a job page's progress) stays open by design: it is never "answered".
    if (r.resourceType() === 'eventsource') return;
    inFlight.add(r);
    if (!r.url().endsWith(PROBE)) urls.push(r.url());
  });
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  page.on('requestfinished', (r) => void inFlight.delete(r));
  page.on('requestfailed', (r) => void inFlight.delete(r));
  const settled = async () => {
    const probe = page.waitForRequest((r) => r.url().endsWith(PROBE));
    await page.evaluate((url) => fetch(url, { cache: 'no-store' }).then((r) => r.text()), PROBE);
    await probe;
    await expect.poll(() => inFlight.size, { message: 'requests still in flight' }).toBe(0);
  };
  return { urls, failed, settled };
}
