/**
 * The listener bus: posting never waits for delivery; deliveries happen in order, once each; a
 * failure is retried with backoff (not dropped, not fatal); recovery is announced once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { waitFor } from '@/lib/testing/wait-for';
import { ListenerBus } from './listener-bus';

describe('ListenerBus', () => {
  it('delivers every event once, in order, through any pattern of failures', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { maxLength: 30 }), fc.integer({ min: 1, max: 20 }), async (fails, n) => {
        const delivered: number[] = [];
        let attempt = 0;
        let failures = 0;
        let recovered = 0;
        const bus = new ListenerBus<number>(
          async (e) => {
            // attempt i fails iff fails[i]
            if (fails[attempt++]) {
              failures++;
              throw new Error('database unreachable');
            }
            delivered.push(e);
          },
          { minBackoffMs: 1, maxBackoffMs: 4, onRecovered: () => recovered++ },
        );
        for (let i = 0; i < n; i++) bus.post(i);
        await waitFor('all delivered', () => delivered.length === n, 20_000, 5);
        expect(delivered).toEqual(Array.from({ length: n }, (_, i) => i));
        expect(bus.pending).toBe(0);
        // One announcement per run of failures that ended in a success.
        expect(recovered > 0).toBe(failures > 0);
        expect(recovered).toBeLessThanOrEqual(failures);
      }),
      { numRuns: 50 },
    );
  });

  it('post returns before delivery; backoff doubles up to the cap; close gives up and says how many were left', async () => {
    const delays: number[] = [];
    let calls = 0;
    const bus = new ListenerBus<string>(
      async () => {
        calls++;
        throw new Error('down');
      },
      { minBackoffMs: 2, maxBackoffMs: 16, onError: (_e, ms) => delays.push(ms) },
    );
    bus.post('a');
    bus.post('b');
    expect(calls).toBeLessThanOrEqual(1);
    await waitFor('six retries', () => delays.length >= 6, 20_000, 5);
    expect(delays.slice(0, 6)).toEqual([2, 4, 8, 16, 16, 16]);
    expect(await bus.close(10)).toBe(2);
    bus.post('c');
    expect(bus.pending).toBe(2);
  });
});
