-- The lmdb state store's local caches each worker holds, reported at its heartbeat.
ALTER TABLE "Worker" ADD COLUMN "stateCacheDir" TEXT;
ALTER TABLE "Worker" ADD COLUMN "stateCaches" JSONB;
