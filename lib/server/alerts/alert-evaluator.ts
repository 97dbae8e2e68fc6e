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
import '@/lib/connectors'; // registers the connectors' source, sink and checkpoint types
import { validateJob } from '@/lib/engine';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { applyCondition, type Transition } from './alert-transitions';
import { dataLossOf, evaluateRule, growthWindow, type BatchSample, type EvaluationContext, type GrowthWindow } from './rule-evaluation';
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

/** Specs change rarely and compiling one costs milliseconds: remember the last few by content. */
const warningsBySpec = new Map<string, string[]>();

function deployWarningsOf(spec: unknown): string[] {
  const key = JSON.stringify(spec);
  const hit = warningsBySpec.get(key);
  if (hit) return hit;
  let out: string[] = [];
  try {
    out = validateJob(spec).warnings.filter((w) => !IGNORED_WARNING_PATHS.has(w.path)).map((w) => `${w.path}: ${w.message}`);
  } catch {
    // a spec the engine cannot even read has no deploy warnings to show; its runs fail loudly
  }
  if (warningsBySpec.size >= 200) warningsBySpec.delete(warningsBySpec.keys().next().value!);
  warningsBySpec.set(key, out);
  return out;
}

/**
 * The state-growth window in one query, so an after-batch evaluation does not read an hour of
 * batches: the anchor (the newest batch at least `windowMs` before the latest), and the largest
 * drop below the running maximum from the anchor to the latest batch, and the midpoint. Same result as
 * `stateGrowth()` over the full history (differential test in alert-evaluator.integration.test.ts).
 */
export async function loadGrowthWindow(db: PrismaClient, jobId: string, latest: BatchSample, windowMs: number): Promise<GrowthWindow | null> {
  type Row = { fromBatch: number; fromTs: Date; first: number; midBatch: number; midTs: Date; mid: number; maxDropPercent: number | null };
  const rows = await db.$queryRawUnsafe<Row[]>(
    `WITH anchor AS (
       SELECT "batchId", "timestamp", "stateRowsTotal" FROM "BatchProgress"
       WHERE "jobId" = $1 AND "timestamp" <= $2 AND "batchId" < $3 ORDER BY "batchId" DESC LIMIT 1
     ), mid AS (
       SELECT "batchId", "timestamp", "stateRowsTotal" FROM "BatchProgress"
       WHERE "jobId" = $1 AND "timestamp" <= $4 AND "batchId" < $3 ORDER BY "batchId" DESC LIMIT 1
     ), w AS (
       SELECT b."batchId", b."stateRowsTotal"::float8 AS v FROM "BatchProgress" b, anchor a
       WHERE b."jobId" = $1 AND b."batchId" >= a."batchId" AND b."batchId" <= $3
     ), m AS (SELECT v, max(v) OVER (ORDER BY "batchId") AS runmax FROM w)
     SELECT a."batchId" AS "fromBatch", a."timestamp" AS "fromTs", a."stateRowsTotal"::float8 AS first,
       d."batchId" AS "midBatch", d."timestamp" AS "midTs", d."stateRowsTotal"::float8 AS mid,
       (SELECT max(CASE WHEN runmax > 0 THEN (runmax - v) / runmax * 100 ELSE 0 END) FROM m) AS "maxDropPercent"
     FROM anchor a, mid d`,
    jobId,
    new Date(latest.timestamp.getTime() - windowMs),
    latest.batchId,
    new Date(latest.timestamp.getTime() - windowMs / 2),
  );
  const r = rows[0];
  if (!r) return null;
  return growthWindow(
    { batchId: Number(r.fromBatch), timestamp: new Date(r.fromTs), rows: Number(r.first) },
    { batchId: Number(r.midBatch), timestamp: new Date(r.midTs), rows: Number(r.mid) },
    latest,
    Number(r.maxDropPercent ?? 0),
  );
}

/** Evaluates every rule that applies to one job; returns the transitions it made. */
export async function evaluateJobAlerts(db: PrismaClient, jobId: string, o: EvaluateOptions = {}): Promise<Transition[]> {
  const rules = await db.alertRule.findMany({ where: { OR: [{ jobId }, { jobId: null }] }, orderBy: { createdAt: 'asc' } });
  if (!rules.length) return [];
  const job = await db.job.findUnique({ where: { id: jobId }, select: { id: true, name: true, status: true, trigger: true, spec: true, lastCommittedAt: true, sourceIdleAt: true } });
  if (!job) return [];
  const paramsOf = (kind: string) => rules.filter((r) => r.enabled && r.kind === kind).map((r) => (r.params ?? {}) as Record<string, unknown>);
  const recent = Math.max(20, ...[...paramsOf('commit-lag'), ...paramsOf('lag-rising'), ...paramsOf('falling-behind')].map((p) => Number(p.batches ?? 3) + 1));
  const windows = [...new Set(paramsOf('state-growth').map((p) => Number(p.windowMs)).filter((w) => Number.isInteger(w) && w > 0))];
  const [batches, runs] = await Promise.all([
    db.batchProgress.findMany({ where: { jobId }, orderBy: { batchId: 'desc' }, take: recent, select: BATCH_COLUMNS }),
    db.run.findMany({ where: { jobId }, orderBy: { startedAt: 'desc' }, take: 2, select: { status: true, startedAt: true } }),
  ]);
  const growth: Record<number, GrowthWindow | null> = {};
  for (const w of windows) growth[w] = batches[0] ? await loadGrowthWindow(db, jobId, batches[0], w) : null;
  const now = o.now ?? new Date();
  // The progress JSON is read only for a data-loss rule, and only of the batches it looks at.
  const lossWindow = Math.max(0, ...paramsOf('data-loss').map((p) => Number(p.batches ?? 1)).filter((b) => Number.isInteger(b) && b > 0));
  const dataLoss = lossWindow
    ? (await db.batchProgress.findMany({ where: { jobId }, orderBy: { batchId: 'desc' }, take: lossWindow, select: { batchId: true, progress: true } })).map((b) => dataLossOf(b.batchId, b.progress))
    : undefined;
  const ctx: EvaluationContext = { job, batches, runs, now, growth, dataLoss, deployWarnings: paramsOf('deploy-warning').length ? deployWarningsOf(job.spec) : [] };
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
