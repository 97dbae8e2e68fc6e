/**
 * Writing a savepoint into a job's checkpoint, and undoing a write that fails half-way; the
 * protocol is in savepoint-service.ts's header. Files go offsets first and `metadata` last, so a
 * checkpoint cut short at any file holds offsets without metadata, which a run refuses.
 */
import { randomUUID } from 'node:crypto';
import { checkpointFileManagerFor, CheckpointWriteFailedError, resolvePathField, storageAdvice, WeirError, type CheckpointFileManager } from '@/lib/engine';
import { METADATA_PATH } from '@/lib/engine/checkpoint/stream-metadata';
import type { Job } from '@/lib/generated/prisma/client';
import { ConflictError } from '../errors';
import { openCheckpoint, walkCheckpoint } from '../checkpoint-access';
import type { RestoreLock } from './restore-lock';
import { sha256, verifySavepoint, type Manifest, type ManifestFile } from './savepoint-manifest';

/** The job's checkpoint, writable (the control plane writes one only to restore a savepoint). */
export function writableCheckpoint(location: string, checkpointRoot: string, files: (location: string) => CheckpointFileManager = checkpointFileManagerFor): CheckpointFileManager {
  openCheckpoint(location, checkpointRoot); // refuses a location outside the root
  const r = resolvePathField('checkpointLocation', location, 'checkpoint', { checkpointRoot });
  return files(r.ok ? r.location : location);
}

/** Offsets first, metadata last: a checkpoint cut short at any file holds offsets without metadata, which a run refuses. */
function restoreOrder(files: readonly ManifestFile[]): ManifestFile[] {
  const rank = (p: string) => (p === METADATA_PATH ? 2 : p.startsWith('offsets/') ? 0 : 1);
  return [...files].sort((a, b) => rank(a.path) - rank(b.path));
}

/** One savepoint file, checked against its manifest entry. */
async function readChecked(src: CheckpointFileManager, f: ManifestFile): Promise<Buffer> {
  const data = await src.read(f.path);
  if (data.byteLength !== f.size || sha256(data) !== f.sha256) {
    throw new ConflictError(`Savepoint file ${f.path} in ${src.description} changed since it was verified: the copy is damaged. Take a new savepoint.`, { path: f.path });
  }
  return data;
}

/**
 * Writes the savepoint's files into `dst` (emptied first by the caller) with a new query id in
 * `metadata`, written last, every file read back against the manifest. Returns the new query id.
 */
export async function writeRestored(src: CheckpointFileManager, manifest: Manifest, dst: CheckpointFileManager, written = new Set<string>(), lock?: RestoreLock): Promise<string> {
  for (const f of restoreOrder(manifest.files)) {
    if (f.path === METADATA_PATH) continue;
    const data = await readChecked(src, f);
    lock?.assertHeld();
    written.add(f.path);
    await dst.createAtomic(f.path, data);
    if (sha256(await dst.read(f.path)) !== f.sha256) throw new ConflictError(`Restored file ${f.path} in ${dst.description} reads back differently from the savepoint: the checkpoint storage is damaging writes.`, { path: f.path });
  }
  const queryId = randomUUID();
  lock?.assertHeld();
  written.add(METADATA_PATH);
  await dst.createAtomic(METADATA_PATH, JSON.stringify({ id: queryId }));
  return queryId;
}

/**
 * Puts the backup savepoint's files back over a restore that failed half-way (overwriting the
 * same names, offsets first), removes what the restore wrote beyond them, then the metadata, as
 * it was: the checkpoint is again what it was at its last commit.
 */
async function putBack(backup: CheckpointFileManager, dst: CheckpointFileManager, written: ReadonlySet<string>): Promise<void> {
  const manifest = await verifySavepoint(backup);
  const keep = new Set(manifest.files.map((f) => f.path));
  for (const f of restoreOrder(manifest.files)) {
    if (f.path === METADATA_PATH) continue;
    await dst.createAtomic(f.path, await readChecked(backup, f), { overwrite: true });
  }
  for (const p of written) if (!keep.has(p)) await dst.delete(p);
  const metadata = manifest.files.find((f) => f.path === METADATA_PATH);
  if (metadata) await dst.createAtomic(METADATA_PATH, await readChecked(backup, metadata), { overwrite: true });
}

/**
 * After a restore's write failed: undo it where possible (see putBack), and an error whose
 * message says what the checkpoint holds now and what to do; the engine's storage message
 * ("nothing half-written was left; the job resumes…") speaks of a run and would not be true here.
 */
export async function failedRestore(e: unknown, o: { dst: CheckpointFileManager; written: ReadonlySet<string>; backup?: { id: string; name: string; batchId: number; location: string }; job: Job; sp: { name: string } }): Promise<unknown> {
  let state: 'as-before' | 'empty' | 'partial';
  try {
    if (o.backup) await putBack(checkpointFileManagerFor(o.backup.location), o.dst, o.written);
    else for (const p of o.written) await o.dst.delete(p);
    state = o.backup ? 'as-before' : 'empty';
  } catch {
    const left = await walkCheckpoint(o.dst).catch(() => undefined);
    state = left && left.files.length === 0 ? 'empty' : 'partial';
  }
  if (!(e instanceof WeirError)) return e; // a bug: the 500 keeps its error id
  const cause =
    e instanceof CheckpointWriteFailedError
      ? (({ file, errno, cause: c }) => `could not write ${file}: ${errno} (${c}). ${storageAdvice(errno, file)}`)(e.details as { file: string; errno: string; cause: string })
      : e.message;
  const kept = o.backup ? ` What the checkpoint held before is kept in savepoint ${o.backup.name} (${o.backup.id}).` : '';
  const after = {
    'as-before': `The files it wrote were removed and the checkpoint put back as it was at its last commit (batch ${o.backup?.batchId}, from savepoint ${o.backup?.name}): the job is as before. Fix that, then send the restore again.`,
    empty: o.backup
      ? `The checkpoint is now empty: do not start the job (it would begin again from the source's start).${kept} Fix that, then send this restore again, or restore ${o.backup.name} to go back.`
      : `The files it wrote were removed; the checkpoint had no committed batch before and is empty now, so the next start begins from the source's start, as it would have. Fix that, then send the restore again.`,
    partial: `The checkpoint now holds part of a checkpoint without its metadata, so a start refuses it (CORRUPT_CHECKPOINT) rather than run on half a checkpoint.${kept} Fix that, then send this restore again (it replaces those files)${o.backup ? `, or restore ${o.backup.name} to go back` : ''}.`,
  }[state];
  return new WeirError(e.code, `Restoring savepoint ${o.sp.name} into ${o.job.name}'s checkpoint failed: ${cause} ${after}`, {
    ...e.details,
    checkpoint: state,
    ...(o.backup ? { backupSavepointId: o.backup.id } : {}),
  });
}
