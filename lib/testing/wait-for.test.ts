import { describe, expect, it, vi } from 'vitest';
import { waitFor } from './wait-for';

describe('waitFor', () => {
  it('returns the first truthy value, polling past falsy values and throws', async () => {
    let calls = 0;
    const v = await waitFor('the third call', () => {
      calls++;
      if (calls === 1) throw new Error('not up yet');
      return calls === 3 && { calls };
    }, 5_000, 1);
    expect(v).toEqual({ calls: 3 });
  });

  it('fails after the timeout naming what it waited for and the last error seen', async () => {
    const err = await waitFor('the moon', async () => {
      throw new Error('still night');
    }, 30, 5).catch((e: unknown) => e);
    expect(String(err)).toMatch(/timed out after 30 ms waiting for the moon \(last: Error: still night\)/);
  });

  it('tries once more after its last sleep, so a condition met while it slept is not missed', async () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const waiting = waitFor('a slow first answer', () => ++calls >= 2, 10, 50);
      await vi.advanceTimersByTimeAsync(50); // past the deadline, during the sleep
      await expect(waiting).resolves.toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
