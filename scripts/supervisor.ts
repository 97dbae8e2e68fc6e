/**
 * The one supervision mechanism `npm start` uses for what it runs: the embedded PostgreSQL, the
 * dashboard (Next.js server) and the worker. A process that dies is started again after a
 * back-off (1 s, doubling up to 30 s; one that had stayed up a minute starts the back-off over),
 * and the terminal says so: which one died, how (exit code or signal), where its last lines are,
 * when it restarts and when it is back. stop() stops whichever process is current, including
 * one a restart is bringing up, and cancels a pending restart.
 *
 * A start that fails counts as a death. With `maxRestarts`, a process that keeps failing right
 * after starting (it never stays up `stableMs`) is given up after that many restarts in a row:
 * the supervisor says so and calls `onGiveUp`, rather than retrying forever. The first start is
 * not retried: its failure rejects `started`, so a start that cannot work fails at once, named.
 */
import { type ChildProcess } from 'node:child_process';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One started instance of what is supervised. */
export interface Supervised {
  pid: number;
  /** Resolves when it exits, whoever ended it. */
  exited: Promise<Exit>;
  /** Said after how it died: its last lines, or where they are. */
  lastLines(): string;
  /** Stops it (gracefully, then by force), resolving once it has exited. */
  stop(): Promise<void>;
}

export interface SupervisionOptions {
  /** First delay before restarting one that died; doubled per consecutive failure. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** One that stayed up this long starts the back-off (and the count of failures) over. */
  stableMs?: number;
  /**
   * Restarts in a row, each failing within `stableMs`, after which the supervisor gives up
   * (unlimited if unset).
   */
  maxRestarts?: number;
  /**
   * false: one that dies stays down, for a test that kills and restarts it itself (a supervisor
   * left behind would start its own on the same resources).
   */
  restartOnExit?: boolean;
}

export interface SuperviseOptions extends SupervisionOptions {
  /** As the terminal names it: `the dashboard`, `the worker`, `the embedded PostgreSQL`. */
  name: string;
  /** Starts one; resolves once it is up (aborted: as soon as it can, for stop() to stop it). */
  start(signal: AbortSignal): Promise<Supervised>;
  /** What a person must see (died, restarting, back, gave up). */
  log(m: string): void;
  /** Appended to the "restarting" line: what is missing until it is back. */
  whileDown?: string;
  /** Appended to the "giving up" line: what to check. */
  giveUpHint?: string;
  /** Called once, after giving up (e.g. to stop everything else). */
  onGiveUp?(): void;
}

export interface Supervisor {
  /** Resolves when the first start is up; rejects (and nothing is retried) if it failed. */
  started: Promise<void>;
  /** The current process's pid (a restart changes it), or undefined while there is none. */
  pid(): number | undefined;
  /** Stops supervising and stops the current process, or the one a restart is starting. */
  stop(): Promise<void>;
}

export const describeExit = (e: Exit) => (e.signal ? `killed by ${e.signal}` : `exit code ${e.code}`);

export function supervise(opts: SuperviseOptions): Supervisor {
  const { name, log, initialBackoffMs = 1000, maxBackoffMs = 30_000, stableMs = 60_000, maxRestarts = Infinity, restartOnExit = true } = opts;
  const aborted = new AbortController();
  let current: Supervised | undefined;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;

  const scheduleRestart = () => {
    if (failures > maxRestarts) {
      log(`${name} failed ${failures} times in a row, each within ${stableMs / 1000}s of starting: giving up${opts.giveUpHint ? `. ${opts.giveUpHint}` : ''}`);
      opts.onGiveUp?.();
      return;
    }
    const delay = Math.min(maxBackoffMs, initialBackoffMs * 2 ** (failures - 1));
    log(`restarting ${name} in ${delay / 1000}s (attempt ${failures})${opts.whileDown ? `; ${opts.whileDown}` : ''}`);
    timer = setTimeout(() => {
      timer = undefined;
      restarting = restart().finally(() => (restarting = undefined));
    }, delay);
  };
  const restart = async () => {
    let next: Supervised;
    try {
      next = await opts.start(aborted.signal);
    } catch (e) {
      if (aborted.signal.aborted) return;
      failures += 1;
      log(`${name} did not restart: ${(e as Error).message}`);
      return scheduleRestart();
    }
    if (aborted.signal.aborted) return void (await next.stop());
    log(`${name} is back (pid ${next.pid})`);
    watch(next);
  };
  const watch = (s: Supervised) => {
    current = s;
    const upAt = Date.now();
    void s.exited.then((exit) => {
      if (current === s) current = undefined;
      if (aborted.signal.aborted || !restartOnExit) return;
      if (Date.now() - upAt >= stableMs) failures = 0;
      failures += 1;
      const last = s.lastLines();
      log(`${name} (pid ${s.pid}) died: ${describeExit(exit)}${last ? `; ${last}` : ''}`);
      scheduleRestart();
    });
  };

  const started = opts.start(aborted.signal).then(watch);
  return {
    started,
    pid: () => current?.pid,
    stop: async () => {
      aborted.abort();
      clearTimeout(timer);
      // A first start still coming up is stopped once it is up (its failure is the caller's).
      await started.catch(() => undefined);
      await restarting;
      await current?.stop();
    },
  };
}

/**
 * A child process as a Supervised: stop() sends SIGTERM (the worker then finishes its running
 * batches) and SIGKILL if it has not exited `killAfterMs` later.
 */
export function supervisedChild(child: ChildProcess, lastLines: () => string, killAfterMs = 30_000): Supervised {
  const exited = new Promise<Exit>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    pid: child.pid!,
    exited,
    lastLines,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      await exited;
      clearTimeout(forced);
    },
  };
}
