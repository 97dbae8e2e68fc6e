/**
 * Triggers (Spark's Trigger): when the next micro-batch runs and when the query is done.
 * - processing-time(interval): a batch at every interval boundary if there is new data; if a
 *   batch overruns, the next starts at once. Interval 0 = as soon as the previous finishes.
 * - once: one batch with all available data (read limits ignored), then stop. As in Spark, if
 *   the checkpoint holds an uncommitted batch, that re-run is the one batch.
 * - available-now: everything available at start, in as many batches as the read limits need
 *   (uncommitted batch first), then stop.
 */
import { parseDuration } from '../spec/duration';
import type { TriggerSpec } from '../spec/job-spec';

export type Trigger =
  | { kind: 'processing-time'; intervalMs: number }
  | { kind: 'once' }
  | { kind: 'available-now' };

export function triggerFromSpec(spec: TriggerSpec): Trigger {
  switch (spec.type) {
    case 'processing-time':
      return { kind: 'processing-time', intervalMs: parseDuration(spec.interval) ?? 0 };
    case 'once':
      return { kind: 'once' };
    case 'available-now':
      return { kind: 'available-now' };
  }
}

/** The next interval boundary strictly after a batch that started at `startedAtMs`. */
export function nextTriggerTime(startedAtMs: number, intervalMs: number): number {
  if (intervalMs <= 0) return startedAtMs;
  return Math.floor(startedAtMs / intervalMs) * intervalMs + intervalMs;
}
