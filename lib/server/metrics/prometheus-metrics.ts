/**
 * Weir's metrics for Prometheus, in the OpenMetrics text format (prom-client's registry).
 *
 * Every scrape builds a fresh registry from the database, not from counters kept in the API
 * process: several API processes behind a load balancer answer the same, a restart of one loses
 * nothing, and the series of a deleted job disappear with its rows. Reads are set-based and
 * bounded (one query per concern, whatever the number of jobs, and none that reads a job's whole
 * history): Prometheus scrapes every 15 s for as long as Weir runs, so a scrape must cost the same
 * after a million batches as after ten. Gauges come from each job's latest batch (one index probe
 * per job); counters from the running totals the database keeps in JobCounters as batches and
 * runs are recorded (prisma/migrations/20261201150000_job_counters).
 *
 * Labels: `job_id` and `job_name` per job (not `job`, which Prometheus sets to the scrape job);
 * `worker_id` and `hostname` per worker. Counters are totals over the job's recorded batch and
 * run history; a reset of a job's checkpoint, which deletes its history, reads as a counter
 * reset, which rate() handles.
 */
import { Counter, Gauge, Registry, type Metric, type OpenMetricsContentType } from 'prom-client';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { JOB_STATUSES } from '../job-lifecycle';

export const METRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE;

/**
 * Batch duration buckets, seconds: micro-batches take from milliseconds to minutes. The database
 * counts batches into the same buckets (weir_batch_duration_bucket, in milliseconds) as it records
 * them; a test checks the two agree.
 */
export const BATCH_DURATION_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * A worker that stopped heartbeating without a clean exit (killed) stays in the metrics this
 * long, its heartbeat age growing so an alert can fire, then drops out.
 */
const DEAD_WORKER_SHOWN_MS = 3_600_000;

/** The run queue's counts, or null when the queue could not be read. */
type QueueCounts = { waiting: number; active: number } | null;

export interface MetricsSources {
  db: PrismaClient;
  /** Reads the run queue's waiting and active counts (BullMQ); throws when unreachable. */
  queueCounts: () => Promise<{ waiting: number; active: number }>;
  now?: number;
}

interface JobRow {
  id: string;
  name: string;
  status: string;
  desiredState: string;
  processedRowsPerSecond: number | null;
  stateRowsTotal: number | null;
  stateMemoryBytes: number | null;
  stateDiskBytes: number | null;
  commitLag: number | null;
  watermarkGapMs: number | null;
  lastCommittedMs: number | null;
  sourceIdleMs: number | null;
  inputRows: number;
  batches: number;
  durationSumMs: number;
  /** Batches per bucket of BATCH_DURATION_BUCKETS_S, then past the last bound; not cumulative. */
  bucketCounts: number[] | null;
  restarts: number;
  failedRuns: number;
}

interface WorkerRow {
  id: string;
  hostname: string;
  lastHeartbeatAt: Date;
  heapUsedBytes: number | null;
  runsHeld: number;
}

/**
 * A histogram whose buckets were counted by the database: prom-client's Histogram only counts
 * observations it is given, and observing every batch of every job on each scrape would not scale.
 * The registry formats any object with this shape (name, help, type, get()).
 */
function precountedHistogram(name: string, help: string, series: { labels: Record<string, string>; buckets: number[]; count: number; sum: number }[]): Metric {
  const values = series.flatMap((s) => [
    ...BATCH_DURATION_BUCKETS_S.map((le, i) => ({ metricName: `${name}_bucket`, labels: { ...s.labels, le: String(le) }, value: s.buckets[i] })),
    { metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count },
    { metricName: `${name}_count`, labels: s.labels, value: s.count },
    { metricName: `${name}_sum`, labels: s.labels, value: s.sum },
  ]);
  return { name, help, type: 'histogram', get: async () => ({ name, help, type: 'histogram', values, aggregator: 'sum' }) } as unknown as Metric;
}

