/**
 * Deleting a checkpoint (the admin's "reset checkpoint", and a job deleted with its checkpoint):
 * the engine's files under the location and nothing else, through its CheckpointFileManager, so
 * a shared volume and s3:// are emptied the same way as local disk.
 *
 * The control plane runs as root, and a checkpoint location is only a name: the directory may
 * hold anything. So:
 * - a local location must lie inside WEIR_CHECKPOINT_ROOT (its real path), or nothing is deleted;
 * - a location that is or lies in `<root>/savepoints/` is refused, with nothing deleted: a
 *   savepoint is a checkpoint's files, and a job made to point there before the path rules said
 *   no (job-paths.ts) would otherwise erase the very copy kept to recover from;
 * - a directory that is not a Weir checkpoint (no `metadata` of ours and no `offsets/N`) is
 *   refused, with nothing deleted;
 * - only the engine's entries go (checkpoint-layout.ts), each file by itself, never through a
 *   symlink; anything else stays, and the answer lists it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readStreamMetadata, resolvePathField, type CheckpointFileManager } from '@/lib/engine';
import { ConflictError } from '../errors';
import { NoFollowCheckpoint, openCheckpoint, walkCheckpoint, type CheckpointWalk } from '../checkpoint-access';
import { overlapWithSavepoints, savepointsDirectory } from './job-paths';

export interface CheckpointDeletion {
  deletedFiles: number;
  /** Entries in the checkpoint directory that are not the engine's: left in place. */
  keptEntries: string[];
  /** Says what was left, when something was. */
  message?: string;
}

const MAX_KEPT_LISTED = 100;

async function isWeirCheckpoint(fm: CheckpointFileManager, walk: CheckpointWalk): Promise<boolean> {
  if (walk.files.some((f) => /^offsets\/\d+$/.test(f.path))) return true;
  if (!walk.files.some((f) => f.path === 'metadata')) return false;
  try {
    return (await readStreamMetadata(fm)) !== undefined;
  } catch {
    // a `metadata` file that is not ours
    return false;
  }
}

/** Deletes the engine's files in the checkpoint at `location`; see the header for what is refused. */
export async function deleteCheckpoint(location: string, checkpointRoot: string): Promise<CheckpointDeletion> {
  const fm = openCheckpoint(location, checkpointRoot);
  const resolved = resolvePathField('checkpointLocation', location, 'checkpoint', { checkpointRoot });
  // A checkpoint containing the savepoints directory is safe: the walk below treats it as foreign.
  const rel = resolved.ok ? overlapWithSavepoints(resolved.key, checkpointRoot) : null;
  if (rel === 'equal' || rel === 'inside') {
    throw new ConflictError(
      `${fm.description} is in the savepoints directory ${savepointsDirectory(checkpointRoot)}: its files are a savepoint, so nothing was deleted. ` +
        "Edit the job to give it a checkpoint location of its own outside that directory (or delete the job without its checkpoint).",
      { path: 'checkpointLocation' },
    );
  }
  const walk = await walkCheckpoint(fm);
  if (walk.files.length === 0 && walk.scratch.length === 0) {
    return { deletedFiles: 0, keptEntries: walk.foreign.slice(0, MAX_KEPT_LISTED), ...(walk.foreign.length ? { message: keptMessage(walk.foreign) } : {}) };
  }
  if (!(await isWeirCheckpoint(fm, walk))) {
    throw new ConflictError(
      `${fm.description} is not a Weir checkpoint (no metadata written by Weir and no offsets/N), so nothing was deleted. ` +
        "Check the job's checkpoint location; if the directory really is this job's, remove its files by hand.",
      { path: 'checkpointLocation', entries: walk.files.length + walk.foreign.length },
    );
  }
  if (fm instanceof NoFollowCheckpoint) {
    // Each file by itself (unlink never follows a symlink), then the engine's directories once empty.
    for (const f of walk.files) await fs.rm(path.join(fm.root, f.path), { force: true });
    for (const s of walk.scratch) await fs.rm(path.join(fm.root, s), { force: true, recursive: true });
    for (const d of walk.dirs) await fs.rmdir(path.join(fm.root, d)).catch(() => undefined);
  } else {
    for (const f of walk.files) await fm.delete(f.path);
  }
  return {
    deletedFiles: walk.files.length,
    keptEntries: walk.foreign.slice(0, MAX_KEPT_LISTED),
    ...(walk.foreign.length ? { message: keptMessage(walk.foreign) } : {}),
  };
}

function keptMessage(foreign: string[]): string {
  const shown = foreign.slice(0, 5).join(', ') + (foreign.length > 5 ? ', …' : '');
  return `${foreign.length} entr${foreign.length === 1 ? 'y' : 'ies'} in the checkpoint directory ${foreign.length === 1 ? 'is' : 'are'} not Weir's and ${foreign.length === 1 ? 'was' : 'were'} left in place (${shown}). Move ${foreign.length === 1 ? 'it' : 'them'} elsewhere: a checkpoint directory should hold only the checkpoint.`;
}
