/**
 * `weir checkpoint inspect`: what a checkpoint says, read-only. Lists the query id, every
 * offsets/N and commits/N, and which batch (if any) is pending: offsets written without a
 * commit, i.e. the batch a restart will re-run over the recorded range; and every problem a start
 * would refuse with CORRUPT_CHECKPOINT (checkpoint-integrity.ts), so a damaged checkpoint can be
 * inspected instead of failing the inspection.
 */
import type { Offset } from '../types';
import { CorruptCheckpointError } from '../errors';
import type { CheckpointFileManager } from './checkpoint-file-manager';
import { checkpointProblems, type CheckpointProblem } from './checkpoint-integrity';
import { CommitLog } from './commit-log';
import { OffsetSeqLog, type OffsetSeqMetadata } from './offset-seq-log';
import { pendingBatchOf } from './pending-batch';
import { readStreamMetadata } from './stream-metadata';
import { inspectState, type StateOperatorInspection } from '../state/state-inspector';

export interface CheckpointInspection {
  location: string;
  id: string | null;
  offsets: { batchId: number; metadata: OffsetSeqMetadata; offsets: (Offset | null)[] }[];
  commits: { batchId: number; nextBatchWatermarkMs: number }[];
  latestOffsetsBatch: number | null;
  latestCommittedBatch: number | null;
  /** The batch a restart re-runs, or null when everything logged is committed. */
  pendingBatch: number | null;
  /** Top-level entries other than metadata/offsets/commits (sources/, state/). */
  otherEntries: string[];
  /** Stateful operators' state: versions, snapshots, bytes on disk. */
  state: StateOperatorInspection[];
  /** What a start refuses as CORRUPT_CHECKPOINT (missing or unparseable files); [] when intact. */
  problems: CheckpointProblem[];
}

export async function inspectCheckpoint(fm: CheckpointFileManager): Promise<CheckpointInspection> {
  const offsetLog = new OffsetSeqLog(fm);
  const commitLog = new CommitLog(fm);
  const problems = await checkpointProblems(fm);
  // A corrupt file is listed among the problems and left out of the lists.
  const tolerant = async <T>(read: () => Promise<T | undefined>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (e) {
      if (!(e instanceof CorruptCheckpointError)) throw e;
      const d = e.details as { path: string; reason: string };
      if (!problems.some((p) => p.path === d.path)) problems.push({ path: d.path, missing: false, reason: d.reason });
      return undefined;
    }
  };
  const meta = await tolerant(() => readStreamMetadata(fm));
  const offsets = [];
  for (const id of await offsetLog.batchIds()) {
    const v = await tolerant(() => offsetLog.get(id));
    if (v) offsets.push({ batchId: id, metadata: v.metadata, offsets: v.offsets });
  }
  const commits = [];
  for (const id of await commitLog.batchIds()) {
    const v = await tolerant(() => commitLog.get(id));
    if (v) commits.push({ batchId: id, nextBatchWatermarkMs: v.nextBatchWatermarkMs });
  }
  const latestOffsetsBatch = offsets.at(-1)?.batchId ?? null;
  const latestCommittedBatch = commits.at(-1)?.batchId ?? null;
  return {
    location: fm.description,
    id: meta?.id ?? null,
    offsets,
    commits,
    latestOffsetsBatch,
    latestCommittedBatch,
    pendingBatch: pendingBatchOf(latestOffsetsBatch, commits.map((c) => c.batchId)),
    otherEntries: (await fm.list('')).filter((n) => !['metadata', 'offsets', 'commits'].includes(n)),
    state: await inspectState(fm),
    problems,
  };
}
