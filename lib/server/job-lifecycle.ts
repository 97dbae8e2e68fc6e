/**
 * The job lifecycle, written down once: every write of a job's or a run's status goes through
 * the tables below (the API in services/job-service.ts, the worker in worker/run-processor.ts and
 * run-recorder.ts, the reconciler in worker/run-worker.ts), so that no state is left without a
 * way out and a refusal always says why and what to do.
 *
 * Two fields: `desiredState` (RUNNING | STOPPED) is what the user asked for; `status` is where the
 * job is. The API writes desiredState and the statuses up to PENDING / STOPPING; the worker owns
 * status from STARTING on; the reconciler ends what a dead worker left behind.
 *
 * A transition is a conditional update (`updateMany … where status in from`), so two writers
 * racing cannot both win: the loser sees count 0 and re-reads.
 */
import type { Prisma, PrismaClient, RunStatus } from '@/lib/generated/prisma/client';
import { ConflictError } from './errors';
import { formatDateTime } from '@/components/format';

/** A job's statuses: a run's, except LOST (only a run is lost; its job is then STOPPED). */
export type JobStatus = Exclude<RunStatus, 'LOST'>;
export const JOB_STATUSES: readonly JobStatus[] = ['PENDING', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED', 'RECOVERING'];
/** A run is (or is about to be) working on the job. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['PENDING', 'STARTING', 'RUNNING', 'RECOVERING'];
/**
 * The status changes without the user (a run works, or winds down): the dashboard follows such a
 * job (polling, the progress stream). What a user may do is allowedActions', not this list's.
 */
export const LIVE_STATUSES: readonly string[] = [...ACTIVE_STATUSES, 'STOPPING'];
/** Nothing runs and nothing is winding down: start, edit, delete and reset are allowed. */
const STARTABLE_STATUSES: readonly JobStatus[] = ['STOPPED', 'FAILED'];

/** Who causes a transition: an API user by role, a worker running the job, or a worker's reconciler. */
type Cause = 'operator' | 'admin' | 'worker' | 'reconciler';

export type JobEvent =
  // API (operator, admin)
  | 'start'
  | 'restart'
  | 'stop'
  | 'delete'
  | 'edit'
  | 'reset-checkpoint'
  | 'enqueue-failed'
  // worker
  | 'run-starting'
  | 'run-recovering'
  | 'run-running'
  | 'run-stopped'
  | 'run-failed'
  | 'hand-over'
  | 'drill-crashed'
  | 'not-wanted'
  // reconciler
  | 'worker-lost';

export interface JobTransition {
  event: JobEvent;
  by: readonly Cause[];
  from: readonly JobStatus[];
  /** The new status; 'unchanged' for an event that acts on desiredState or deletes the row. */
  to: JobStatus | 'unchanged' | 'deleted';
  desiredState?: 'RUNNING' | 'STOPPED';
  /** What it means, for the docs (docs/api.md prints this table). */
  means: string;
}

const ALL = JOB_STATUSES;
const API: readonly Cause[] = ['operator', 'admin'];

/** The table. For one event the first row whose `from` holds the current status applies. */
export const JOB_TRANSITIONS: readonly JobTransition[] = [
  { event: 'start', by: API, from: STARTABLE_STATUSES, to: 'PENDING', desiredState: 'RUNNING', means: 'a run is enqueued' },
  { event: 'restart', by: API, from: [...ACTIVE_STATUSES, 'STOPPING'], to: 'STOPPING', desiredState: 'RUNNING', means: 'the run stops after its batch commits; the worker enqueues the next run' },
  { event: 'restart', by: API, from: STARTABLE_STATUSES, to: 'PENDING', desiredState: 'RUNNING', means: 'as start' },
  { event: 'stop', by: API, from: ACTIVE_STATUSES, to: 'STOPPING', desiredState: 'STOPPED', means: 'the run stops after its batch commits (or the reconciler ends it if its worker is gone)' },
  { event: 'stop', by: API, from: ['STOPPING', ...STARTABLE_STATUSES], to: 'unchanged', desiredState: 'STOPPED', means: 'already stopping or stopped: only a pending restart is cancelled' },
  { event: 'delete', by: ['admin'], from: STARTABLE_STATUSES, to: 'deleted', means: 'the job and its history go (its checkpoint too if asked)' },
  { event: 'edit', by: ['admin'], from: STARTABLE_STATUSES, to: 'unchanged', means: 'the spec changes' },
  { event: 'reset-checkpoint', by: ['admin'], from: STARTABLE_STATUSES, to: 'unchanged', means: 'checkpoint and history deleted' },
  { event: 'enqueue-failed', by: API, from: ['PENDING'], to: 'FAILED', desiredState: 'STOPPED', means: 'the queue refused the run (lastError says so)' },
  // A stop that arrived while the run was being set up keeps STOPPING: the run sees it at its first fence.
  { event: 'run-starting', by: ['worker'], from: ALL.filter((s) => s !== 'STOPPING'), to: 'STARTING', means: 'a worker took the run and its lease' },
  { event: 'run-recovering', by: ['worker'], from: ALL.filter((s) => s !== 'STOPPING'), to: 'RECOVERING', means: 'a worker took over from a dead one and rebuilds state' },
  { event: 'run-running', by: ['worker'], from: ['STARTING', 'RECOVERING'], to: 'RUNNING', means: 'the engine started' },
  { event: 'run-stopped', by: ['worker'], from: ALL, to: 'STOPPED', means: 'the run ended gracefully (stop, restart, trigger done)' },
  { event: 'run-failed', by: ['worker'], from: ALL, to: 'FAILED', means: 'the run failed; lastError says where' },
  { event: 'hand-over', by: ['worker'], from: ['STOPPING', 'STOPPED', 'FAILED', 'RUNNING', 'RECOVERING'], to: 'PENDING', means: 'restart, retry or worker shutdown: the next run is enqueued' },
  { event: 'drill-crashed', by: ['worker'], from: ALL, to: 'RECOVERING', means: 'a drill crashed the run on purpose; its recovery is enqueued' },
  { event: 'not-wanted', by: ['worker', 'reconciler'], from: ['PENDING', 'STOPPING'], to: 'STOPPED', means: 'a queued run found its job stopped and no live run: nothing to do' },
  { event: 'worker-lost', by: ['reconciler'], from: [...ACTIVE_STATUSES, 'STOPPING'], to: 'STOPPED', desiredState: 'STOPPED', means: 'the run’s worker stopped heartbeating and the job was asked to stop: the run is LOST' },
];

/** The row that applies to `event` from `status`, if any. */
export function transitionFor(event: JobEvent, status: JobStatus): JobTransition | undefined {
  return JOB_TRANSITIONS.find((t) => t.event === event && t.from.includes(status));
}

/** What a user asks of a job through the API (and the dashboard's buttons). */
export type JobAction = Extract<JobEvent, 'start' | 'stop' | 'restart' | 'edit' | 'delete' | 'reset-checkpoint'>;
const JOB_ACTIONS: readonly JobAction[] = ['start', 'stop', 'restart', 'edit', 'delete', 'reset-checkpoint'];

/**
 * The actions the table allows from `status`, the role aside: what the dashboard offers, so that
 * no button leads to a 409. A stop that would change nothing (already stopping or stopped) is
 * not offered.
 */
export function allowedActions(status: JobStatus): JobAction[] {
  return JOB_ACTIONS.filter((a) => {
    const t = transitionFor(a, status);
    return t !== undefined && !(a === 'stop' && t.to === 'unchanged');
  });
}

/** Why an API event is refused from this status, and what to do instead. */
export function refusal(event: JobEvent, job: { id: string; name: string; status: string }): ConflictError {
  const { id, name, status } = job;
  const wait =
    status === 'STOPPING'
      ? `its run is finishing its batch; wait for STOPPED (if its worker died, the reconciler ends the run as LOST within WEIR_FAILOVER_MS)`
      : `stop it (POST /api/jobs/${id}/stop) and wait for STOPPED`;
  const what: Record<string, string> = {
    start: status === 'STOPPING' ? `${wait}, then start it; or use restart (POST /api/jobs/${id}/restart), which starts it again once it has stopped.` : `stop it first, or use restart (POST /api/jobs/${id}/restart).`,
    restart: `${wait}, then start it.`,
    delete: `${wait} before deleting it.`,
    edit: `${wait} before editing it.`,
    'reset-checkpoint': `${wait} before resetting its checkpoint.`,
  };
  const verb = event === 'start' ? `already ${status}` : status;
  return new ConflictError(`Job ${name} is ${verb}; ${what[event] ?? `${wait}.`}`, { status, event, allowedFrom: JOB_TRANSITIONS.filter((t) => t.event === event).flatMap((t) => t.from) });
}

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * Applies `event` to a job: the first row of the table whose `from` holds the job's current
 * status, as one conditional update (with `data` alongside). Returns the row applied, or
 * undefined when the job is in no `from` state (or `where` did not hold): nothing was written.
 */
export async function moveJob(
  db: Db,
  jobId: string,
  event: JobEvent,
  data: Prisma.JobUpdateManyMutationInput = {},
  where: Prisma.JobWhereInput = {},
): Promise<JobTransition | undefined> {
  for (const t of JOB_TRANSITIONS.filter((r) => r.event === event)) {
    if (t.to === 'deleted') throw new Error(`moveJob: ${event} deletes the job; check transitionFor and delete it`);
    const { count } = await db.job.updateMany({
      where: { AND: [where, { id: jobId, status: { in: [...t.from] } }] },
      data: { ...data, ...(t.to === 'unchanged' ? {} : { status: t.to }), ...(t.desiredState ? { desiredState: t.desiredState } : {}) },
    });
    if (count > 0) return t;
  }
  return undefined;
}

/**
 * Locks the job's row against deletion (FOR KEY SHARE: status and lease updates still pass) for
 * the rest of the transaction. A transaction that writes a job's history (BatchProgress, Run,
 * and through their triggers JobCounters) and then the Job row calls this first: a delete locks
 * the Job row and then cascades to the history, so a writer that locked a history row before the
 * Job row deadlocked with it (the lock order is argued in
 * prisma/migrations/20261201187000_job_counters_lock_order).
 */
export function lockJobForHistory(db: Db | PrismaClient, jobId: string) {
  return db.$executeRaw`SELECT 1 FROM "Job" WHERE id = ${jobId} FOR KEY SHARE`;
}

// ---- runs ----

export type RunEvent = 'run-running' | 'run-stopped' | 'run-failed' | 'run-lost' | 'run-taken-over';

interface RunTransition {
  event: RunEvent;
  by: readonly Cause[];
  from: readonly RunStatus[];
  to: RunStatus;
  means: string;
}

const LIVE_RUN: readonly RunStatus[] = ['PENDING', 'STARTING', 'RECOVERING', 'RUNNING', 'STOPPING'];

/** A run is created STARTING (RECOVERING when it takes over) and ends once: STOPPED, FAILED or LOST. */
const RUN_TRANSITIONS: readonly RunTransition[] = [
  { event: 'run-running', by: ['worker'], from: ['STARTING', 'RECOVERING'], to: 'RUNNING', means: 'the engine started' },
  { event: 'run-stopped', by: ['worker'], from: LIVE_RUN, to: 'STOPPED', means: 'ended gracefully, or stopped writing after losing its lease' },
  { event: 'run-failed', by: ['worker'], from: LIVE_RUN, to: 'FAILED', means: 'ended by an error (the run’s error says where)' },
  { event: 'run-taken-over', by: ['worker'], from: LIVE_RUN, to: 'FAILED', means: 'its worker died; the run that took the lease over names it' },
  { event: 'run-lost', by: ['reconciler'], from: LIVE_RUN, to: 'LOST', means: 'its worker stopped heartbeating and no run takes over (the job was asked to stop)' },
];

/** Ends or advances a run by `event` (a run that already ended is left alone). Returns whether it moved. */
export async function moveRun(db: Db, runRowId: string, event: RunEvent, data: Prisma.RunUpdateManyMutationInput = {}): Promise<boolean> {
  const t = RUN_TRANSITIONS.find((r) => r.event === event)!;
  const ends = t.to !== 'RUNNING';
  const { count } = await db.run.updateMany({
    where: { id: runRowId, status: { in: [...t.from] }, ...(ends ? { endedAt: null } : {}) },
    data: { ...data, status: t.to, ...(ends ? { endedAt: new Date() } : {}) },
  });
  return count > 0;
}

// ---- the reconciler's part ----

export interface LostRun {
  jobId: string;
  runRowId: string;
  runId: string;
  workerId: string | null;
  reason: string;
}

/**
 * Ends what a dead worker left behind for a job that no longer wants to run (desiredState
 * STOPPED): each run not ended whose worker has not heartbeaten for `workerTimeoutMs` (or stopped),
 * or whose checkpoint lease it held has expired, becomes LOST with the reason; its lease is
 * released (a paused worker that wakes up fails its next fence); the job becomes STOPPED once no
 * run is left. A job asked to stop whose run never started (the queued run was lost) is settled
 * STOPPED after the same time. Jobs still desired RUNNING are failover's, not this: a recovery run
 * takes them over (worker/run-worker.ts).
 *
 * `fillHistory` runs before a lost run is ended, so that STOPPED means recorded: the dead run may
 * have committed batches it never delivered, and no later run of a stopped job will fill them in.
 * It should throw only when the database fails (the run is then ended on the next round).
 */
export async function endLostRuns(
  db: PrismaClient,
  workerTimeoutMs: number,
  fillHistory: (run: { jobId: string; runRowId: string }) => Promise<void> = async () => undefined,
): Promise<{ lost: LostRun[]; settled: string[] }> {
  const rows = await db.$queryRawUnsafe<{ jobId: string; runRowId: string; runId: string; workerId: string | null; lastHeartbeatAt: Date | null; stoppedAt: Date | null; leaseExpired: boolean }[]>(
    `SELECT r."jobId", r.id AS "runRowId", r."runId", r."workerId", w."lastHeartbeatAt", w."stoppedAt",
            (j."leaseOwner" = r."runId" AND j."leaseExpiresAt" < now()) AS "leaseExpired"
       FROM "Run" r JOIN "Job" j ON j.id = r."jobId" LEFT JOIN "Worker" w ON w.id = r."workerId"
      WHERE r."endedAt" IS NULL AND j."desiredState" = 'STOPPED'
        AND (w.id IS NULL OR w."stoppedAt" IS NOT NULL
             OR w."lastHeartbeatAt" < now() - ($1::int * interval '1 millisecond')
             OR (j."leaseOwner" = r."runId" AND j."leaseExpiresAt" < now()))`,
    workerTimeoutMs,
  );
  const lost: LostRun[] = [];
  for (const r of rows) {
    const why = !r.lastHeartbeatAt
      ? 'is not registered'
      : r.stoppedAt
        ? `stopped at ${formatDateTime(r.stoppedAt)}`
        : r.leaseExpired && Date.now() - r.lastHeartbeatAt.getTime() < workerTimeoutMs
          ? `stopped renewing the run's checkpoint lease`
          : `has not heartbeaten since ${formatDateTime(r.lastHeartbeatAt)} (WEIR_WORKER_TIMEOUT_MS ${workerTimeoutMs})`;
    const reason = `worker ${r.workerId ?? '(none)'} ${why}; the job was asked to stop, so no run takes over: run lost`;
    await fillHistory(r);
    const moved = await db.$transaction(async (tx) => {
      await lockJobForHistory(tx, r.jobId);
      if (!(await moveRun(tx, r.runRowId, 'run-lost', { exitReason: reason }))) return false;
      await tx.job.updateMany({ where: { id: r.jobId, leaseOwner: r.runId }, data: { leaseOwner: null, leaseExpiresAt: null } });
      await moveJob(tx, r.jobId, 'worker-lost', {}, { desiredState: 'STOPPED', runs: { none: { endedAt: null } } });
      return true;
    });
    if (moved) lost.push({ jobId: r.jobId, runRowId: r.runRowId, runId: r.runId, workerId: r.workerId, reason });
  }
  const stale = await db.job.findMany({
    where: {
      desiredState: 'STOPPED',
      status: { in: ['PENDING', 'STOPPING'] },
      runs: { none: { endedAt: null } },
      updatedAt: { lt: new Date(Date.now() - workerTimeoutMs) },
    },
    select: { id: true },
  });
  const settled: string[] = [];
  for (const j of stale) if (await moveJob(db, j.id, 'not-wanted', {}, { desiredState: 'STOPPED', runs: { none: { endedAt: null } } })) settled.push(j.id);
  return { lost, settled };
}
