-- The jobs list's per-job figures kept in the job's JobCounters row, by the same statement-level
-- triggers on BatchProgress, so a page reads one row per job instead of probing each job's
-- history four times (docs/api.md, Figures): the newest SPARKLINE_BATCHES (30) batches' ids,
-- state rows and commit lags (the sparkline, the latest state rows and lag), the input rows per
-- whole second of the newest minute of trigger times (the input rate), and when the job's
-- history began.
--
-- Recounted, not accumulated: after each statement that writes a job's batches, its recent
-- figures are read again from BatchProgress through the (jobId, batchId DESC) and
-- (jobId, timestamp DESC) indexes (a few dozen rows whatever the length of the history). So
-- they equal what the rows say after any insert, replay (upsert), delete or purge, with no
-- invariant to keep across statements. Concurrent writers: each statement first holds its jobs'
-- counters rows (the lock order of 20261201187000_job_counters_lock_order: history rows, then
-- counters rows in jobId order), and the recount is a later statement of the trigger, so its
-- snapshot sees every writer that held those rows before it; a writer whose trigger has not run
-- yet recounts after this one. Under REPEATABLE READ a concurrent counters update fails the
-- writer (40001) instead of recounting from a stale snapshot.
--
-- The input seconds: seconds (epoch, of trigger times) with batches, from 60 s before the newest
-- batch's second to it, at most 61; a reader at time `now` sums the seconds that start within
-- [now - 60 s, now]. A batch in the window's partial first second is counted from its second's
-- start: the figure is exact for whole-second trigger times and otherwise off by at most one
-- second of input at the edge.
--
-- firstBatchAt is when the job's history began: the earliest trigger time recorded since the
-- history was last empty. Deleting old batches (a retention purge) keeps it, so a purge changes
-- none of the recent figures; deleting every batch (a checkpoint reset) clears it.
--
-- The list columns are nullable only because Prisma declares every list column so; the
-- triggers always write them.
ALTER TABLE "JobCounters"
  ADD COLUMN "recentBatchIds" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
  ADD COLUMN "recentStateRowsTotal" DOUBLE PRECISION[] DEFAULT ARRAY[]::DOUBLE PRECISION[],
  ADD COLUMN "recentCommitLag" DOUBLE PRECISION[] DEFAULT ARRAY[]::DOUBLE PRECISION[],
  ADD COLUMN "inputSeconds" BIGINT[] DEFAULT ARRAY[]::BIGINT[],
  ADD COLUMN "inputRowsBySecond" BIGINT[] DEFAULT ARRAY[]::BIGINT[],
  ADD COLUMN "firstBatchAt" TIMESTAMP(3);

