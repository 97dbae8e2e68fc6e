import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BatchProgressView, partitionRows } from './batch-progress';

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

describe('BatchProgressView', () => {
  it('says when a batch was rebuilt from the checkpoint, and only then', () => {
    const html = (progress: object) => renderToStaticMarkup(createElement(BatchProgressView, { progress }));
    expect(html({ batchId: 7, numInputRows: 0, reconstructed: true })).toContain('The row was rebuilt from the checkpoint (offsets/7)');
    expect(html({ batchId: 7, numInputRows: 12 })).not.toContain('rebuilt from the checkpoint');
  });
});
