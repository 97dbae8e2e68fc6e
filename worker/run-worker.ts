/**
 * Consumes the runs queue (one BullMQ job = one run, see run-processor.ts) and reconciles.
 *
 * Failover has two paths, both harmless if they overlap because the checkpoint lease admits one
 * run at a time: BullMQ notices a dead worker's lost lock after WEIR_FAILOVER_MS and hands the
 * job to another worker; and every worker's reconciler enqueues a recovery run for any job that
 * is desired RUNNING but whose lease has been expired (or missing) that long, which also covers a
 * Redis queue that lost its contents in a restart.
 *
 * A job asked to stop gets no recovery run: the reconciler ends its run whose worker is gone as
 * LOST and the job STOPPED (lib/server/job-lifecycle.ts endLostRuns), so a stop during a failover
 * does not leave the job STOPPING.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Env } from '@/lib/env';
import { failoverLock, makeWorker, queueConfigFrom } from '@/lib/queue/connection';
import { RUNS_QUEUE, type RunPayload } from '@/lib/queue/queues';
import { enqueueRun } from '@/lib/queue/run-queue';
import { endLostRuns, type LostRun } from '@/lib/server/job-lifecycle';
import { checkpointFileManagerFor, readRecentProgress } from '@/lib/engine';
import { RunRecorder, toRunError } from '@/lib/server/run-recorder';
import { engineBundle } from './engine-host';
import { stateCacheDirOf } from './local-state-caches';
import { RunProcessor, workerSpec } from './run-processor';
import { TaskDispatcher } from './task-dispatcher';

export interface RunWorkerDeps {
  db: PrismaClient;
  config: Env;
  workerId: string;
  log: Logger;
}

async function reconcile(
  db: PrismaClient,
  queue: ReturnType<typeof queueConfigFrom>,
  config: Env,
  log: Logger,
): Promise<{ recovering: string[]; lost: LostRun[]; settled: string[] }> {
  const failoverMs = config.WEIR_FAILOVER_MS;
  const { lost, settled } = await endLostRuns(db, config.WEIR_WORKER_TIMEOUT_MS, async ({ jobId, runRowId }) => {
    // The dead run's committed batches that it never recorded: no run of a stopped job comes to
    // fill them in. A checkpoint this worker cannot read leaves a gap, logged, not a wedged job.
    const job = await db.job.findUnique({ where: { id: jobId }, select: { spec: true } });
    if (!job) return;
    let kept: Awaited<ReturnType<typeof readRecentProgress>>;
    try {
      kept = await readRecentProgress(checkpointFileManagerFor(workerSpec(job.spec, { checkpointRoot: config.checkpointRoot, filesRoots: config.filesRoots }).checkpointLocation));
    } catch (e) {
      log.warn({ jobId, err: toRunError(e) }, 'reconciler: cannot read the checkpoint to fill in the lost run’s history');
      return;
    }
    const filled = await new RunRecorder(db, jobId, runRowId).fillHistory(kept);
    if (filled.length) log.info({ jobId, batches: filled }, 'history: filled in committed batches from the checkpoint');
  });
  const stale = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id FROM "Job"
     WHERE "desiredState" = 'RUNNING'
       AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now() - ($1::int * interval '1 millisecond'))
       AND "updatedAt" < now() - ($1::int * interval '1 millisecond')`,
    failoverMs,
  );
  for (const { id } of stale) {
    // Touch the job so the other workers' reconcilers leave it alone for another interval.
    await db.job.update({ where: { id }, data: { updatedAt: new Date() } });
    await enqueueRun(queue, { jobId: id, reason: 'recover', attempt: 0 });
  }
  return { recovering: stale.map((s) => s.id), lost, settled };
}

export async function startRunWorker({ db, config, workerId, log }: RunWorkerDeps): Promise<{ close(): Promise<void>; processor: RunProcessor }> {
  const queue = queueConfigFrom(config);
  const tasks = config.WEIR_TASK_SCHEDULER === 'cluster' ? new TaskDispatcher(queue, { localityWaitMs: config.WEIR_LOCALITY_WAIT_MS }) : undefined;
  const processor = new RunProcessor({
    tasks,
    db,
    workerId,
    log,
    queue,
    leaseTtlMs: config.WEIR_LEASE_TTL_MS,
    renewMs: config.WEIR_LEASE_RENEW_MS,
    roots: { checkpointRoot: config.checkpointRoot, filesRoots: config.filesRoots },
    runMemoryMb: config.WEIR_RUN_MEMORY_MB,
    // The lmdb state store's local copies: a cache on this machine, rebuilt from the checkpoint when missing.
    stateLocalDir: stateCacheDirOf(config.dataDir),
  });
  // Each run's engine process loads this bundle: build it before taking runs (and fail here if it cannot be).
  await engineBundle();
  const worker = makeWorker<RunPayload, string>(RUNS_QUEUE, processor.process, queue, {
    concurrency: config.WEIR_WORKER_CONCURRENCY,
    // A run lives as long as its job runs; a killed worker's runs are handed over.
    ...failoverLock(config.WEIR_FAILOVER_MS),
    maxStalledCount: 1_000_000,
  });
  worker.on('error', (e) => log.error({ err: e }, 'queue worker error'));
  worker.on('failed', (job, e) => log.error({ err: e, bullJobId: job?.id }, 'run processor failed'));
  await worker.waitUntilReady();

  const reconciler = setInterval(() => {
    reconcile(db, queue, config, log)
      .then(({ recovering, lost, settled }) => {
        if (recovering.length) log.info({ jobs: recovering }, 'reconciler: enqueued recovery runs');
        for (const l of lost) log.warn({ ...l }, 'reconciler: run lost, job stopped');
        if (settled.length) log.info({ jobs: settled }, 'reconciler: stopped jobs whose queued run never started');
      })
      .catch((e) => log.warn({ err: e }, 'reconciler failed'));
  }, Math.max(1000, Math.floor(config.WEIR_FAILOVER_MS / 3)));

  return {
    processor,
    close: async () => {
      clearInterval(reconciler);
      // Graceful: take no new runs, let running batches commit, then hand the jobs on.
      const closed = worker.close();
      await processor.stopAll();
      await closed;
      await tasks?.close();
    },
  };
}
