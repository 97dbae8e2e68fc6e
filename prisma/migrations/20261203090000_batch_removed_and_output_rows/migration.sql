-- A batch's state rows removed (evicted by the watermark, or removed by the operator) and its
-- rows written to the sink were only in the progress JSON: the state chart drew late rows dropped
-- by the watermark as "evicted", and the Batches table could not show output rows without
-- reading every batch's progress. Batches recorded before this keep their values, read once from
-- the progress JSON here.
ALTER TABLE "BatchProgress"
  ADD COLUMN "stateRowsRemoved" BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN "numOutputRows" BIGINT NOT NULL DEFAULT 0;

UPDATE "BatchProgress" SET
  "stateRowsRemoved" = COALESCE((
    SELECT sum(COALESCE((o->>'numRowsRemoved')::bigint, 0))
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(progress->'stateOperators') = 'array' THEN progress->'stateOperators' ELSE '[]'::jsonb END) o
  ), 0),
  "numOutputRows" = GREATEST(COALESCE((progress->'sink'->>'numOutputRows')::bigint, 0), 0);
