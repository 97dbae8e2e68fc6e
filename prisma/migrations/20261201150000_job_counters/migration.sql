-- Running totals of each job's batch and run history, so a /metrics scrape reads one row per job
-- instead of aggregating every batch ever recorded (Prometheus scrapes every 15 s, forever).
--
-- Statement-level triggers with transition tables keep them, rather than the application: every
-- writer of BatchProgress and Run (the run recorder's upsert, a backfill's createMany, a
-- checkpoint reset's deleteMany, a job's cascade, a bench or test seeding rows in SQL) keeps the
-- totals equal to the sums over the rows still recorded, in the writer's own transaction, at the
-- cost of one counters update per statement whatever its number of rows. A deleted history (a
-- checkpoint reset) therefore reads as a counter reset, as it did when each scrape summed it.
-- batchDurationBuckets is nullable only because Prisma declares every list column so (a NOT NULL
-- would show as drift in `prisma migrate diff`); the triggers always write all 14 entries.
CREATE TABLE "JobCounters" (
    "jobId" TEXT NOT NULL,
    "batches" BIGINT NOT NULL DEFAULT 0,
    "inputRows" BIGINT NOT NULL DEFAULT 0,
    "batchDurationSumMs" BIGINT NOT NULL DEFAULT 0,
    "batchDurationBuckets" BIGINT[] DEFAULT array_fill((0)::bigint, ARRAY[14]),
    "restarts" BIGINT NOT NULL DEFAULT 0,
    "failedRuns" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "JobCounters_pkey" PRIMARY KEY ("jobId")
);

ALTER TABLE "JobCounters" ADD CONSTRAINT "JobCounters_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The runs a worker holds now, for /metrics' runs-held gauge, without reading every run ever started.
CREATE INDEX "Run_workerId_endedAt_idx" ON "Run"("workerId", "endedAt");

-- The 1-based histogram bucket of a batch duration: the first bound (ms) that holds it, 14 past
-- the last. The bounds are /metrics' BATCH_DURATION_BUCKETS_S in milliseconds (a test checks they
-- agree). Durations are whole milliseconds and so are the bounds: width_bucket over
-- `duration - 0.5` counts the bounds strictly below the duration.
CREATE FUNCTION weir_batch_duration_bucket(duration_ms integer) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT width_bucket(duration_ms - 0.5, ARRAY[10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000]::float8[]) + 1 $$;

