-- The jobs list's per-job figures kept in the job's JobCounters row, by the same statement-level
-- triggers on BatchProgress, so a page reads one row per job instead of probing each job's
-- history four times (docs/api.md, Figures): the newest 64 batches (by batch id) with their
-- trigger times, input rows, state rows and commit lags (the sparkline is the last 30 of them,
-- the latest state rows and lag the last), the input rows of the newest minute's older batches
-- per whole second, and when the job's history began.
--
-- Recounted, not accumulated: after each statement that writes a job's batches, its figures are
-- read again from BatchProgress through the (jobId, batchId DESC) and (jobId, timestamp DESC)
-- indexes, so they equal what the rows say after any insert, replay (upsert), delete or purge,
-- with no invariant to keep across statements. A recount reads the newest 64 batches and the
-- newest minute's: bounded for a job that triggers at most once a second, proportional to its
-- batches per minute beyond that. Concurrent writers: each statement first holds its jobs'
-- counters rows (the lock order of 20261201187000_job_counters_lock_order: history rows, then
-- counters rows in jobId order), and the recount is a later statement of the trigger, so its
-- snapshot sees every writer that held those rows before it; a writer whose trigger has not run
-- yet recounts after this one. Under REPEATABLE READ a concurrent counters update fails the
-- writer (40001) instead of recounting from a stale snapshot.
--
-- The input rate: a reader at `now` sums the newest 64 batches that triggered within
-- [now - 60 s, now] and the older batches' seconds (epoch, from 60 s before the newest batch's
-- second) that start within it: exact for a job that triggers up to once a second; a faster
-- one's figure may miss the older batches of the window's partial first second (at most a 60th
-- of it).
--
-- firstBatchAt is when the job's history began: the earliest trigger time recorded since the
-- history was last empty. Deleting old batches (a retention purge) keeps it, so a purge changes
-- none of the recent figures; deleting every batch (a checkpoint reset) clears it.
--
-- The list columns are nullable only because Prisma declares every list column so; the
-- triggers always write them.
ALTER TABLE "JobCounters"
  ADD COLUMN "recentBatchIds" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
  ADD COLUMN "recentTriggerMs" DOUBLE PRECISION[] DEFAULT ARRAY[]::DOUBLE PRECISION[],
  ADD COLUMN "recentInputRows" BIGINT[] DEFAULT ARRAY[]::BIGINT[],
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
-- counters rows (see the header: the snapshot must be taken after the lock). Planned once per
-- session (PL/pgSQL, one generic plan; the plan does not depend on which jobs): planning it on
-- every call, as a SQL function does, costs about 1 ms, more than running it.
CREATE FUNCTION weir_recount_recent_batches(job_ids text[]) RETURNS void
  LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  AS $$
BEGIN
  UPDATE "JobCounters" c SET
    "recentBatchIds" = r.batch_ids,
    "recentTriggerMs" = r.trigger_ms,
    "recentInputRows" = r.input_rows,
    "recentStateRowsTotal" = r.state_rows,
    "recentCommitLag" = r.commit_lags,
    "inputSeconds" = w.seconds,
    "inputRowsBySecond" = w.input_rows,
    "firstBatchAt" = CASE WHEN c."batches" > 0 THEN LEAST(c."firstBatchAt", f.first_at) END
  FROM (SELECT DISTINCT job_id FROM unnest(job_ids) AS t(job_id)) j
  CROSS JOIN LATERAL (
    SELECT COALESCE(array_agg(b."batchId" ORDER BY b."batchId"), '{}') AS batch_ids,
           COALESCE(array_agg((extract(epoch FROM b."timestamp") * 1000)::float8 ORDER BY b."batchId"), '{}') AS trigger_ms,
           COALESCE(array_agg(b."numInputRows"::bigint ORDER BY b."batchId"), '{}') AS input_rows,
           COALESCE(array_agg(b."stateRowsTotal"::float8 ORDER BY b."batchId"), '{}') AS state_rows,
           COALESCE(array_agg(b."commitLag"::float8 ORDER BY b."batchId"), '{}') AS commit_lags,
           count(*) AS n, min(b."batchId") AS oldest
    FROM (SELECT "batchId", "timestamp", "numInputRows", "stateRowsTotal", "commitLag" FROM "BatchProgress"
          WHERE "jobId" = j.job_id ORDER BY "batchId" DESC LIMIT 64) b
  ) r
  CROSS JOIN LATERAL (
    SELECT COALESCE(array_agg(s.second ORDER BY s.second), '{}') AS seconds, COALESCE(array_agg(s.input_rows ORDER BY s.second), '{}') AS input_rows
    FROM (
      SELECT floor(extract(epoch FROM o."timestamp"))::bigint AS second, sum(o."numInputRows")::bigint AS input_rows
      FROM "BatchProgress" o
      -- Through the (jobId, timestamp DESC) index, the minute only: "+ 0" keeps the planner from
      -- walking the job's whole history by batch id instead.
      WHERE r.n = 64 AND o."jobId" = j.job_id AND o."batchId" + 0 < r.oldest
        AND o."timestamp" >= (SELECT date_trunc('second', max(m."timestamp")) - interval '60 seconds' FROM "BatchProgress" m WHERE m."jobId" = j.job_id)
      GROUP BY 1
    ) s
  ) w
  CROSS JOIN LATERAL (SELECT min(o."timestamp") AS first_at FROM "BatchProgress" o WHERE o."jobId" = j.job_id) f
  WHERE c."jobId" = j.job_id;
END
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
      "recentBatchIds" = '{}', "recentTriggerMs" = '{}', "recentInputRows" = '{}', "recentStateRowsTotal" = '{}', "recentCommitLag" = '{}', "inputSeconds" = '{}', "inputRowsBySecond" = '{}', "firstBatchAt" = NULL;
  ELSE
    UPDATE "JobCounters" SET "restarts" = 0, "failedRuns" = 0;
  END IF;
  RETURN NULL;
END
$$;

-- The history recorded before this migration, once.
SELECT weir_recount_recent_batches(array_agg("jobId")) FROM "JobCounters";
