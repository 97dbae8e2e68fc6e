/**
 * One /metrics scrape (collectMetrics, the registry rendered to OpenMetrics text) with 100 jobs of
 * 1,000 batches and 5 runs each, on a fresh database of this machine's PostgreSQL: Prometheus
 * scrapes every 15 s for as long as Weir runs, so a scrape must not cost more as history grows.
 *
 *   npm run bench -- metrics
 *
 * Prints the median and p95 of SCRAPES scrapes after WARMUP; the queue counts are a stub (the run
 * queue is not what is measured).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../lib/generated/prisma/client';
import { collectMetrics } from '../lib/server/metrics/prometheus-metrics';
import { createTestDatabase } from '../lib/server/testing/database';
import type { BenchResult } from './run';

const JOBS = 100;
const BATCHES_PER_JOB = 1000;
const RUNS_PER_JOB = 5;
const WARMUP = 5;
const SCRAPES = 30;

async function seed(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(
      `INSERT INTO "Job" (id, name, spec, sql, "sourceType", "sinkType", "outputMode", trigger, "checkpointLocation", status, "desiredState", "lastBatchId", "lastCommittedAt", "updatedAt")
       SELECT 'job-' || g, 'bench-job-' || lpad(g::text, 4, '0'), '{}'::jsonb, 'SELECT a FROM s', 'files', 'files', 'append',
              '{"type":"processing-time","interval":"1 second"}'::jsonb, '/tmp/bench-cp/' || g, 'RUNNING', 'RUNNING', $1 - 1, now(), now()
       FROM generate_series(1, $2) g`,
      [BATCHES_PER_JOB, JOBS],
    );
    await c.query(
      `INSERT INTO "Run" (id, "jobId", "runId", status, attempt, "startedAt")
       SELECT gen_random_uuid()::text, 'job-' || j, gen_random_uuid()::text, CASE WHEN r = $2 THEN 'RUNNING' ELSE 'FAILED' END::"RunStatus", r - 1, now()
       FROM generate_series(1, $1) j, generate_series(1, $2) r`,
      [JOBS, RUNS_PER_JOB],
    );
    await c.query(
      `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
       SELECT gen_random_uuid()::text, 'job-' || j, b, now() - ((${BATCHES_PER_JOB} - b) || ' seconds')::interval, 100, 100, 1000, (b * 7) % 3000,
              '{"triggerExecution":100,"addBatch":60}'::jsonb, jsonb_build_object('batchId', b, 'numInputRows', 100)
       FROM generate_series(1, $1) j, generate_series(0, $2 - 1) b`,
      [JOBS, BATCHES_PER_JOB],
    );
    await c.query('ANALYZE');
  } finally {
    await c.end();
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export async function run(): Promise<BenchResult[]> {
  const database = await createTestDatabase('weir_bench_metrics');
  const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  try {
    await seed(database.url);
    const scrape = async () => {
      const t0 = performance.now();
      const registry = await collectMetrics({ db, queueCounts: async () => ({ waiting: 0, active: 0 }) });
      const text = await registry.metrics();
      if (!text.includes('weir_job_input_rows_total{job_id="job-1"')) throw new Error('the scrape lacks job-1’s input rows');
      return performance.now() - t0;
    };
    for (let i = 0; i < WARMUP; i++) await scrape();
    const times: number[] = [];
    for (let i = 0; i < SCRAPES; i++) times.push(await scrape());
    times.sort((a, b) => a - b);
    const note = `${JOBS} jobs × ${BATCHES_PER_JOB} batches, ${SCRAPES} scrapes`;
    return [
      { name: 'metrics: scrape median', value: Math.round(percentile(times, 50) * 10) / 10, unit: 'ms', note },
      { name: 'metrics: scrape p95', value: Math.round(percentile(times, 95) * 10) / 10, unit: 'ms', note },
    ];
  } finally {
    await db.$disconnect();
    await database.drop();
  }
}
