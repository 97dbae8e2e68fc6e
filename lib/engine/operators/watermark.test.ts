import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventTimeStats, nextWatermark } from './watermark';

describe('watermark', () => {
  it('over any batches, equals max(event time seen so far) - delay, never moves back, ignores rows without a time', () => {
    const batch = fc.array(fc.record({ ts: fc.oneof(fc.integer({ min: 0, max: 1e9 }), fc.constant(null)) }), { maxLength: 20 });
    fc.assert(
      fc.property(fc.array(batch, { maxLength: 10 }), fc.integer({ min: 0, max: 1e6 }), (batches, delay) => {
        let wm = 0;
        let maxSeen = -Infinity;
        for (const rows of batches) {
          const next = nextWatermark(wm, eventTimeStats(rows, 'ts'), delay);
          for (const r of rows) if (typeof r.ts === 'number') maxSeen = Math.max(maxSeen, r.ts);
          expect(next).toBeGreaterThanOrEqual(wm);
          expect(next).toBe(Math.max(0, maxSeen - delay));
          wm = next;
        }
      }),
    );
  });

  it('event time stats: min, max and rounded mean of the numeric values', () => {
    expect(eventTimeStats([{ ts: 1 }, { ts: 4 }, { ts: null }, { ts: 2 }], 'ts')).toEqual({ min: 1, max: 4, avg: 2 });
    expect(eventTimeStats([{ ts: null }], 'ts')).toBeUndefined();
  });
});
