/**
 * Loads a job's recent history and evaluates every rule that applies to it (its own and the
 * global ones), applying the transitions. The three entry points:
 *
 * - `evaluateAlertsAfterBatch(db, jobId)`: after each committed batch (RunRecorder.batch).
 * - `evaluateAlertsForRun(db, jobId)`: after each run status change (RunRecorder.status/end).
 * - `evaluateAllJobs(db)`: on the schedule (alert-scheduler.ts), for no-progress and for rules
 *   created after the last batch.
 *
 * The two hooks never throw: alerting must not fail a batch or a run. Webhook deliveries start in
 * the background (retrying with backoff); the scheduler's sweep finishes any a dying process left.
 * A disabled rule evaluates as "not holding", so its firing alerts resolve.
 */
import { validateJob } from '@/lib/engine';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { applyCondition, type Transition } from './alert-transitions';
import { evaluateRule, type BatchSample, type EvaluationContext } from './rule-evaluation';
import { deliverWithRetries, type NotifierOptions } from './webhook-notifier';

export interface EvaluateOptions {
  now?: Date;
  notifier?: NotifierOptions;
  /**
   * How this call sends the webhook deliveries of its transitions: 'background' (default: start
   * them, retrying with backoff, and return), 'await' (wait for them: tests), or 'sweep' (leave
   * them to the scheduler's sweep).
   */
  deliveries?: 'background' | 'await' | 'sweep';
  onError?: (e: unknown, where: string) => void;
}

const BATCH_COLUMNS = { batchId: true, timestamp: true, stateRowsTotal: true, stateMemoryBytes: true, stateDiskBytes: true, commitLag: true, batchDurationMs: true } as const;
/** Warnings about the checkpoint's durability or a deprecated trigger are not what platform teams page on. */
const IGNORED_WARNING_PATHS = new Set(['checkpointLocation', 'trigger.type']);

export function deployWarningsOf(spec: unknown): string[] {
  try {
    return validateJob(spec).warnings.filter((w) => !IGNORED_WARNING_PATHS.has(w.path)).map((w) => `${w.path}: ${w.message}`);
  } catch {
    return [];
  }
}

async function loadBatches(db: PrismaClient, jobId: string, recent: number, windowMs: number): Promise<BatchSample[]> {
  const rows = await db.batchProgress.findMany({ where: { jobId }, orderBy: { batchId: 'desc' }, take: recent, select: BATCH_COLUMNS });
  if (!windowMs || !rows.length) return rows;
  const cutoff = new Date(rows[0].timestamp.getTime() - windowMs);
  const [inWindow, anchor] = await Promise.all([
    db.batchProgress.findMany({ where: { jobId, timestamp: { gt: cutoff } }, orderBy: { batchId: 'desc' }, take: 5000, select: BATCH_COLUMNS }),
    db.batchProgress.findFirst({ where: { jobId, timestamp: { lte: cutoff } }, orderBy: { timestamp: 'desc' }, select: BATCH_COLUMNS }),
  ]);
  const byId = new Map<number, BatchSample>();
  for (const r of [...rows, ...inWindow, ...(anchor ? [anchor] : [])]) byId.set(r.batchId, r);
  return [...byId.values()].sort((a, b) => b.batchId - a.batchId);
}

/** Evaluates every rule that applies to one job; returns the transitions it made. */
export async function evaluateJobAlerts(db: PrismaClient, jobId: string, o: EvaluateOptions = {}): Promise<Transition[]> {
  const rules = await db.alertRule.findMany({ where: { OR: [{ jobId }, { jobId: null }] }, orderBy: { createdAt: 'asc' } });
  if (!rules.length) return [];
  const job = await db.job.findUnique({ where: { id: jobId }, select: { id: true, name: true, status: true, trigger: true, spec: true, lastCommittedAt: true } });
  if (!job) return [];
  const paramsOf = (kind: string) => rules.filter((r) => r.enabled && r.kind === kind).map((r) => (r.params ?? {}) as Record<string, unknown>);
  const recent = Math.max(20, ...[...paramsOf('commit-lag'), ...paramsOf('lag-rising'), ...paramsOf('falling-behind')].map((p) => Number(p.batches ?? 3) + 1));
  const windowMs = Math.max(0, ...paramsOf('state-growth').map((p) => Number(p.windowMs) || 0));
  const [batches, runs] = await Promise.all([
    loadBatches(db, jobId, recent, windowMs),
    db.run.findMany({ where: { jobId }, orderBy: { startedAt: 'desc' }, take: 2, select: { status: true, startedAt: true } }),
  ]);
  const now = o.now ?? new Date();
  const ctx: EvaluationContext = { job, batches, runs, now, deployWarnings: paramsOf('deploy-warning').length ? deployWarningsOf(job.spec) : [] };
  const transitions: Transition[] = [];
  for (const rule of rules) {
    const c = rule.enabled ? evaluateRule(rule.kind, rule.params, ctx) : { holds: false, value: null, message: 'The rule was disabled.' };
    const t = await applyCondition(db, rule, job, c, now);
    if (t) transitions.push(t);
  }
  if (o.deliveries === 'sweep') return transitions;
  const deliveries = transitions.filter((t) => t.deliveryId).map((t) => deliverWithRetries(db, t.deliveryId!, o.notifier).catch((e) => o.onError?.(e, 'webhook delivery')));
  if (o.deliveries === 'await') await Promise.all(deliveries);
  return transitions;
}

async function safely(db: PrismaClient, jobId: string, o: EvaluateOptions, where: string): Promise<Transition[]> {
  try {
    return await evaluateJobAlerts(db, jobId, o);
  } catch (e) {
    o.onError?.(e, where);
    return [];
  }
}

/** Hook for RunRecorder.batch(): call after each committed batch's row is written. Never throws. */
export function evaluateAlertsAfterBatch(db: PrismaClient, jobId: string, o: EvaluateOptions = {}): Promise<Transition[]> {
  return safely(db, jobId, o, 'after batch');
}

/** Hook for RunRecorder.status()/end(): call after each run status change. Never throws. */
export function evaluateAlertsForRun(db: PrismaClient, jobId: string, o: EvaluateOptions = {}): Promise<Transition[]> {
  return safely(db, jobId, o, 'run change');
}

/** Every job that any rule applies to (the scheduled pass). */
export async function evaluateAllJobs(db: PrismaClient, o: EvaluateOptions = {}): Promise<Transition[]> {
  const rules = await db.alertRule.findMany({ select: { jobId: true } });
  if (!rules.length) return [];
  const jobIds = rules.some((r) => r.jobId === null) ? (await db.job.findMany({ select: { id: true } })).map((j) => j.id) : [...new Set(rules.map((r) => r.jobId!))];
  const out: Transition[] = [];
  for (const id of jobIds) out.push(...(await safely(db, id, o, 'schedule')));
  return out;
}
