/**
 * Named crash points: where a run can be told to die for a given batch, so tests and the chaos
 * command reproduce exactly the windows of the write-ahead protocol.
 *
 * - `after-offsets`: offsets/N is written, nothing else (restart re-runs N over the same range)
 * - `after-sink`: the sink has the batch and the first state store its version N+1 (the two
 *   writes overlap, both must finish), commits/N is not written (the duplicate window)
 * - `mid-state-commit`: the same instant; with more than one state store, the others have not
 *   committed N+1 (some stores at N+1, others not), commits/N not written
 * - `after-commit`: commits/N is written, progress not yet reported
 */
import { CrashPointError } from '../errors';

export const CRASH_POINTS = ['after-offsets', 'after-sink', 'mid-state-commit', 'after-commit'] as const;
export type CrashPointName = (typeof CRASH_POINTS)[number];

export interface CrashPlan {
  point: CrashPointName;
  batchId: number;
}

export function isCrashPoint(s: string): s is CrashPointName {
  return (CRASH_POINTS as readonly string[]).includes(s);
}

export class CrashPoints {
  constructor(private readonly plan?: CrashPlan) {}

  /** Throws CrashPointError when the run was told to die here for this batch. */
  check(point: CrashPointName, batchId: number): void {
    if (this.plan && this.plan.point === point && this.plan.batchId === batchId) throw new CrashPointError(point, batchId);
  }
}
