import { describe, expect, it } from 'vitest';
import { downsampleBatches, type BatchRow } from '@/lib/server/presenters/batch-chart-presenter';
import { chartsUrl, inputRowsSeries, lagSeries, phaseSeries, rateSeries, stateRowsSeries } from './chart-series';

const rows: BatchRow[] = Array.from({ length: 10 }, (_, i) => ({
  batchId: i,
  timestamp: 1_000_000 + i * 1000,
  inputRowsPerSecond: i,
  processedRowsPerSecond: 2 * i,
  batchDurationMs: 100,
  durationMs: { addBatch: 60, walCommit: 10 },
  numInputRows: 10 * i,
  stateRowsTotal: i * i,
  stateRowsUpdated: 1,
  stateRowsDroppedByWatermark: i % 2,
  stateMemoryBytes: 0,
  stateDiskBytes: 0,
  commitLag: i === 3 ? 50 : 0,
  watermarkMs: 1_000_000 + i * 1000 - 4000,
}));

describe('chart series', () => {
  it('input rows per batch is the bucket mean, so the total over batches is preserved', () => {
    const pts = downsampleBatches(rows, 3);
    const series = inputRowsSeries(pts);
    const total = series.reduce((s, r, i) => s + (r.rows as number) * pts[i].batches, 0);
    expect(total).toBe(rows.reduce((s, r) => s + r.numInputRows, 0));
    expect(series[0].label).toBe(`batches 0–${pts[0].toBatchId}`);
  });

  it('phases and the unattributed rest add up to the batch duration', () => {
    for (const r of phaseSeries(downsampleBatches(rows, 10))) {
      const sum = ['latestOffset', 'walCommit', 'getBatch', 'queryPlanning', 'addBatch', 'commitOffsets', 'other'].reduce((s, k) => s + (r[k] as number), 0);
      expect(sum).toBe(100);
      expect(r.label).toMatch(/^batch \d+$/);
    }
  });

  it('rates, state rows and lag carry the figures through; the watermark gap is in seconds', () => {
    const pts = downsampleBatches(rows, 10);
    expect(rateSeries(pts)[4]).toMatchObject({ input: 4, processed: 8 });
    expect(stateRowsSeries(pts)[3]).toMatchObject({ total: 9, updated: 1, evicted: 1 });
    expect(lagSeries(pts)[3]).toMatchObject({ commitLag: 50, watermarkGapSeconds: 4 });
  });

  it('builds the charts URL with the range start', () => {
    expect(chartsUrl('j1', '5m', 600_000, 300)).toBe('/api/jobs/j1/charts?points=300&from=300000');
    expect(chartsUrl('j1', 'all', 600_000, 50)).toBe('/api/jobs/j1/charts?points=50');
  });
});
