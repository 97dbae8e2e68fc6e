/**
 * Live progress for server-sent events: one `LISTEN weir_progress` connection per server process
 * (not one per browser tab), fanned out in memory to subscribers by job id.
 *
 * Protocol: the worker inserts a BatchProgress row and then runs
 * `NOTIFY weir_progress, '<jobId>:<batchId>'`; subscribers get (jobId, batchId) and read the row
 * through the batches presenter, so what the stream sends is exactly what GET …/batches/:id
 * returns. The listener connects on the first subscriber, reconnects after an error when
 * subscribers remain, and closes when the last one leaves.
 */
import pg from 'pg';
import { databaseUrl } from '@/lib/env';

const PROGRESS_CHANNEL = 'weir_progress';

type Callback = (batchId: number) => void;

class ProgressListener {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly subscribers = new Map<string, Set<Callback>>();

  constructor(private readonly url: () => string) {}

  /** Resolves once LISTEN is active, so a NOTIFY sent afterwards is seen. Returns the unsubscribe. */
  async subscribe(jobId: string, cb: Callback): Promise<() => void> {
    let set = this.subscribers.get(jobId);
    if (!set) this.subscribers.set(jobId, (set = new Set()));
    set.add(cb);
    await this.ensureConnected();
    return () => {
      set!.delete(cb);
      if (set!.size === 0) this.subscribers.delete(jobId);
      if (this.subscribers.size === 0) void this.close();
    };
  }

  private ensureConnected(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= (async () => {
      const c = new pg.Client({ connectionString: this.url() });
      c.on('notification', (n) => {
        const [jobId, batch] = (n.payload ?? '').split(':');
        const id = Number(batch);
        if (!jobId || !Number.isInteger(id)) return;
        for (const cb of this.subscribers.get(jobId) ?? []) cb(id);
      });
      c.on('error', () => {
        // Drop the broken connection; the next subscriber (or the retry below) reconnects.
        if (this.client === c) this.client = undefined;
        void c.end().catch(() => {});
        if (this.subscribers.size > 0) setTimeout(() => void this.ensureConnected().catch(() => {}), 1000);
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${PROGRESS_CHANNEL}`);
        this.client = c;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  private async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => {});
  }
}

const globalForListener = globalThis as unknown as { weirProgressListener?: ProgressListener };

export function progressListener(): ProgressListener {
  globalForListener.weirProgressListener ??= new ProgressListener(databaseUrl);
  return globalForListener.weirProgressListener;
}
