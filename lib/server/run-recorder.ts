/**
 * What a run writes to the metadata database: its Run row and status transitions, one
 * BatchProgress row per committed batch (mirrored from the engine's progress, with the state
 * figures summed over operators), the job's latest batch, and a `weir_progress` notification that
 * the API's live stream listens to.
 *
 * The batch writes are delivered by the run's listener bus (listener-bus.ts), off the batch loop;
 * backfillHistory fills in, from the checkpoint's progress/N, committed batches whose row is
 * missing (the database was down when they committed, or their run died before delivering).
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { lockJobForHistory, moveJob, moveRun } from './job-lifecycle';
import { readRecentProgress, type CheckpointFileManager, type StreamingQueryProgress } from '@/lib/engine';
import { evaluateAlertsAfterBatch, evaluateAlertsForRun } from './alerts/alert-evaluator';

export interface RunError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  /** Where it happened: the batch and phase, when known. */
  batchId?: number;
}

export function toRunError(e: unknown, batchId?: number): RunError {
  const err = e as { code?: unknown; message?: string; details?: Record<string, unknown> };
  return {
    code: typeof err?.code === 'string' ? err.code : 'INTERNAL_ERROR',
    message: err?.message ?? String(e),
    ...(err?.details ? { details: err.details } : {}),
    ...(batchId !== undefined ? { batchId } : {}),
  };
}

/** `runRowId` null: the run that committed the batch is not known (a backfilled row). */
function batchProgressRow(jobId: string, runRowId: string | null, p: StreamingQueryProgress) {
  const sum = (f: (o: StreamingQueryProgress['stateOperators'][number]) => number) => p.stateOperators.reduce((n, o) => n + (f(o) || 0), 0);
  return {
    jobId,
    runId: runRowId,
    batchId: p.batchId,
    timestamp: new Date(p.timestamp),
    numInputRows: p.numInputRows,
    inputRowsPerSecond: p.inputRowsPerSecond ?? 0,
    processedRowsPerSecond: p.processedRowsPerSecond ?? 0,
    batchDurationMs: Math.round(p.batchDuration),
    durationMs: p.durationMs,
    stateRowsTotal: BigInt(sum((o) => o.numRowsTotal)),
    stateRowsUpdated: BigInt(sum((o) => o.numRowsUpdated)),
    stateRowsDroppedByWatermark: BigInt(sum((o) => o.numRowsDroppedByWatermark)),
    stateRowsRemoved: BigInt(sum((o) => o.numRowsRemoved)),
    // A progress from before the sink reported (or a test's partial one) may have no sink.
    numOutputRows: BigInt(Math.max(0, Math.trunc(Number(p.sink?.numOutputRows ?? 0)) || 0)),
    stateMemoryBytes: BigInt(sum((o) => o.memoryUsedBytes)),
    stateDiskBytes: BigInt(sum((o) => o.customMetrics?.stateOnDiskBytes ?? 0)),
    commitLag: p.commitLag === null ? null : BigInt(Math.round(p.commitLag)),
    watermarkMs: p.eventTime?.watermark ? BigInt(Date.parse(p.eventTime.watermark)) : null,
    numBadRecords: p.numBadRecords,
    progress: JSON.parse(JSON.stringify(p)),
  };
}

export class RunRecorder {
  constructor(
    private readonly db: PrismaClient,
    readonly jobId: string,
    readonly runRowId: string,
  ) {}

  static async create(
    db: PrismaClient,
    args: { jobId: string; runId: string; workerId: string; status: 'STARTING' | 'RECOVERING'; attempt: number; recoveredFromRunId: string | null; leaseEpoch: number; memoryLimitMb?: number },
  ): Promise<RunRecorder> {
    const run = await db.run.create({ data: args });
    await moveJob(db, args.jobId, args.status === 'RECOVERING' ? 'run-recovering' : 'run-starting');
    await evaluateAlertsForRun(db, args.jobId); // never throws: alerting must not fail a run
    return new RunRecorder(db, args.jobId, run.id);
  }

