-- Savepoints: consistent copies of a stopped job's checkpoint at its last commit.
CREATE TABLE "Savepoint" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "batchId" INTEGER NOT NULL,
    "location" TEXT NOT NULL,
    "sizeBytes" BIGINT NOT NULL,
    "fileCount" INTEGER NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Savepoint_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "Savepoint_jobId_name_key" ON "Savepoint"("jobId", "name");
CREATE INDEX "Savepoint_jobId_createdAt_idx" ON "Savepoint"("jobId", "createdAt" DESC);

ALTER TABLE "Savepoint" ADD CONSTRAINT "Savepoint_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;
