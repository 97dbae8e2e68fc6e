/**
 * The checkpoint's `metadata` file (Spark's StreamMetadata): `{"id":"<query uuid>"}`, written
 * once at the first start and read on every restart, so the query id lives as long as the
 * checkpoint. Deleting the checkpoint therefore makes a new query with a new id.
 */
import { randomUUID } from 'node:crypto';
import { CorruptCheckpointError } from '../errors';
import { FileAlreadyExistsError, FileNotFoundError, type CheckpointFileManager } from './checkpoint-file-manager';

export interface StreamMetadata {
  id: string;
}

export const METADATA_PATH = 'metadata';

export async function readStreamMetadata(fm: CheckpointFileManager): Promise<StreamMetadata | undefined> {
  let text: string;
  try {
    text = (await fm.read(METADATA_PATH)).toString('utf8');
  } catch (e) {
    if (e instanceof FileNotFoundError) return undefined;
    throw e;
  }
  try {
    const j = JSON.parse(text) as Partial<StreamMetadata>;
    if (typeof j.id !== 'string' || !j.id) throw new Error('no "id" string');
    return { id: j.id };
  } catch (e) {
    throw new CorruptCheckpointError(METADATA_PATH, (e as Error).message);
  }
}

/**
 * Returns the checkpoint's query id, creating `metadata` with a new id if absent. Two first
 * starts racing both end up with the id that won the create-if-absent.
 */
export async function getOrCreateStreamMetadata(
  fm: CheckpointFileManager,
  newId: () => string = randomUUID,
): Promise<StreamMetadata & { created: boolean }> {
  const existing = await readStreamMetadata(fm);
  if (existing) return { ...existing, created: false };
  const meta = { id: newId() };
  try {
    await fm.createAtomic(METADATA_PATH, JSON.stringify(meta), { overwrite: false });
    return { ...meta, created: true };
  } catch (e) {
    if (!(e instanceof FileAlreadyExistsError)) throw e;
    const winner = await readStreamMetadata(fm);
    return { ...winner!, created: false };
  }
}
