// What a recovery run says it recovered from: named by the runId the table shows and the exit
// reasons quote, and what really happened (a drill's crash is not a dead worker).
import { describe, expect, it } from 'vitest';
import { recoveryNote } from './runs-table';

const runs = (...r: { runId: string; exitReason: string | null }[]) => new Map(r.map((x) => [x.runId, x]));

describe('recoveryNote', () => {
  it('after an after-sink drill: the drill crashed it on purpose and the pending batch re-runs; no worker died', () => {
    const note = recoveryNote({ recoveredFromRunId: 'aaaabbbb-1111' }, runs({ runId: 'aaaabbbb-1111', exitReason: 'drill: crashed at after-sink of batch 4' }));
    expect(note).toBe('recovers run aaaabbbb, which a drill crashed on purpose at after-sink of batch 4: batch 4 re-runs from the checkpoint');
    expect(note).not.toMatch(/worker/);
  });

  it('after an after-commit drill the next batch follows the committed one', () => {
    expect(recoveryNote({ recoveredFromRunId: 'r1' }, runs({ runId: 'r1', exitReason: 'drill: crashed at after-commit of batch 2' }))).toMatch(/batch 2 had committed, so the next batch follows it$/);
  });

  it('a takeover names the lost run by the id its exit reason and the table use', () => {
    const lost = { runId: 'cccc0000-2222', exitReason: 'worker w-1 lost (lease expired); recovered by run dddd0000-3333' };
    expect(recoveryNote({ recoveredFromRunId: 'cccc0000-2222' }, runs(lost))).toBe('took over run cccc0000: its worker stopped renewing the lease');
  });

  it('a run on an older page is still named', () => {
    expect(recoveryNote({ recoveredFromRunId: 'eeee0000-4444' }, runs())).toBe('recovers run eeee0000 (on an older page)');
    expect(recoveryNote({ recoveredFromRunId: null }, runs())).toBe('');
  });
});
