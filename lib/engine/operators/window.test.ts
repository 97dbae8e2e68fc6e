import { describe, expect, it } from 'vitest';
import { describeWindow, timeWindowSpec } from './window';

describe('describeWindow', () => {
  it('says one of a unit in the singular and more in the plural', () => {
    expect(describeWindow(timeWindowSpec('1 minute'))).toBe('tumbling 1 minute');
    expect(describeWindow(timeWindowSpec('10 minutes'))).toBe('tumbling 10 minutes');
    expect(describeWindow(timeWindowSpec('1 hour', '1 minute'))).toBe('sliding 1 hour every 1 minute');
    expect(describeWindow(timeWindowSpec('2 days', '12 hours'))).toBe('sliding 2 days every 12 hours');
    expect(describeWindow(timeWindowSpec('1500 milliseconds'))).toBe('tumbling 1500 milliseconds');
  });
});
