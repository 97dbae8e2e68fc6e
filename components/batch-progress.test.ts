import { describe, expect, it } from 'vitest';
import { partitionRows } from './batch-progress';

describe('partitionRows', () => {
  it('joins a source\'s per-partition offsets with its lag; absent or unreadable metrics give no rows', () => {
    const metrics = { offsetsByPartition: '{"orders":{"0":120,"1":98}}', lagByPartition: '{"orders-0":5,"orders-1":0}' };
    expect(partitionRows(metrics)).toEqual([
      { partition: 'orders-0', offset: 120, latest: 125, lag: 5 },
      { partition: 'orders-1', offset: 98, latest: 98, lag: 0 },
    ]);
    expect(partitionRows(undefined)).toEqual([]);
    expect(partitionRows({ offsetsByPartition: 'not json', lagByPartition: '{}' })).toEqual([]);
  });
});