export async function collectMetrics(src: MetricsSources): Promise<Registry<OpenMetricsContentType>> {
  const { db } = src;
  const now = src.now ?? Date.now();
  const [jobs, alerts, workers, queue] = await Promise.all([
    // The latest batch of each job, through the (jobId, batchId DESC) index, and its counters.
    db.$queryRaw<JobRow[]>`
      SELECT j.id, j."name", j."status"::text AS "status", j."desiredState"::text AS "desiredState",
             b."processedRowsPerSecond", b."stateRowsTotal"::float8 AS "stateRowsTotal",
             b."stateMemoryBytes"::float8 AS "stateMemoryBytes", b."stateDiskBytes"::float8 AS "stateDiskBytes",
             b."commitLag"::float8 AS "commitLag",
             CASE WHEN b."watermarkMs" IS NULL THEN NULL
                  ELSE (extract(epoch FROM b."timestamp") * 1000 - b."watermarkMs")::float8 END AS "watermarkGapMs",
             (extract(epoch FROM j."lastCommittedAt") * 1000)::float8 AS "lastCommittedMs",
             (extract(epoch FROM j."sourceIdleAt") * 1000)::float8 AS "sourceIdleMs",
             COALESCE(c."inputRows", 0)::float8 AS "inputRows", COALESCE(c."batches", 0)::float8 AS "batches",
             COALESCE(c."batchDurationSumMs", 0)::float8 AS "durationSumMs", c."batchDurationBuckets"::float8[] AS "bucketCounts",
             COALESCE(c."restarts", 0)::float8 AS "restarts", COALESCE(c."failedRuns", 0)::float8 AS "failedRuns"
      FROM "Job" j
      LEFT JOIN "JobCounters" c ON c."jobId" = j.id
      LEFT JOIN LATERAL (
        SELECT * FROM "BatchProgress" p WHERE p."jobId" = j.id ORDER BY p."batchId" DESC LIMIT 1
      ) b ON true`,
    db.$queryRaw<{ jobId: string; n: number }[]>`
      SELECT "jobId", count(*)::float8 AS n FROM "Alert" WHERE "state" = 'FIRING' AND "jobId" IS NOT NULL GROUP BY "jobId"`,
    db.$queryRaw<WorkerRow[]>`
      SELECT w.id, w.hostname, w."lastHeartbeatAt",
             w."heapUsedBytes"::float8 AS "heapUsedBytes",
             (SELECT count(*) FROM "Run" r WHERE r."workerId" = w.id AND r."endedAt" IS NULL
                AND r."status" IN ('PENDING', 'STARTING', 'RUNNING', 'RECOVERING', 'STOPPING'))::float8 AS "runsHeld"
      FROM "Worker" w WHERE w."stoppedAt" IS NULL AND w."lastHeartbeatAt" > ${new Date(now - DEAD_WORKER_SHOWN_MS)}`,
    src.queueCounts().then(
      (c): QueueCounts => c,
      (): QueueCounts => null,
    ),
  ]);

  const registry = new Registry<OpenMetricsContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  const JOB = ['job_id', 'job_name'] as const;
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Gauge<L>({ name, help, labelNames, registers: [registry] });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter<L>({ name, help, labelNames, registers: [registry] });

  const info = gauge('weir_job_info', 'Always 1: the job and its current desired state (RUNNING or STOPPED)', [...JOB, 'desired_state']);
  const status = gauge('weir_job_status', 'Whether the job is in this status (1) or not (0); exactly one status is 1 per job', [...JOB, 'status']);
  const inputRows = counter('weir_job_input_rows_total', 'Rows the job has read from its source, over its recorded batches', JOB);
  const processed = gauge('weir_job_processed_rows_per_second', 'Rows per second the latest batch processed (Spark processedRowsPerSecond)', JOB);
  const stateRows = gauge('weir_job_state_rows', 'Rows in the job’s state store after its latest batch', JOB);
  const stateBytes = gauge('weir_job_state_bytes', 'Bytes of the job’s state after its latest batch, in memory and on disk', [...JOB, 'store']);
  const lag = gauge('weir_job_commit_lag_records', 'Records the latest committed end offset is behind the source’s latest offset', JOB);
  const wmGap = gauge('weir_job_watermark_gap_seconds', 'How far the event-time watermark was behind the latest batch’s trigger time', JOB);
  const lastCommit = gauge('weir_job_last_commit_timestamp_seconds', 'When the job last committed a batch (Unix time)', JOB);
  const sourceIdle = gauge(
    'weir_job_source_idle_timestamp_seconds',
    'When the job’s run last polled its source and found no new data (Unix time; reported at most every 10 s while idle): recent means quiet, not stuck',
    JOB,
  );
  const restarts = counter('weir_job_restarts_total', 'Runs started by the restart policy or by a recovery after a lost worker', JOB);
  const failedRuns = counter('weir_job_failed_runs_total', 'Runs that ended FAILED', JOB);
  const firing = gauge('weir_job_firing_alerts', 'Alerts of the job that are firing now', JOB);

  const alertsOf = new Map(alerts.map((a) => [a.jobId, a.n]));
  const histogramSeries: { labels: Record<string, string>; buckets: number[]; count: number; sum: number }[] = [];
  for (const j of jobs) {
    const labels = { job_id: j.id, job_name: j.name };
    info.set({ ...labels, desired_state: j.desiredState }, 1);
    for (const s of JOB_STATUSES) status.set({ ...labels, status: s }, j.status === s ? 1 : 0);
    inputRows.inc(labels, j.inputRows);
    histogramSeries.push({ labels, buckets: cumulativeBuckets(j.bucketCounts), count: j.batches, sum: j.durationSumMs / 1000 });
    restarts.inc(labels, j.restarts);
    failedRuns.inc(labels, j.failedRuns);
    firing.set(labels, alertsOf.get(j.id) ?? 0);
    // A job with no batch yet has no latest figures: its gauges are absent rather than 0.
    if (j.processedRowsPerSecond !== null) processed.set(labels, j.processedRowsPerSecond);
    if (j.stateRowsTotal !== null) stateRows.set(labels, j.stateRowsTotal);
    if (j.stateMemoryBytes !== null) stateBytes.set({ ...labels, store: 'memory' }, j.stateMemoryBytes);
    if (j.stateDiskBytes !== null) stateBytes.set({ ...labels, store: 'disk' }, j.stateDiskBytes);
    if (j.commitLag !== null) lag.set(labels, j.commitLag);
    if (j.watermarkGapMs !== null) wmGap.set(labels, j.watermarkGapMs / 1000);
    if (j.lastCommittedMs !== null) lastCommit.set(labels, j.lastCommittedMs / 1000);
    if (j.sourceIdleMs !== null) sourceIdle.set(labels, j.sourceIdleMs / 1000);
  }
  registry.registerMetric(precountedHistogram('weir_job_batch_duration_seconds', 'Wall-clock time of each committed micro-batch', histogramSeries));

  const W = ['worker_id', 'hostname'] as const;
  const hbAge = gauge('weir_worker_heartbeat_age_seconds', 'Seconds since the worker’s last heartbeat (a live worker beats every WEIR_WORKER_HEARTBEAT_MS)', W);
  const held = gauge('weir_worker_runs_held', 'Runs the worker is driving now', W);
  const heap = gauge('weir_worker_heap_used_bytes', 'V8 heap in use in the worker process at its last heartbeat (each run’s engine process has its own)', W);
  for (const w of workers) {
    const labels = { worker_id: w.id, hostname: w.hostname };
    hbAge.set(labels, Math.max(0, now - w.lastHeartbeatAt.getTime()) / 1000);
    held.set(labels, w.runsHeld);
    if (w.heapUsedBytes !== null) heap.set(labels, w.heapUsedBytes);
  }

  const queueUp = gauge('weir_queue_up', 'Whether the run queue could be read for this scrape (1) or not (0)', []);
  queueUp.set(queue ? 1 : 0);
  if (queue) {
    const q = gauge('weir_queue_runs', 'Runs in the run queue, by state: waiting (incl. delayed restarts) or active', ['state']);
    q.set({ state: 'waiting' }, queue.waiting);
    q.set({ state: 'active' }, queue.active);
  }
  return registry;
}

/** The cumulative count at each finite bound of BATCH_DURATION_BUCKETS_S (`le`), from per-bucket counts. */
function cumulativeBuckets(counts: number[] | null): number[] {
  let sum = 0;
  return BATCH_DURATION_BUCKETS_S.map((_, i) => (sum += counts?.[i] ?? 0));
}
