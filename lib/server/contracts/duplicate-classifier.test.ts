/**
 * The classifier's rules on their own, as properties over generated evidence: duplicates only in
 * batches a recovery re-ran are a replay window; duplicates elsewhere after a recorded checkpoint
 * loss are a checkpoint loss (covering every duplicated batch); duplicates in the window of batch
 * ids a savepoint restore re-ran are that restore's announced re-emission, and its new query id
 * is not a loss; without any of these, unexplained.
 * duplicate-diagnosis.integration.test.ts creates each kind for real.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyDuplicates, type CheckpointLossEvidence, type DuplicatedBatch, type RecoveryEvidence, type RestoreEvidence } from './duplicate-classifier';

const at = (min: number) => new Date(Date.UTC(2026, 11, 1, 12, min)).toISOString();
const batch = (batchId: number, duplicates: number): DuplicatedBatch => ({ batchId, duplicates, committedAt: at(10 + batchId) });
const recovery = (batchId: number): RecoveryEvidence => ({ batchId, at: at(10 + batchId), source: 'drill', description: `drill after-sink of batch ${batchId}` });
const reset: CheckpointLossEvidence = { kind: 'reset-checkpoint', at: at(5), description: 'the checkpoint reset by admin' };
const SINK_FIX = 'Switch `postgres` to `mode: transactional`';

/** A reset at minute 20 to savepoint `at-2` (batch 2) of a job whose last batch was 4. */
const restore: RestoreEvidence = {
  kind: 'savepoint-restore', at: at(20), actor: 'token:admin', savepointId: 'sp-1', savepoint: 'at-2', batchId: 2, lastBatchBefore: 4,
  queryId: 'q-restored', fromQueryId: 'q-old', acknowledged: true, description: `the reset to savepoint at-2 (batch 2) by token:admin at ${at(20)}`,
};
const restoredQueryId: CheckpointLossEvidence = { kind: 'query-id-change', at: at(21), description: 'a new query id q-restored in the batch history', fromQueryId: 'q-old', toQueryId: 'q-restored' };

describe('classifyDuplicates', () => {
  it('duplicates in a restore’s window are its announced re-emission, named with when and which savepoint; its query id is no loss', () => {
    const c = classifyDuplicates({ duplicated: [batch(1, 0), batch(2, 0), batch(3, 4), batch(4, 4)], recoveries: [], losses: [restoredQueryId], restores: [restore], sinkFix: SINK_FIX });
    expect(c.verdict).toBe('savepoint-restore');
    expect(c.findings).toEqual([{ kind: 'savepoint-restore', batches: [3, 4], rows: 8, span: { from: at(13), to: at(14) }, event: restore, fix: expect.stringMatching(/Nothing to fix/) }]);
    expect(c.summary).toContain(`savepoint at-2 (batch 2) by token:admin at ${at(20)}`);
    expect(c.summary).not.toMatch(/lost or replaced|Checkpoint loss/);
  });

  it('a restore explains only its window: a duplicate outside it is still unexplained, or a checkpoint loss after a reset', () => {
    const outside = classifyDuplicates({ duplicated: [batch(1, 2), batch(3, 4)], recoveries: [], losses: [restoredQueryId], restores: [restore], sinkFix: SINK_FIX });
    expect(outside.verdict).toBe('unexplained');
    expect(outside.findings.map((f) => [f.kind, f.batches])).toEqual([['savepoint-restore', [3]], ['unexplained', [1]]]);
    const later = { ...reset, at: at(30) };
    const lost = classifyDuplicates({ duplicated: [batch(0, 2), batch(3, 4), batch(6, 2)], recoveries: [], losses: [later], restores: [restore], sinkFix: SINK_FIX });
    expect(lost.verdict).toBe('checkpoint-loss');
    expect(lost.findings.map((f) => [f.kind, f.batches])).toEqual([['savepoint-restore', [3]], ['checkpoint-loss', [0, 6]]]);
  });

  it('finds nothing to explain when no batch holds a duplicate', () => {
    const c = classifyDuplicates({ duplicated: [batch(0, 0), batch(1, 0)], recoveries: [recovery(1)], losses: [reset], sinkFix: SINK_FIX });
    expect(c).toMatchObject({ verdict: 'none', duplicateRows: 0, findings: [] });
  });

  it('a recovered batch doubled is a replay window, with the sink fix and the recovery as its event', () => {
    const c = classifyDuplicates({ duplicated: [batch(0, 0), batch(1, 8), batch(2, 0)], recoveries: [recovery(1)], losses: [], sinkFix: SINK_FIX });
    expect(c.verdict).toBe('replay-window');
    expect(c.findings).toEqual([{ kind: 'replay-window', batches: [1], rows: 8, span: { from: at(11), to: at(11) }, event: recovery(1), fix: SINK_FIX }]);
    expect(c.summary).toMatch(/confined to batch 1/);
  });

  it('duplicates across batches after a reset are a checkpoint loss, with the deploy fix', () => {
    const c = classifyDuplicates({ duplicated: [0, 1, 2, 3, 4].map((b) => batch(b, 8)), recoveries: [], losses: [reset], sinkFix: SINK_FIX });
    expect(c.verdict).toBe('checkpoint-loss');
    expect(c.findings).toHaveLength(1);
    expect(c.findings[0]).toMatchObject({ kind: 'checkpoint-loss', batches: [0, 1, 2, 3, 4], rows: 40, span: { from: at(10), to: at(14) }, event: reset });
    expect(c.findings[0].fix).toMatch(/deploy process/);
  });

  it('prefers the reset over the query id change it caused as the matching event', () => {
    const qid: CheckpointLossEvidence = { kind: 'query-id-change', at: at(6), description: 'new query id', fromQueryId: 'a', toQueryId: 'b' };
    const c = classifyDuplicates({ duplicated: [batch(0, 3), batch(1, 3)], recoveries: [], losses: [qid, reset], sinkFix: SINK_FIX });
    expect(c.findings[0].event).toEqual(reset);
  });

  it('duplicates nothing recorded explains are unexplained, replays beside them still named', () => {
    const c = classifyDuplicates({ duplicated: [batch(1, 8), batch(3, 2)], recoveries: [recovery(1)], losses: [], sinkFix: SINK_FIX });
    expect(c.verdict).toBe('unexplained');
    expect(c.findings.map((f) => [f.kind, f.batches])).toEqual([
      ['replay-window', [1]],
      ['unexplained', [3]],
    ]);
  });

  it('property: the verdict follows the evidence, and the findings account for every duplicate row', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 30 }),
        fc.uniqueArray(fc.nat({ max: 29 }), { maxLength: 5 }),
        fc.boolean(),
        (dups, recovered, lost) => {
          const duplicated = dups.map((d, i) => batch(i, d));
          const c = classifyDuplicates({ duplicated, recoveries: recovered.map(recovery), losses: lost ? [reset] : [], sinkFix: SINK_FIX });
          const total = dups.reduce((a, b) => a + b, 0);
          const outside = duplicated.filter((b) => b.duplicates > 0 && !recovered.includes(b.batchId));
          expect(c.duplicateRows).toBe(total);
          expect(c.findings.reduce((n, f) => n + f.rows, 0)).toBe(total);
          if (total === 0) expect(c.verdict).toBe('none');
          else if (outside.length === 0) expect(c.verdict).toBe('replay-window');
          else expect(c.verdict).toBe(lost ? 'checkpoint-loss' : 'unexplained');
        },
      ),
    );
  });
});
