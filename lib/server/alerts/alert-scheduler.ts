/**
 * The scheduled alert pass: every `intervalMs`, evaluate every job any rule applies to (the only
 * way `no-progress` can fire: nothing else happens while a job makes no progress) and sweep the
 * webhook deliveries that are due (retries a dead process left behind).
 *
 * Why a plain interval in each worker rather than a BullMQ repeatable job: the pass is idempotent
 * and race-safe (the partial unique index and conditional updates in alert-transitions.ts let one
 * evaluator win each transition; delivery claims let one sender hold each attempt), so N workers
 * ticking costs N cheap queries and needs no leader; and it behaves the same on both queue
 * backends without depending on repeatable-job support in BullMQ's Postgres backend, which this
 * project has not tested. A tick never overlaps the previous one.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { evaluateAllJobs } from './alert-evaluator';
import { deliverDue, type NotifierOptions } from './webhook-notifier';

export interface AlertSchedulerOptions {
  db: PrismaClient;
  /** Default 5000 ms: a no-progress alert fires at most this late. */
  intervalMs?: number;
  notifier?: NotifierOptions;
  log?: { warn: (obj: object, msg: string) => void };
}

export interface AlertScheduler {
  /** Runs one pass now (also what each tick does). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

export function startAlertScheduler(o: AlertSchedulerOptions): AlertScheduler {
  let running: Promise<void> | null = null;
  let stopped = false;
  const onError = (e: unknown, where: string) => o.log?.warn({ err: e, where }, 'alert evaluation failed');
  const tick = () => {
    if (running || stopped) return running ?? Promise.resolve();
    running = (async () => {
      try {
        await evaluateAllJobs(o.db, { notifier: o.notifier, onError });
        await deliverDue(o.db, o.notifier);
      } catch (e) {
        onError(e, 'schedule');
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const timer = setInterval(() => void tick(), o.intervalMs ?? 5000);
  timer.unref?.();
  return {
    tick,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