  /** The engine started: the run is RUNNING, and the job unless a stop was requested meanwhile (STOPPING wins). */
  async running(extra: { queryId?: string } = {}): Promise<void> {
    await moveRun(this.db, this.runRowId, 'run-running');
    await moveJob(this.db, this.jobId, 'run-running');
    // The query id is recorded whatever the status (a stop requested meanwhile keeps STOPPING).
    if (extra.queryId) {
      const before = await this.db.job.findUnique({ where: { id: this.jobId }, select: { queryId: true } });
      await this.db.job.update({ where: { id: this.jobId }, data: { queryId: extra.queryId } });
      // A start that finds another query id in the checkpoint than the job last ran (the checkpoint
      // directory deleted or replaced behind Weir's back) is a new query: the run is the only one
      // that sees it, so it leaves the trace in the audit log for the duplicate diagnosis.
      if (before?.queryId && before.queryId !== extra.queryId) {
        await this.db.auditEvent.create({
          data: { actor: 'system:worker', actorRole: 'system', action: 'job.query-id-change', targetType: 'job', targetId: this.jobId, before: { queryId: before.queryId }, after: { queryId: extra.queryId, runId: this.runRowId } },
        });
      }
    }
    await evaluateAlertsForRun(this.db, this.jobId);
  }

  async batch(p: StreamingQueryProgress): Promise<void> {
    const row = batchProgressRow(this.jobId, this.runRowId, p);
    await this.db.$transaction([
      // Before the batch row: a replay's upsert locks that row without a foreign-key check on the
      // Job row, and the job's delete takes the Job row before it cascades to the history.
      lockJobForHistory(this.db, this.jobId),
      this.db.batchProgress.upsert({ where: { jobId_batchId: { jobId: this.jobId, batchId: p.batchId } }, create: row, update: row }),
      this.latestBatch(p),
    ]);
    await this.db.$executeRawUnsafe(`SELECT pg_notify('weir_progress', $1)`, `${this.jobId}:${p.batchId}`);
    await evaluateAlertsAfterBatch(this.db, this.jobId);
  }

  /** The job's latest batch, never moving back (a backfilled batch is older than the last one). */
  private latestBatch(p: StreamingQueryProgress) {
    return this.db.job.updateMany({
      where: { id: this.jobId, OR: [{ lastBatchId: null }, { lastBatchId: { lt: p.batchId } }] },
      data: { lastBatchId: p.batchId, lastCommittedAt: new Date(Date.parse(p.timestamp) + p.batchDuration), guarantee: p.contract.guarantee, contract: JSON.parse(JSON.stringify(p.contract)) },
    });
  }

  /**
   * Fills in the history of every committed batch the checkpoint still keeps (progress/N, or
   * rebuilt from offsets/N when the run died before writing it) and the database has no row for.
   * Returns the batch ids filled in.
   */
  async backfillHistory(checkpoint: CheckpointFileManager): Promise<number[]> {
    return this.fillHistory(await readRecentProgress(checkpoint));
  }

  /** backfillHistory's database half, for a caller that read the checkpoint itself. */
  async fillHistory(kept: StreamingQueryProgress[]): Promise<number[]> {
    if (kept.length === 0) return [];
    const have = await this.db.batchProgress.findMany({
      where: { jobId: this.jobId, batchId: { in: kept.map((p) => p.batchId) } },
      select: { batchId: true },
    });
    const known = new Set(have.map((b) => b.batchId));
    const missing = kept.filter((p) => !known.has(p.batchId));
    if (missing.length === 0) return [];
    await this.db.batchProgress.createMany({ data: missing.map((p) => batchProgressRow(this.jobId, null, p)), skipDuplicates: true });
    await this.latestBatch(missing[missing.length - 1]);
    for (const p of missing) await this.db.$executeRawUnsafe(`SELECT pg_notify('weir_progress', $1)`, `${this.jobId}:${p.batchId}`);
    await evaluateAlertsAfterBatch(this.db, this.jobId);
    return missing.map((p) => p.batchId);
  }

  /** Ends the run; the job's status follows unless another run owns the job now. */
  /**
   * `giveUp`: the run failed for good (no retry follows), so the job's desiredState becomes
   * STOPPED in the same write that makes it FAILED. Written later, it would cancel a start that
   * an operator sent as soon as the job showed FAILED.
   */
  async end(status: 'STOPPED' | 'FAILED', exitReason: string, error?: RunError, opts: { updateJob?: boolean; giveUp?: boolean } = {}): Promise<void> {
    const event = status === 'STOPPED' ? 'run-stopped' : 'run-failed';
    await moveRun(this.db, this.runRowId, event, { exitReason, ...(error ? { error: JSON.parse(JSON.stringify(error)) } : {}) });
    if (opts.updateJob !== false) {
      await moveJob(this.db, this.jobId, event, { ...(error ? { lastError: JSON.parse(JSON.stringify(error)) } : {}), ...(opts.giveUp ? { desiredState: 'STOPPED' } : {}) });
    }
    await evaluateAlertsForRun(this.db, this.jobId);
  }
}
