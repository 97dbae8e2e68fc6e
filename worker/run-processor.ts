/**
 * One run of a streaming job, as the processor of one BullMQ job.
 *
 * 1. Read the job; a job no longer desired RUNNING is not started.
 * 2. Take the checkpoint lease (lib/server/lease.ts). If another run holds it and keeps renewing
 *    it, this is a duplicate and ends; if its holder died, the lease expires and this run takes
 *    over as RECOVERING (the run history names the run it recovered from).
 * 3. Validate the spec, start the engine (populateStartOffsets re-runs an uncommitted batch over
 *    its recorded range), then RUNNING. Every batch's progress becomes a BatchProgress row, written
 *    by the run's listener bus off the batch loop (retried, never failing the run); committed
 *    batches missing from the history are filled in from the checkpoint's progress/N at start and
 *    whenever the database comes back.
 *    The engine runs in a process of its own with the run's memory limit (engine-host.ts): a run
 *    that exhausts it ends FAILED (RESOURCE_EXHAUSTED) alone; this process and its runs go on.
 * 4. Every renew interval the lease is renewed, and the same round trip returns the desired state:
 *    a stop (or restart) request stops the engine gracefully (the running batch commits).
 *    The engine also calls fence() before each checkpoint or sink write, which renews the lease
 *    or throws LeaseLostError: a paused worker that wakes up after a takeover writes nothing.
 *    While the database is unreachable, fence() passes for half a lease TTL after the last renewal
 *    (the lease is ours at least that long), then waits for the database instead of failing.
 * 5. Ends STOPPED (stop, trigger done), or FAILED with the error and where it happened; a restart
 *    policy re-enqueues with backoff; a restart request or a worker shutdown enqueues the next run.
 */
import { randomUUID } from 'node:crypto';
import type { Job as BullJob } from 'bullmq';
import type { Logger } from 'pino';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import '@/lib/connectors'; // registers the connectors' source, sink and checkpoint types
import { checkpointFileManagerFor, confineSpecPaths, CrashPointError, validateJob, type CheckpointFileManager, type CrashPlan, type CrashPointName, type JobSpec, type PathRoots } from '@/lib/engine';
import { acquireLease, LeaseLostError, releaseLease, renewLease, type Lease } from '@/lib/server/lease';
import { serverOutboundPolicy } from '@/lib/server/outbound';
import { RunRecorder, toRunError } from '@/lib/server/run-recorder';
import { ListenerBus } from '@/lib/server/listener-bus';
import { moveJob, moveRun } from '@/lib/server/job-lifecycle';
import { completeDrill } from '@/lib/server/drills/drill-service';
import { enqueueRun } from '@/lib/queue/run-queue';
import type { QueueConfig } from '@/lib/queue/connection';
import { runPayloadSchema, type RunPayload } from '@/lib/queue/queues';
import { EngineHost } from './engine-host';
import { specVersionOf } from './shuffle';
import type { TaskDispatcher } from './task-dispatcher';

export interface RunProcessorOptions {
  db: PrismaClient;
  workerId: string;
  log: Logger;
  queue: QueueConfig;
  leaseTtlMs: number;
  renewMs: number;
  /** This worker's WEIR_CHECKPOINT_ROOT and WEIR_FILES_ROOTS: every path of a run must lie inside. */
  roots: PathRoots;
  /** Each run's engine runs in a process of its own with this heap (WEIR_RUN_MEMORY_MB). */
  runMemoryMb: number;
  /** Where runs keep the local copy of an `lmdb` state store (under the worker's WEIR_DATA_DIR). */
  stateLocalDir?: string;
  /** WEIR_TASK_SCHEDULER=cluster: the runs' reduce tasks go to the workers through this. */
  tasks?: TaskDispatcher;
}

