/**
 * Incident drills: rehearse the failure that matters on a running job.
 *
 * A drill names a crash point (after-offsets, after-sink: after the sink write and before the
 * commit, after-commit) or kill-worker. The job's run sees the request on its next lease renewal:
 * for a crash point it stops gracefully and the next run is armed to die at that point of the
 * next batch (the drill is ARMED, then CRASHED with that batch id); for kill-worker the run's
 * whole worker process is killed with SIGKILL. Recovery then happens as it would in an incident
 * (a recovery run re-runs the pending batch from the checkpoint; a dead worker's runs fail over),
 * the drill becomes RECOVERED, and the sink's duplicate audit is recorded on it.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import '@/lib/connectors'; // registers the connectors' source, sink and checkpoint types
import { parseJobSpec } from '@/lib/engine';
import type { Principal } from '../auth';
import { recordAudit } from '../services/audit-service';
import { ConflictError, NotFoundError } from '../errors';
import { auditSink, type SinkAudit } from './sink-audit';

export const DRILL_POINTS = ['after-offsets', 'after-sink', 'after-commit', 'kill-worker'] as const;
export type DrillPoint = (typeof DRILL_POINTS)[number];
const ACTIVE_DRILL_STATUSES = ['REQUESTED', 'ARMED', 'CRASHED'];

export async function requestDrill(db: PrismaClient, who: Principal, jobId: string, point: DrillPoint) {
  const job = await db.job.findUnique({ where: { id: jobId } });
  if (!job) throw new NotFoundError('job', jobId);
  if (job.status !== 'RUNNING') {
    throw new ConflictError(`A drill needs a RUNNING job; ${job.name} is ${job.status}. Start it, wait until it is RUNNING, then drill.`, { status: job.status });
  }
  const active = await db.drill.findFirst({ where: { jobId, status: { in: ACTIVE_DRILL_STATUSES } } });
  if (active) throw new ConflictError(`Drill ${active.id} (${active.point}) on ${job.name} is still ${active.status}; wait for it to recover.`, { drillId: active.id });
  const drill = await db.drill.create({ data: { jobId, point, requestedBy: who.actor } });
  await recordAudit(db, who, { action: 'job.drill', targetType: 'job', targetId: jobId, after: { drillId: drill.id, point } });
  return drill;
}

/**
 * A job's drills, newest first. The rows join runs on the Run row's id; the API names each run by
 * its runId, as the Runs tab, the batches and the progress JSON do, so `crashedRunId` and
 * `recoveryRunId` are runIds here (a run no longer recorded keeps the stored id).
 */
export async function listDrills(db: PrismaClient, jobId: string) {
  const drills = await db.drill.findMany({ where: { jobId }, orderBy: { requestedAt: 'desc' }, take: 50 });
  const rowIds = [...new Set(drills.flatMap((d) => [d.crashedRunId, d.recoveryRunId].filter((x): x is string => x !== null)))];
  const runIdOf = new Map(rowIds.length ? (await db.run.findMany({ where: { id: { in: rowIds } }, select: { id: true, runId: true } })).map((r) => [r.id, r.runId] as const) : []);
  const named = (rowId: string | null) => (rowId === null ? null : (runIdOf.get(rowId) ?? rowId));
  return drills.map((d) => ({ ...d, crashedRunId: named(d.crashedRunId), recoveryRunId: named(d.recoveryRunId) }));
}

/** The audit of a job's sink against its committed batches. */
export async function jobSinkAudit(db: PrismaClient, jobId: string): Promise<SinkAudit & { guarantee: string | null }> {
  const job = await db.job.findUnique({ where: { id: jobId } });
  if (!job) throw new NotFoundError('job', jobId);
  const batches = await db.batchProgress.findMany({ where: { jobId }, select: { batchId: true, progress: true }, orderBy: { batchId: 'asc' } });
  // A reconstructed batch's output count is unknown: it is audited as a batch without progress.
  type Kept = { sink?: { numOutputRows?: number }; reconstructed?: boolean };
  const committed = batches
    .filter((b) => !(b.progress as Kept).reconstructed)
    .map((b) => ({ batchId: b.batchId, numOutputRows: Math.max(0, Number((b.progress as Kept).sink?.numOutputRows ?? 0)) }));
  const parsed = parseJobSpec(job.spec);
  if (!parsed.ok) throw new ConflictError(`The job spec of ${job.name} does not parse; fix it before auditing its sink.`, { errors: parsed.errors });
  const audit = await auditSink(parsed.spec, committed);
  return { ...audit, guarantee: job.guarantee };
}

/**
 * Worker side: the drill reached RECOVERED; record the audit on it. Once: a later batch of the
 * recovery run calls again, and neither the recovery time nor the audit taken then may move.
 */
export async function completeDrill(db: PrismaClient, drillId: string, jobId: string): Promise<boolean> {
  const recoveredAt = new Date();
  const drill = await db.drill.findUnique({ where: { id: drillId }, select: { status: true } });
  if (!drill || drill.status === 'RECOVERED') return false;
  let audit: unknown = null;
  let error: string | null = null;
  try {
    audit = await jobSinkAudit(db, jobId);
  } catch (e) {
    error = `audit failed: ${(e as Error).message}`;
  }
  const { count } = await db.drill.updateMany({
    where: { id: drillId, status: { not: 'RECOVERED' } },
    data: { status: 'RECOVERED', recoveredAt, audit: audit ? JSON.parse(JSON.stringify(audit)) : undefined, error },
  });
  return count > 0;
}
