/**
 * Worker liveness: each worker process upserts its row every heartbeat; one silent for longer
 * than WEIR_WORKER_TIMEOUT_MS is dead (dropped from health; its runs fail over).
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';

export interface LiveWorker {
  id: string;
  hostname: string;
  pid: number;
  queueBackend: string;
  startedAt: string;
  lastHeartbeatAt: string;
}

export async function liveWorkers(db: PrismaClient, timeoutMs: number, now = new Date()): Promise<LiveWorker[]> {
  const rows = await db.worker.findMany({
    where: { stoppedAt: null, lastHeartbeatAt: { gt: new Date(now.getTime() - timeoutMs) } },
    orderBy: { startedAt: 'asc' },
  });
  return rows.map((w) => ({
    id: w.id,
    hostname: w.hostname,
    pid: w.pid,
    queueBackend: w.queueBackend,
    startedAt: w.startedAt.toISOString(),
    lastHeartbeatAt: w.lastHeartbeatAt.toISOString(),
  }));
}
