/**
 * The duplicate diagnosis of one job (GET /api/jobs/:id/duplicate-diagnosis): the sink's
 * duplicate audit (rows per batch id against what each committed batch wrote), classified by
 * duplicate-classifier.ts from the evidence the control plane keeps:
 * - recoveries: drills that crashed a batch, and runs that recovered from another run (the
 *   first batch such a run committed is the pending batch it re-ran);
 * - checkpoint losses: `job.reset-checkpoint` and checkpoint-location edits in the audit log,
 *   `job.query-id-change` (a run found another query id in the checkpoint than the job last ran),
 *   and query id changes: the ids in the batch history (each progress record carries its query
 *   id), the job's recorded query id, and the id in the checkpoint's `metadata` now;
 * - restores: `job.restore-savepoint` and `job.new-from-savepoint` in the audit log, each a known
 *   re-emission window whose new query id is its own (so not a checkpoint loss).
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { readStreamMetadata } from '@/lib/engine';
import { NotFoundError } from '../errors';
import { jobSinkAudit } from '../drills/drill-service';
import type { SinkAudit } from '../drills/sink-audit';
import { openCheckpoint } from '../checkpoint-access';
import { contractOf, sinkFix } from './contract-fixes';
import { classifyDuplicates, type Classification, type CheckpointLossEvidence, type RecoveryEvidence, type RestoreEvidence } from './duplicate-classifier';
import { actorName } from '../actor';
import { formatDateTime } from '@/components/format';

export interface DuplicateDiagnosis extends Classification {
  jobId: string;
  jobName: string;
  sinkType: string;
  guarantee: string | null;
  readable: boolean;
  perBatch: boolean;
  note: string;
  audit: Pick<SinkAudit, 'totalExpected' | 'totalActual' | 'duplicateRows' | 'missingRows' | 'unattributedRows' | 'batches'> | null;
  evidence: {
    recoveries: RecoveryEvidence[];
    losses: CheckpointLossEvidence[];
    restores: RestoreEvidence[];
    /** Query ids seen: in the batch history, on the job, in the checkpoint's metadata now. */
    queryIds: { history: string[]; job: string | null; checkpoint: string | null };
  };
}

type Obj = Record<string, unknown>;

interface HistoryRow {
  batchId: number;
  timestamp: Date;
  runId: string | null;
  queryId: string | null;
}

async function checkpointQueryId(location: string, checkpointRoot: string): Promise<string | null> {
  try {
    return (await readStreamMetadata(openCheckpoint(location, checkpointRoot)))?.id ?? null;
  } catch {
    // outside the root, unreadable or corrupt: the checkpoint page says which; here it is only evidence
    return null;
  }
}

/** Recoveries that re-ran a pending batch: drills' crashed batches and each recovering run's first batch. */
function recoveriesOf(
  drills: { id: string; point: string; batchId: number | null; crashedAt: Date | null }[],
  runs: { id: string; startedAt: Date; recoveredFromRunId: string | null; status: string; exitReason: string | null }[],
  history: HistoryRow[],
): RecoveryEvidence[] {
  const out: RecoveryEvidence[] = [];
  for (const d of drills) {
    if (d.batchId === null || !d.crashedAt) continue;
    out.push({ batchId: d.batchId, at: d.crashedAt.toISOString(), source: 'drill', description: `drill ${d.point}: the run crashed in batch ${d.batchId} and its recovery re-ran it` });
  }
  const firstBatchOfRun = new Map<string, number>();
  for (const h of history) if (h.runId && (firstBatchOfRun.get(h.runId) ?? Infinity) > h.batchId) firstBatchOfRun.set(h.runId, h.batchId);
  for (const r of runs) {
    if (!r.recoveredFromRunId) continue;
    const b = firstBatchOfRun.get(r.id);
    if (b === undefined) continue;
    out.push({ batchId: b, at: r.startedAt.toISOString(), source: 'recovery', description: `run ${r.id.slice(0, 8)} recovered from run ${r.recoveredFromRunId.slice(0, 8)} and re-ran pending batch ${b}` });
  }
  return out;
}

