-- AlterEnum: a run whose worker died while its job was asked to stop ends LOST (the reconciler).
ALTER TYPE "RunStatus" ADD VALUE 'LOST';
