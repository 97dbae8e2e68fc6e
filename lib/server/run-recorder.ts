/**
 * What a run writes to the metadata database: its Run row and status transitions, one
 * BatchProgress row per committed batch (mirrored from the engine's progress, with the state
 * figures summed over operators), the job's latest batch, and a `weir_progress` notification that
 * the API's live stream listens to.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { StreamingQueryProgress } from '@/lib/engine';
import { evaluateAlertsAfterBatch, evaluateAlertsForRun } from './alerts/alert-evaluator';

export type RunStatus = 'PENDING' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED' | 'FAILED' | 'RECOVERING';

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

export function batchProgressRow(jobId: string, runRowId: string, p: StreamingQueryProgress) {
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
    args: { jobId: string; runId: string; workerId: string; status: RunStatus; attempt: number; recoveredFromRunId: string | null; leaseEpoch: number; memoryLimitMb?: number },
  ): Promise<RunRecorder> {
    const run = await db.run.create({ data: args });
    await db.job.update({ where: { id: args.jobId }, data: { status: args.status } });
    await evaluateAlertsForRun(db, args.jobId); // never throws: alerting must not fail a run
    return new RunRecorder(db, args.jobId, run.id);
  }

  /** Sets the run's status, and the job's unless a stop was requested meanwhile (STOPPING wins). */
  async status(status: RunStatus, extra: { queryId?: string } = {}): Promise<void> {
    await this.db.run.update({ where: { id: this.runRowId }, data: { status } });
    await this.db.job.updateMany({ where: { id: this.jobId, NOT: { status: 'STOPPING' } }, data: { status } });
    // The query id is recorded whatever the status (a stop requested meanwhile keeps STOPPING).
    if (extra.queryId) await this.db.job.update({ where: { id: this.jobId }, data: { queryId: extra.queryId } });
    await evaluateAlertsForRun(this.db, this.jobId);
  }

  async batch(p: StreamingQueryProgress): Promise<void> {
    const row = batchProgressRow(this.jobId, this.runRowId, p);
    await this.db.$transaction([
      this.db.batchProgress.upsert({ where: { jobId_batchId: { jobId: this.jobId, batchId: p.batchId } }, create: row, update: row }),
      this.db.job.update({
        where: { id: this.jobId },
        data: { lastBatchId: p.batchId, lastCommittedAt: new Date(), guarantee: p.contract.guarantee, contract: JSON.parse(JSON.stringify(p.contract)) },
      }),
    ]);
    await this.db.$executeRawUnsafe(`SELECT pg_notify('weir_progress', $1)`, `${this.jobId}:${p.batchId}`);
    await evaluateAlertsAfterBatch(this.db, this.jobId);
  }

  /** Ends the run; the job's status follows unless another run owns the job now. */
  async end(status: 'STOPPED' | 'FAILED', exitReason: string, error?: RunError, opts: { updateJob?: boolean } = {}): Promise<void> {
    await this.db.run.update({
      where: { id: this.runRowId },
      data: { status, exitReason, endedAt: new Date(), ...(error ? { error: JSON.parse(JSON.stringify(error)) } : {}) },
    });
    if (opts.updateJob !== false) {
      await this.db.job.update({
        where: { id: this.jobId },
        data: { status, ...(error ? { lastError: JSON.parse(JSON.stringify(error)) } : {}) },
      });
    }
    await evaluateAlertsForRun(this.db, this.jobId);
  }
}
