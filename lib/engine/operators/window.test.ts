import { describe, expect, it } from 'vitest';
import { describeWindow, timeWindowSpec, windowsFor } from './window';

describe('describeWindow', () => {
  it('says one of a unit in the singular and more in the plural', () => {
    expect(describeWindow(timeWindowSpec('1 minute'))).toBe('tumbling 1 minute');
    expect(describeWindow(timeWindowSpec('10 minutes'))).toBe('tumbling 10 minutes');
    expect(describeWindow(timeWindowSpec('1 hour', '1 minute'))).toBe('sliding 1 hour every 1 minute');
    expect(describeWindow(timeWindowSpec('2 days', '12 hours'))).toBe('sliding 2 days every 12 hours');
    expect(describeWindow(timeWindowSpec('1500 milliseconds'))).toBe('tumbling 1500 milliseconds');
  });

  it('names a start offset, and a window without one as before (a restart compares the text)', () => {
    expect(describeWindow(timeWindowSpec('10 minutes', '5 minutes', '2 minutes'))).toBe("sliding 10 minutes every 5 minutes starting 2 minutes past the epoch's alignment");
    expect(describeWindow(timeWindowSpec('10 minutes', undefined, '-3 minutes'))).toBe("tumbling 10 minutes starting -3 minutes past the epoch's alignment");
    expect(timeWindowSpec('10 minutes', '5 minutes', '0 seconds')).toEqual({ sizeMs: 600_000, slideMs: 300_000 });
  });
});

describe('windowsFor (Spark\'s TimeWindow: lastStart = ts - (ts - startTime) mod slide)', () => {
  const s = 1000;
  it('tumbling and sliding windows that contain ts, earliest first', () => {
    expect(windowsFor(12_345, timeWindowSpec('10 seconds'))).toEqual([{ start: 10 * s, end: 20 * s }]);
    expect(windowsFor(12_345, timeWindowSpec('10 seconds', '5 seconds'))).toEqual([{ start: 5 * s, end: 15 * s }, { start: 10 * s, end: 20 * s }]);
    expect(windowsFor(14_500, timeWindowSpec('10 seconds', '3 seconds'))).toEqual([6, 9, 12].map((x) => ({ start: x * s, end: (x + 10) * s })));
  });

  it('shifted by a start offset, positive or negative', () => {
    expect(windowsFor(12_345, timeWindowSpec('10 seconds', '5 seconds', '2 seconds'))).toEqual([{ start: 7 * s, end: 17 * s }, { start: 12 * s, end: 22 * s }]);
    expect(windowsFor(12_345, timeWindowSpec('10 seconds', undefined, '-3 seconds'))).toEqual([{ start: 7 * s, end: 17 * s }]);
    // A window starts at its start offset exactly.
    expect(windowsFor(12_000, timeWindowSpec('10 seconds', undefined, '2 seconds'))).toEqual([{ start: 12 * s, end: 22 * s }]);
  });

  it('before 1970: the window that contains ts', () => {
    expect(windowsFor(-13 * s, timeWindowSpec('10 seconds'))).toEqual([{ start: -20 * s, end: -10 * s }]);
  });

  it('refuses a start offset not shorter than the slide, as Spark', () => {
    expect(() => timeWindowSpec('10 seconds', '5 seconds', '5 seconds')).toThrow('The absolute value of start time (5 seconds) must be less than the slideDuration (5 seconds).');
    expect(() => timeWindowSpec('10 seconds', undefined, '-10 seconds')).toThrow('must be less than the slideDuration (10 seconds)');
    expect(() => timeWindowSpec('10 seconds', undefined, 'soon')).toThrow("window start time 'soon'");
  });
});
