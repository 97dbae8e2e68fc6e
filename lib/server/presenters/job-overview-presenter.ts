/**
 * The jobs list's figures beyond the Job row: per job, its input rate over the last minute, its
 * latest batches (commit lag, state rows and a state-rows sparkline over the last
 * SPARKLINE_BATCHES batches) and its firing alerts. `jobOverviewFieldsSql` reads them from the
 * job's JobCounters row, where BatchProgress's triggers recount them after every write
 * (prisma/migrations/20261201192000_job_counters_recent_batches), so a page reads one row per
 * job, whatever its history, instead of probing the history four times. They are computed in
 * PostgreSQL as the API shows them: the page's own query joins the row and builds each item's
 * JSON (job-page-presenter.ts), so a page is one round trip and its text goes out as it came.
 *
 * The rate is the rows of the batches that triggered in the last INPUT_RATE_WINDOW_MS over that
 * window (over the time since the job's history began, when that is shorter, and at least 1 s),
 * not the latest batch's own figure: a job whose source went quiet runs no batches, and its last
 * batch's rate would stay on the list for ever. The counters keep the newest 64 batches' trigger
 * times exactly and the older ones of the newest minute by whole second (a second is in the
 * window when it starts within it), so the figure is exact for a job that triggers up to once a
 * second.
 */
import { Prisma } from '@/lib/generated/prisma/client';
import type { JobListItem } from '../job-view';

/** The list shows this many batches' state rows (of the 64 the counters keep). */
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

/**
 * The JobOverview fields beyond JobListItem's, as `key, value` pairs of a json_build_object, for
 * the job whose id is `jobId` with its counters row `counters` (columns of the enclosing query;
 * the row may be missing) and the input rows of its window `windowRows` (windowRowsSql).
 */
export function jobOverviewFieldsSql(jobId: Prisma.Sql, counters: Prisma.Sql, windowRows: Prisma.Sql, now: number): Prisma.Sql {
  const any = Prisma.sql`cardinality(${counters}."recentStateRowsTotal") > 0`;
  const firstMs = Prisma.sql`(extract(epoch FROM ${counters}."firstBatchAt") * 1000)::float8`;
  const spanS = Prisma.sql`(CASE WHEN ${counters}."firstBatchAt" IS NOT NULL THEN LEAST(${INPUT_RATE_WINDOW_MS}::float8, GREATEST(1000::float8, ${now}::float8 - ${firstMs})) / 1000 END)`;
  return Prisma.sql`
    'inputRowsPerSecond', CASE WHEN ${any} THEN COALESCE(${windowRows} / ${spanS}, 0::float8) END,
    'commitLag', CASE WHEN ${any} THEN ${counters}."recentCommitLag"[cardinality(${counters}."recentCommitLag")] END,
    'stateRowsTotal', ${counters}."recentStateRowsTotal"[cardinality(${counters}."recentStateRowsTotal")],
    'stateRowsSparkline', COALESCE(${counters}."recentStateRowsTotal"[GREATEST(1, cardinality(${counters}."recentStateRowsTotal") - ${SPARKLINE_BATCHES - 1}):], '{}'),
    'firingAlerts', COALESCE((SELECT json_agg(json_build_object('kind', a.kind, 'message', a.message) ORDER BY a."firedAt" DESC)
                              FROM "Alert" a WHERE a."jobId" = ${jobId} AND a."state" = 'FIRING'), '[]')`;
}

/** The input rows of the batches in the window ending at `now`, from counters row `counters` (null without any). */
export function windowRowsSql(counters: Prisma.Sql, now: number): Prisma.Sql {
  const fromMs = now - INPUT_RATE_WINDOW_MS;
  return Prisma.sql`(SELECT sum(n)::float8 FROM (
      SELECT b.n FROM unnest(${counters}."recentTriggerMs", ${counters}."recentInputRows") AS b(ms, n) WHERE b.ms BETWEEN ${fromMs}::float8 AND ${now}::float8
      UNION ALL
      SELECT s.n FROM unnest(${counters}."inputSeconds", ${counters}."inputRowsBySecond") AS s(second, n) WHERE s.second * 1000 BETWEEN ${fromMs}::float8 AND ${now}::float8) w)`;
}
