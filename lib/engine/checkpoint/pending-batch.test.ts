import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { populateStartOffsets } from '../execution/populate-start-offsets';
import { inspectCheckpoint } from './checkpoint-inspector';
import { CommitLog } from './commit-log';
import { InMemoryCheckpointFileManager } from './in-memory-checkpoint-file-manager';
import { OffsetSeqLog } from './offset-seq-log';
import { pendingBatchOf } from './pending-batch';

describe('pendingBatchOf', () => {
  it('is the latest offsets/N without commits/N', () => {
    expect(pendingBatchOf(null, [])).toBeNull();
    expect(pendingBatchOf(0, [])).toBe(0);
    expect(pendingBatchOf(3, [0, 1, 2])).toBe(3);
    expect(pendingBatchOf(3, [0, 1, 2, 3])).toBeNull();
    // Only commits/3 counts: a commit beyond the latest offsets (a damaged checkpoint) does not.
    expect(pendingBatchOf(3, [0, 1, 2, 3, 4])).toBeNull();
    expect(pendingBatchOf(3, [0, 4])).toBe(3);
  });

  it('the inspector calls pending exactly the batch a restart re-runs (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5 }), fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }), async (latest, committed) => {
        const fm = new InMemoryCheckpointFileManager();
        const offsetLog = new OffsetSeqLog(fm);
        const commitLog = new CommitLog(fm);
        for (let id = 0; id <= latest; id++) await offsetLog.add(id, { metadata: { batchWatermarkMs: 0, batchTimestampMs: id, conf: {} }, offsets: [id] });
        // Commits of any batch up to one past the latest offsets.
        for (let id = 0; id <= latest + 1; id++) if (committed[id]) await commitLog.add(id, { nextBatchWatermarkMs: 0 });
        const start = await populateStartOffsets({ offsetLog, commitLog, sources: [{ description: 'memory', replayable: true }], checkpointDescription: 'mem', log: () => {} });
        const inspected = await inspectCheckpoint(fm);
        expect(inspected.pendingBatch).toBe(start.pending?.batchId ?? null);
      }),
      { numRuns: 200, seed: 35 },
    );
  });
});
