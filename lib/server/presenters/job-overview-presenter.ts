/**
 * The jobs list's figures beyond the Job row: per job, its latest batches (input rate, commit
 * lag, state rows and a state-rows sparkline over the last SPARKLINE_BATCHES batches) and its
 * firing alerts. One query per concern, whatever the number of jobs: a LATERAL join reads each
 * job's newest batches through the (jobId, batchId DESC) index, so a job with a long history
 * costs the same as a new one.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { listJobs, type JobListItem } from './jobs-presenter';

export const SPARKLINE_BATCHES = 30;

export interface JobOverview extends JobListItem {
  /** Input rows per second of the latest batch, null before the first batch. */
  inputRowsPerSecond: number | null;
  commitLag: number | null;
  stateRowsTotal: number | null;
  /** State rows total of the last batches, oldest first. */
  stateRowsSparkline: number[];
  firingAlerts: { kind: string; message: string }[];
}

interface RecentRow {
  jobId: string;
  batchId: number;
  inputRowsPerSecond: number;
  commitLag: number | null;
  stateRowsTotal: number;
}

export async function jobOverviews(db: PrismaClient): Promise<JobOverview[]> {
  const jobs = await listJobs(db);
  if (jobs.length === 0) return [];
  const [recent, alerts] = await Promise.all([
    db.$queryRaw<RecentRow[]>`
      SELECT j.id AS "jobId", b."batchId", b."inputRowsPerSecond",
             b."commitLag"::float8 AS "commitLag", b."stateRowsTotal"::float8 AS "stateRowsTotal"
      FROM "Job" j CROSS JOIN LATERAL (
        SELECT "batchId", "inputRowsPerSecond", "commitLag", "stateRowsTotal" FROM "BatchProgress"
        WHERE "jobId" = j.id ORDER BY "batchId" DESC LIMIT ${SPARKLINE_BATCHES}
      ) b`,
    db.alert.findMany({ where: { state: 'FIRING', jobId: { not: null } }, select: { jobId: true, kind: true, message: true }, orderBy: { firedAt: 'desc' } }),
  ]);
  const byJob = new Map<string, RecentRow[]>();
  for (const r of recent) {
    let list = byJob.get(r.jobId);
    if (!list) byJob.set(r.jobId, (list = []));
    list.push(r);
  }
  return jobs.map((j) => {
    const rows = (byJob.get(j.id) ?? []).sort((a, b) => a.batchId - b.batchId);
    const latest = rows.at(-1);
    return {
      ...j,
      inputRowsPerSecond: latest ? Number(latest.inputRowsPerSecond) : null,
      commitLag: latest?.commitLag == null ? null : Number(latest.commitLag),
      stateRowsTotal: latest ? Number(latest.stateRowsTotal) : null,
      stateRowsSparkline: rows.map((r) => Number(r.stateRowsTotal)),
      firingAlerts: alerts.filter((a) => a.jobId === j.id).map((a) => ({ kind: a.kind, message: a.message })),
    };
  });
}

