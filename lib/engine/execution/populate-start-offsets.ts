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

/**
 * offsets/N `conf` key recording source i's description, checked on every restart: `weir.source`
 * for the first (what a one-source checkpoint has always held), `weir.source.<i>` for the others.
 */
export function sourceConfKey(i: number): string {
  return i === 0 ? 'weir.source' : `weir.source.${i}`;
}

/**
 * offsets/N `conf` key of Spark's spark.sql.streaming.multipleWatermarkPolicy: written by a query
 * over several sources; a checkpoint without it means "min" (Spark's default for one that predates it).
 */
export const MULTIPLE_WATERMARK_POLICY_CONF = 'spark.sql.streaming.multipleWatermarkPolicy';

/**
 * offsets/N `conf` key of Spark's spark.sql.shuffle.partitions: how many partitions each stateful
 * operator keeps its state in. Changed only offline, by `weir checkpoint repartition` (which
 * rehashes the state), since a key's partition is its hash modulo this; a checkpoint without it
 * was written with one partition.
 */
export const SHUFFLE_PARTITIONS_CONF = 'spark.sql.shuffle.partitions';

/**
 * offsets/N `conf` key of a batch written by `weir checkpoint repartition` (the partition count it
 * moved the state from): a batch over no new data whose state version is the state rehashed into
 * the new partitions. Until its commits/N is written that version is incomplete, so a start that
 * finds such a batch uncommitted refuses to re-run it (see populateStartOffsets).
 */
export const REPARTITIONED_FROM_CONF = 'weir.repartitionedFrom';

/** The parallelism a checkpoint's latest offsets/L conf records (1 when it predates the key). */
export function recordedParallelism(conf: Record<string, string>, path: string): number {
  const raw = conf[SHUFFLE_PARTITIONS_CONF];
  if (raw === undefined) return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new CorruptCheckpointError(path, `${SHUFFLE_PARTITIONS_CONF} is "${raw}", which is not a positive integer`);
  return n;
}

/**
 * A checkpoint's state is split into the partitions it was written with: an edit that changes
 * `parallelism` is refused, naming `weir checkpoint repartition` as the way (a start keeps the
 * recorded value and warns).
 */
export function assertSameParallelism(latest: OffsetSeq, path: string, parallelism: number, checkpointDescription: string): void {
  const recorded = recordedParallelism(latest.metadata.conf, path);
  if (recorded === parallelism) return;
  throw new IncompatibleQueryChangeError(
    `This checkpoint was written with parallelism ${recorded} (${SHUFFLE_PARTITIONS_CONF}) and the job now asks for ${parallelism}. ` +
      'The checkpoint\'s state is split into that many partitions (a key\'s partition is its hash modulo that number): ' +
      `set parallelism back to ${recorded}, give the job a new checkpointLocation (a new query, which reprocesses from the sources' start), ` +
      `or stop the job and move its state into ${parallelism} partitions with \`weir checkpoint repartition --to ${parallelism} <checkpoint>\` (offline, while no run uses the checkpoint).`,
    { path, recorded, current: parallelism, checkpoint: checkpointDescription },
  );
}

export interface SourceIdentity {
  description: string;
  /** Enforce the recorded source (replayable sources; a push source's address may change freely). */
  replayable: boolean;
}

export interface StartPosition {
  nextBatchId: number;
  /** End offsets of the last committed batch, one per source: where the next new batch starts. */
  committedOffsets: (Offset | null)[];
  watermarkMs: number;
  /**
   * The watermark the last committed batch ran with (its offsets' batchWatermarkMs): its stateful
   * operators evicted up to it. Unset for a new query and when a batch is to be re-run.
   */
  lastBatchWatermarkMs?: number;
  /** The uncommitted batch to re-run first, if any. */
  pending?: { batchId: number; start: (Offset | null)[]; seq: OffsetSeq };
  /** The latest offsets/L's conf (settings fixed for the checkpoint's life); unset for a new query. */
  conf?: Record<string, string>;
}

/**
 * A checkpoint cannot move to other sources: the recorded offsets mean nothing there, and Spark
 * refuses a different number of sources. Checked at every start, and before an edit of a job with
 * a checkpoint is saved (restart-compatibility.ts).
 */
