/**
 * One run of a streaming job, as the processor of one BullMQ job.
 *
 * 1. Read the job; a job no longer desired RUNNING is not started.
 * 2. Take the checkpoint lease (lib/server/lease.ts). If another run holds it and keeps renewing
 *    it, this is a duplicate and ends; if its holder died, the lease expires and this run takes
 *    over as RECOVERING (the run history names the run it recovered from).
 * 3. Validate the spec, start the engine (populateStartOffsets re-runs an uncommitted batch over
 *    its recorded range), then RUNNING. Every batch's progress becomes a BatchProgress row.
 *    The engine runs in a process of its own with the run's memory limit (engine-host.ts): a run
 *    that exhausts it ends FAILED (RESOURCE_EXHAUSTED) alone; this process and its runs go on.
 * 4. Every renew interval the lease is renewed, and the same round trip returns the desired state:
 *    a stop (or restart) request stops the engine gracefully (the running batch commits).
 *    The engine also calls fence() before each checkpoint or sink write, which renews the lease
 *    or throws LeaseLostError: a paused worker that wakes up after a takeover writes nothing.
 * 5. Ends STOPPED (stop, trigger done), or FAILED with the error and where it happened; a restart
 *    policy re-enqueues with backoff; a restart request or a worker shutdown enqueues the next run.
 */
import { randomUUID } from 'node:crypto';
import type { Job as BullJob } from 'bullmq';
import type { Logger } from 'pino';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { CrashPointError, validateJob, type CrashPlan, type CrashPointName } from '@/lib/engine';
import { acquireLease, LeaseLostError, releaseLease, renewLease, type Lease } from '@/lib/server/lease';
import { RunRecorder, toRunError } from '@/lib/server/run-recorder';
import { completeDrill } from '@/lib/server/drills/drill-service';
import { enqueueRun } from '@/lib/queue/run-queue';
import type { QueueConfig } from '@/lib/queue/connection';
import { runPayloadSchema, type RunPayload } from '@/lib/queue/queues';
import { EngineHost } from './engine-host';

export interface RunProcessorOptions {
  db: PrismaClient;
  workerId: string;
  log: Logger;
  queue: QueueConfig;
  leaseTtlMs: number;
  renewMs: number;
  /** Each run's engine runs in a process of its own with this heap (WEIR_RUN_MEMORY_MB). */
  runMemoryMb: number;
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
      await db.job.updateMany({ where: { id: job.id, status: 'PENDING' }, data: { status: 'STOPPED' } });
      return `job is ${job.desiredState}`;
    }
    const lease = await this.takeLease(job.id, runId);
    if (!lease) return 'another run holds the lease';

    let recoveredFromRunId: string | null = null;
    if (lease.previousOwner) {
      const prev = await db.run.findUnique({ where: { runId: lease.previousOwner } });
      recoveredFromRunId = prev?.id ?? null;
      if (prev && !prev.endedAt) {
        await db.run.update({ where: { id: prev.id }, data: { status: 'FAILED', endedAt: new Date(), exitReason: `worker ${prev.workerId} lost (lease expired); recovered by run ${runId}` } });
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
    const fence = async () => {
      try {
        const hb = await renewLease(db, lease, this.o.leaseTtlMs);
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
    const timer = setInterval(() => void fence().catch(() => exec?.stop()), this.o.renewMs);
    let finished!: (v: unknown) => void;
    this.active.set(runId, { jobId: job.id, stop: requestStop, done: new Promise((r) => (finished = r)) });

    try {
      const v = validateJob(job.spec);
      if (!v.ok || !v.spec) {
        const msg = v.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
        throw Object.assign(new Error(`The job spec is invalid: ${msg}`), { code: 'VALIDATION_ERROR', details: { errors: v.errors } });
      }
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
      exec = new EngineHost({
        spec: v.spec,
        memoryLimitMb: this.o.runMemoryMb,
        fence,
        crash,
        onProgress: async (p) => {
          lastBatchId = p.batchId;
          await rec.batch(p);
          // The pending batch was re-run and committed: the drill has recovered.
          if (recoveredOnBatch && recoveringDrill && p.batchId >= (recoveringDrill.batchId ?? 0)) await completeDrill(db, recoveringDrill.id, job.id);
        },
        log: (e) => rlog[e.level === 'warn' ? 'warn' : e.level === 'error' ? 'error' : 'info']({ ...e }, e.msg),
      });
      await exec.start();
      await rec.status('RUNNING', { queryId: exec.id });
      if (recoveringDrill && !recoveredOnBatch) await completeDrill(db, recoveringDrill.id, job.id);
      if (!stopReason) await exec.run();
      else await exec.stop();
      if (leaseLost) throw leaseLost;
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
        await db.job.update({ where: { id: job.id }, data: { status: 'RECOVERING' } });
        await enqueueRun(this.o.queue, { jobId: job.id, reason: 'recover', attempt: 0 });
        rlog.warn({ point: e.point, batchId: e.batchId }, 'drill: crashed on purpose; recovery enqueued');
        return 'drill crash';
      }
      const err = toRunError(e, lastBatchId === undefined ? undefined : lastBatchId + 1);
      rlog.error({ err }, 'run failed');
      await rec.end('FAILED', err.message, err);
      await this.retryOrGiveUp(job.id, payload, job.restartPolicy as { maxRestarts?: number; backoffMs?: number } | null);
      return `failed: ${err.code}`;
    } finally {
      clearInterval(timer);
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
    const armed = await db.drill.updateMany({ where: { id: drill.id, status: 'REQUESTED' }, data: { status: 'ARMED' } });
    if (armed.count === 1) requestStop('drill armed');
  }

  /** After a graceful stop: a restart, a drill or a worker shutdown hands the job to the next run. */
  private async afterStop(jobId: string, reason: string, payload: RunPayload): Promise<void> {
    const job = await this.o.db.job.findUnique({ where: { id: jobId } });
    if (!job || job.desiredState !== 'RUNNING') return;
    if (reason === 'restart requested' || reason === 'worker shutdown' || reason === 'drill armed') {
      await this.o.db.job.update({ where: { id: jobId }, data: { status: 'PENDING' } });
      const next = reason === 'restart requested' ? 'restart' : reason === 'drill armed' ? 'drill' : 'recover';
      await enqueueRun(this.o.queue, { jobId, reason: next, attempt: payload.attempt });
    }
  }

  private async retryOrGiveUp(jobId: string, payload: RunPayload, policy: { maxRestarts?: number; backoffMs?: number } | null): Promise<void> {
    const max = policy?.maxRestarts ?? 0;
    const job = await this.o.db.job.findUnique({ where: { id: jobId } });
    if (job && job.desiredState === 'RUNNING' && payload.attempt < max) {
      const delay = (policy?.backoffMs ?? 5000) * 2 ** payload.attempt;
      await this.o.db.job.update({ where: { id: jobId }, data: { status: 'PENDING' } });
      await enqueueRun(this.o.queue, { jobId, reason: 'retry', attempt: payload.attempt + 1 }, delay);
      this.o.log.info({ jobId, attempt: payload.attempt + 1, delay }, 'restart policy: retrying');
      return;
    }
    // Terminal: the job stays FAILED (with lastError) until someone starts it again.
    await this.o.db.job.update({ where: { id: jobId }, data: { desiredState: 'STOPPED' } });
  }
}

