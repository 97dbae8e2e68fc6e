/**
 * A job's batch history, newest first, keyset-paginated on batchId: `?before=<batchId>&limit=n`
 * returns the n batches with batchId < before (the `(jobId, batchId DESC)` index serves it
 * directly, so page 1000 costs what page 1 costs), and `nextBefore` is the cursor for the next
 * page (null on the last). One batch's read returns its full StreamingQueryProgress JSON.
 * BigInt counters become numbers (state sizes stay far below 2^53).
 */
import type { BatchProgress, PrismaClient } from '@/lib/generated/prisma/client';
import { NotFoundError } from '../errors';
import { assertJobExists, findJobOrThrow } from '../job-view';
import { redactSecrets, secretValues } from '../secret-masking';

const DEFAULT_BATCH_PAGE = 50;
const MAX_BATCH_PAGE = 500;

export interface BatchSummary {
  batchId: number;
  /**
   * The runId (Spark's, as the Runs tab and the progress JSON show it) of the run that recorded
   * the batch; null for a batch rebuilt from the checkpoint or whose run was deleted.
   */
  runId: string | null;
  timestamp: string;
  numInputRows: number;
  inputRowsPerSecond: number;
  processedRowsPerSecond: number;
  batchDurationMs: number;
  durationMs: unknown;
  stateRowsTotal: number;
  stateRowsUpdated: number;
  /** Late input rows dropped (Spark's numRowsDroppedByWatermark), summed over the operators. */
  stateRowsDroppedByWatermark: number;
  /** State rows removed, evictions by the watermark included (Spark's numRowsRemoved). */
  stateRowsRemoved: number;
  /** Rows written to the sink (Spark's sink.numOutputRows). */
  numOutputRows: number;
  stateMemoryBytes: number;
  stateDiskBytes: number;
  commitLag: number | null;
  watermarkMs: number | null;
  numBadRecords: number;
}

export interface BatchDetail extends BatchSummary {
  progress: unknown;
}

const num = (v: bigint | null): number | null => (v === null ? null : Number(v));

/** The batch row's run: the row holds the Run's row id, the API names the run by its runId. */
type WithRun = BatchProgress & { run: { runId: string } | null };
const RUN = { run: { select: { runId: true } } } as const;

function summary(b: WithRun): BatchSummary {
  return {
    batchId: b.batchId,
    runId: b.run?.runId ?? null,
    timestamp: b.timestamp.toISOString(),
    numInputRows: b.numInputRows,
    inputRowsPerSecond: b.inputRowsPerSecond,
    processedRowsPerSecond: b.processedRowsPerSecond,
    batchDurationMs: b.batchDurationMs,
    durationMs: b.durationMs,
    stateRowsTotal: Number(b.stateRowsTotal),
    stateRowsUpdated: Number(b.stateRowsUpdated),
    stateRowsDroppedByWatermark: Number(b.stateRowsDroppedByWatermark),
    stateRowsRemoved: Number(b.stateRowsRemoved),
    numOutputRows: Number(b.numOutputRows),
    stateMemoryBytes: Number(b.stateMemoryBytes),
    stateDiskBytes: Number(b.stateDiskBytes),
    commitLag: num(b.commitLag),
    watermarkMs: num(b.watermarkMs),
    numBadRecords: b.numBadRecords,
  };
}

export async function listBatches(
  db: PrismaClient,
  jobId: string,
  opts: { before?: number; limit?: number } = {},
): Promise<{ items: BatchSummary[]; nextBefore: number | null }> {
  const limit = Math.min(Math.max(opts.limit ?? DEFAULT_BATCH_PAGE, 1), MAX_BATCH_PAGE);
  const rows = await db.batchProgress.findMany({
    where: { jobId, ...(opts.before !== undefined ? { batchId: { lt: opts.before } } : {}) },
    orderBy: { batchId: 'desc' },
    take: limit + 1,
    omit: { progress: true },
    include: RUN,
  });
  // Rows prove the job exists; only an empty page needs the extra lookup to tell 404 from [].
  if (rows.length === 0) await assertJobExists(db, jobId);
  const page = rows.slice(0, limit);
  return {
    items: page.map((r) => summary(r as WithRun)),
    nextBefore: rows.length > limit ? page[page.length - 1].batchId : null,
  };
}

export async function getBatch(db: PrismaClient, jobId: string, batchId: number): Promise<BatchDetail> {
  const job = await findJobOrThrow(db, jobId);
  const b = await db.batchProgress.findUnique({ where: { jobId_batchId: { jobId, batchId } }, include: RUN });
  if (!b) throw new NotFoundError('batch', `${batchId} of job ${jobId}`, `/api/jobs/${jobId}/batches`);
  // Progress quotes source/sink descriptions, which may carry a connection string.
  return { ...summary(b), progress: redactSecrets(b.progress, secretValues(job.spec)) };
}
