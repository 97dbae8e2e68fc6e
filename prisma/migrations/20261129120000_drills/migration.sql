-- CreateTable
CREATE TABLE "Drill" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "point" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'REQUESTED',
    "requestedBy" TEXT NOT NULL,
    "batchId" INTEGER,
    "crashedRunId" TEXT,
    "recoveryRunId" TEXT,
    "audit" JSONB,
    "error" TEXT,
    "requestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "crashedAt" TIMESTAMP(3),
    "recoveredAt" TIMESTAMP(3),

    CONSTRAINT "Drill_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Drill_jobId_requestedAt_idx" ON "Drill"("jobId", "requestedAt" DESC);

-- AddForeignKey
ALTER TABLE "Drill" ADD CONSTRAINT "Drill_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;