interface ActiveRun {
  jobId: string;
  stop(reason: string): void;
  done: Promise<unknown>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RunProcessor {
  private readonly active = new Map<string, ActiveRun>();
  private shuttingDown = false;

  constructor(private readonly o: RunProcessorOptions) {}

  get activeRuns(): number {
    return this.active.size;
  }

  /** Graceful shutdown: every run stops after its running batch commits; their jobs are re-enqueued. */
  async stopAll(): Promise<void> {
    this.shuttingDown = true;
    for (const r of this.active.values()) r.stop('worker shutdown');
    await Promise.allSettled([...this.active.values()].map((r) => r.done));
  }

  process = async (bullJob: BullJob<RunPayload>): Promise<string> => {
    const payload = runPayloadSchema.parse(bullJob.data);
    if (this.shuttingDown) {
      // Fetched in the moment before the worker stopped fetching: leave it to the next worker.
      await enqueueRun(this.o.queue, payload);
      return 'worker shutting down: re-enqueued';
    }
    const runId = randomUUID();
    const done = this.run(payload, runId);
    return done;
  };

  private async takeLease(jobId: string, runId: string): Promise<Lease | null> {
    const { db, leaseTtlMs, renewMs } = this.o;
    const deadline = Date.now() + leaseTtlMs + 2 * renewMs;
    for (;;) {
      const lease = await acquireLease(db, jobId, runId, leaseTtlMs);
      if (lease) return lease;
      if (Date.now() > deadline || this.shuttingDown) return null;
      await sleep(Math.min(500, renewMs));
    }
  }

  private async run(payload: RunPayload, runId: string): Promise<string> {
    const { db, log } = this.o;
    const job = await db.job.findUnique({ where: { id: payload.jobId } });
    if (!job) return 'job deleted';
    if (job.desiredState !== 'RUNNING') {
      // Nothing runs it any more (a run still going stops itself; one whose worker died is the reconciler's).
      await moveJob(db, job.id, 'not-wanted', {}, { desiredState: 'STOPPED', runs: { none: { endedAt: null } } });
      return `job is ${job.desiredState}`;
    }
    const lease = await this.takeLease(job.id, runId);
    if (!lease) return 'another run holds the lease';

    let recoveredFromRunId: string | null = null;
    if (lease.previousOwner) {
      const prev = await db.run.findUnique({ where: { runId: lease.previousOwner } });
      recoveredFromRunId = prev?.id ?? null;
      if (prev && !prev.endedAt) {
        await moveRun(db, prev.id, 'run-taken-over', { exitReason: `worker ${prev.workerId} lost (lease expired); recovered by run ${runId}` });
      }
    }
    const recovering = recoveredFromRunId !== null || payload.reason === 'recover';
    const rec = await RunRecorder.create(db, {
      jobId: job.id,
      runId,
      workerId: this.o.workerId,
      status: recovering ? 'RECOVERING' : 'STARTING',
      attempt: payload.attempt,
      recoveredFromRunId,
      leaseEpoch: lease.epoch,
      memoryLimitMb: this.o.runMemoryMb,
    });
    const rlog = log.child({ jobId: job.id, job: job.name, runId, epoch: lease.epoch });
    rlog.info({ reason: payload.reason, recovering }, 'run starting');

    let stopReason: string | null = null;
    let leaseLost: LeaseLostError | null = null;
    let lastBatchId: number | undefined;
    let exec: EngineHost | undefined;
    const requestStop = (reason: string) => {
      if (stopReason) return;
      stopReason = reason;
      rlog.info({ reason }, 'stopping gracefully');
      void exec?.stop();
    };
    // The lease is ours until (the renewal's send time + TTL); a database blink shorter than half
    // of that goes unnoticed, a longer one makes the writes wait for it.
    let renewedAt = Date.now();
    const renew = async () => {
      for (let delay = 100; ; delay = Math.min(2 * delay, 2000)) {
        const sentAt = Date.now();
        try {
          const hb = await renewLease(db, lease, this.o.leaseTtlMs);
          renewedAt = sentAt;
          return hb;
        } catch (e) {
          if (e instanceof LeaseLostError || this.shuttingDown) throw e;
          if (Date.now() < renewedAt + this.o.leaseTtlMs / 2) return undefined;
          rlog.warn({ err: toRunError(e) }, 'cannot renew the lease (database unreachable?): waiting for it before writing');
          await sleep(delay);
        }
      }
    };
    const fence = async () => {
      try {
        const hb = await renew();
        if (!hb) return;
        if (hb.desiredState !== 'RUNNING') requestStop('stop requested');
        else if (hb.status === 'STOPPING') requestStop('restart requested');
        else if (hb.drill?.status === 'REQUESTED') await this.startDrill(hb.drill, rec.runRowId, lastBatchId, requestStop);
      } catch (e) {
        if (e instanceof LeaseLostError) {
          leaseLost = e;
          stopReason ??= 'lease lost';
        }
        throw e;
      }
    };
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      void fence()
        .catch(() => exec?.stop())
        .finally(() => (renewing = false));
    }, this.o.renewMs);
    // History off the batch loop: a failed write is retried with backoff; when the database is back,
    // committed batches still missing are filled in from the checkpoint.
    type Event = { kind: 'batch'; p: Parameters<RunRecorder['batch']>[0] } | { kind: 'backfill' };
    let onBatch: (p: Parameters<RunRecorder['batch']>[0]) => Promise<void> = async () => {};
    // The engine runs in its own process; this one reads the checkpoint's progress/N for backfill.
    let checkpointFm: CheckpointFileManager | undefined;
    const bus: ListenerBus<Event> = new ListenerBus<Event>(
      async (ev) => {
        if (ev.kind === 'batch') return onBatch(ev.p);
        const filled = checkpointFm ? await rec.backfillHistory(checkpointFm) : [];
        if (filled.length) rlog.info({ batches: filled }, 'history: filled in committed batches from the checkpoint');
      },
      {
        onError: (e, retryInMs) => rlog.warn({ err: toRunError(e), retryInMs }, 'history write failed; retrying (the batch is committed)'),
        onRecovered: () => bus.post({ kind: 'backfill' }),
      },
    );
    let finished!: (v: unknown) => void;
    this.active.set(runId, { jobId: job.id, stop: requestStop, done: new Promise((r) => (finished = r)) });
    // A shutdown that began while this run was being set up did not see it in `active`: it stops
    // now, gracefully, and hands the job on like every other run of this worker.
    if (this.shuttingDown) requestStop('worker shutdown');

