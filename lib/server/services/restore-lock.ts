/**
 * One restore of a job's checkpoint at a time, and no run meanwhile. A restore deletes the
 * checkpoint and writes another: two at once interleaved their files (one failed on "commits/0
 * already exists", or both "succeeded" on a mixed checkpoint). So a restore takes the job's
 * checkpoint lease (lease.ts), the one a run needs to write, as owner `restore:<uuid>`, renews it
 * while it writes, and releases it when done. A second restore finds it taken: 409 saying
 * another restore is in progress. A run started meanwhile waits for the lease as it would for
 * another run. A restore that dies (its process killed) leaves the lease to expire after TTL_MS.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { ConflictError } from '../errors';
import { acquireLease, LeaseLostError, releaseLease, renewLease } from '../lease';

const OWNER_PREFIX = 'restore:';
const TTL_MS = 30_000;
const RENEW_MS = 5_000;

export interface RestoreLock {
  /** Throws if the lease was lost (renewals failed past its TTL and someone else took it). */
  assertHeld(): void;
  release(): Promise<void>;
}

export async function lockForRestore(db: PrismaClient, job: { id: string; name: string }): Promise<RestoreLock> {
  const lease = await acquireLease(db, job.id, `${OWNER_PREFIX}${randomUUID()}`, TTL_MS);
  if (!lease) {
    const holder = await db.job.findUnique({ where: { id: job.id }, select: { leaseOwner: true } });
    if (holder?.leaseOwner?.startsWith(OWNER_PREFIX) ?? true) {
      throw new ConflictError(
        `Another restore of ${job.name} is in progress (it holds the job's checkpoint until it ends), so this one was not applied. ` +
          `Wait for it to end, then look at the job (GET /api/jobs/${job.id}) and its audit log: if it restored the savepoint you wanted, there is nothing left to do; otherwise send this restore again.`,
        { jobId: job.id, holder: 'restore' },
      );
    }
    throw new ConflictError(
      `A run of ${job.name} (${holder!.leaseOwner}) still holds the job's checkpoint lease, so nothing was restored. Wait until the job shows no active run (GET /api/jobs/${job.id}/runs), then send the restore again.`,
      { jobId: job.id, holder: 'run', owner: holder!.leaseOwner },
    );
  }
  let lost: Error | undefined;
  const timer = setInterval(() => {
    renewLease(db, lease, TTL_MS).catch((e: unknown) => {
      if (e instanceof LeaseLostError) lost = e;
    });
  }, RENEW_MS);
  timer.unref();
  return {
    assertHeld() {
      if (lost) {
        throw new ConflictError(`The restore of ${job.name} lost the job's checkpoint lease (the database did not answer its renewals in time, and a run or another restore took it), so it stopped writing. Look at the job (GET /api/jobs/${job.id}), then send the restore again.`, { jobId: job.id });
      }
    },
    async release() {
      clearInterval(timer);
      await releaseLease(db, lease);
    },
  };
}
