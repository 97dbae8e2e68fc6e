/**
 * A saved job's plan as the engine explains it (the job page's plan graph): its stored spec
 * validated as the editor's draft check validates one, its explain parsed into operators
 * (job-draft-presenter.ts's parseExplain). Nothing is saved or run; the spec is read unmasked
 * on the server, and the operators come back with its secrets redacted, as a batch's progress does.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { findJobOrThrow } from '../job-view';
import { redactSecrets, secretValues } from '../secret-masking';
import { validateSpec } from '../services/job-service';
import type { ServerPathRoots } from '../services/job-paths';
import { parseExplain, type ExplainOperator } from './job-draft-presenter';

export interface JobPlan {
  operators: ExplainOperator[];
  /**
   * Why there is no plan to show (no operators): the engine no longer analyses the saved query,
   * with its first error; null when there is one.
   */
  problem: string | null;
}

export async function jobPlan(db: PrismaClient, jobId: string, roots: ServerPathRoots): Promise<JobPlan> {
  const job = await findJobOrThrow(db, jobId);
  const v = validateSpec(job.spec, roots);
  const operators = parseExplain(v.explain);
  const problem = operators.length ? null : (v.errors[0]?.message ?? 'The engine gave no plan for this query.');
  return redactSecrets({ operators, problem }, secretValues(job.spec));
}