    try {
      const spec = workerSpec(job.spec, this.o.roots);
      const specVersion = specVersionOf(job.spec);
      checkpointFm = checkpointFileManagerFor(spec.checkpointLocation);
      // An ARMED drill: this run dies at the drill's crash point of the next batch.
      const armed = await db.drill.findFirst({ where: { jobId: job.id, status: 'ARMED' }, orderBy: { requestedAt: 'desc' } });
      const crash: CrashPlan | undefined = armed ? { point: armed.point as CrashPointName, batchId: (job.lastBatchId ?? -1) + 1 } : undefined;
      if (armed) rlog.warn({ drill: armed.id, crash }, 'drill armed: this run will crash on purpose');
      // A CRASHED drill: this run is its recovery.
      const recoveringDrill = await db.drill.findFirst({ where: { jobId: job.id, status: 'CRASHED' }, orderBy: { requestedAt: 'desc' } });
      if (recoveringDrill) {
        await db.drill.update({ where: { id: recoveringDrill.id }, data: { recoveryRunId: rec.runRowId } });
        if (recoveringDrill.crashedRunId) await db.run.update({ where: { id: rec.runRowId }, data: { recoveredFromRunId: recoveringDrill.crashedRunId } });
      }
      const recoveredOnBatch = recoveringDrill && (recoveringDrill.point === 'after-offsets' || recoveringDrill.point === 'after-sink');
      // The first batch at or past the crashed one is the recovery; later batches leave the drill be.
      let drillRecovered = false;
      exec = new EngineHost({
        spec,
        runId,
        memoryLimitMb: this.o.runMemoryMb,
        stateLocalDir: this.o.stateLocalDir,
        currentUser: runAsUser(job.createdBy),
        // Each task names its job and the spec's version this run started with: a map task's
        // worker reads the source's options from the job, once per version (task-worker.ts).
        submitTasks: this.o.tasks && ((payloads, signal) => this.o.tasks!.dispatch(payloads.map((p) => ({ ...p, jobId: job.id, specVersion })), signal)),
        outbound: serverOutboundPolicy(),
        fence,
        crash,
        onProgress: async (p) => {
          lastBatchId = p.batchId;
          bus.post({ kind: 'batch', p });
        },
        // Raw SQL: an idle poll is not an edit of the job, so updatedAt stays as it is.
        onQueryIdle: (ms) =>
          void db.$executeRaw`UPDATE "Job" SET "sourceIdleAt" = ${new Date(ms)} WHERE id = ${job.id}`.catch((e: unknown) =>
            rlog.warn({ err: (e as Error).message }, 'could not record an idle trigger'),
          ),
        // level and msg are pino's own keys, and runId is already on rlog: the engine runs under
        // this run's runId, so no line carries the key twice.
        log: ({ level, msg, runId: _sameRunId, ...fields }) => rlog[level === 'warn' ? 'warn' : level === 'error' ? 'error' : 'info'](fields, msg),
      });
      onBatch = async (p) => {
        await rec.batch(p);
        // The pending batch was re-run and committed: the drill has recovered.
        if (recoveredOnBatch && recoveringDrill && !drillRecovered && p.batchId >= (recoveringDrill.batchId ?? 0)) {
          await completeDrill(db, recoveringDrill.id, job.id);
          drillRecovered = true;
        }
      };
      await exec.start();
      bus.post({ kind: 'backfill' });
      await rec.running({ queryId: exec.id });
      if (recoveringDrill && !recoveredOnBatch) await completeDrill(db, recoveringDrill.id, job.id);
      if (!stopReason) await exec.run();
      else await exec.stop();
      if (leaseLost) throw leaseLost;
      // The history of every batch before the run's end status, so STOPPED means recorded.
      await bus.close(this.o.leaseTtlMs);
      const reason = stopReason ?? 'trigger finished';
      await rec.end('STOPPED', reason);
      if (reason === 'trigger finished') await db.job.update({ where: { id: job.id }, data: { desiredState: 'STOPPED' } });
      rlog.info({ reason }, 'run stopped');
      await this.afterStop(job.id, reason, payload);
      return reason;
    } catch (e) {
      if (!leaseLost && !(e instanceof LeaseLostError)) {
        // A zombie's write can fail for another reason first (its log file already written by the
        // run that took over: CONCURRENT_STREAM_LOG_UPDATE). If the lease is gone, that is what
        // happened, and this run must not touch the job's status.
        await renewLease(db, lease, this.o.leaseTtlMs).catch((le) => {
          if (le instanceof LeaseLostError) leaseLost = le;
        });
      }
      if (e instanceof LeaseLostError || leaseLost) {
        await rec.end('STOPPED', 'lease lost', toRunError(leaseLost ?? e), { updateJob: false });
        rlog.warn('lease lost: another run owns the checkpoint; this run wrote nothing more');
        return 'lease lost';
      }
      if (e instanceof CrashPointError) {
        // A drill's crash: the run dies here, as in the incident; recovery starts at once.
        const drill = await db.drill.findFirst({ where: { jobId: job.id, status: 'ARMED' }, orderBy: { requestedAt: 'desc' } });
        if (drill) await db.drill.update({ where: { id: drill.id }, data: { status: 'CRASHED', batchId: e.batchId, crashedRunId: rec.runRowId, crashedAt: new Date() } });
        await rec.end('FAILED', `drill: crashed at ${e.point} of batch ${e.batchId}`, toRunError(e, e.batchId), { updateJob: false });
        await moveJob(db, job.id, 'drill-crashed');
        await enqueueRun(this.o.queue, { jobId: job.id, reason: 'recover', attempt: 0 });
        rlog.warn({ point: e.point, batchId: e.batchId }, 'drill: crashed on purpose; recovery enqueued');
        return 'drill crash';
      }
      const err = toRunError(e, lastBatchId === undefined ? undefined : lastBatchId + 1);
      rlog.error({ err }, 'run failed');
      const retryDelay = await this.retryDelay(job.id, payload, job.restartPolicy as { maxRestarts?: number; backoffMs?: number } | null);
      await rec.end('FAILED', err.message, err, { giveUp: retryDelay === undefined });
      if (retryDelay !== undefined) {
        await moveJob(db, job.id, 'hand-over', {}, { desiredState: 'RUNNING' });
        await enqueueRun(this.o.queue, { jobId: job.id, reason: 'retry', attempt: payload.attempt + 1 }, retryDelay);
        rlog.info({ attempt: payload.attempt + 1, delay: retryDelay }, 'restart policy: retrying');
      }
      return `failed: ${err.code}`;
    } finally {
      clearInterval(timer);
      const left = await bus.close(this.o.leaseTtlMs);
      if (left) rlog.warn({ left }, 'history: not all batches recorded; the next run fills them in from the checkpoint');
      if (!leaseLost) await releaseLease(db, lease).catch(() => undefined);
      this.active.delete(runId);
      finished(undefined);
    }
  }

  /**
   * A drill was requested. kill-worker: this whole process dies now (SIGKILL), its runs fail over.
   * A crash point: this run stops gracefully and the next run is armed to die at that point.
   */
  private async startDrill(drill: { id: string; point: string }, runRowId: string, lastBatchId: number | undefined, requestStop: (r: string) => void): Promise<void> {
    const { db, log } = this.o;
    if (drill.point === 'kill-worker') {
      const claimed = await db.drill.updateMany({
        where: { id: drill.id, status: 'REQUESTED' },
        data: { status: 'CRASHED', crashedRunId: runRowId, crashedAt: new Date(), batchId: lastBatchId === undefined ? null : lastBatchId + 1 },
      });
      if (claimed.count === 1) {
        log.warn({ drill: drill.id }, 'drill: killing this worker process with SIGKILL');
        process.kill(process.pid, 'SIGKILL');
      }
      return;
    }
    // Stop first, then show ARMED: whoever sees ARMED and adds input knows this run will not
    // take it (it plans no new batch once stopping), so the armed next run crashes on that input.
    requestStop('drill armed');
    await db.drill.updateMany({ where: { id: drill.id, status: 'REQUESTED' }, data: { status: 'ARMED' } });
  }

  /** After a graceful stop: a restart, a drill or a worker shutdown hands the job to the next run. */
  private async afterStop(jobId: string, reason: string, payload: RunPayload): Promise<void> {
    const job = await this.o.db.job.findUnique({ where: { id: jobId } });
    if (!job || job.desiredState !== 'RUNNING') return;
    if (reason === 'restart requested' || reason === 'worker shutdown' || reason === 'drill armed') {
      await moveJob(this.o.db, jobId, 'hand-over', {}, { desiredState: 'RUNNING' });
      const next = reason === 'restart requested' ? 'restart' : reason === 'drill armed' ? 'drill' : 'recover';
      await enqueueRun(this.o.queue, { jobId, reason: next, attempt: payload.attempt });
    }
  }

  /**
   * The restart policy's answer for a failed run: the delay before its retry, or undefined when
   * the job stays FAILED (with lastError) until someone starts it again.
   */
  private async retryDelay(jobId: string, payload: RunPayload, policy: { maxRestarts?: number; backoffMs?: number } | null): Promise<number | undefined> {
    const max = policy?.maxRestarts ?? 0;
    const job = await this.o.db.job.findUnique({ where: { id: jobId } });
    if (job && job.desiredState === 'RUNNING' && payload.attempt < max) return (policy?.backoffMs ?? 5000) * 2 ** payload.attempt;
    return undefined;
  }
}


