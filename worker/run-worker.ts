/**
 * Consumes the runs queue. Each BullMQ job is one run of a streaming job; the processor drives
 * the engine until the job is stopped or fails.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Env } from '@/lib/env';
import { makeWorker, queueConfigFrom } from '@/lib/queue/connection';
import { RUNS_QUEUE, runPayloadSchema } from '@/lib/queue/queues';

export interface RunWorkerDeps {
  db: PrismaClient;
  config: Env;
  workerId: string;
  log: Logger;
}

export async function startRunWorker({ config, log }: RunWorkerDeps): Promise<{ close(): Promise<void> }> {
  const worker = makeWorker(
    RUNS_QUEUE,
    async (job) => {
      const payload = runPayloadSchema.parse(job.data);
      log.info({ payload }, 'run received');
      throw new Error('This worker build cannot execute runs yet.');
    },
    queueConfigFrom(config),
    { concurrency: config.WEIR_WORKER_CONCURRENCY },
  );
  worker.on('error', (e) => log.error({ err: e }, 'queue worker error'));
  await worker.waitUntilReady();
  return { close: () => worker.close() };
}
