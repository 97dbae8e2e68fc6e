/**
 * The health report: database reachable, queue backend reachable, live workers.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { Env } from '@/lib/env';
import { liveWorkers, type LiveWorker } from './workers';

export interface HealthReport {
  status: 'ok' | 'degraded';
  database: { ok: boolean; error?: string; latencyMs?: number };
  queue: { backend: 'postgres' | 'redis'; ok: boolean; error?: string };
  workers: LiveWorker[];
  checkedAt: string;
}

async function pingRedis(url: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const r = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  try {
    await r.connect();
    await r.ping();
  } finally {
    r.disconnect();
  }
}

export async function healthReport(db: PrismaClient, config: Env): Promise<HealthReport> {
  const started = performance.now();
  const database: HealthReport['database'] = { ok: true };
  try {
    await db.$queryRawUnsafe('SELECT 1');
    database.latencyMs = Math.round(performance.now() - started);
  } catch (e) {
    database.ok = false;
    database.error = (e as Error).message.split('\n')[0];
  }
  const queue: HealthReport['queue'] = { backend: config.queueBackend, ok: database.ok };
  if (config.queueBackend === 'redis') {
    try {
      await pingRedis(config.REDIS_URL!);
      queue.ok = true;
    } catch (e) {
      queue.ok = false;
      queue.error = `Redis unreachable: ${(e as Error).message}`;
    }
  } else if (!database.ok) {
    queue.error = 'BullMQ runs on the PostgreSQL backend, which is unreachable.';
  }
  const workers = database.ok ? await liveWorkers(db, config.WEIR_WORKER_TIMEOUT_MS) : [];
  return {
    status: database.ok && queue.ok && workers.length > 0 ? 'ok' : 'degraded',
    database,
    queue,
    workers,
    checkedAt: new Date().toISOString(),
  };
}
