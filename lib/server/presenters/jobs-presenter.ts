/**
 * Reads of jobs for the UI and API: plain objects, never Prisma rows.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';

export interface JobListItem {
  id: string;
  name: string;
  status: string;
  desiredState: string;
  guarantee: string | null;
  sourceType: string;
  sinkType: string;
  outputMode: string;
  lastBatchId: number | null;
  lastCommittedAt: string | null;
  updatedAt: string;
}

export async function listJobs(db: PrismaClient): Promise<JobListItem[]> {
  const jobs = await db.job.findMany({ orderBy: { name: 'asc' } });
  return jobs.map((j) => ({
    id: j.id,
    name: j.name,
    status: j.status,
    desiredState: j.desiredState,
    guarantee: j.guarantee,
    sourceType: j.sourceType,
    sinkType: j.sinkType,
    outputMode: j.outputMode,
    lastBatchId: j.lastBatchId,
    lastCommittedAt: j.lastCommittedAt?.toISOString() ?? null,
    updatedAt: j.updatedAt.toISOString(),
  }));
}