function lossesOf(
  events: { action: string; actor: string; createdAt: Date; before: unknown; after: unknown }[],
  history: HistoryRow[],
  jobQueryId: string | null,
  cpQueryId: string | null,
): CheckpointLossEvidence[] {
  const out: CheckpointLossEvidence[] = [];
  for (const e of events) {
    const before = (e.before ?? {}) as Obj;
    const after = (e.after ?? {}) as Obj;
    if (e.action === 'job.reset-checkpoint') {
      out.push({
        kind: 'reset-checkpoint',
        at: e.createdAt.toISOString(),
        actor: e.actor,
        fromQueryId: (before.queryId as string | null) ?? null,
        description: `the checkpoint reset by ${actorName(e.actor)} at ${formatDateTime(e.createdAt)} (query ${String(before.queryId ?? 'unknown')}, last batch ${String(before.lastBatchId ?? 'none')})`,
      });
    } else if (e.action === 'job.query-id-change') {
      out.push({
        kind: 'query-id-change',
        at: e.createdAt.toISOString(),
        actor: e.actor,
        fromQueryId: (before.queryId as string | null) ?? null,
        toQueryId: (after.queryId as string | null) ?? null,
        description: `a run at ${formatDateTime(e.createdAt)} found query ${String(after.queryId)} in the checkpoint instead of ${String(before.queryId)}: the checkpoint directory was deleted or replaced`,
      });
    } else if (e.action === 'job.update' && before.checkpointLocation !== undefined && after.checkpointLocation !== undefined && before.checkpointLocation !== after.checkpointLocation) {
      out.push({
        kind: 'checkpoint-location-change',
        at: e.createdAt.toISOString(),
        actor: e.actor,
        description: `the checkpoint location changed by ${actorName(e.actor)} at ${formatDateTime(e.createdAt)} (${String(before.checkpointLocation)} → ${String(after.checkpointLocation)})`,
      });
    }
  }
  // Query id changes in the batch history: each progress record names the query that wrote it.
  const byTime = [...history].filter((h) => h.queryId).sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime());
  for (let i = 1; i < byTime.length; i++) {
    if (byTime[i].queryId !== byTime[i - 1].queryId) {
      out.push({
        kind: 'query-id-change',
        at: byTime[i].timestamp.toISOString(),
        fromQueryId: byTime[i - 1].queryId,
        toQueryId: byTime[i].queryId,
        description: `a new query id ${byTime[i].queryId} in the batch history from batch ${byTime[i].batchId} (before: ${byTime[i - 1].queryId}): the checkpoint's metadata was lost or replaced`,
      });
    }
  }
  // The checkpoint's metadata names another query than the history's last: it was replaced (a
  // deleted directory re-created by the next start) after those batches.
  const last = byTime[byTime.length - 1]?.queryId ?? jobQueryId;
  if (cpQueryId && last && cpQueryId !== last && !out.some((l) => l.toQueryId === cpQueryId)) {
    out.push({
      kind: 'query-id-change',
      at: (byTime[byTime.length - 1]?.timestamp ?? new Date()).toISOString(),
      fromQueryId: last,
      toQueryId: cpQueryId,
      description: `the checkpoint's metadata now names query ${cpQueryId}, not ${last} that wrote the history: the checkpoint was replaced`,
    });
  }
  return out;
}

/** Resets to a savepoint and jobs made from one: each a window of batch ids re-run on purpose. */
function restoresOf(events: { action: string; actor: string; createdAt: Date; before: unknown; after: unknown }[]): RestoreEvidence[] {
  const out: RestoreEvidence[] = [];
  for (const e of events) {
    if (e.action !== 'job.restore-savepoint' && e.action !== 'job.new-from-savepoint') continue;
    const before = (e.before ?? {}) as Obj;
    const after = (e.after ?? {}) as Obj;
    if (typeof after.batchId !== 'number') continue;
    const at = e.createdAt.toISOString();
    const lastBefore = e.action === 'job.restore-savepoint' ? before.lastBatchId : after.sourceLastBatchId;
    const acknowledged = after.acknowledgedReprocessing === true;
    const savepoint = String(after.savepoint ?? after.savepointId);
    out.push({
      kind: 'savepoint-restore',
      at,
      actor: e.actor,
      savepointId: String(after.savepointId),
      savepoint,
      batchId: after.batchId,
      lastBatchBefore: typeof lastBefore === 'number' ? lastBefore : null,
      queryId: (after.queryId as string | null) ?? null,
      fromQueryId: (before.queryId as string | null) ?? null,
      acknowledged,
      description:
        e.action === 'job.restore-savepoint'
          ? `the reset to savepoint ${savepoint} (batch ${after.batchId}) by ${actorName(e.actor)} at ${formatDateTime(at)}${acknowledged ? ', which acknowledged the re-emission' : ''}`
          : `this job's creation from savepoint ${savepoint} (batch ${after.batchId}) of job ${String(after.fromJobId)} by ${actorName(e.actor)} at ${formatDateTime(at)}${acknowledged ? ', which acknowledged the re-emission' : ''}`,
    });
  }
  return out;
}

