/**
 * The scaling model of one query across workers (docs/engine.md, "Scaling"): what a batch costs
 * with W workers, simulated from per-task costs measured by bench/parallel.bench.ts, for as many
 * workers as this 2-core machine cannot run. A batch is the driver's own work (planning,
 * offsets/N, commits/N), then the map stage (the batch's splits, each a map task whose time grows
 * with its events, spread over the workers by longest-first list scheduling, plus the queue's
 * round trip), then the reduce stage (one task per state partition, likewise). Each worker has a
 * core of its own, and the driver, the queue and the checkpoint store are not short of one: the
 * model is what the design allows, not what a shared machine gives.
 */

/** Costs measured at parallelism 2 (bench/parallel.bench.ts prints them). */
export interface MeasuredCosts {
  /** The driver's own time per batch (the batch's wall time less its two stages' round trips). */
  driverMs: number;
  /** A map task's time per event it reads (its own time over its split's events). */
  mapTaskMsPerEvent: number;
  /** A map stage's round trip less its slowest task: the queue's hand-over and completion notice. */
  mapStageLatencyMs: number;
  /** A reduce task's time (its state partition's load, merge and commit). */
  reduceTaskMs: number;
  /** A reduce stage's round trip less its slowest task. */
  reduceStageLatencyMs: number;
  /** Parallelism 1 in one process: a batch's wall time per event (everything in the driver). */
  localMsPerEvent: number;
}

export interface SimulatedBatch {
  workers: number;
  eventsPerBatch: number;
  /** One batch's wall time at `workers` workers (parallelism = splits = workers). */
  batchMs: number;
  /** The same batch at parallelism 1 in one process. */
  localMs: number;
  /** localMs / batchMs. */
  speedup: number;
  /** Events a second at `workers` workers. */
  eventsPerSecond: number;
}

/** The time for `tasks` (their durations) on `workers` single-core workers, longest first to the least loaded. */
export function makespan(tasks: readonly number[], workers: number): number {
  if (workers < 1) throw new Error('makespan: at least one worker');
  const load = new Array<number>(Math.min(workers, Math.max(tasks.length, 1))).fill(0);
  for (const t of [...tasks].sort((a, b) => b - a)) {
    let least = 0;
    for (let i = 1; i < load.length; i++) if (load[i] < load[least]) least = i;
    load[least] += t;
  }
  return Math.max(0, ...load);
}

/**
 * One batch of `eventsPerBatch` events with `workers` workers, the batch split evenly into
 * `splits` map tasks (a Kafka partition each) and `partitions` reduce tasks.
 */
export function simulateBatch(c: MeasuredCosts, o: { workers: number; eventsPerBatch: number; splits?: number; partitions?: number }): SimulatedBatch {
  const splits = o.splits ?? o.workers;
  const partitions = o.partitions ?? o.workers;
  const mapTasks = Array.from({ length: splits }, () => (o.eventsPerBatch / splits) * c.mapTaskMsPerEvent);
  const reduceTasks = Array.from({ length: partitions }, () => c.reduceTaskMs);
  const batchMs = c.driverMs + c.mapStageLatencyMs + makespan(mapTasks, o.workers) + c.reduceStageLatencyMs + makespan(reduceTasks, o.workers);
  const localMs = o.eventsPerBatch * c.localMsPerEvent;
  return { workers: o.workers, eventsPerBatch: o.eventsPerBatch, batchMs, localMs, speedup: localMs / batchMs, eventsPerSecond: (o.eventsPerBatch / batchMs) * 1000 };
}
