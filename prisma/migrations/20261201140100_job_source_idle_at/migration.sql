-- When the job last polled its source and found no new data (idle is not stuck).
ALTER TABLE "Job" ADD COLUMN "sourceIdleAt" TIMESTAMP(3);
