/**
 * The duplicate audit's figures add up: what the sink holds is what the committed batches wrote
 * once, plus duplicates, plus rows under batch ids no committed batch has (after a checkpoint loss,
 * the lost query's batches the new one has not re-run yet), less what is missing.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { summarizeSinkAudit } from './sink-audit';

const total = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);

describe('summarizeSinkAudit', () => {
  it('after a lost checkpoint: the new query committed batches 0-1, the old one wrote 0-3 (batch 2 twice)', () => {
    const inSink = new Map([[0, 16], [1, 16], [2, 16], [3, 8]]);
    const a = summarizeSinkAudit('postgres', '', inSink, total(inSink), [{ batchId: 0, numOutputRows: 8 }, { batchId: 1, numOutputRows: 8 }]);
    expect(a).toMatchObject({ totalActual: 56, totalExpected: 16, duplicateRows: 16, missingRows: 0, unattributedRows: 24 });
  });

  it('a committed batch whose rows are not in the sink is missing, not a negative duplicate', () => {
    const inSink = new Map([[0, 3]]);
    const a = summarizeSinkAudit('files', '', inSink, 3, [{ batchId: 0, numOutputRows: 5 }, { batchId: 1, numOutputRows: 2 }]);
    expect(a).toMatchObject({ totalActual: 3, totalExpected: 7, duplicateRows: 0, missingRows: 4, unattributedRows: 0 });
  });

  it('totals only: the difference is duplicates or missing rows', () => {
    expect(summarizeSinkAudit('postgres', '', null, 12, [{ batchId: 0, numOutputRows: 10 }])).toMatchObject({ duplicateRows: 2, missingRows: 0, unattributedRows: 0 });
    expect(summarizeSinkAudit('postgres', '', null, 7, [{ batchId: 0, numOutputRows: 10 }])).toMatchObject({ duplicateRows: 0, missingRows: 3, unattributedRows: 0 });
  });

  it('for any sink and history: held = written - missing + duplicates + unattributed, all parts >= 0', () => {
    const counts = fc.dictionary(fc.integer({ min: 0, max: 30 }).map(String), fc.integer({ min: 0, max: 50 }));
    fc.assert(
      fc.property(counts, counts, fc.boolean(), (held, wrote, perBatch) => {
        const inSink = new Map(Object.entries(held).map(([k, v]) => [Number(k), v]));
        const committed = Object.entries(wrote).map(([k, v]) => ({ batchId: Number(k), numOutputRows: v }));
        const a = summarizeSinkAudit('files', '', perBatch ? inSink : null, total(inSink), committed);
        expect(a.totalExpected - a.missingRows + a.duplicateRows + a.unattributedRows).toBe(a.totalActual);
        for (const n of [a.duplicateRows, a.missingRows, a.unattributedRows]) expect(n).toBeGreaterThanOrEqual(0);
        if (perBatch) expect(a.batches.reduce((n, b) => n + b.duplicates, 0)).toBe(a.duplicateRows);
      }),
    );
  });
});
