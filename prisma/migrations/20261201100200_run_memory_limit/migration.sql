-- AlterTable: the memory limit the worker gave the run's engine (WEIR_RUN_MEMORY_MB), shown on the job page.
ALTER TABLE "Run" ADD COLUMN     "memoryLimitMb" INTEGER;
