/**
 * One job row as everyone outside the database sees it: plain objects, never Prisma rows, secrets
 * masked. The API answers with it (presenters/jobs-presenter.ts), and the services return it
 * after a write and record it as an audit event's before/after; `findJobOrThrow` is the 404
 * both layers share.
 */
import type { Job, PrismaClient } from '@/lib/generated/prisma/client';
import { NotFoundError } from './errors';
import { allowedActions, type JobAction, type JobStatus } from './job-lifecycle';
import { maskSpec, redactSecrets, secretValues } from './secret-masking';

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
  /** What the lifecycle allows from the job's status (job-lifecycle.ts): the dashboard offers only these. */
  allowedActions: JobAction[];
}

export interface JobDetail extends JobListItem {
  description: string | null;
  /** The spec as stored, every secret option replaced by "********". */
  spec: unknown;
  sql: string;
  trigger: unknown;
  checkpointLocation: string;
  contract: unknown;
  queryId: string | null;
  lastError: unknown;
  restartPolicy: unknown;
  createdBy: string | null;
  createdAt: string;
}

/** The columns a list item needs (the list never reads specs or contracts), times as read. */
type ListRow = Omit<JobListItem, 'lastCommittedAt' | 'updatedAt' | 'allowedActions'> & { lastCommittedAt: Date | null; updatedAt: Date };

/** A job's list-item fields, for the job detail (the jobs list writes the same fields in SQL: job-page-presenter.ts). */
function listItem(j: ListRow): JobListItem {
  return {
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
    allowedActions: allowedActions(j.status as JobStatus),
  };
}

/** The API's view of one job row (also what the audit log records as before/after). */
export function presentJob(j: Job): JobDetail {
  const secrets = secretValues(j.spec);
  return {
    ...listItem(j),
    description: j.description,
    spec: maskSpec(j.spec),
    sql: redactSecrets(j.sql, secrets),
    trigger: j.trigger,
    checkpointLocation: redactSecrets(j.checkpointLocation, secrets),
    contract: redactSecrets(j.contract, secrets),
    queryId: j.queryId,
    lastError: redactSecrets(j.lastError, secrets),
    restartPolicy: j.restartPolicy,
    createdBy: j.createdBy,
    createdAt: j.createdAt.toISOString(),
  };
}

export async function findJobOrThrow(db: PrismaClient, id: string): Promise<Job> {
  const job = await db.job.findUnique({ where: { id } });
  if (!job) throw new NotFoundError('job', id);
  return job;
}

/** 404 unless the job exists; reads only its id. */
export async function assertJobExists(db: PrismaClient, id: string): Promise<void> {
  const job = await db.job.findUnique({ where: { id }, select: { id: true } });
  if (!job) throw new NotFoundError('job', id);
}
