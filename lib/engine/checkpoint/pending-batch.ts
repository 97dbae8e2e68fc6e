/**
 * Which batch a restart re-runs (Spark's populateStartOffsets, case 3): the latest `offsets/N`
 * whose `commits/N` is not there. The run died inside batch N, and the next start re-runs N over
 * exactly its recorded range. One definition for the engine's restart (populate-start-offsets.ts),
 * `weir checkpoint inspect` (checkpoint-inspector.ts) and the control plane's checkpoint tab, so
 * what the inspector calls pending is what a restart re-runs.
 *
 * Only commits/N of the latest N counts: a commit of an earlier batch does not make N committed,
 * and a commits/M beyond the latest offsets (no offsets/M: a damaged checkpoint) does not make
 * N pending.
 */
export function pendingBatchOf(latestOffsetsBatch: number | null, committedBatchIds: Iterable<number>): number | null {
  if (latestOffsetsBatch === null) return null;
  for (const id of committedBatchIds) if (id === latestOffsetsBatch) return null;
  return latestOffsetsBatch;
}
