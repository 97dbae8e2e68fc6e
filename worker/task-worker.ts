/**
 * Spark's executor in every worker: consumes the tasks queue (WEIR_TASK_SCHEDULER=cluster runs'
 * reduce tasks, task-dispatcher.ts), WEIR_TASK_CONCURRENCY at a time. For each task it reads the
 * input block from the job's checkpoint, runs it with lib/engine's Executor (which keeps the
 * partition's state stores open between batches and reloads a partition that ran elsewhere in
 * between), writes the output block under a name of its own attempt and returns where it is
 * (shuffle.ts).
 *
 * A worker killed mid-task stops renewing the task's lock: after WEIR_FAILOVER_MS the queue hands
 * the task to another worker, with the same input.
 */
import '@/lib/connectors'; // registers the connectors' checkpoint types (s3://)
import type { Logger } from 'pino';
import { checkpointFileManagerFor, Executor, SystemClock, type CheckpointFileManager, type Row } from '@/lib/engine';
import type { Env } from '@/lib/env';
import { failoverLock, makeWorker, queueConfigFrom } from '@/lib/queue/connection';
import { TASKS_QUEUE } from '@/lib/queue/queues';
import { stateCacheDirOf } from './local-state-caches';
import { attemptOutput, readBlock, writeBlock, type ReduceTaskOutcome, type ReduceTaskPayload } from './shuffle';

export interface TaskWorkerDeps {
  config: Pick<Env, 'REDIS_URL' | 'DATABASE_URL' | 'dataDir' | 'WEIR_FAILOVER_MS' | 'WEIR_TASK_CONCURRENCY' | 'WEIR_TEST_TASK_DELAY_MS'>;
  workerId: string;
  log: Logger;
}

export async function startTaskWorker({ config, workerId, log }: TaskWorkerDeps): Promise<{ close(): Promise<void> }> {
  const executor = new Executor({
    clock: new SystemClock(),
    stateLocalDir: stateCacheDirOf(config.dataDir),
    onMaintenanceError: (e) => log.warn({ err: e }, 'state maintenance of a task partition failed; retried after its next task'),
  });
  const checkpoints = new Map<string, CheckpointFileManager>();
  const checkpointOf = (location: string) => {
    let cp = checkpoints.get(location);
    if (!cp) checkpoints.set(location, (cp = checkpointFileManagerFor(location)));
    return cp;
  };
  const worker = makeWorker<ReduceTaskPayload, ReduceTaskOutcome>(
    TASKS_QUEUE,
    async (job) => {
      const p = job.data;
      const t0 = performance.now();
      const attempt = job.attemptsStarted;
      const tlog = log.child({ bullJobId: job.id, queryId: p.queryId, batchId: p.task.batchId, stageId: p.task.stageId, partitionId: p.task.partitionId, attempt });
      tlog.info('reduce task started');
      if (config.WEIR_TEST_TASK_DELAY_MS) await new Promise((r) => setTimeout(r, config.WEIR_TEST_TASK_DELAY_MS));
      const cp = checkpointOf(p.spec.checkpointLocation);
      const { value: inputs, bytes: inBytes } = await readBlock<Row[][]>(cp, p.input);
      const result = await executor.runTask({ spec: p.spec, queryId: p.queryId, numPartitions: p.numPartitions, checkpoint: cp }, { ...p.task, inputs });
      const output = attemptOutput(p);
      const outBytes = await writeBlock(cp, output, result.rows);
      const durationMs = Math.round(performance.now() - t0);
      tlog.info({ rows: result.rows.length, durationMs }, 'reduce task done');
      return {
        output,
        workerId,
        inputRows: inputs.reduce((n, rows) => n + rows.length, 0),
        rows: result.rows.length,
        shuffleBytes: inBytes + outBytes,
        durationMs,
        attempt,
        progress: result.progress,
      };
    },
    queueConfigFrom(config),
    {
      concurrency: config.WEIR_TASK_CONCURRENCY,
      // A task lasts a batch's share at most; a killed worker's task goes back to the queue.
      ...failoverLock(config.WEIR_FAILOVER_MS),
      maxStalledCount: 3,
    },
  );
  worker.on('error', (e) => log.error({ err: e }, 'tasks queue worker error'));
  worker.on('failed', (job, e) => log.warn({ err: e, bullJobId: job?.id }, 'reduce task failed'));
  await worker.waitUntilReady();
  return {
    close: async () => {
      await worker.close();
      await executor.close();
    },
  };
}
