/**
 * The jobs list's figures beyond the Job row: per job, its input rate over the last minute, its
 * latest batches (commit lag, state rows and a state-rows sparkline over the last
 * SPARKLINE_BATCHES batches) and its firing alerts. `jobFiguresSql` reads them from the job's
 * JobCounters row, where BatchProgress's triggers recount them after every write
 * (prisma/migrations/20261201192000_job_counters_recent_batches), so a page reads one row per
 * job, whatever its history, instead of probing the history four times; the page's own query
 * joins it (job-page-presenter.ts), so a page is one round trip and the server receives one small
 * JSON object per job.
 *
 * The rate is the rows of the batches that triggered in the last INPUT_RATE_WINDOW_MS over that
 * window (over the time since the job's history began, when that is shorter), not the latest
 * batch's own figure: a job whose source went quiet runs no batches, and its last batch's rate
 * would stay on the list for ever. The counters keep the newest 64 batches' trigger times
 * exactly and older ones of the newest minute by whole second (a second is in the window when it
 * starts within it), so the figure is exact for a job that triggers up to once a second.
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
  /** When the job's history began (its earliest batch's trigger time), epoch ms. */
  firstMs: number | null;
  alerts: { kind: string; message: string }[] | null;
}

/** Rows per second over the window, or since the job's history began when it is younger (≥ 1 s). */
function windowRate(f: JobFiguresRow, now: number): number {
  if (f.rows === null || f.firstMs === null) return 0;
  const spanMs = Math.min(INPUT_RATE_WINDOW_MS, Math.max(1000, now - f.firstMs));
  return f.rows / (spanMs / 1000);
}

/**
 * The figures of the job whose id is `jobId`, from its counters row `counters` (both columns of
 * the enclosing query; the row may be missing), as one JSON object.
 */
export function jobFiguresSql(jobId: Prisma.Sql, counters: Prisma.Sql, now: number): Prisma.Sql {
  const fromMs = now - INPUT_RATE_WINDOW_MS;
  return Prisma.sql`json_build_object(
      'spark', COALESCE(${counters}."recentStateRowsTotal", '{}'),
      'lag', ${counters}."recentCommitLag"[cardinality(${counters}."recentCommitLag")],
      'rows', (SELECT sum(n)::float8 FROM (
                 SELECT b.n FROM unnest(${counters}."recentTriggerMs", ${counters}."recentInputRows") AS b(ms, n) WHERE b.ms BETWEEN ${fromMs}::float8 AND ${now}::float8
                 UNION ALL
                 SELECT s.n FROM unnest(${counters}."inputSeconds", ${counters}."inputRowsBySecond") AS s(second, n) WHERE s.second * 1000 BETWEEN ${fromMs}::float8 AND ${now}::float8) w),
      'firstMs', (extract(epoch FROM ${counters}."firstBatchAt") * 1000)::float8,
      'alerts', (SELECT json_agg(json_build_object('kind', a.kind, 'message', a.message) ORDER BY a."firedAt" DESC)
                 FROM "Alert" a WHERE a."jobId" = ${jobId} AND a."state" = 'FIRING'))`;
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
