/**
 * A run's listener bus, after Spark's StreamingQueryListenerBus: the batch loop posts an event and
 * goes on; the bus delivers events in order, off the loop, one at a time. Delivery here means the
 * history write (the BatchProgress row), the live-stream notification and the alert evaluation
 * (run-recorder.ts). A failed delivery is retried with exponential backoff and never fails the
 * run: the batch is already committed, and what the bus could not deliver is still in the
 * checkpoint's progress/N for the backfill (run-recorder.ts backfillHistory) to fill in.
 */

export interface ListenerBusOptions {
  /** First retry delay; doubles per failure up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Called for each failed delivery (to log it) with the delay before the next try. */
  onError?: (e: unknown, retryInMs: number) => void;
  /** Called when a delivery succeeds after failures (e.g. the database came back). */
  onRecovered?: () => void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

export class ListenerBus<E> {
  private readonly queue: E[] = [];
  private draining: Promise<void> | undefined;
  private failing = false;
  private giveUp = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly deliver: (event: E) => Promise<void>,
    private readonly opts: ListenerBusOptions = {},
  ) {}

  /** Events not delivered yet. */
  get pending(): number {
    return this.queue.length;
  }

  /** Resolves once no delivery is in flight (after close(): once the one in flight, if any, ended). */
  get settled(): Promise<void> {
    return this.draining?.catch(() => undefined) ?? Promise.resolve();
  }

  /** Queues an event; returns at once. */
  post(event: E): void {
    if (this.giveUp) return;
    this.queue.push(event);
    this.kick();
  }

  private kick(): void {
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
      if (this.queue.length > 0 && !this.giveUp) this.kick();
    });
  }

  private async drain(): Promise<void> {
    const min = this.opts.minBackoffMs ?? 200;
    const max = this.opts.maxBackoffMs ?? 10_000;
    let backoff = min;
    while (this.queue.length > 0 && !this.giveUp) {
      try {
        await this.deliver(this.queue[0]);
        this.queue.shift();
        backoff = min;
        if (this.failing) {
          this.failing = false;
          this.opts.onRecovered?.();
        }
      } catch (e) {
        this.failing = true;
        this.opts.onError?.(e, backoff);
        await sleep(backoff, this.abort.signal);
        backoff = Math.min(backoff * 2, max);
      }
    }
  }

  /**
   * Waits until every queued event is delivered, for at most `maxWaitMs`; then stops retrying and
   * returns how many were left (the backfill of a later run delivers those from progress/N).
   */
  async close(maxWaitMs: number): Promise<number> {
    const deadline = new Promise<void>((r) => setTimeout(r, maxWaitMs).unref());
    while (this.draining) {
      const d = this.draining;
      const timedOut = await Promise.race([d.then(() => false), deadline.then(() => true)]);
      if (timedOut) break;
    }
    // A delivery still in flight may hang on a dead connection: do not wait for it.
    this.giveUp = true;
    this.abort.abort();
    return this.queue.length;
  }
}
