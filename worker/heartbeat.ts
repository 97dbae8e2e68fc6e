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

  private reporting: Promise<void> | null = null;

  /**
   * The state caches' report, after the liveness write and never in its way: a slow disk delays
   * the report, not the heartbeat (a late heartbeat would fail the worker's runs over). One at a
   * time; a failure goes to onError.
   */
  private reportCaches(): Promise<void> {
    if (!this.stateCacheDir || this.reporting) return this.reporting ?? Promise.resolve();
    const dir = this.stateCacheDir;
    this.reporting = (async () => {
      try {
        await this.db.worker.update({ where: { id: this.workerId }, data: await stateCacheReport(this.db, dir) });
      } catch (e) {
        this.onError(e);
      } finally {
        this.reporting = null;
      }
    })();
    return this.reporting;
  }

  async start(): Promise<void> {
    await this.db.worker.upsert({
      where: { id: this.workerId },
      create: { id: this.workerId, hostname: os.hostname(), pid: process.pid, queueBackend: this.queueBackend, heapUsedBytes: heapUsed() },
      update: { lastHeartbeatAt: new Date(), stoppedAt: null, heapUsedBytes: heapUsed() },
    });
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    void this.reportCaches();
  }

  /** Resolves once the liveness write and this beat's cache report (if one was started) are done. */
  async beat(): Promise<void> {
    try {
      await this.db.worker.update({ where: { id: this.workerId }, data: { lastHeartbeatAt: new Date(), heapUsedBytes: heapUsed() } });
    } catch (e) {
      this.onError(e);
      return;
    }
    await this.reportCaches();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.reporting;
    await this.db.worker.update({ where: { id: this.workerId }, data: { stoppedAt: new Date() } }).catch(this.onError);
  }
}
