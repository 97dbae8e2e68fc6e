/**
 * ProgressReporter (Spark's): the figures of the running trigger, and the progress of each
 * committed batch.
 *
 * - startTrigger begins a trigger's durations; reportTimeTaken / recordTimeTaken add to them
 *   (`durationMs`: latestOffset, walCommit, getBatch, queryPlanning, addBatch, commitOffsets,
 *   and triggerExecution, set by finishTrigger).
 * - finishTrigger, once batch N's commits/N is written, builds its StreamingQueryProgress
 *   (progress.ts), keeps it as lastProgress / recentProgress (the last 100), and reports it off
 *   the batch path: progress/N (progress-log.ts), then onProgress, in batch order. The batch is
 *   committed, so the next one need not wait for its history (two fsyncs). A failed progress/N
 *   write is logged, never fatal; an onProgress that throws fails the run at the next trigger
 *   (throwIfFailed) or when the run ends (drain).
 */
import type { ProgressLog } from '../checkpoint/progress-log';
import type { Clock } from '../clock';
import { buildProgress, type BatchFigures, type StreamingQueryProgress } from '../progress';

export interface ProgressReporterOptions {
  clock: Clock;
  progressLog: ProgressLog;
  onProgress?: (p: StreamingQueryProgress) => void | Promise<void>;
  /** Where a failed progress/N write is reported. */
  warn: (msg: string, batchId: number) => void;
}

/** What finishTrigger needs beyond what the reporter tracks itself. */
export type FinishedBatch = Omit<BatchFigures, 'triggerStartMs' | 'triggerEndMs' | 'previousTriggerStartMs' | 'durationMs'>;

const RECENT_PROGRESS = 100;

export class ProgressReporter {
  lastProgress?: StreamingQueryProgress;
  readonly recentProgress: StreamingQueryProgress[] = [];
  private triggerStartMs = 0;
  private durationMs: Record<string, number> = {};
  private previousTriggerStartMs?: number;
  private chain: Promise<void> = Promise.resolve();
  private failure?: { error: unknown };

  constructor(private readonly o: ProgressReporterOptions) {}

  /** A trigger begins at `triggerStartMs`: its durations start empty. */
  startTrigger(triggerStartMs: number): void {
    this.triggerStartMs = triggerStartMs;
    this.durationMs = {};
  }

  /** Spark's reportTimeTaken: runs `fn` and adds its time (even when it fails) to durationMs[key]. */
  async reportTimeTaken<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const t = this.o.clock.now();
    try {
      return await fn();
    } finally {
      this.recordTimeTaken(key, this.o.clock.now() - t);
    }
  }

  /** Adds `ms` to durationMs[key] (for a span that is not one function). */
  recordTimeTaken(key: string, ms: number): void {
    this.durationMs[key] = (this.durationMs[key] ?? 0) + ms;
  }

  /** Batch N is committed: its progress, now in lastProgress and recentProgress, reported in the background. */
  finishTrigger(batch: FinishedBatch): StreamingQueryProgress {
    const triggerEndMs = this.o.clock.now();
    this.durationMs.triggerExecution = triggerEndMs - this.triggerStartMs;
    const progress = buildProgress({
      ...batch,
      triggerStartMs: this.triggerStartMs,
      triggerEndMs,
      previousTriggerStartMs: this.previousTriggerStartMs,
      durationMs: this.durationMs,
    });
    this.previousTriggerStartMs = this.triggerStartMs;
    this.lastProgress = progress;
    this.recentProgress.push(progress);
    if (this.recentProgress.length > RECENT_PROGRESS) this.recentProgress.shift();
    this.report(progress);
    return progress;
  }

  private report(progress: StreamingQueryProgress): void {
    const { progressLog, onProgress, warn } = this.o;
    const batchId = progress.batchId;
    this.chain = this.chain
      .then(async () => {
        await progressLog.record(progress).catch((e) => warn(`Could not write ${progressLog.pathOf(batchId)}: ${(e as Error).message}`, batchId));
        await onProgress?.(progress);
      })
      .catch((e: unknown) => {
        this.failure ??= { error: e };
      });
  }

  /** Resolves once every progress reported so far is written (a purge must not race a progress/N write). */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Throws what onProgress threw, if it did. */
  throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }

  /** Waits for the progress of every committed batch to be reported, then throwIfFailed. */
  async drain(): Promise<void> {
    await this.chain;
    this.throwIfFailed();
  }
}
