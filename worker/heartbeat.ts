/**
 * The worker's liveness record: upserted at start and every heartbeat; marked stopped on a
 * graceful exit. A SIGKILLed worker simply stops heartbeating and drops out.
 */
import os from 'node:os';
import type { PrismaClient } from '@/lib/generated/prisma/client';

const heapUsed = () => BigInt(process.memoryUsage().heapUsed);

export class Heartbeat {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly db: PrismaClient,
    readonly workerId: string,
    private readonly queueBackend: string,
    private readonly intervalMs: number,
    private readonly onError: (e: unknown) => void,
  ) {}

  async start(): Promise<void> {
    await this.db.worker.upsert({
      where: { id: this.workerId },
      create: { id: this.workerId, hostname: os.hostname(), pid: process.pid, queueBackend: this.queueBackend, heapUsedBytes: heapUsed() },
      update: { lastHeartbeatAt: new Date(), stoppedAt: null, heapUsedBytes: heapUsed() },
    });
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
  }

  async beat(): Promise<void> {
    try {
      await this.db.worker.update({ where: { id: this.workerId }, data: { lastHeartbeatAt: new Date(), heapUsedBytes: heapUsed() } });
    } catch (e) {
      this.onError(e);
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.db.worker.update({ where: { id: this.workerId }, data: { stoppedAt: new Date() } }).catch(this.onError);
  }
}
