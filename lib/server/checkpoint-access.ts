/**
 * The control plane's access to a job's checkpoint, shared by the reads (the checkpoint
 * inspector, duplicate diagnosis) and the writes (reset, delete, savepoints, restore): open it
 * through the job's CheckpointFileManager, confined to WEIR_CHECKPOINT_ROOT, and walk the files
 * the engine writes. Local disk, a shared volume and s3:// read the same way.
 *
 * Only what the engine writes is listed, served or deleted (checkpoint-layout.ts): a directory
 * named as a checkpoint may hold anything. On local disk the walk never follows a symlink (the
 * engine writes none), and a checkpoint outside WEIR_CHECKPOINT_ROOT is not opened at all.
 */
import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import {
  checkpointFileManagerFor,
  FileNotFoundError,
  isCheckpointDirectory,
  isCheckpointEntry,
  isCheckpointScratch,
  LocalCheckpointFileManager,
  resolvePathField,
  type CheckpointFileManager,
} from '@/lib/engine';
import { ConflictError } from './errors';

export interface CheckpointEntry {
  path: string;
  size: number;
}

export interface CheckpointWalk {
  /** The engine's files, depth first in name order (at most `max`). */
  files: CheckpointEntry[];
  truncated: boolean;
  /** Anything else (foreign files and directories, symlinks): never listed, served or deleted. */
  foreign: string[];
  /** The local file manager's leftovers of interrupted writes (temp files, claims): the engine's. */
  scratch: string[];
  /** The engine's directories, deepest first (removed by a reset once empty). */
  dirs: string[];
}

/**
 * The checkpoint opened for the control plane: its file manager and, on local disk, its real
 * directory, which must lie inside WEIR_CHECKPOINT_ROOT (409 otherwise: an old job created before
 * the roots were enforced; edit its checkpoint location).
 */
export function openCheckpoint(location: string, checkpointRoot: string): CheckpointFileManager {
  const r = resolvePathField('checkpointLocation', location, 'checkpoint', { checkpointRoot });
  if (!r.ok) {
    throw new ConflictError(`This job's checkpoint is not inside the checkpoint root: ${r.message} Nothing was read or deleted.`, { path: 'checkpointLocation', resolved: r.resolved, roots: r.roots });
  }
  const fm = checkpointFileManagerFor(r.location);
  // Local: the real directory (no link in its name), seen without following any link inside.
  return fm instanceof LocalCheckpointFileManager ? new NoFollowCheckpoint(new LocalCheckpointFileManager(r.key)) : fm;
}

/** Whether any component of `p` under the local checkpoint directory is a symlink (or missing). */
async function throughLink(root: string, p: string): Promise<boolean> {
  let cur = root;
  for (const part of p.split('/').filter((s) => s !== '')) {
    cur = path.join(cur, part);
    try {
      if ((await lstat(cur)).isSymbolicLink()) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/**
 * A local checkpoint as the control plane reads it: an entry reached through a symlink reads as
 * missing (the engine writes none), so neither the file endpoint nor the state inspection ever
 * reads what a link points at.
 */
export class NoFollowCheckpoint implements CheckpointFileManager {
  readonly description: string;
  readonly outlivesMachine: boolean;
  constructor(private readonly inner: LocalCheckpointFileManager) {
    this.description = inner.description;
    this.outlivesMachine = inner.outlivesMachine;
  }
  get root(): string {
    return this.inner.root;
  }
  createAtomic(): Promise<void> {
    throw new Error('the control plane never writes a checkpoint');
  }
  async read(p: string): Promise<Buffer> {
    if (await throughLink(this.root, p)) throw new FileNotFoundError(p);
    return this.inner.read(p);
  }
  async exists(p: string): Promise<boolean> {
    return !(await throughLink(this.root, p)) && this.inner.exists(p);
  }
  async list(dir: string): Promise<string[]> {
    return (await throughLink(this.root, dir)) ? [] : this.inner.list(dir);
  }
  async delete(p: string): Promise<void> {
    if (!(await throughLink(this.root, p))) await this.inner.delete(p);
  }
  async size(p: string): Promise<number> {
    return (await throughLink(this.root, p)) ? 0 : this.inner.size(p);
  }
}

async function walkLocal(root: string, max: number): Promise<CheckpointWalk> {
  const w: CheckpointWalk = { files: [], truncated: false, foreign: [], scratch: [], dirs: [] };
  let real: string;
  try {
    real = await realpath(root);
  } catch {
    return w;
  }
  const visit = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir ? path.join(real, dir) : real, { withFileTypes: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw e;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of entries) {
      const p = dir ? `${dir}/${d.name}` : d.name;
      if (d.isSymbolicLink()) w.foreign.push(p);
      else if (isCheckpointScratch(p)) w.scratch.push(p);
      else if (d.isDirectory() && isCheckpointDirectory(p)) {
        await visit(p);
        w.dirs.push(p);
      } else if (d.isFile() && isCheckpointEntry(p)) {
        if (w.files.length >= max) {
          w.truncated = true;
          continue;
        }
        w.files.push({ path: p, size: (await lstat(path.join(real, p))).size });
      } else w.foreign.push(p);
    }
  };
  await visit('');
  return w;
}

/** Every engine file under the checkpoint, depth first in name order (at most `max`), and what else is there. */
export async function walkCheckpoint(fm: CheckpointFileManager, max = Number.POSITIVE_INFINITY): Promise<CheckpointWalk> {
  if (fm instanceof NoFollowCheckpoint) return walkLocal(fm.root, max);
  const w: CheckpointWalk = { files: [], truncated: false, foreign: [], scratch: [], dirs: [] };
  const visit = async (dir: string): Promise<void> => {
    for (const name of await fm.list(dir)) {
      const p = dir ? `${dir}/${name}` : name;
      const children = await fm.list(p);
      if (children.length > 0) {
        if (isCheckpointDirectory(p)) await visit(p);
        else w.foreign.push(p);
        continue;
      }
      if (!isCheckpointEntry(p)) {
        w.foreign.push(p);
        continue;
      }
      if (w.files.length >= max) {
        w.truncated = true;
        continue;
      }
      try {
        const size = fm.size ? await fm.size(p) : (await fm.read(p)).length;
        // An empty directory lists as [] too; only count what can be read as a file.
        if (!fm.size || (await fm.exists(p))) w.files.push({ path: p, size });
      } catch (e) {
        if (!(e instanceof FileNotFoundError)) throw e;
      }
    }
  };
  await visit('');
  return w;
}
