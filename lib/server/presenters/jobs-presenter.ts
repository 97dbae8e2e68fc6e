/**
 * Reads of jobs for the UI and API: the job view (job-view.ts), secrets masked.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { findJobOrThrow, presentJob, type JobDetail } from '../job-view';

export async function getJob(db: PrismaClient, id: string): Promise<JobDetail> {
  return presentJob(await findJobOrThrow(db, id));
}
