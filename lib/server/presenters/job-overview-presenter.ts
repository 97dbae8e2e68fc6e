/**
 * The jobs list's figures beyond the Job row: per job, its input rate over the last minute, its
 * latest batches (commit lag, state rows and a state-rows sparkline over the last
 * SPARKLINE_BATCHES batches) and its firing alerts, for one page of jobs. One query per concern,
 * whatever the number of jobs on the page: LATERAL joins over the page's ids read each job's
 * newest batches through the (jobId, batchId DESC) and (jobId, timestamp DESC) indexes, so a job
 * with a long history costs the same as a new one, and jobs off the page cost nothing.
 *
 * The rate is the rows of the batches that triggered in the last INPUT_RATE_WINDOW_MS over that
 * window (over the time since the job's first batch, when that is shorter), not the latest
 * batch's own figure: a job whose source went quiet runs no batches, and its last batch's rate
 * would stay on the list for ever.
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';
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

interface RecentRow {
  jobId: string;
  batchId: number;
  commitLag: number | null;
  stateRowsTotal: number;
}

interface WindowRow {
  jobId: string;
  /** Input rows of the batches in the window; null without any. */
  rows: number | null;
  /** Trigger time of the window's first batch, epoch ms. */
  firstMs: number | null;
  /** Whether the job has batches before the window. */
  older: boolean;
}

/** Rows per second over the window, or since the job's first batch when it is younger (≥ 1 s). */
function windowRate(w: WindowRow | undefined, now: number): number {
  if (!w || w.rows === null || w.firstMs === null) return 0;
  const spanMs = w.older ? INPUT_RATE_WINDOW_MS : Math.min(INPUT_RATE_WINDOW_MS, Math.max(1000, now - w.firstMs));
  return w.rows / (spanMs / 1000);
}

/** The figures of `jobs` (one page of the list), in their order: three queries, whatever their number. */
export async function jobFigures(db: PrismaClient, jobs: JobListItem[], now = Date.now()): Promise<JobOverview[]> {
  if (jobs.length === 0) return [];
  const ids = jobs.map((j) => j.id);
  const from = new Date(now - INPUT_RATE_WINDOW_MS);
  const to = new Date(now);
  const [recent, windows, alerts] = await Promise.all([
    db.$queryRaw<RecentRow[]>`
      SELECT j.id AS "jobId", b."batchId",
             b."commitLag"::float8 AS "commitLag", b."stateRowsTotal"::float8 AS "stateRowsTotal"
      FROM unnest(${ids}::text[]) AS j(id) CROSS JOIN LATERAL (
        SELECT "batchId", "commitLag", "stateRowsTotal" FROM "BatchProgress"
        WHERE "jobId" = j.id ORDER BY "batchId" DESC LIMIT ${SPARKLINE_BATCHES}
      ) b`,
    db.$queryRaw<WindowRow[]>`
      SELECT j.id AS "jobId", w.rows::float8 AS "rows", (extract(epoch FROM w.first) * 1000)::float8 AS "firstMs",
             EXISTS (SELECT 1 FROM "BatchProgress" p WHERE p."jobId" = j.id AND p."timestamp" < ${from}) AS "older"
      FROM unnest(${ids}::text[]) AS j(id) CROSS JOIN LATERAL (
        SELECT sum("numInputRows") AS rows, min("timestamp") AS first FROM "BatchProgress"
        WHERE "jobId" = j.id AND "timestamp" >= ${from} AND "timestamp" <= ${to}
      ) w`,
    db.alert.findMany({ where: { state: 'FIRING', jobId: { in: ids } }, select: { jobId: true, kind: true, message: true }, orderBy: { firedAt: 'desc' } }),
  ]);
  const byJob = new Map<string, RecentRow[]>();
  for (const r of recent) {
    let list = byJob.get(r.jobId);
    if (!list) byJob.set(r.jobId, (list = []));
    list.push(r);
  }
  const windowOf = new Map(windows.map((w) => [w.jobId, w]));
  const alertsOf = new Map<string, { kind: string; message: string }[]>();
  for (const a of alerts) {
    let list = alertsOf.get(a.jobId!);
    if (!list) alertsOf.set(a.jobId!, (list = []));
    list.push({ kind: a.kind, message: a.message });
  }
  return jobs.map((j) => {
    const rows = (byJob.get(j.id) ?? []).sort((a, b) => a.batchId - b.batchId);
    const latest = rows.at(-1);
    return {
      ...j,
      inputRowsPerSecond: latest ? windowRate(windowOf.get(j.id), now) : null,
      commitLag: latest?.commitLag == null ? null : Number(latest.commitLag),
      stateRowsTotal: latest ? Number(latest.stateRowsTotal) : null,
      stateRowsSparkline: rows.map((r) => Number(r.stateRowsTotal)),
      firingAlerts: alertsOf.get(j.id) ?? [],
    };
  });
}