const countsOf = (a: SinkAudit): NonNullable<DuplicateDiagnosis['audit']> => ({
  totalExpected: a.totalExpected,
  totalActual: a.totalActual,
  duplicateRows: a.duplicateRows,
  missingRows: a.missingRows,
  unattributedRows: a.unattributedRows,
  batches: a.batches,
});

export async function diagnoseDuplicates(db: PrismaClient, jobId: string, checkpointRoot: string): Promise<DuplicateDiagnosis> {
  const job = await db.job.findUnique({ where: { id: jobId } });
  if (!job) throw new NotFoundError('job', jobId);
  const [audit, history, runs, drills, events, cpQueryId] = await Promise.all([
    jobSinkAudit(db, jobId),
    db.$queryRaw<HistoryRow[]>`SELECT "batchId", "timestamp", "runId", progress->>'id' AS "queryId" FROM "BatchProgress" WHERE "jobId" = ${jobId} ORDER BY "batchId"`,
    db.run.findMany({ where: { jobId }, select: { id: true, startedAt: true, recoveredFromRunId: true, status: true, exitReason: true }, orderBy: { startedAt: 'asc' } }),
    db.drill.findMany({ where: { jobId }, select: { id: true, point: true, batchId: true, crashedAt: true }, orderBy: { requestedAt: 'asc' } }),
    db.auditEvent.findMany({ where: { targetType: 'job', targetId: jobId, action: { in: ['job.reset-checkpoint', 'job.update', 'job.query-id-change', 'job.restore-savepoint', 'job.new-from-savepoint'] } }, orderBy: { createdAt: 'asc' }, take: 500 }),
    checkpointQueryId(job.checkpointLocation, checkpointRoot),
  ]);
  const recoveries = recoveriesOf(drills, runs, history);
  const restores = restoresOf(events);
  // A restore's new query id is its own trace, not a lost checkpoint.
  const restoreQueryIds = new Set(restores.map((r) => r.queryId));
  const losses = lossesOf(events, history, job.queryId, cpQueryId).filter((l) => !(l.kind === 'query-id-change' && l.toQueryId && restoreQueryIds.has(l.toQueryId)));
  const contract = contractOf(job.contract);
  const evidence = { recoveries, losses, restores, queryIds: { history: [...new Set(history.map((h) => h.queryId).filter((q): q is string => !!q))], job: job.queryId, checkpoint: cpQueryId } };
  const base = { jobId, jobName: job.name, sinkType: audit.sinkType, guarantee: job.guarantee, readable: audit.readable, perBatch: audit.perBatch, note: audit.note, evidence };
  if (!audit.readable || !audit.perBatch) {
    return {
      ...base,
      audit: audit.readable ? countsOf(audit) : null,
      verdict: 'not-auditable',
      summary: audit.readable
        ? `The sink can be counted but not per batch (${audit.note}), so the duplicates (${audit.duplicateRows} rows) cannot be told apart by batch id.`
        : `${audit.note} The diagnosis needs a sink Weir can read back per batch.`,
      duplicateRows: audit.duplicateRows,
      findings: [],
    };
  }
  const committedAt = new Map(history.map((h) => [h.batchId, h.timestamp.toISOString()]));
  const classification = classifyDuplicates({
    duplicated: audit.batches.map((b) => ({ batchId: b.batchId, duplicates: b.duplicates, committedAt: committedAt.get(b.batchId) ?? null })),
    recoveries,
    losses,
    restores,
    sinkFix: sinkFix(job.sinkType, job.spec as Obj, contract?.sink.reason ?? ''),
  });
  // A checkpoint loss rewrote what the lost query had written since its first run: the copies reach
  // back to that run's start (after any earlier loss), not just to the rewritten batches' times.
  for (const f of classification.findings) {
    if (f.kind !== 'checkpoint-loss' || !f.event) continue;
    const at = f.event.at;
    const earlierLoss = losses.filter((l) => l.at < at && l.kind !== 'query-id-change').map((l) => l.at).sort().pop();
    const first = runs.find((r) => r.startedAt.toISOString() < at && (!earlierLoss || r.startedAt.toISOString() > earlierLoss));
    f.reachesBackTo = first ? first.startedAt.toISOString() : null;
  }
  return { ...base, audit: countsOf(audit), ...classification };
}
