-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "DesiredState" AS ENUM ('RUNNING', 'STOPPED');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('PENDING', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED', 'RECOVERING');

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('viewer', 'operator', 'admin');

-- CreateEnum
CREATE TYPE "AlertState" AS ENUM ('FIRING', 'RESOLVED');

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "spec" JSONB NOT NULL,
    "sql" TEXT NOT NULL,
    "sourceType" TEXT NOT NULL,
    "sinkType" TEXT NOT NULL,
    "outputMode" TEXT NOT NULL,
    "trigger" JSONB NOT NULL,
    "checkpointLocation" TEXT NOT NULL,
    "guarantee" TEXT,
    "contract" JSONB,
    "desiredState" "DesiredState" NOT NULL DEFAULT 'STOPPED',
    "status" "RunStatus" NOT NULL DEFAULT 'STOPPED',
    "queryId" TEXT,
    "lastBatchId" INTEGER,
    "lastCommittedAt" TIMESTAMP(3),
    "lastError" JSONB,
    "restartPolicy" JSONB,
    "leaseEpoch" INTEGER NOT NULL DEFAULT 0,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "createdBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "workerId" TEXT,
    "status" "RunStatus" NOT NULL DEFAULT 'PENDING',
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "recoveredFromRunId" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),
    "exitReason" TEXT,
    "error" JSONB,
    "leaseEpoch" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BatchProgress" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "runId" TEXT,
    "batchId" INTEGER NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL,
    "numInputRows" INTEGER NOT NULL,
    "inputRowsPerSecond" DOUBLE PRECISION NOT NULL,
    "processedRowsPerSecond" DOUBLE PRECISION NOT NULL,
    "batchDurationMs" INTEGER NOT NULL,
    "durationMs" JSONB NOT NULL,
    "stateRowsTotal" BIGINT NOT NULL DEFAULT 0,
    "stateRowsUpdated" BIGINT NOT NULL DEFAULT 0,
    "stateRowsDroppedByWatermark" BIGINT NOT NULL DEFAULT 0,
    "stateMemoryBytes" BIGINT NOT NULL DEFAULT 0,
    "stateDiskBytes" BIGINT NOT NULL DEFAULT 0,
    "commitLag" BIGINT,
    "watermarkMs" BIGINT,
    "numBadRecords" INTEGER NOT NULL DEFAULT 0,
    "progress" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BatchProgress_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertRule" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "jobId" TEXT,
    "kind" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "webhookUrl" TEXT,
    "webhookSecret" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AlertRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL,
    "ruleId" TEXT,
    "jobId" TEXT,
    "kind" TEXT NOT NULL,
    "state" "AlertState" NOT NULL DEFAULT 'FIRING',
    "dedupKey" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "value" DOUBLE PRECISION,
    "details" JSONB,
    "firedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Alert_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "actorRole" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" TEXT,
    "before" JSONB,
    "after" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Worker" (
    "id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "queueBackend" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastHeartbeatAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "stoppedAt" TIMESTAMP(3),

    CONSTRAINT "Worker_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Job_name_key" ON "Job"("name");

-- CreateIndex
CREATE INDEX "Job_status_idx" ON "Job"("status");

-- CreateIndex
CREATE INDEX "Job_updatedAt_idx" ON "Job"("updatedAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Run_runId_key" ON "Run"("runId");

-- CreateIndex
CREATE INDEX "Run_jobId_startedAt_idx" ON "Run"("jobId", "startedAt" DESC);

-- CreateIndex
CREATE INDEX "BatchProgress_jobId_batchId_idx" ON "BatchProgress"("jobId", "batchId" DESC);

-- CreateIndex
CREATE INDEX "BatchProgress_jobId_timestamp_idx" ON "BatchProgress"("jobId", "timestamp" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "BatchProgress_jobId_batchId_key" ON "BatchProgress"("jobId", "batchId");

-- CreateIndex
CREATE INDEX "AlertRule_jobId_idx" ON "AlertRule"("jobId");

-- CreateIndex
CREATE INDEX "Alert_state_firedAt_idx" ON "Alert"("state", "firedAt" DESC);

-- CreateIndex
CREATE INDEX "Alert_jobId_firedAt_idx" ON "Alert"("jobId", "firedAt" DESC);

-- CreateIndex
CREATE INDEX "Alert_dedupKey_state_idx" ON "Alert"("dedupKey", "state");

-- CreateIndex
CREATE INDEX "AuditEvent_targetType_targetId_createdAt_idx" ON "AuditEvent"("targetType", "targetId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "AuditEvent_createdAt_idx" ON "AuditEvent"("createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "User_username_key" ON "User"("username");

-- CreateIndex
CREATE INDEX "Worker_lastHeartbeatAt_idx" ON "Worker"("lastHeartbeatAt" DESC);

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BatchProgress" ADD CONSTRAINT "BatchProgress_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BatchProgress" ADD CONSTRAINT "BatchProgress_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertRule" ADD CONSTRAINT "AlertRule_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Alert" ADD CONSTRAINT "Alert_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "AlertRule"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Alert" ADD CONSTRAINT "Alert_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

