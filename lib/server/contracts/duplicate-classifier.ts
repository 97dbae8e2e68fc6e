/**
 * Which incident a job's duplicates come from. Two causes share the symptom (a sink holding rows
 * twice) and need different fixes:
 *
 * - replay-window: a run died between the sink write and the commit, and its recovery re-ran the
 *   pending batch (same batch id, same offsets) into a sink that cannot tell. The duplicates are
 *   confined to the batch ids a recorded recovery re-ran, and span the minutes around the crash.
 *   The fix is the sink's.
 * - checkpoint-loss: the query lost its checkpoint (a reset, a new checkpoint location on a
 *   redeploy, a deleted directory), started again from the source's beginning as a new query id,
 *   and wrote retained history into a sink that already had it. The duplicates run across many
 *   batch ids, back as far as the source reaches, and follow an event in the audit log or a query
 *   id change in the history and checkpoint metadata. The fix is the deploy process's.
 * - savepoint-restore: the job was reset to a savepoint, acknowledged, and re-ran the batches
 *   after the savepoint's batch N under a new query id, so a sink that keys replays by query id
 *   wrote them again, as a Flink restore from a savepoint re-emits. Only the batch ids in the
 *   restore's window (N, last batch before the restore] are explained by it, and the new query id
 *   it brings is its own, not a lost checkpoint. Nothing to fix: it was announced and accepted.
 * - unexplained: duplicates that no kind of evidence accounts for (a second writer, a source
 *   that delivered records twice).
 *
 * Pure: the evidence is gathered by duplicate-diagnosis.ts, so each rule is tested on its own.
 */

type DuplicateVerdict = 'none' | 'replay-window' | 'savepoint-restore' | 'checkpoint-loss' | 'unexplained' | 'not-auditable';

export interface DuplicatedBatch {
  batchId: number;
  duplicates: number;
  /** When the batch (as the history now records it) committed. */
  committedAt: string | null;
}

/** A recovery that re-ran a pending batch: a drill's crash, or a run that took over from a dead one. */
export interface RecoveryEvidence {
  /** The batch id the recovery re-ran (the pending batch). */
  batchId: number;
  at: string;
  /** drill (a crash on purpose) or recovery (a run recovered from another run). */
  source: 'drill' | 'recovery';
  description: string;
}

/** Something that lost the checkpoint: a reset, a checkpoint location change, or a query id change. */
export interface CheckpointLossEvidence {
  kind: 'reset-checkpoint' | 'checkpoint-location-change' | 'query-id-change';
  at: string;
  description: string;
  actor?: string;
  /** The query id before, when known. */
  fromQueryId?: string | null;
  toQueryId?: string | null;
}

/** A reset to a savepoint (or a new job from one): a known window of re-emitted batch ids. */
export interface RestoreEvidence {
  kind: 'savepoint-restore';
  at: string;
  actor: string;
  savepointId: string;
  savepoint: string;
  /** The savepoint's batch N: the restored job runs N+1 next. */
  batchId: number;
  /** The job's last batch before the restore: the window ends there (null: unknown, open). */
  lastBatchBefore: number | null;
  /** The query id the restore wrote into the checkpoint, and the one it replaced. */
  queryId: string | null;
  fromQueryId: string | null;
  /** Whether the caller acknowledged the re-emission (acknowledgeReprocessing: true). */
  acknowledged: boolean;
  description: string;
}

interface Finding {
  kind: 'replay-window' | 'savepoint-restore' | 'checkpoint-loss' | 'unexplained';
  batches: number[];
  rows: number;
  /** First and last commit time of the duplicated batches as the history records them. */
  span: { from: string | null; to: string | null };
  /** The recorded event that explains them, if any. */
  event: RecoveryEvidence | RestoreEvidence | CheckpointLossEvidence | null;
  /**
   * Checkpoint loss only: when the query that lost its checkpoint started writing (its first
   * run), so how far back in the sink's history the copies reach; set by duplicate-diagnosis.ts.
   */
  reachesBackTo?: string | null;
  fix: string;
}

