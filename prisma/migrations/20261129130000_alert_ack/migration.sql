-- AlterTable: who acknowledged a firing alert, and when.
ALTER TABLE "Alert" ADD COLUMN "acknowledgedAt" TIMESTAMP(3),
ADD COLUMN "acknowledgedBy" TEXT;
