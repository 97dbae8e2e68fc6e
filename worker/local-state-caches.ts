/**
 * The lmdb state store's local caches on this worker's machine (`<WEIR_DATA_DIR>/state-cache`,
 * one directory per query id): reported at every heartbeat, so the checkpoint inspector can show
 * them though the control plane may not see this disk; and removed once no job names their
 * query id any more (the job was deleted, its checkpoint reset, or a savepoint restored over it
 * gave it a new query id), since nothing will load them again and they may be large. Every
 * worker sweeps its own machine, so a cache goes wherever the delete was made.
 */
import path from 'node:path';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { listLocalStateCaches, removeLocalStateCache, type LocalQueryCache } from '@/lib/engine';

export const stateCacheDirOf = (dataDir: string) => path.join(dataDir, 'state-cache');

/**
 * How long a cache no job names is kept after its last write: a run's first start opens its
 * cache before the worker records the new query id on the job (run-processor.ts), and that cache
 * must not go in between.
 */
const UNNAMED_GRACE_MS = 60_000;

/** Removes the caches of query ids no job has (older than the grace); returns those left. */
export async function sweepStateCaches(db: PrismaClient, stateCacheDir: string, opts: { now?: number; graceMs?: number } = {}): Promise<LocalQueryCache[]> {
  const caches = await listLocalStateCaches(stateCacheDir);
  if (caches.length === 0) return caches;
  const named = new Set(
    (await db.job.findMany({ where: { queryId: { in: caches.map((c) => c.queryId) } }, select: { queryId: true } })).map((j) => j.queryId),
  );
  const cutoff = (opts.now ?? Date.now()) - (opts.graceMs ?? UNNAMED_GRACE_MS);
  const kept: LocalQueryCache[] = [];
  for (const c of caches) {
    if (!named.has(c.queryId) && c.modifiedAt < cutoff) await removeLocalStateCache(stateCacheDir, c.queryId);
    else kept.push(c);
  }
  return kept;
}

/** What the heartbeat writes on the Worker row. */
export async function stateCacheReport(db: PrismaClient, stateCacheDir: string): Promise<{ stateCacheDir: string; stateCaches: Prisma.InputJsonValue }> {
  const caches = await sweepStateCaches(db, stateCacheDir);
  return { stateCacheDir, stateCaches: JSON.parse(JSON.stringify(caches)) as Prisma.InputJsonValue };
}