export interface Classification {
  verdict: DuplicateVerdict;
  summary: string;
  duplicateRows: number;
  findings: Finding[];
}

export interface ClassifierInput {
  duplicated: DuplicatedBatch[];
  recoveries: RecoveryEvidence[];
  losses: CheckpointLossEvidence[];
  restores?: RestoreEvidence[];
  /** The fix for the sink (contract-fixes.ts sinkFix), for replay-window findings. */
  sinkFix: string;
}

const CHECKPOINT_LOSS_FIX =
  'Fix the deploy process: keep checkpointLocation stable across deploys (never a per-release or temporary path), and never reset or delete the checkpoint of a job whose sink already holds its output ' +
  '(the API now asks for acknowledgeReprocessing). Then repair the sink: empty it and let the job reprocess once, or delete the copies by key.';
const RESTORE_FIX =
  'Nothing to fix in the job or the deploy: this is the re-emission the restore announced and was acknowledged for (at-least-once for the batches after the savepoint). ' +
  'If the copies must go, delete one copy of each from the sink by key; before the next restore, delete the rows of the batches after the savepoint first (postgres: `DELETE … WHERE weir_batch_id > N`).';
const UNEXPLAINED_FIX =
  'No recorded recovery or checkpoint loss explains these rows: look for a second writer to the same sink (another job or process on the table or stream), or a source that delivered the same records twice.';

function spanOf(batches: DuplicatedBatch[]): { from: string | null; to: string | null } {
  const times = batches.map((b) => b.committedAt).filter((t): t is string => t !== null).sort();
  return { from: times[0] ?? null, to: times[times.length - 1] ?? null };
}

const rowsOf = (batches: DuplicatedBatch[]) => batches.reduce((n, b) => n + b.duplicates, 0);

/**
 * The loss that explains duplicates rewritten at `firstRewrite`: the latest loss at or before it
 * (the rows were rewritten after their checkpoint was lost), else the latest one recorded.
 */
function matchingLoss(losses: CheckpointLossEvidence[], firstRewrite: string | null): CheckpointLossEvidence | null {
  if (losses.length === 0) return null;
  const sorted = [...losses].sort((a, b) => a.at.localeCompare(b.at));
  const before = firstRewrite ? sorted.filter((l) => l.at <= firstRewrite) : [];
  // A reset or a move is the cause; a query id change is its trace: prefer the cause when both match.
  const pick = (ls: CheckpointLossEvidence[]) => [...ls].reverse().find((l) => l.kind !== 'query-id-change') ?? ls[ls.length - 1];
  return pick(before.length ? before : sorted);
}

/** The latest restore whose re-emission window (N, last batch before it] holds `batchId`. */
function restoreOf(restores: RestoreEvidence[], batchId: number): RestoreEvidence | undefined {
  return [...restores]
    .sort((a, b) => b.at.localeCompare(a.at))
    .find((r) => batchId > r.batchId && (r.lastBatchBefore === null || batchId <= r.lastBatchBefore));
}

