/**
 * The jobs list's figures beyond the Job row: per job, its input rate over the last minute, its
 * latest batches (commit lag, state rows and a state-rows sparkline over the last
 * SPARKLINE_BATCHES batches) and its firing alerts. `jobFiguresSql` is one correlated subquery
 * per job that the page's own query selects (job-page-presenter.ts), so a page is one round
 * trip: LATERAL reads of each job's newest batches through the (jobId, batchId DESC) and
 * (jobId, timestamp DESC) indexes, so a job with a long history costs the same as a new one, and
 * jobs off the page cost nothing. The sparkline is aggregated in PostgreSQL: the server receives
 * one small JSON object per job, not SPARKLINE_BATCHES rows to map.
 *
 * The rate is the rows of the batches that triggered in the last INPUT_RATE_WINDOW_MS over that
 * window (over the time since the job's first batch, when that is shorter), not the latest
 * batch's own figure: a job whose source went quiet runs no batches, and its last batch's rate
 * would stay on the list for ever.
 */
import { Prisma } from '@/lib/generated/prisma/client';
import type { JobListItem } from './jobs-presenter';

export const SPARKLINE_BATCHES = 30;
/** The jobs list's input rate covers this much recent time. */
export const INPUT_RATE_WINDOW_MS = 60_000;

export interface JobOverview extends JobListItem {
  /** Input rows per second over the last minute (see the header); null before the first batch. */
  inputRowsPerSecond: number | null;
  commitLag: number | null;
  stateRowsTotal: number | null;
  /** State rows total of the last batches, oldest first. */
  stateRowsSparkline: number[];
  firingAlerts: { kind: string; message: string }[];
}

/** What jobFiguresSql gives per job, as JSON. */
export interface JobFiguresRow {
  /** State rows total of the last batches, oldest first; empty before the first batch. */
  spark: number[];
  /** The latest batch's commit lag. */
  lag: number | null;
  /** Input rows of the batches in the window; null without any. */
  rows: number | null;
  /** Trigger time of the window's first batch, epoch ms. */
  firstMs: number | null;
  /** Whether the job has batches before the window. */
  older: boolean;
  alerts: { kind: string; message: string }[] | null;
}

/** Rows per second over the window, or since the job's first batch when it is younger (≥ 1 s). */
function windowRate(f: JobFiguresRow, now: number): number {
  if (f.rows === null || f.firstMs === null) return 0;
  const spanMs = f.older ? INPUT_RATE_WINDOW_MS : Math.min(INPUT_RATE_WINDOW_MS, Math.max(1000, now - f.firstMs));
  return f.rows / (spanMs / 1000);
}

/** The figures of the job whose id is `jobId` (a column of the enclosing query), as one JSON object. */
export function jobFiguresSql(jobId: Prisma.Sql, now: number): Prisma.Sql {
  const from = new Date(now - INPUT_RATE_WINDOW_MS);
  const to = new Date(now);
  return Prisma.sql`(
    SELECT json_build_object(
      'spark', COALESCE(rec.spark, '{}'), 'lag', rec.lag, 'rows', w.rows, 'firstMs', w."firstMs",
      'older', EXISTS (SELECT 1 FROM "BatchProgress" o WHERE o."jobId" = ${jobId} AND o."timestamp" < ${from}),
      'alerts', (SELECT json_agg(json_build_object('kind', a.kind, 'message', a.message) ORDER BY a."firedAt" DESC)
                 FROM "Alert" a WHERE a."jobId" = ${jobId} AND a."state" = 'FIRING'))
    FROM (
      SELECT array_agg(r."stateRowsTotal"::float8 ORDER BY r."batchId") AS spark,
             (array_agg(r."commitLag"::float8 ORDER BY r."batchId" DESC))[1] AS lag
      FROM (SELECT "batchId", "commitLag", "stateRowsTotal" FROM "BatchProgress" WHERE "jobId" = ${jobId} ORDER BY "batchId" DESC LIMIT ${SPARKLINE_BATCHES}) r
    ) rec, (
      SELECT sum("numInputRows")::float8 AS rows, (extract(epoch FROM min("timestamp")) * 1000)::float8 AS "firstMs"
      FROM "BatchProgress" WHERE "jobId" = ${jobId} AND "timestamp" >= ${from} AND "timestamp" <= ${to}
    ) w)`;
}

/** A list item with its figures. */
export function withFigures(item: JobListItem, f: JobFiguresRow, now: number): JobOverview {
  const any = f.spark.length > 0;
  return {
    ...item,
    inputRowsPerSecond: any ? windowRate(f, now) : null,
    commitLag: any ? f.lag : null,
    stateRowsTotal: any ? f.spark[f.spark.length - 1] : null,
    stateRowsSparkline: f.spark,
    firingAlerts: f.alerts ?? [],
  };
}