/**
 * The job's spec as this worker may run it: valid, and with every path inside this worker's
 * roots (checked again here: the worker's roots may differ from the API's, and files may have
 * moved). Throws VALIDATION_ERROR or PATH_OUTSIDE_ROOTS.
 */
export function workerSpec(spec: unknown, roots: PathRoots): JobSpec {
  const v = validateJob(spec);
  if (!v.ok || !v.spec) {
    const msg = v.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
    throw Object.assign(new Error(`The job spec is invalid: ${msg}`), { code: 'VALIDATION_ERROR', details: { errors: v.errors } });
  }
  const confined = confineSpecPaths(v.spec, roots);
  if (confined.errors.length) {
    const msg = confined.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
    throw Object.assign(new Error(`A path of this job is outside this worker's roots, so the run did not start: ${msg} Set the worker's WEIR_FILES_ROOTS and WEIR_CHECKPOINT_ROOT as the API's, or edit the job.`), {
      code: 'PATH_OUTSIDE_ROOTS',
      details: { errors: confined.errors },
    });
  }
  return confined.spec;
}

/**
 * Whom a job's runs run as (current_user(), Spark's session user): the job's creator, which every
 * run of the job shares, so a batch re-run after a crash or a takeover computes the same rows. A
 * user (`user:alice`) by name, an API token by its actor (`token:ci`); a job with no recorded
 * creator runs as the engine's default.
 */
export function runAsUser(createdBy: string | null): string | undefined {
  if (!createdBy) return undefined;
  return createdBy.startsWith('user:') ? createdBy.slice('user:'.length) : createdBy;
}
