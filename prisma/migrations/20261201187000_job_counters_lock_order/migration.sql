-- One lock order for everything that writes a job's history: the Job row first (FOR KEY SHARE is
-- enough: only a delete or a key change conflicts with it), then its BatchProgress and Run rows,
-- then its JobCounters row; across jobs, in id order.
--
-- A job deleted while a late batch of its last run was recorded deadlocked (40P01): the run
-- recorder's upsert of a batch already recorded (a replay) locked the BatchProgress row and its
-- counters without touching the Job row (no foreign-key check on that path), then updated the
-- Job row; the delete held the Job row and cascaded to that BatchProgress row. The writers now
-- lock the Job row first (lockJobForHistory in lib/server/job-lifecycle.ts). The triggers must
-- not take the Job row themselves: they run after the statement has locked its history rows,
-- which would be the wrong order again.
--
-- Here: a statement over several jobs (a backfill, a bulk delete, TRUNCATE) locks their counters
-- rows in jobId order, not in the order a hash aggregate happens to give, so two such statements
-- cannot lock two jobs' counters in opposite orders.
CREATE OR REPLACE FUNCTION weir_apply_batch_deltas(job_ids text[], signs integer[], input_rows bigint[], durations_ms integer[]) RETURNS void
  LANGUAGE sql
  AS $$
  WITH d AS (
    SELECT job_id, sign, input_rows, duration_ms FROM unnest(job_ids, signs, input_rows, durations_ms) AS t(job_id, sign, input_rows, duration_ms)
  ), per_job AS (
    SELECT job_id, sum(sign)::bigint AS batches, sum(sign * input_rows)::bigint AS input_rows, sum(sign * duration_ms)::bigint AS duration_ms
    FROM d GROUP BY job_id
  ), per_bucket AS (
    SELECT job_id, weir_batch_duration_bucket(duration_ms) AS bucket, sum(sign)::bigint AS n FROM d GROUP BY 1, 2
  ), buckets AS (
    SELECT j.job_id, array_agg(COALESCE(b.n, 0) ORDER BY i) AS counts
    FROM per_job j CROSS JOIN generate_series(1, 14) i LEFT JOIN per_bucket b ON b.job_id = j.job_id AND b.bucket = i
    GROUP BY j.job_id
  )
  INSERT INTO "JobCounters" AS c ("jobId", "batches", "inputRows", "batchDurationSumMs", "batchDurationBuckets")
  SELECT j.job_id, j.batches, j.input_rows, j.duration_ms, b.counts
  FROM per_job j JOIN buckets b USING (job_id)
  WHERE EXISTS (SELECT 1 FROM "Job" WHERE id = j.job_id)
    AND (j.batches <> 0 OR j.input_rows <> 0 OR j.duration_ms <> 0 OR b.counts <> array_fill((0)::bigint, ARRAY[14]))
  ORDER BY j.job_id
  ON CONFLICT ("jobId") DO UPDATE SET
    "batches" = c."batches" + excluded."batches",
    "inputRows" = c."inputRows" + excluded."inputRows",
    "batchDurationSumMs" = c."batchDurationSumMs" + excluded."batchDurationSumMs",
    "batchDurationBuckets" = weir_add_counts(c."batchDurationBuckets", excluded."batchDurationBuckets")
  $$;

CREATE OR REPLACE FUNCTION weir_apply_run_deltas(job_ids text[], restarts integer[], failed integer[]) RETURNS void
  LANGUAGE sql
  AS $$
  INSERT INTO "JobCounters" AS c ("jobId", "restarts", "failedRuns")
  SELECT job_id, sum(restarts)::bigint, sum(failed)::bigint
  FROM unnest(job_ids, restarts, failed) AS t(job_id, restarts, failed)
  WHERE EXISTS (SELECT 1 FROM "Job" WHERE id = job_id)
  GROUP BY job_id
  HAVING sum(restarts) <> 0 OR sum(failed) <> 0
  ORDER BY job_id
  ON CONFLICT ("jobId") DO UPDATE SET
    "restarts" = c."restarts" + excluded."restarts",
    "failedRuns" = c."failedRuns" + excluded."failedRuns"
  $$;

CREATE OR REPLACE FUNCTION weir_zero_counters() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM 1 FROM "JobCounters" ORDER BY "jobId" FOR NO KEY UPDATE;
  IF TG_TABLE_NAME = 'BatchProgress' THEN
    UPDATE "JobCounters" SET "batches" = 0, "inputRows" = 0, "batchDurationSumMs" = 0, "batchDurationBuckets" = array_fill((0)::bigint, ARRAY[14]);
  ELSE
    UPDATE "JobCounters" SET "restarts" = 0, "failedRuns" = 0;
  END IF;
  RETURN NULL;
END
$$;
