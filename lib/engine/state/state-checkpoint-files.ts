/**
 * The files of one state store in the checkpoint, as both providers keep them: per version a
 * change file (the file-backed provider's `<v>.delta`, the LMDB provider's `<v>.changelog`) and
 * now and then a `<v>.snapshot`. Which versions load, and which files retention may delete,
 * follow from the names alone, the same way for both.
 */
import { FileNotFoundError, type CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { CorruptCheckpointError } from '../errors';
import { parseStateFileName, readStateFile, stateFileName, type StateFileKind } from './state-file-format';

export interface StateFile {
  version: number;
  kind: StateFileKind;
  name: string;
}

export async function listStateFiles(fm: CheckpointFileManager, dir: string): Promise<StateFile[]> {
  const out: StateFile[] = [];
  for (const name of await fm.list(dir)) {
    const parsed = parseStateFileName(name);
    if (parsed) out.push({ ...parsed, name });
  }
  return out;
}

/**
 * The stores of a partition directory (`state/<op>/<partition>`): the directory itself, or, for an
 * operator with named stores (a stream-stream join's `left-keyToNumValues`, …), each store's
 * directory inside it. Everything that reads or rewrites state files goes through this.
 */
export async function storeDirs(fm: CheckpointFileManager, partDir: string): Promise<string[]> {
  const entries = await fm.list(partDir);
  const named = entries.filter((e) => parseStateFileName(e) === null && /^[A-Za-z][\w-]*$/.test(e));
  return named.length && !entries.some((e) => parseStateFileName(e) !== null) ? named.map((e) => `${partDir}/${e}`) : [partDir];
}

/**
 * Versions loadable from these files, ascending: version 0 always; v when it has a snapshot, or
 * a change file and v - 1 is loadable.
 */
export function loadableVersions(files: StateFile[]): number[] {
  const changes = new Set(files.filter((f) => f.kind !== 'snapshot').map((f) => f.version));
  const snaps = new Set(files.filter((f) => f.kind === 'snapshot').map((f) => f.version));
  const max = files.reduce((m, f) => Math.max(m, f.version), 0);
  const out: number[] = [];
  let loadable = true;
  for (let v = 0; v <= max; v++) {
    if (v > 0) loadable = snaps.has(v) || (loadable && changes.has(v));
    if (loadable) out.push(v);
  }
  return out;
}

/**
 * Retention (Spark's minBatchesToRetain for state): keeps the last `minVersionsToRetain`
 * versions up to `latest` loadable by deleting every file older than the newest snapshot that
 * the oldest of them needs. Returns the names deleted.
 */
export async function purgeStateFiles(fm: CheckpointFileManager, dir: string, latest: number, minVersionsToRetain: number): Promise<string[]> {
  const oldestRetained = latest - minVersionsToRetain + 1;
  if (oldestRetained <= 1) return [];
  const files = await listStateFiles(fm, dir);
  let base = 0;
  for (const f of files) if (f.kind === 'snapshot' && f.version <= oldestRetained && f.version > base) base = f.version;
  if (base === 0) return [];
  const deleted: string[] = [];
  for (const f of files) {
    if (f.version < base) {
      await fm.delete(`${dir}/${f.name}`);
      deleted.push(f.name);
    }
  }
  return deleted;
}

/**
 * The rows of a store's `version` read from its files (values as byte strings): the newest
 * snapshot at or below it, then the change files (`changeKind`: the provider's) after it. For
 * offline rewrites of a checkpoint (`weir checkpoint repartition`); a provider loads through its
 * own cache.
 */
export async function readStateVersion(fm: CheckpointFileManager, dir: string, version: number, changeKind: StateFileKind): Promise<Map<string, string>> {
  const rows = new Map<string, string>();
  if (version === 0) return rows;
  const files = await listStateFiles(fm, dir);
  const base = files.filter((f) => f.kind === 'snapshot' && f.version <= version).reduce((m, f) => Math.max(m, f.version), 0);
  const apply = async (v: number, kind: StateFileKind) => {
    const p = `${dir}/${stateFileName(v, kind)}`;
    const data = await fm.read(p).catch((e: unknown) => {
      if (e instanceof FileNotFoundError) throw new CorruptCheckpointError(p, `state version ${version} of ${dir} needs this file and it is missing`, { missing: true });
      throw e;
    });
    readStateFile(p, data, { version: v, kind }, (k, val) => void rows.set(k, val), (k) => void rows.delete(k));
  };
  if (base > 0) await apply(base, 'snapshot');
  for (let v = base + 1; v <= version; v++) await apply(v, changeKind);
  return rows;
}
