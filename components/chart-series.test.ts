import { describe, expect, it } from 'vitest';
import { downsampleBatches, type BatchRow } from '@/lib/server/presenters/batch-chart-presenter';
import fc from 'fast-check';
import { chartsUrl, dotted, DOTTED_SERIES_MAX, inputRowsSeries, lagSeries, lmdbSeries, PHASE_ORDER, phaseBreakdown, phaseSeries, rateSeries, sourceSeries, sourceWatermarkSeries, stateRowsSeries } from './chart-series';

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
  stateRowsRemoved: i === 3 ? 7 : 0,
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
    // Removed state rows and late rows dropped are two series, each its own count.
    expect(stateRowsSeries(pts)[3]).toMatchObject({ total: 9, updated: 1, removed: 7, droppedByWatermark: 1 });
    expect(stateRowsSeries(pts)[2]).toMatchObject({ removed: 0, droppedByWatermark: 0 });
    expect(lagSeries(pts)[3]).toMatchObject({ commitLag: 50, watermarkGapSeconds: 4 });
  });

  it('builds the charts URL with the range start', () => {
    expect(chartsUrl('j1', '5m', 600_000, 300)).toBe('/api/jobs/j1/charts?points=300&from=300000');
    expect(chartsUrl('j1', 'all', 600_000, 50)).toBe('/api/jobs/j1/charts?points=50');
  });

  it("one batch's phase breakdown: Spark's phases in order, then the rest as other, the shares summing to 1 (property)", () => {
    const b = phaseBreakdown({ addBatch: 60, walCommit: 10, triggerExecution: 100, somethingElse: 5 }, 100);
    expect(b.map((x) => x.phase)).toEqual([...PHASE_ORDER, 'other']);
    expect(Object.fromEntries(b.map((x) => [x.phase, x.ms]))).toMatchObject({ addBatch: 60, walCommit: 10, getBatch: 0, other: 30 });
    expect(b.find((x) => x.phase === 'addBatch')!.share).toBeCloseTo(0.6);
    expect(phaseBreakdown({}, 0).every((x) => x.ms === 0 && x.share === 0)).toBe(true);
    const ms = fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined });
    fc.assert(
      fc.property(fc.tuple(ms, ms, ms, ms, ms, ms), fc.integer({ min: 0, max: 60_000 }), (values, duration) => {
        const durationMs = Object.fromEntries(PHASE_ORDER.map((k, i) => [k, values[i]]).filter(([, v]) => v !== undefined));
        const out = phaseBreakdown(durationMs, duration);
        const named = out.slice(0, -1).reduce((s, x) => s + x.ms, 0);
        const total = out.reduce((s, x) => s + x.ms, 0);
        // The ms add up to the duration when the phases fit in it, else other is 0.
        expect(total).toBe(Math.max(duration, named));
        expect(out.at(-1)!.ms).toBe(Math.max(0, duration - named));
        const shares = out.reduce((s, x) => s + x.share, 0);
        expect(total === 0 ? shares : Math.abs(shares - 1)).toBeLessThan(1e-9);
      }),
    );
  });
});

describe('the LMDB state store series', () => {
  it('keeps the bytes and the rebuilt stores apart, labelled by batch range', () => {
    expect(lmdbSeries([
      { fromBatchId: 0, toBatchId: 0, t: 1, localBytes: 4096, changelogBytes: 100, storesRebuilt: 2 },
      { fromBatchId: 1, toBatchId: 3, t: 2, localBytes: 8192, changelogBytes: 300, storesRebuilt: 0 },
    ])).toEqual([
      { t: 1, label: 'batch 0', localBytes: 4096, changelogBytes: 100, storesRebuilt: 2 },
      { t: 2, label: 'batches 1–3', localBytes: 8192, changelogBytes: 300, storesRebuilt: 0 },
    ]);
  });
});

describe('sourceSeries', () => {
  it('gives each source its input rows per batch and its commit lag, by index', () => {
    const rows = sourceSeries([
      { fromBatchId: 0, toBatchId: 1, t: 1, sources: [{ numInputRows: 30, commitLag: 5, watermarkGapMs: null }, { numInputRows: 4, commitLag: null, watermarkGapMs: null }] },
      { fromBatchId: 2, toBatchId: 2, t: 2, sources: [{ numInputRows: 0, commitLag: 0, watermarkGapMs: null }, { numInputRows: 4, commitLag: 1, watermarkGapMs: null }] },
    ]);
    expect(rows).toEqual([
      { t: 1, label: 'batches 0–1', rows_0: 15, lag_0: 5, rows_1: 2, lag_1: null },
      { t: 2, label: 'batch 2', rows_0: 0, lag_0: 0, rows_1: 4, lag_1: 1 },
    ]);
  });
});

describe('sourceWatermarkSeries', () => {
  it('gives each source its own watermark gap and the global one of the same bucket, in seconds', () => {
    const job = downsampleBatches(rows, 5); // buckets of two batches; the global gap is 4 s
    const series = sourceWatermarkSeries(
      [
        { fromBatchId: 0, toBatchId: 1, t: 1, sources: [{ numInputRows: 1, commitLag: null, watermarkGapMs: 4000 }, { numInputRows: 1, commitLag: null, watermarkGapMs: null }] },
        { fromBatchId: 2, toBatchId: 3, t: 2, sources: [{ numInputRows: 1, commitLag: null, watermarkGapMs: 1500 }, { numInputRows: 1, commitLag: null, watermarkGapMs: 4000 }] },
      ],
      job,
    );
    expect(series).toEqual([
      { t: 1, label: 'batches 0–1', global: 4, gap_0: 4, gap_1: null },
      { t: 2, label: 'batches 2–3', global: 4, gap_0: 1.5, gap_1: 4 },
    ]);
  });
});

describe('dotted', () => {
  const series = (values: (number | null)[]) => values.map((v, i) => ({ t: i, label: `batch ${i}`, v }));

  it("marks a lone value with a dot (a line of one point draws nothing), and a short series' values", () => {
    const one = rateSeries(downsampleBatches(rows.slice(0, 1), 300));
    expect(one).toHaveLength(1);
    expect([dotted(one, 'input'), dotted(one, 'processed')]).toEqual([true, true]);
    // One figure among NULLs (a commit lag reported once).
    expect(dotted(series([null, null, 5, null]), 'v')).toBe(true);
    expect(dotted(series(Array.from({ length: DOTTED_SERIES_MAX }, (_, i) => i)), 'v')).toBe(true);
  });

  it('draws a long series as a bare line, and a series with no value without dots', () => {
    expect(dotted(series(Array.from({ length: DOTTED_SERIES_MAX + 1 }, (_, i) => i)), 'v')).toBe(false);
    expect(dotted(series([null, null]), 'v')).toBe(false);
    expect(dotted(series([1, 2]), 'missing')).toBe(false);
  });
});
