/**
 * Where a job's recent reduce tasks ran: per worker, over its last batches, the tasks, the
 * batches they belonged to, their input and output rows and time, and the retries (a task's
 * attempt after its worker died or it failed). Read from each batch's progress `tasks` (Weir's
 * TaskProgress, recorded by the run's task scheduler); a batch without tasks ran in its run's own
 * process (parallelism 1, or WEIR_TASK_SCHEDULER=local). One query over the job's newest
 * `batches` rows (the jobId+batchId index), aggregated in PostgreSQL.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { findJobOrThrow } from '../job-view';

const DEFAULT_TASK_BATCHES = 20;
const MAX_TASK_BATCHES = 200;

interface WorkerTasks {
  workerId: string;
  tasks: number;
  /** Batches with at least one of this worker's tasks. */
  batches: number;
  inputRows: number;
  rows: number;
  durationMs: number;
  /** Tasks that were a retry (attempt > 1). */
  retries: number;
}

export interface TaskPlacement {
  /** The job's parallelism (state partitions, one reduce task each per stateful stage). */
  parallelism: number;
  /** The batches read: the newest `batches` committed ones. */
  batches: number;
  fromBatchId: number | null;
  toBatchId: number | null;
  /** Of those, the batches that recorded reduce tasks. */
  batchesWithTasks: number;
  /** Most tasks first. */
  workers: WorkerTasks[];
}

interface Row {
  workerId: string | null;
  tasks: number;
  batches: number;
  inputRows: number;
  rows: number;
  durationMs: number;
  retries: number;
  allBatches: number;
  batchesWithTasks: number;
  fromBatchId: number | null;
  toBatchId: number | null;
}

export async function taskPlacement(db: PrismaClient, jobId: string, opts: { batches?: number } = {}): Promise<TaskPlacement> {
  const job = await findJobOrThrow(db, jobId);
  const limit = Math.min(Math.max(opts.batches ?? DEFAULT_TASK_BATCHES, 1), MAX_TASK_BATCHES);
  // Progress is JSON a run wrote: a field of another type counts as absent, never as an error.
  const n = (f: string) => `CASE WHEN jsonb_typeof(t->'${f}') = 'number' THEN (t->>'${f}')::float8 ELSE 0 END`;
  const rows = await db.$queryRawUnsafe<Row[]>(
    `WITH recent AS (
       SELECT "batchId", CASE WHEN jsonb_typeof(progress->'tasks') = 'array' THEN progress->'tasks' ELSE '[]'::jsonb END AS tasks
       FROM "BatchProgress" WHERE "jobId" = $1 ORDER BY "batchId" DESC LIMIT $2),
     summary AS (
       SELECT count(*)::int AS "allBatches", count(*) FILTER (WHERE jsonb_array_length(tasks) > 0)::int AS "batchesWithTasks",
         min("batchId") AS "fromBatchId", max("batchId") AS "toBatchId" FROM recent),
     per AS (
       SELECT t->>'workerId' AS "workerId", count(*)::int AS tasks, count(DISTINCT r."batchId")::int AS batches,
         sum(${n('inputRows')})::float8 AS "inputRows", sum(${n('rows')})::float8 AS rows, sum(${n('durationMs')})::float8 AS "durationMs",
         count(*) FILTER (WHERE ${n('attempt')} > 1)::int AS retries
       FROM recent r, jsonb_array_elements(r.tasks) t
       WHERE jsonb_typeof(t->'workerId') = 'string'
       GROUP BY 1)
     SELECT per.*, summary.* FROM summary LEFT JOIN per ON true ORDER BY per.tasks DESC NULLS LAST, per."workerId"`,
    jobId,
    limit,
  );
  const first = rows[0];
  return {
    parallelism: Number((job.spec as { parallelism?: unknown } | null)?.parallelism ?? 1) || 1,
    batches: first?.allBatches ?? 0,
    fromBatchId: first?.fromBatchId ?? null,
    toBatchId: first?.toBatchId ?? null,
    batchesWithTasks: first?.batchesWithTasks ?? 0,
    workers: rows.filter((r) => r.workerId !== null).map((r) => ({
      workerId: r.workerId!, tasks: r.tasks, batches: r.batches, inputRows: r.inputRows, rows: r.rows, durationMs: r.durationMs, retries: r.retries,
    })),
  };
}
