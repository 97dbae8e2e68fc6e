/**
 * A job's runs (one per start, Spark's runId), newest first, with the error that ended a failed
 * run and the run it recovered from; secrets quoted in error messages are redacted.
 */
import type { PrismaClient, Run } from '@/lib/generated/prisma/client';
import { findJobOrThrow } from './jobs-presenter';
import { redactSecrets, secretValues } from './secret-masking';

export interface RunView {
  id: string;
  runId: string;
  workerId: string | null;
  status: string;
  attempt: number;
  recoveredFromRunId: string | null;
  startedAt: string;
  endedAt: string | null;
  exitReason: string | null;
  error: unknown;
  leaseEpoch: number;
}

export function presentRun(r: Run, secrets: readonly string[] = []): RunView {
  return {
    id: r.id,
    runId: r.runId,
    workerId: r.workerId,
    status: r.status,
    attempt: r.attempt,
    recoveredFromRunId: r.recoveredFromRunId,
    startedAt: r.startedAt.toISOString(),
    endedAt: r.endedAt?.toISOString() ?? null,
    exitReason: r.exitReason === null ? null : redactSecrets(r.exitReason, secrets),
    error: redactSecrets(r.error, secrets),
    leaseEpoch: r.leaseEpoch,
  };
}

export async function listRuns(db: PrismaClient, jobId: string, limit = 50): Promise<{ items: RunView[] }> {
  const job = await findJobOrThrow(db, jobId);
  const secrets = secretValues(job.spec);
  const runs = await db.run.findMany({ where: { jobId }, orderBy: [{ startedAt: 'desc' }, { id: 'desc' }], take: limit });
  return { items: runs.map((r) => presentRun(r, secrets)) };
}
