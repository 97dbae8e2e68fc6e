-- The worker heap figure /metrics exports (written by each heartbeat).
ALTER TABLE "Worker" ADD COLUMN "heapUsedBytes" BIGINT;
