/**
 * The worker's liveness record: upserted at start and every heartbeat; marked stopped on a
 * graceful exit. A SIGKILLed worker simply stops heartbeating and drops out.
 */
import os from 'node:os';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { stateCacheReport } from './local-state-caches';

const heapUsed = () => BigInt(process.memoryUsage().heapUsed);

export class Heartbeat {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly db: PrismaClient,
    readonly workerId: string,
    private readonly queueBackend: string,
    private readonly intervalMs: number,
    private readonly onError: (e: unknown) => void,
    /** The lmdb state caches' directory on this machine, reported and swept at each beat (local-state-caches.ts). */
    private readonly stateCacheDir?: string,
  ) {}

  /** The state caches' report, or nothing when it cannot be read: a heartbeat never fails for it. */
  private async caches() {
    if (!this.stateCacheDir) return {};
    try {
      return await stateCacheReport(this.db, this.stateCacheDir);
    } catch (e) {
      this.onError(e);
      return {};
    }
  }

  async start(): Promise<void> {
    const caches = await this.caches();
    await this.db.worker.upsert({
      where: { id: this.workerId },
      create: { id: this.workerId, hostname: os.hostname(), pid: process.pid, queueBackend: this.queueBackend, heapUsedBytes: heapUsed(), ...caches },
      update: { lastHeartbeatAt: new Date(), stoppedAt: null, heapUsedBytes: heapUsed(), ...caches },
    });
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
  }

  async beat(): Promise<void> {
    try {
      const caches = await this.caches();
      await this.db.worker.update({ where: { id: this.workerId }, data: { lastHeartbeatAt: new Date(), heapUsedBytes: heapUsed(), ...caches } });
    } catch (e) {
      this.onError(e);
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.db.worker.update({ where: { id: this.workerId }, data: { stoppedAt: new Date() } }).catch(this.onError);
  }
}
