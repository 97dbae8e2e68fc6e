/**
 * The LMDB provider's local caches on one machine, seen from outside the runs that use them: what
 * a worker reports about its data directory (which queries' stores it holds, at which version,
 * how many bytes), whether the next load of a store reuses its cache or rebuilds it from the
 * checkpoint (the provider's own rule: `localCacheMatches`), and removing the caches of a query
 * that no job has any more.
 *
 * Layout (query-runtime.ts, lmdb-state-store-provider.ts): `<stateCacheDir>/<queryId>/` holds one
 * LMDB environment per store at `state/<op>/<partition>[/<store>]/`, each with its `boot-id` file
 * and the `meta` record saying which version of which checkpoint it holds (lmdb-environment.ts).
 * The environments are read in LMDB read-only transactions, so a run committing batches into one
 * meanwhile is neither blocked nor disturbed.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { open } from 'lmdb';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { checkStateFile, parseStateFileName } from './state-file-format';
import { fromThisBoot, type LocalVersion } from './lmdb-environment';

/** One store's local environment. */
export interface LocalStoreCache {
  /** The store's directory in the checkpoint (and under the query's cache directory): `state/<op>/<partition>`. */
  dir: string;
  /** What the environment holds; null when it holds nothing readable yet (never loaded, or cleared). */
  local: LocalVersion | null;
  /** Bytes the environment's files take on the disk. */
  bytes: number;
  /** Written during this boot of the machine: an environment from an earlier boot is cleared by the next load. */
  fromThisBoot: boolean;
}

/** One query's caches in a state cache directory. */
export interface LocalQueryCache {
  queryId: string;
  /** The query's cache directory on this machine. */
  path: string;
  bytes: number;
  /** The newest change to any of its files, epoch ms. */
  modifiedAt: number;
  stores: LocalStoreCache[];
}

interface DirStats {
  bytes: number;
  modifiedAt: number;
}

/** Bytes on the disk (allocated blocks: LMDB's data file may be sparse) and newest mtime of the files in `dir`, not below. */
async function filesIn(dir: string): Promise<DirStats> {
  const out = { bytes: 0, modifiedAt: 0 };
  for (const d of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (!d.isFile()) continue;
    const st = await lstat(path.join(dir, d.name)).catch(() => null);
    if (!st) continue;
    out.bytes += st.blocks * 512;
    out.modifiedAt = Math.max(out.modifiedAt, st.mtimeMs);
  }
  return out;
}

/** The `meta` record of the environment at `envPath`, read-only; null when it has none. */
function readLocalVersion(envPath: string): LocalVersion | null {
  let env;
  try {
    env = open({ path: envPath, maxDbs: 4, readOnly: true });
  } catch {
    return null;
  }
  try {
    return env.openDB<LocalVersion, string>({ name: 'meta', encoding: 'json' }).get('version') ?? null;
  } catch {
    return null;
  } finally {
    void env.close();
  }
}

/** The store environments under one query's cache directory (every directory holding a data.mdb). */
async function storesUnder(root: string, rel: string, out: LocalStoreCache[], stats: DirStats): Promise<void> {
  const dir = path.join(root, rel);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const here = await filesIn(dir);
  stats.bytes += here.bytes;
  stats.modifiedAt = Math.max(stats.modifiedAt, here.modifiedAt);
  if (entries.some((d) => d.isFile() && d.name === 'data.mdb')) {
    out.push({ dir: rel.split(path.sep).join('/'), local: readLocalVersion(dir), bytes: here.bytes, fromThisBoot: fromThisBoot(dir) });
  }
  for (const d of entries) if (d.isDirectory()) await storesUnder(root, rel ? path.join(rel, d.name) : d.name, out, stats);
}

/** Every query's caches under `stateCacheDir` (a worker's `<data dir>/state-cache`); [] when there is none. */
export async function listLocalStateCaches(stateCacheDir: string): Promise<LocalQueryCache[]> {
  const out: LocalQueryCache[] = [];
  const queries = (await readdir(stateCacheDir, { withFileTypes: true }).catch(() => [])).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  for (const queryId of queries) {
    const root = path.join(stateCacheDir, queryId);
    const stores: LocalStoreCache[] = [];
    const stats = { bytes: 0, modifiedAt: 0 };
    await storesUnder(root, '', stores, stats);
    stores.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
    out.push({ queryId, path: root, ...stats, stores });
  }
  return out;
}

/** Removes one query's caches (a cache: a later run of the query, if any, rebuilds from the checkpoint). */
export async function removeLocalStateCache(stateCacheDir: string, queryId: string): Promise<void> {
  if (!queryId || queryId.includes('/') || queryId.includes(path.sep) || queryId === '.' || queryId === '..') {
    throw new RangeError(`"${queryId}" is not a query id`);
  }
  await rm(path.join(stateCacheDir, queryId), { recursive: true, force: true });
}

/**
 * Whether an environment holding `local` holds `version` of the store at `dir` in this checkpoint
 * as the checkpoint has it now: the same version, written from the checkpoint's file that still
 * has the recorded checksum (a re-run elsewhere rewrites versions, and then it no longer
 * matches). A damaged file is refused (CorruptCheckpointError) though the cache would not need
 * it: another worker would.
 */
export async function localCacheMatches(fm: CheckpointFileManager, dir: string, local: LocalVersion | null | undefined, version: number): Promise<boolean> {
  if (!local || local.version !== version || local.checkpoint !== fm.description) return false;
  if (local.file === null) return version === 0;
  const p = `${dir}/${local.file}`;
  const data = await fm.read(p).catch((e: { code?: string }) => {
    if (e?.code === 'FILE_NOT_FOUND') return null;
    throw e;
  });
  if (data === null) return false;
  checkStateFile(p, data, parseStateFileName(local.file)!);
  return data.readUInt32LE(data.length - 4) === local.crc;
}

/** What the next load of a store's `version` does with its local cache, and why. */
export interface CacheLoadPrediction {
  reuse: boolean;
  reason: string;
}

export async function predictCacheLoad(fm: CheckpointFileManager, store: LocalStoreCache, version: number): Promise<CacheLoadPrediction> {
  if (!store.fromThisBoot) return { reuse: false, reason: 'Written before the machine last booted: the next load clears it and rebuilds from the checkpoint.' };
  const local = store.local;
  if (!local) return { reuse: false, reason: 'Holds no version: the next load rebuilds from the checkpoint.' };
  if (local.checkpoint !== fm.description) return { reuse: false, reason: 'Holds another checkpoint\'s state: the next load rebuilds from this one.' };
  if (local.version !== version) return { reuse: false, reason: `Holds version ${local.version}, the next start loads ${version}: it rebuilds from the checkpoint.` };
  try {
    if (await localCacheMatches(fm, store.dir, local, version)) return { reuse: true, reason: `Holds version ${version}, as the checkpoint has it: a start on this machine reuses it (another machine rebuilds from the checkpoint).` };
  } catch (e) {
    return { reuse: false, reason: `The checkpoint's ${local.file} is damaged (${(e as Error).message}).` };
  }
  return { reuse: false, reason: `The checkpoint's version ${version} is no longer the one it was written from (rewritten or deleted): the next load rebuilds.` };
}