-- Element-wise sum of two count arrays of the same length.
CREATE FUNCTION weir_add_counts(a bigint[], b bigint[]) RETURNS bigint[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT array_agg(COALESCE(x, 0) + COALESCE(y, 0) ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS t(x, y, i) $$;

-- Adds signed batch rows (+1 recorded, -1 removed) to their jobs' totals. A job that no longer
-- exists (its delete cascading to its batches) is skipped.
CREATE FUNCTION weir_apply_batch_deltas(job_ids text[], signs integer[], input_rows bigint[], durations_ms integer[]) RETURNS void
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
  ON CONFLICT ("jobId") DO UPDATE SET
    "batches" = c."batches" + excluded."batches",
    "inputRows" = c."inputRows" + excluded."inputRows",
    "batchDurationSumMs" = c."batchDurationSumMs" + excluded."batchDurationSumMs",
    "batchDurationBuckets" = weir_add_counts(c."batchDurationBuckets", excluded."batchDurationBuckets")
  $$;

-- Adds signed run rows to their jobs' restart and failure totals (a status change is the old row
-- removed and the new one added).
CREATE FUNCTION weir_apply_run_deltas(job_ids text[], restarts integer[], failed integer[]) RETURNS void
  LANGUAGE sql
  AS $$
  INSERT INTO "JobCounters" AS c ("jobId", "restarts", "failedRuns")
  SELECT job_id, sum(restarts)::bigint, sum(failed)::bigint
  FROM unnest(job_ids, restarts, failed) AS t(job_id, restarts, failed)
  WHERE EXISTS (SELECT 1 FROM "Job" WHERE id = job_id)
  GROUP BY job_id
  HAVING sum(restarts) <> 0 OR sum(failed) <> 0
  ON CONFLICT ("jobId") DO UPDATE SET
    "restarts" = c."restarts" + excluded."restarts",
    "failedRuns" = c."failedRuns" + excluded."failedRuns"
  $$;

CREATE FUNCTION weir_count_batches() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  -- Only the branch of this event runs (and is planned): its transition tables exist.
  IF TG_OP = 'INSERT' THEN
    PERFORM weir_apply_batch_deltas(array_agg("jobId"), array_agg(1), array_agg("numInputRows"::bigint), array_agg("batchDurationMs")) FROM new_rows;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM weir_apply_batch_deltas(array_agg(job_id), array_agg(sign), array_agg(input_rows), array_agg(duration_ms))
    FROM (SELECT "jobId" AS job_id, 1 AS sign, "numInputRows"::bigint AS input_rows, "batchDurationMs" AS duration_ms FROM new_rows
          UNION ALL
          SELECT "jobId", -1, "numInputRows"::bigint, "batchDurationMs" FROM old_rows) d;
  ELSE
    PERFORM weir_apply_batch_deltas(array_agg("jobId"), array_agg(-1), array_agg("numInputRows"::bigint), array_agg("batchDurationMs")) FROM old_rows;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION weir_count_runs() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM weir_apply_run_deltas(array_agg("jobId"), array_agg(("attempt" > 0 OR "recoveredFromRunId" IS NOT NULL)::integer), array_agg(("status" = 'FAILED')::integer))
    FROM new_rows;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM weir_apply_run_deltas(array_agg(job_id), array_agg(restarts), array_agg(failed))
    FROM (SELECT "jobId" AS job_id, ("attempt" > 0 OR "recoveredFromRunId" IS NOT NULL)::integer AS restarts, ("status" = 'FAILED')::integer AS failed FROM new_rows
          UNION ALL
          SELECT "jobId", -("attempt" > 0 OR "recoveredFromRunId" IS NOT NULL)::integer, -("status" = 'FAILED')::integer FROM old_rows) d;
  ELSE
    PERFORM weir_apply_run_deltas(array_agg("jobId"), array_agg(-("attempt" > 0 OR "recoveredFromRunId" IS NOT NULL)::integer), array_agg(-("status" = 'FAILED')::integer))
    FROM old_rows;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "BatchProgress_counters_insert" AFTER INSERT ON "BatchProgress"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION weir_count_batches();
CREATE TRIGGER "BatchProgress_counters_update" AFTER UPDATE ON "BatchProgress"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION weir_count_batches();
CREATE TRIGGER "BatchProgress_counters_delete" AFTER DELETE ON "BatchProgress"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION weir_count_batches();
CREATE TRIGGER "Run_counters_insert" AFTER INSERT ON "Run"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION weir_count_runs();
CREATE TRIGGER "Run_counters_update" AFTER UPDATE ON "Run"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION weir_count_runs();
CREATE TRIGGER "Run_counters_delete" AFTER DELETE ON "Run"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION weir_count_runs();

-- TRUNCATE fires no row or delete triggers: an emptied table zeroes its totals.
CREATE FUNCTION weir_zero_counters() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF TG_TABLE_NAME = 'BatchProgress' THEN
    UPDATE "JobCounters" SET "batches" = 0, "inputRows" = 0, "batchDurationSumMs" = 0, "batchDurationBuckets" = array_fill((0)::bigint, ARRAY[14]);
  ELSE
    UPDATE "JobCounters" SET "restarts" = 0, "failedRuns" = 0;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "BatchProgress_counters_truncate" AFTER TRUNCATE ON "BatchProgress" FOR EACH STATEMENT EXECUTE FUNCTION weir_zero_counters();
CREATE TRIGGER "Run_counters_truncate" AFTER TRUNCATE ON "Run" FOR EACH STATEMENT EXECUTE FUNCTION weir_zero_counters();

-- The history recorded before this migration, once.
SELECT weir_apply_batch_deltas(array_agg("jobId"), array_agg(1), array_agg("numInputRows"::bigint), array_agg("batchDurationMs")) FROM "BatchProgress";
SELECT weir_apply_run_deltas(array_agg("jobId"), array_agg(("attempt" > 0 OR "recoveredFromRunId" IS NOT NULL)::integer), array_agg(("status" = 'FAILED')::integer)) FROM "Run";