-- Holds the counters rows of these jobs, in jobId order.
-- (PL/pgSQL: PERFORM reads every row, where a SQL function's last SELECT may stop at the first.)
CREATE FUNCTION weir_lock_job_counters(job_ids text[]) RETURNS void
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM 1 FROM "JobCounters" WHERE "jobId" = ANY(job_ids) ORDER BY "jobId" FOR NO KEY UPDATE;
END
$$;

-- Reads the recent figures of these jobs again from their batches. The caller holds their
-- counters rows (see the header: the snapshot must be taken after the lock).
CREATE FUNCTION weir_recount_recent_batches(job_ids text[]) RETURNS void
  LANGUAGE sql
  AS $$
  UPDATE "JobCounters" c SET
    "recentBatchIds" = r.batch_ids,
    "recentStateRowsTotal" = r.state_rows,
    "recentCommitLag" = r.commit_lags,
    "inputSeconds" = w.seconds,
    "inputRowsBySecond" = w.input_rows,
    "firstBatchAt" = CASE WHEN c."batches" > 0 THEN LEAST(c."firstBatchAt", f.first_at) END
  FROM (SELECT DISTINCT job_id FROM unnest(job_ids) AS t(job_id)) j
  CROSS JOIN LATERAL (
    SELECT COALESCE(array_agg(b."batchId" ORDER BY b."batchId"), '{}') AS batch_ids,
           COALESCE(array_agg(b."stateRowsTotal"::float8 ORDER BY b."batchId"), '{}') AS state_rows,
           COALESCE(array_agg(b."commitLag"::float8 ORDER BY b."batchId"), '{}') AS commit_lags
    FROM (SELECT "batchId", "stateRowsTotal", "commitLag" FROM "BatchProgress" WHERE "jobId" = j.job_id ORDER BY "batchId" DESC LIMIT 30) b
  ) r
  CROSS JOIN LATERAL (
    SELECT COALESCE(array_agg(s.second ORDER BY s.second), '{}') AS seconds, COALESCE(array_agg(s.input_rows ORDER BY s.second), '{}') AS input_rows
    FROM (
      SELECT floor(extract(epoch FROM b."timestamp"))::bigint AS second, sum(b."numInputRows")::bigint AS input_rows
      FROM "BatchProgress" b
      WHERE b."jobId" = j.job_id
        AND b."timestamp" >= (SELECT date_trunc('second', max(n."timestamp")) - interval '60 seconds' FROM "BatchProgress" n WHERE n."jobId" = j.job_id)
      GROUP BY 1
    ) s
  ) w
  CROSS JOIN LATERAL (SELECT min(o."timestamp") AS first_at FROM "BatchProgress" o WHERE o."jobId" = j.job_id) f
  WHERE c."jobId" = j.job_id
  $$;

CREATE OR REPLACE FUNCTION weir_count_batches() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  job_ids text[];
BEGIN
  -- Only the branch of this event runs (and is planned): its transition tables exist. An insert
  -- takes its jobs' counters rows in weir_apply_batch_deltas (every inserted batch changes the
  -- count); a replay or a delete may leave every total unchanged, so it takes them first.
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT "jobId") INTO job_ids FROM new_rows;
    PERFORM weir_apply_batch_deltas(array_agg("jobId"), array_agg(1), array_agg("numInputRows"::bigint), array_agg("batchDurationMs")) FROM new_rows;
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT array_agg(DISTINCT job_id) INTO job_ids FROM (SELECT "jobId" AS job_id FROM new_rows UNION SELECT "jobId" FROM old_rows) d;
    PERFORM weir_lock_job_counters(job_ids);
    PERFORM weir_apply_batch_deltas(array_agg(job_id), array_agg(sign), array_agg(input_rows), array_agg(duration_ms))
    FROM (SELECT "jobId" AS job_id, 1 AS sign, "numInputRows"::bigint AS input_rows, "batchDurationMs" AS duration_ms FROM new_rows
          UNION ALL
          SELECT "jobId", -1, "numInputRows"::bigint, "batchDurationMs" FROM old_rows) d;
  ELSE
    SELECT array_agg(DISTINCT "jobId") INTO job_ids FROM old_rows;
    PERFORM weir_lock_job_counters(job_ids);
    PERFORM weir_apply_batch_deltas(array_agg("jobId"), array_agg(-1), array_agg("numInputRows"::bigint), array_agg("batchDurationMs")) FROM old_rows;
  END IF;
  PERFORM weir_recount_recent_batches(job_ids);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION weir_zero_counters() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM 1 FROM "JobCounters" ORDER BY "jobId" FOR NO KEY UPDATE;
  IF TG_TABLE_NAME = 'BatchProgress' THEN
    UPDATE "JobCounters" SET "batches" = 0, "inputRows" = 0, "batchDurationSumMs" = 0, "batchDurationBuckets" = array_fill((0)::bigint, ARRAY[14]),
      "recentBatchIds" = '{}', "recentStateRowsTotal" = '{}', "recentCommitLag" = '{}', "inputSeconds" = '{}', "inputRowsBySecond" = '{}', "firstBatchAt" = NULL;
  ELSE
    UPDATE "JobCounters" SET "restarts" = 0, "failedRuns" = 0;
  END IF;
  RETURN NULL;
END
$$;

-- The history recorded before this migration, once.
SELECT weir_recount_recent_batches(array_agg("jobId")) FROM "JobCounters";
