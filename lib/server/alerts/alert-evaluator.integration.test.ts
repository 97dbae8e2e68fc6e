/**
 * Differential: the growth window the evaluator computes in SQL (so an after-batch evaluation
 * reads one row, not an hour of batches) equals the in-memory model `stateGrowth()` over random
 * histories (irregular batch spacing, growth, evictions), on the real PostgreSQL.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGrowthWindow } from './alert-evaluator';
import { stateGrowth, type BatchSample } from './rule-evaluation';
import { alertTestDb, createJob, type AlertTestDb } from './testing/alert-fixtures';

let t: AlertTestDb;
beforeAll(async () => {
  t = await alertTestDb();
});
afterAll(async () => t?.close());

const T0 = Date.UTC(2026, 10, 29, 8, 0, 0);

describe('growth window in SQL', () => {
  it('equals the in-memory model over random histories', async () => {
    let runNo = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ gapMs: fc.integer({ min: 1, max: 2000 }), rows: fc.nat(500) }), { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 20_000 }),
        async (points, windowMs) => {
          const job = await createJob(t.db, `growth-${runNo++}`);
          let at = T0;
          const history: BatchSample[] = points.map((p, i) => ({ batchId: i, timestamp: new Date((at += p.gapMs)), stateRowsTotal: BigInt(p.rows), stateMemoryBytes: 0n, stateDiskBytes: 0n, commitLag: 0n, batchDurationMs: 1 }));
          await t.db.batchProgress.createMany({
            data: history.map((b) => ({ jobId: job.id, batchId: b.batchId, timestamp: b.timestamp, numInputRows: 0, inputRowsPerSecond: 0, processedRowsPerSecond: 0, batchDurationMs: 1, durationMs: {}, stateRowsTotal: b.stateRowsTotal, progress: {} })),
          });
          const newestFirst = [...history].reverse();
          const model = stateGrowth(newestFirst, windowMs);
          const sql = await loadGrowthWindow(t.db, job.id, newestFirst[0], windowMs);
          if (model === null) expect(sql).toBeNull();
          else {
            expect(sql).not.toBeNull();
            expect({ ...sql!, maxDropPercent: undefined, percentPerHour: undefined }).toEqual({ ...model, maxDropPercent: undefined, percentPerHour: undefined });
            expect(sql!.maxDropPercent).toBeCloseTo(model.maxDropPercent, 9);
            expect(sql!.percentPerHour).toBeCloseTo(model.percentPerHour, 6);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
