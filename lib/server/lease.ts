/**
 * The checkpoint lease: at most one runner writes a job's checkpoint at a time.
 *
 * A run acquires the lease (owner = its runId) only when it is free or expired, and the
 * acquisition increments the job's fencing epoch. Before every checkpoint log write and every
 * sink write the engine calls `fence()`, which renews the lease only if this run still owns it at
 * the same epoch (expired or not: see renewLease); otherwise it throws LeaseLostError and the run writes
 * nothing more. So a worker paused past its lease (GC, SIGSTOP, a partition) that wakes up after
 * another worker took over finds its epoch stale and stops: a zombie cannot write. Times are the
 * database's (now()), so clocks on different machines do not matter. The engine's create-if-absent
 * log writes are the second line of defence (ConcurrentStreamLogUpdateError).
 */
import type { PrismaClient } from '@/lib/generated/prisma/client';

export class LeaseLostError extends Error {
  readonly code = 'LEASE_LOST';
  constructor(jobId: string, owner: string, epoch: number) {
    super(
      `Run ${owner} lost the checkpoint lease of job ${jobId} (epoch ${epoch}): another run owns it now, so this one stops without writing.`,
    );
  }
}

export interface Lease {
  jobId: string;
  owner: string;
  epoch: number;
  /** The run that held the lease before (it died or stopped without releasing), if any. */
  previousOwner: string | null;
}

export interface LeaseHeartbeat {
  desiredState: string;
  status: string;
  /** The job's newest drill still in progress, if any (worker/run-processor.ts acts on it). */
  drill: { id: string; point: string; status: string } | null;
}

export async function acquireLease(db: PrismaClient, jobId: string, owner: string, ttlMs: number): Promise<Lease | null> {
  const rows = await db.$queryRawUnsafe<{ leaseEpoch: number; previousOwner: string | null }[]>(
    // The FROM subquery reads the row as it was before this UPDATE, so it yields the previous
    // owner. (A CTE with FOR UPDATE does not: it returned NULL here.) Under a race the loser's
    // WHERE is re-checked against the winner's row and fails, so only one acquirer wins.
    `UPDATE "Job" j SET "leaseOwner" = $2, "leaseEpoch" = j."leaseEpoch" + 1,
            "leaseExpiresAt" = now() + ($3::int * interval '1 millisecond')
     FROM (SELECT id, "leaseOwner" AS prev FROM "Job" WHERE id = $1) p
     WHERE j.id = p.id AND (j."leaseOwner" IS NULL OR j."leaseExpiresAt" IS NULL OR j."leaseExpiresAt" < now())
     RETURNING j."leaseEpoch" AS "leaseEpoch", p.prev AS "previousOwner"`,
    jobId,
    owner,
    ttlMs,
  );
  if (rows.length === 0) return null;
  return { jobId, owner, epoch: Number(rows[0].leaseEpoch), previousOwner: rows[0].previousOwner };
}

/**
 * Renews the lease if this run still holds it; returns the job's desired state and status (so
 * the same round trip tells the run whether to stop). Throws LeaseLostError otherwise.
 * A lease that expired while nobody took it (same owner, same epoch: the database was
 * unreachable for longer than the TTL) is still this run's: no other runner can have written,
 * since writing needs the lease and taking it bumps the epoch.
 */
export async function renewLease(db: PrismaClient, lease: Lease, ttlMs: number): Promise<LeaseHeartbeat> {
  const rows = await db.$queryRawUnsafe<LeaseHeartbeat[]>(
    `UPDATE "Job" SET "leaseExpiresAt" = now() + ($4::int * interval '1 millisecond')
     WHERE id = $1 AND "leaseOwner" = $2 AND "leaseEpoch" = $3
     RETURNING "desiredState"::text AS "desiredState", status::text AS status,
       (SELECT json_build_object('id', d.id, 'point', d.point, 'status', d.status) FROM "Drill" d
         WHERE d."jobId" = $1 AND d.status IN ('REQUESTED', 'ARMED', 'CRASHED') ORDER BY d."requestedAt" DESC LIMIT 1) AS drill`,
    lease.jobId,
    lease.owner,
    lease.epoch,
    ttlMs,
  );
  if (rows.length === 0) throw new LeaseLostError(lease.jobId, lease.owner, lease.epoch);
  return rows[0];
}

export async function releaseLease(db: PrismaClient, lease: Lease): Promise<void> {
  await db.$executeRawUnsafe(
    `UPDATE "Job" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL WHERE id = $1 AND "leaseOwner" = $2 AND "leaseEpoch" = $3`,
    lease.jobId,
    lease.owner,
    lease.epoch,
  );
}
