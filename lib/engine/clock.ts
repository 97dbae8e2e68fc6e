/**
 * Time is injected: the engine never calls Date.now() directly, so tests drive triggers with a
 * ManualClock and replay the same way every time.
 */
export interface Clock {
  now(): number;
  /** Resolves after `ms` of this clock's time (or earlier if `signal` aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export class SystemClock implements Clock {
  now(): number {
    // The one sanctioned read of wall-clock time in the engine.
    // eslint-disable-next-line no-restricted-syntax
    return Date.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
      const onAbort = () => { clearTimeout(t); resolve(); };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** A clock that only moves when told to; sleepers wake when time passes their deadline. */
export class ManualClock implements Clock {
  private sleepers: { until: number; resolve: () => void }[] = [];
  constructor(private t = 0) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      this.sleepers.push({ until: this.t + ms, resolve });
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  advance(ms: number): void {
    this.t += ms;
    const due = this.sleepers.filter((s) => s.until <= this.t);
    this.sleepers = this.sleepers.filter((s) => s.until > this.t);
    for (const s of due) s.resolve();
  }
}
