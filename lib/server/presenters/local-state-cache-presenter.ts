/**
 * The lmdb state store's local caches of one job, for the checkpoint inspector: which machines
 * hold a copy (as their live workers last reported it: worker/local-state-caches.ts), at which
 * version and with how many bytes, and whether the next start on that machine reuses it or
 * rebuilds from the checkpoint (predictCacheLoad, the provider's own rule, read against the
 * checkpoint now). A worker that stopped heartbeating is left out: its report may be stale.
 */
import { z } from 'zod';
import { predictCacheLoad, type CheckpointFileManager, type LocalQueryCache } from '@/lib/engine';
import type { PrismaClient } from '@/lib/generated/prisma/client';

// The report names files the inspector reads from the checkpoint: only a state store's own.
const LocalVersionSchema = z.object({ version: z.number(), checkpoint: z.string(), file: z.string().regex(/^\d+\.(delta|changelog|snapshot)$/).nullable(), crc: z.number() });
const ReportSchema = z.array(
  z.object({
    queryId: z.string(),
    path: z.string(),
    bytes: z.number(),
    modifiedAt: z.number(),
    stores: z.array(z.object({ dir: z.string().regex(/^state\/\d+\/\d+(\/[A-Za-z0-9_-]+)?$/), local: LocalVersionSchema.nullable(), bytes: z.number(), fromThisBoot: z.boolean() })),
  }),
);

interface LocalStoreCacheView {
  /** `state/<op>/<partition>`. */
  dir: string;
  /** The version the cache holds; null when it holds none. */
  version: number | null;
  bytes: number;
  reuse: boolean;
  reason: string;
}

export interface LocalStateCacheView {
  hostname: string;
  /** The live workers reporting this directory (several workers of one machine share it). */
  workerIds: string[];
  /** The query's cache directory on that machine. */
  path: string;
  bytes: number;
  reportedAt: string;
  /** The version a start loads (latest commit + 1; 0 without commits). */
  nextVersion: number;
  stores: LocalStoreCacheView[];
}

export async function localStateCaches(
  db: PrismaClient,
  queryId: string,
  fm: CheckpointFileManager,
  latestCommittedBatch: number | null,
  workerTimeoutMs: number,
  now = new Date(),
): Promise<LocalStateCacheView[]> {
  const workers = await db.worker.findMany({
    where: { stoppedAt: null, lastHeartbeatAt: { gt: new Date(now.getTime() - workerTimeoutMs) }, stateCacheDir: { not: null } },
    orderBy: { id: 'asc' },
    select: { id: true, hostname: true, lastHeartbeatAt: true, stateCaches: true },
  });
  const nextVersion = latestCommittedBatch === null ? 0 : latestCommittedBatch + 1;
  const byDir = new Map<string, { view: LocalStateCacheView; cache: LocalQueryCache }>();
  for (const w of workers) {
    const parsed = ReportSchema.safeParse(w.stateCaches);
    const cache = parsed.success ? parsed.data.find((c) => c.queryId === queryId) : undefined;
    if (!cache) continue;
    const key = `${w.hostname}\0${cache.path}`;
    const seen = byDir.get(key);
    if (seen) {
      seen.view.workerIds.push(w.id);
      continue;
    }
    byDir.set(key, {
      cache,
      view: { hostname: w.hostname, workerIds: [w.id], path: cache.path, bytes: cache.bytes, reportedAt: w.lastHeartbeatAt.toISOString(), nextVersion, stores: [] },
    });
  }
  const out: LocalStateCacheView[] = [];
  for (const { view, cache } of byDir.values()) {
    for (const s of cache.stores) {
      const p = await predictCacheLoad(fm, s, nextVersion);
      view.stores.push({ dir: s.dir, version: s.local?.version ?? null, bytes: s.bytes, ...p });
    }
    out.push(view);
  }
  return out;
}
