/**
 * What a savepoint is on storage: its files under `<WEIR_CHECKPOINT_ROOT>/savepoints/<job>/<id>/`
 * and `_savepoint.json` listing each one's size and SHA-256 (the manifest), read back in full
 * before it is recorded or restored; and which files of a checkpoint a savepoint copies.
 */
import { createHash } from 'node:crypto';
import { FileNotFoundError, type CheckpointFileManager } from '@/lib/engine';
import { ConflictError } from '../errors';

export const SAVEPOINT_MANIFEST = '_savepoint.json';

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface Manifest {
  formatVersion: 1;
  jobId: string;
  name: string;
  batchId: number;
  source: string;
  files: ManifestFile[];
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');


/** Every file of the savepoint read back and checked against its manifest; throws naming the first that differs. */
export async function verifySavepoint(fm: CheckpointFileManager): Promise<Manifest> {
  const text = await fm.read(SAVEPOINT_MANIFEST).catch((e: unknown) => {
    if (isMissing(e)) {
      throw new ConflictError(
        `Savepoint ${fm.description} has no ${SAVEPOINT_MANIFEST}: its directory was removed (or a file stands where a directory of its path should be), so it cannot be restored. ` +
          'Restore another savepoint of the job (GET /api/jobs/<id>/savepoints lists them), or take a new one.',
        { path: SAVEPOINT_MANIFEST, location: fm.description },
      );
    }
    throw e;
  });
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text.toString('utf8')) as Manifest;
    if (!Array.isArray(manifest.files)) throw new Error('no files list');
  } catch {
    throw new ConflictError(`Savepoint ${fm.description} has a ${SAVEPOINT_MANIFEST} that is not a savepoint manifest: the copy is damaged; restore another savepoint, or take a new one.`, { path: SAVEPOINT_MANIFEST });
  }
  for (const f of manifest.files) {
    const data = await fm.read(f.path).catch((e: unknown) => {
      if (isMissing(e)) throw new ConflictError(`Savepoint file ${f.path} is missing from ${fm.description}: the copy is damaged; take a new savepoint.`, { path: f.path });
      throw e;
    });
    if (data.byteLength !== f.size || sha256(data) !== f.sha256) {
      throw new ConflictError(`Savepoint file ${f.path} in ${fm.description} does not match its manifest (size or SHA-256 differ): the copy is damaged; take a new savepoint.`, { path: f.path });
    }
  }
  return manifest;
}

/** A state store's files: a change file per version (`delta` file-backed, `changelog` LMDB) and snapshots. */
const STATE_FILE = /^(state\/\d+\/\d+)\/(\d+)\.(delta|changelog|snapshot)$/;

/**
 * The files of a checkpoint listing that its last commit N references (savepoint-service.ts's
 * header says why a copy of them is consistent), or why
 * the listing cannot give a consistent copy: no commit yet, or state version N+1 not loadable
 * from the files listed (retention raced the listing: the caller lists again).
 */
export function filesOfLastCommit(paths: readonly string[]): { batchId: number; paths: string[] } | { batchId: null; reason: string } {
  const have = new Set(paths);
  const committed = paths.map((p) => /^commits\/(\d+)$/.exec(p)?.[1]).filter((n): n is string => n !== undefined).map(Number).filter((n) => have.has(`offsets/${n}`));
  if (committed.length === 0) return { batchId: null, reason: 'no committed batch' };
  const n = Math.max(...committed);
  const version = n + 1;
  const stores = new Map<string, { deltas: Set<number>; snapshots: number[] }>();
  const out: string[] = [];
  for (const p of paths) {
    const log = /^(offsets|commits|progress)\/(\d+)$/.exec(p);
    if (log) {
      if (Number(log[2]) <= n) out.push(p);
      continue;
    }
    const st = STATE_FILE.exec(p);
    if (st) {
      const v = Number(st[2]);
      // A store listed only with later versions cannot load N+1 either: it is checked below.
      const s = stores.get(st[1]) ?? { deltas: new Set<number>(), snapshots: [] };
      stores.set(st[1], s);
      if (v > version) continue;
      if (st[3] !== 'snapshot') s.deltas.add(v);
      else s.snapshots.push(v);
      out.push(p);
      continue;
    }
    out.push(p); // metadata, sources/<i>/…, state/<op>/_metadata/schema
  }
  for (const [dir, s] of stores) {
    // Loadable at `version` from the newest snapshot whose deltas up to `version` are all there.
    const bases = [...s.snapshots, 0].sort((a, b) => b - a);
    const ok = bases.some((base) => {
      for (let v = base + 1; v <= version; v++) if (!s.deltas.has(v)) return false;
      return true;
    });
    if (!ok) return { batchId: null, reason: `${dir} cannot load version ${version} from the files listed` };
  }
  return { batchId: n, paths: out };
}

export const isGone = (e: unknown) => e instanceof FileNotFoundError || (e as NodeJS.ErrnoException)?.code === 'ENOENT';
/** Gone, or a file where a directory of the path should be. */
const isMissing = (e: unknown) => isGone(e) || (e as NodeJS.ErrnoException)?.code === 'ENOTDIR';
/** mkdir met a file where a directory should be: ENOTDIR below it, EEXIST on it. */
export const isNotADirectory = (e: unknown) => {
  const err = e as NodeJS.ErrnoException | null;
  return err?.code === 'ENOTDIR' || (err?.code === 'EEXIST' && err.syscall === 'mkdir');
};
