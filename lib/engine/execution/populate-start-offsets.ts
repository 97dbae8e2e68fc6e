/**
 * Spark's populateStartOffsets: where a (re)started query resumes, read from the checkpoint.
 *
 * 1. No offsets/ at all: a new query, batch 0 from the source's start, watermark 0.
 * 2. Latest offsets/L with commits/L: batch L finished; resume at L+1 from L's end offsets, with
 *    watermark max(offsets/L batchWatermarkMs, commits/L nextBatchWatermarkMs).
 * 3. Latest offsets/L without commits/L: the run died inside batch L; re-run L over exactly
 *    (offsets/L-1, offsets/L] with L's recorded batchTimestampMs and batchWatermarkMs.
 * Refused: a different number of sources (Spark's message), and a different source than the one
 * recorded in offsets/L `conf` (a checkpoint is married to its source: its offsets mean nothing
 * elsewhere). Only replayable sources are held to it: a push source replays nothing, and its
 * description (a listening address) may change from run to run.
 */
import type { CommitLog } from '../checkpoint/commit-log';
import type { OffsetSeq, OffsetSeqLog } from '../checkpoint/offset-seq-log';
import { pendingBatchOf } from '../checkpoint/pending-batch';
import { CorruptCheckpointError, IncompatibleQueryChangeError } from '../errors';
import type { Offset } from '../types';

/** offsets/N `conf` key recording the source's description, checked on every restart. */
export const SOURCE_CONF = 'weir.source';

export interface StartPosition {
  nextBatchId: number;
  /** End offset of the last committed batch: where the next new batch starts. */
  committedOffset: Offset | null;
  watermarkMs: number;
  /** The uncommitted batch to re-run first, if any. */
  pending?: { batchId: number; start: Offset | null; seq: OffsetSeq };
}

/**
 * A checkpoint cannot move to another source: the recorded offsets mean nothing there. Checked at
 * every start, and before an edit of a job with a checkpoint is saved (restart-compatibility.ts).
 */
export function assertSameSource(latest: OffsetSeq, args: { sourceDescription: string; sourceIsReplayable: boolean; checkpointDescription: string }): void {
  const recorded = latest.metadata.conf[SOURCE_CONF];
  const current = args.sourceDescription;
  if (args.sourceIsReplayable && recorded !== undefined && recorded !== current) {
    throw new IncompatibleQueryChangeError(
      `This checkpoint belongs to a query reading ${recorded}; this job reads ${current}. A checkpoint cannot move to another source: ` +
        `point the job back at ${recorded}, or give it a new checkpointLocation (a new query, which reprocesses from the source start).`,
      { recorded, current, checkpoint: args.checkpointDescription },
    );
  }
}

export async function populateStartOffsets(args: {
  offsetLog: OffsetSeqLog;
  commitLog: CommitLog;
  sourceDescription: string;
  /** Enforce the recorded source (replayable sources; a push source's address may change freely). */
  sourceIsReplayable: boolean;
  checkpointDescription: string;
  log: (level: 'info' | 'warn', msg: string, batchId?: number) => void;
}): Promise<StartPosition> {
  const { offsetLog, commitLog, log } = args;
  const latest = await offsetLog.getLatest();
  if (!latest) return { nextBatchId: 0, committedOffset: null, watermarkMs: 0 };
  const L = latest.batchId;
  if (latest.value.offsets.length !== 1) {
    throw new CorruptCheckpointError(
      offsetLog.pathOf(L),
      `There are [${latest.value.offsets.length}] sources in the checkpoint offsets and now there are [1] sources requested by the query. Cannot continue.`,
    );
  }
  assertSameSource(latest.value, args);
  const commitL = await commitLog.get(L);
  if (pendingBatchOf(L, commitL ? [L] : []) === null && commitL) {
    log('info', `Batch ${L} was committed; resuming at batch ${L + 1}`);
    return {
      nextBatchId: L + 1,
      committedOffset: latest.value.offsets[0],
      watermarkMs: Math.max(latest.value.metadata.batchWatermarkMs, commitL.nextBatchWatermarkMs),
    };
  }
  let start: Offset | null = null;
  if (L > 0) {
    const prev = await offsetLog.get(L - 1);
    if (!prev) throw new CorruptCheckpointError(offsetLog.pathOf(L - 1), `batch ${L - 1} doesn't exist, so the start of uncommitted batch ${L} is unknown`);
    start = prev.offsets[0];
    const lastCommit = await commitLog.getLatest();
    if (!lastCommit || lastCommit.batchId < L - 1) {
      log('warn', `Batches before ${L} are not all committed (latest commit: ${lastCommit?.batchId ?? 'none'}); re-running ${L} from offsets/${L - 1}`);
    }
  }
  log('info', `Batch ${L} was not committed; re-running it over the recorded range`, L);
  return {
    nextBatchId: L,
    committedOffset: start,
    watermarkMs: latest.value.metadata.batchWatermarkMs,
    pending: { batchId: L, start, seq: latest.value },
  };
}
