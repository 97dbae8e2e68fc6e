/**
 * Deleting a checkpoint (the admin's "reset checkpoint"): every file under the location, through
 * its CheckpointFileManager, so a shared volume and s3:// are emptied the same way as local disk.
 * Files first, then the top-level entries, because an object store has no directories to remove
 * and a local directory is removed recursively.
 */
import { checkpointFileManagerFor } from '@/lib/engine';
import { walkCheckpoint } from '../presenters/checkpoint-presenter';

/** Returns how many files were deleted. */
export async function deleteCheckpoint(location: string): Promise<number> {
  const fm = checkpointFileManagerFor(location);
  const { files } = await walkCheckpoint(fm);
  for (const f of files) await fm.delete(f.path);
  for (const name of await fm.list('')) await fm.delete(name);
  return files.length;
}