export function assertSameSources(latest: OffsetSeq, path: string, sources: readonly SourceIdentity[], checkpointDescription: string): void {
  const n = latest.offsets.length;
  if (n !== sources.length) {
    throw new IncompatibleQueryChangeError(
      `There are [${n}] sources in the checkpoint offsets and now there are [${sources.length}] sources requested by the query. Cannot continue. ` +
        `A checkpoint keeps one offset per source, in the order of the spec's sources: restore the ${n} source${n === 1 ? '' : 's'} it was written with, in that order, ` +
        'or give the job a new checkpointLocation (a new query, which reprocesses from the sources\' start).',
      { path, recorded: n, current: sources.length, checkpoint: checkpointDescription },
    );
  }
  sources.forEach((s, i) => {
    const recorded = latest.metadata.conf[sourceConfKey(i)];
    const current = s.description;
    if (!s.replayable || recorded === undefined || recorded === current) return;
    const which = sources.length === 1 ? '' : ` as source ${i}`;
    const moved = sources.findIndex((o) => o.description === recorded);
    throw new IncompatibleQueryChangeError(
      `This checkpoint belongs to a query reading ${recorded}${which}; this job reads ${current}${which}. A checkpoint cannot move to another source: ` +
        (moved >= 0 && moved !== i ? `the sources are in another order than the checkpoint's; put them back in the recorded order, ` : `point the job back at ${recorded}, `) +
        'or give it a new checkpointLocation (a new query, which reprocesses from the source start).',
      { recorded, current, source: i, checkpoint: checkpointDescription },
    );
  });
}

export async function populateStartOffsets(args: {
  offsetLog: OffsetSeqLog;
  commitLog: CommitLog;
  sources: readonly SourceIdentity[];
  checkpointDescription: string;
  log: (level: 'info' | 'warn', msg: string, batchId?: number) => void;
}): Promise<StartPosition> {
  const { offsetLog, commitLog, log } = args;
  const latest = await offsetLog.getLatest();
  if (!latest) return { nextBatchId: 0, committedOffsets: args.sources.map(() => null), watermarkMs: 0 };
  const L = latest.batchId;
  assertSameSources(latest.value, offsetLog.pathOf(L), args.sources, args.checkpointDescription);
  const commitL = await commitLog.get(L);
  if (pendingBatchOf(L, commitL ? [L] : []) === null && commitL) {
    log('info', `Batch ${L} was committed; resuming at batch ${L + 1}`);
    return {
      nextBatchId: L + 1,
      committedOffsets: latest.value.offsets,
      watermarkMs: Math.max(latest.value.metadata.batchWatermarkMs, commitL.nextBatchWatermarkMs),
      lastBatchWatermarkMs: latest.value.metadata.batchWatermarkMs,
      conf: latest.value.metadata.conf,
    };
  }
  const from = latest.value.metadata.conf[REPARTITIONED_FROM_CONF];
  if (from !== undefined) {
    throw new IncompatibleQueryChangeError(
      `Batch ${L} is an interrupted \`weir checkpoint repartition\` from ${from} partitions (offsets/${L} without commits/${L}): its state is not all written. ` +
        `Run \`weir checkpoint repartition --to ${recordedParallelism(latest.value.metadata.conf, offsetLog.pathOf(L))} <checkpoint>\` again to finish it; the state of batch ${L - 1} is untouched until then.`,
      { path: offsetLog.pathOf(L), checkpoint: args.checkpointDescription },
    );
  }
  let start: (Offset | null)[] = args.sources.map(() => null);
  if (L > 0) {
    const prev = await offsetLog.get(L - 1);
    if (!prev) throw new CorruptCheckpointError(offsetLog.pathOf(L - 1), `batch ${L - 1} doesn't exist, so the start of uncommitted batch ${L} is unknown`);
    start = prev.offsets;
    const lastCommit = await commitLog.getLatest();
    if (!lastCommit || lastCommit.batchId < L - 1) {
      log('warn', `Batches before ${L} are not all committed (latest commit: ${lastCommit?.batchId ?? 'none'}); re-running ${L} from offsets/${L - 1}`);
    }
  }
  log('info', `Batch ${L} was not committed; re-running it over the recorded range`, L);
  return {
    nextBatchId: L,
    committedOffsets: start,
    watermarkMs: latest.value.metadata.batchWatermarkMs,
    pending: { batchId: L, start, seq: latest.value },
    conf: latest.value.metadata.conf,
  };
}
