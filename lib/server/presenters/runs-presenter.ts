/**
 * A job's runs (one per start, Spark's runId), newest first, with the error that ended a failed
 * run and the run it recovered from; secrets quoted in error messages are redacted. Keyset pages
 * on (startedAt, id) DESC: `nextBefore` is `<startedAt ms>_<id>` of a page's last run, and the
 * (jobId, startedAt DESC) index serves any page as it serves the first.
 */
import type { PrismaClient, Run } from '@/lib/generated/prisma/client';
import { findJobOrThrow } from '../job-view';
import { redactSecrets, secretValues } from '../secret-masking';

export interface RunView {
  id: string;
  runId: string;
  workerId: string | null;
  status: string;
  attempt: number;
  /**
   * The `runId` of the run this one recovered from (a drill's crashed run, or a lost worker's),
   * the id the runs table shows and exit reasons quote. The database joins on the row `id`;
   * listRuns translates, so that the API names every run by one id.
   */
  recoveredFromRunId: string | null;
  startedAt: string;
  endedAt: string | null;
  exitReason: string | null;
  error: unknown;
  leaseEpoch: number;
  /** The memory limit its worker gave the run's engine (WEIR_RUN_MEMORY_MB), in MB; null for runs before it was recorded. */
  memoryLimitMb: number | null;
}

/**
 * A run still going while its job is STOPPING (a stop or restart was asked for) shows as STOPPING:
 * the worker writes the run's end only once its batch commits, and until then the runs table
 * would show a run RUNNING that was just told to stop.
 */
const GOING: readonly string[] = ['PENDING', 'STARTING', 'RUNNING', 'RECOVERING'];
function shownStatus(r: Run, jobStatus: string): string {
  return jobStatus === 'STOPPING' && r.endedAt === null && GOING.includes(r.status) ? 'STOPPING' : r.status;
}

/** `runIdOf`: row id → runId for the runs recovered from; an id it lacks is shown as stored. */
function presentRun(r: Run, secrets: readonly string[] = [], runIdOf: ReadonlyMap<string, string> = new Map(), jobStatus = ''): RunView {
  return {
    id: r.id,
    runId: r.runId,
    workerId: r.workerId,
    status: shownStatus(r, jobStatus),
    attempt: r.attempt,
    recoveredFromRunId: r.recoveredFromRunId === null ? null : (runIdOf.get(r.recoveredFromRunId) ?? r.recoveredFromRunId),
    startedAt: r.startedAt.toISOString(),
    endedAt: r.endedAt?.toISOString() ?? null,
    exitReason: r.exitReason === null ? null : redactSecrets(r.exitReason, secrets),
    error: redactSecrets(r.error, secrets),
    leaseEpoch: r.leaseEpoch,
    memoryLimitMb: r.memoryLimitMb,
  };
}

export async function listRuns(db: PrismaClient, jobId: string, opts: { limit?: number; before?: string } = {}): Promise<{ items: RunView[]; nextBefore: string | null }> {
  const job = await findJobOrThrow(db, jobId);
  const secrets = secretValues(job.spec);
  const limit = opts.limit ?? 50;
  let older = {};
  if (opts.before !== undefined) {
    const cut = opts.before.indexOf('_');
    const at = new Date(Number(opts.before.slice(0, cut)));
    const id = opts.before.slice(cut + 1);
    older = { OR: [{ startedAt: { lt: at } }, { startedAt: at, id: { lt: id } }] };
  }
  const runs = await db.run.findMany({ where: { jobId, ...older }, orderBy: [{ startedAt: 'desc' }, { id: 'desc' }], take: limit + 1 });
  const page = runs.slice(0, limit);
  const last = page.at(-1);
  // The runs recovered from may lie on an older page: one query for their runIds.
  const from = [...new Set(page.flatMap((r) => (r.recoveredFromRunId ? [r.recoveredFromRunId] : [])))];
  const runIdOf = new Map(
    from.length ? (await db.run.findMany({ where: { id: { in: from } }, select: { id: true, runId: true } })).map((x) => [x.id, x.runId] as const) : [],
  );
  return { items: page.map((r) => presentRun(r, secrets, runIdOf, job.status)), nextBefore: runs.length > limit && last ? `${last.startedAt.getTime()}_${last.id}` : null };
}
