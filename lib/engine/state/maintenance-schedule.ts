/**
 * When the state maintenance runs: Spark's StateStore maintenance task, scheduled every
 * spark.sql.streaming.stateStore.maintenanceInterval (the job's stateStore.maintenanceInterval,
 * default 60 s), its first round an interval after the stores were loaded. The engine asks after
 * each commit whether a round is due; between rounds deltas accumulate, and a round snapshots a
 * store that has `minDeltasForSnapshot` of them.
 */
export class MaintenanceSchedule {
  private last: number;

  constructor(
    private readonly intervalMs: number,
    startedAt: number,
  ) {
    this.last = startedAt;
  }

  /** Whether a round is due at `now`; if so, it counts as started then. */
  due(now: number): boolean {
    if (now - this.last < this.intervalMs) return false;
    this.last = now;
    return true;
  }
}
