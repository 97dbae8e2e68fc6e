/**
 * Enqueueing runs. A run is one BullMQ job whose processor (worker/run-processor.ts) drives the
 * engine until the job is stopped or fails; at most one run writes a checkpoint at a time, which
 * the job's lease enforces (lib/server/lease.ts), so a duplicate enqueue is harmless.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Queue } from 'bullmq';
import { makeQueue, type QueueConfig } from './connection';
import { RUNS_QUEUE, runPayloadSchema, type RunPayload } from './queues';

const queues = new Map<string, Queue<RunPayload>>();

export function runQueue(cfg: QueueConfig): Queue<RunPayload> {
  const key = `${cfg.backend}:${cfg.url}`;
  let q = queues.get(key);
  if (!q) {
    q = makeQueue<RunPayload>(RUNS_QUEUE, cfg);
    queues.set(key, q);
  }
  return q;
}

export async function enqueueRun(cfg: QueueConfig, payload: z.input<typeof runPayloadSchema>, delayMs = 0): Promise<string> {
  const data = runPayloadSchema.parse(payload);
  const id = `${data.jobId}.${randomUUID()}`;
  await runQueue(cfg).add('run', data, { jobId: id, delay: delayMs, removeOnComplete: 1000, removeOnFail: 1000 });
  return id;
}

export async function closeRunQueues(): Promise<void> {
  await Promise.all([...queues.values()].map((q) => q.close()));
  queues.clear();
}