export function classifyDuplicates(input: ClassifierInput): Classification {
  const all = input.duplicated.filter((b) => b.duplicates > 0).sort((a, b) => a.batchId - b.batchId);
  const duplicateRows = rowsOf(all);
  if (all.length === 0) return { verdict: 'none', summary: 'No duplicates: every batch id holds the rows its committed batch wrote.', duplicateRows: 0, findings: [] };

  // A restore's re-emission comes first: its batch ids are re-run by design, and the new query id
  // it wrote is its own trace, not evidence that the checkpoint was lost.
  const restores = input.restores ?? [];
  const restoredBy = new Map<RestoreEvidence, DuplicatedBatch[]>();
  for (const b of all) {
    const r = restoreOf(restores, b.batchId);
    if (r) restoredBy.set(r, [...(restoredBy.get(r) ?? []), b]);
  }
  const restored = [...restoredBy.values()].flat();
  const dup = all.filter((b) => !restored.includes(b));
  const restoreQueryIds = new Set(restores.map((r) => r.queryId).filter(Boolean));
  const losses = input.losses.filter((l) => !(l.kind === 'query-id-change' && l.toQueryId && restoreQueryIds.has(l.toQueryId)));

  const recoveredBatches = new Map<number, RecoveryEvidence>();
  for (const r of input.recoveries) if (!recoveredBatches.has(r.batchId)) recoveredBatches.set(r.batchId, r);
  const replayed = dup.filter((b) => recoveredBatches.has(b.batchId));
  const rest = dup.filter((b) => !recoveredBatches.has(b.batchId));
  const findings: Finding[] = [];
  for (const [r, bs] of restoredBy) findings.push({ kind: 'savepoint-restore', batches: bs.map((b) => b.batchId), rows: rowsOf(bs), span: spanOf(bs), event: r, fix: RESTORE_FIX });

  // A checkpoint loss rewrites every retained batch id, recovered ones included: once a loss is
  // recorded and duplicates reach past the recovered batches, the loss explains them all.
  const loss = rest.length > 0 ? matchingLoss(losses, spanOf(rest).from) : null;
  if (loss) {
    findings.push({ kind: 'checkpoint-loss', batches: dup.map((b) => b.batchId), rows: rowsOf(dup), span: spanOf(dup), event: loss, fix: CHECKPOINT_LOSS_FIX });
  } else {
    for (const b of replayed) {
      findings.push({ kind: 'replay-window', batches: [b.batchId], rows: b.duplicates, span: spanOf([b]), event: recoveredBatches.get(b.batchId)!, fix: input.sinkFix });
    }
    if (rest.length) findings.push({ kind: 'unexplained', batches: rest.map((b) => b.batchId), rows: rowsOf(rest), span: spanOf(rest), event: null, fix: UNEXPLAINED_FIX });
  }

  const verdict: DuplicateVerdict = loss ? 'checkpoint-loss' : rest.length > 0 ? 'unexplained' : restored.length > 0 ? 'savepoint-restore' : 'replay-window';
  const ids = (bs: number[]) => (bs.length <= 6 ? bs.join(', ') : `${bs[0]}–${bs[bs.length - 1]} (${bs.length} batches)`);
  const restoreText = [...restoredBy]
    .map(([r, bs]) => `${rowsOf(bs)} rows in batch ids ${ids(bs.map((b) => b.batchId))} re-emitted after ${r.description}`)
    .join('; ');
  const alsoRestored = restored.length ? ` (${restoreText}: a known re-emission window)` : '';
  const alsoReplayed = replayed.length ? ` (${rowsOf(replayed)} more in recovered batches ${ids(replayed.map((b) => b.batchId))} are replays)` : '';
  const summary =
    verdict === 'checkpoint-loss'
      ? `Checkpoint loss: ${rowsOf(dup)} duplicate rows across batch ids ${ids(dup.map((b) => b.batchId))}, written again after ${loss!.description}. The query started over from its source's beginning into a sink that already held that history.${alsoRestored}`
      : verdict === 'unexplained'
        ? `Unexplained: ${rowsOf(rest)} duplicate rows in batch ids ${ids(rest.map((b) => b.batchId))} match no recorded recovery, restore or checkpoint loss${alsoReplayed}${alsoRestored}.`
        : verdict === 'savepoint-restore'
          ? `Savepoint restore: ${restoreText}. The restored checkpoint re-ran the batches after the savepoint under a new query id, as the restore announced (at-least-once for that span, as a Flink restore from a savepoint re-emits); the checkpoint was not lost.${alsoReplayed}`
          : `Replay window: ${duplicateRows} duplicate rows, confined to batch ${ids(replayed.map((b) => b.batchId))}, each re-run by a recorded recovery after a crash between the sink write and the commit.`;
  return { verdict, summary, duplicateRows, findings };
}
