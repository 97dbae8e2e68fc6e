/**
 * CheckpointFileManager on the local filesystem (Spark's FileSystemBasedCheckpointFileManager).
 *
 * Atomicity protocol for `createAtomic(path, data)`:
 *   1. write the bytes to a hidden temp file in the same directory (`.<name>.<pid>.<n>.tmp`),
 *   2. fsync it, so the content is on disk before the name is,
 *   3. publish it under its final name:
 *      - overwrite=false: `link(temp, final)`, which fails with EEXIST if the name exists; that
 *        is the create-if-absent primitive that exposes a second runner (rename would silently
 *        replace the other runner's file);
 *      - overwrite=true: `rename(temp, final)`, atomic replace on POSIX,
 *   4. remove the temp name and fsync the directory so the new entry survives a power cut.
 * A crash at any step leaves either no file or the whole file; stray temp files are hidden
 * (dot-prefixed) and ignored by `list`.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FileAlreadyExistsError, FileNotFoundError, type CheckpointFileManager } from './checkpoint-file-manager';

let tempCounter = 0;

export interface LocalCheckpointFileManagerOptions {
  /** fsync file and directory on every write (default true). Off only for throwaway benches. */
  fsync?: boolean;
}

export class LocalCheckpointFileManager implements CheckpointFileManager {
  readonly description: string;
  readonly outlivesMachine = false;
  private readonly fsync: boolean;

  constructor(readonly root: string, opts: LocalCheckpointFileManagerOptions = {}) {
    this.root = path.resolve(root);
    this.description = `file://${this.root}`;
    this.fsync = opts.fsync ?? true;
  }

  private abs(p: string): string {
    const rel = p.replace(/^\/+/, '');
    const full = path.resolve(this.root, rel);
    // A relative path must never escape the checkpoint root (e.g. `../../etc`).
    if (full !== this.root && !full.startsWith(this.root + path.sep)) {
      throw new Error(`Checkpoint path ${p} escapes the checkpoint root ${this.root}.`);
    }
    return full;
  }

  async createAtomic(p: string, data: Uint8Array | string, opts: { overwrite?: boolean } = {}): Promise<void> {
    const target = this.abs(p);
    const dir = path.dirname(target);
    await fs.mkdir(dir, { recursive: true });
    const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${++tempCounter}.tmp`);
    const fh = await fs.open(temp, 'wx');
    try {
      await fh.writeFile(data);
      if (this.fsync) await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      if (opts.overwrite) {
        await fs.rename(temp, target);
      } else {
        try {
          await fs.link(temp, target);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new FileAlreadyExistsError(p);
          throw e;
        }
        await fs.unlink(temp);
      }
    } catch (e) {
      await fs.rm(temp, { force: true });
      throw e;
    }
    if (this.fsync) await syncDir(dir);
  }

  async read(p: string): Promise<Buffer> {
    try {
      return await fs.readFile(this.abs(p));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR') throw new FileNotFoundError(p);
      throw e;
    }
  }

  async exists(p: string): Promise<boolean> {
    try {
      await fs.stat(this.abs(p));
      return true;
    } catch {
      return false;
    }
  }

  async list(dir: string): Promise<string[]> {
    try {
      const names = await fs.readdir(this.abs(dir));
      return names.filter((n) => !n.startsWith('.')).sort();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw e;
    }
  }

  async delete(p: string): Promise<void> {
    await fs.rm(this.abs(p), { force: true, recursive: true });
  }

  async size(p: string): Promise<number> {
    const full = this.abs(p);
    let st;
    try {
      st = await fs.stat(full);
    } catch {
      return 0;
    }
    if (!st.isDirectory()) return st.size;
    let total = 0;
    for (const name of await fs.readdir(full)) total += await this.size(path.posix.join(p, name));
    return total;
  }
}

async function syncDir(dir: string): Promise<void> {
  const dh = await fs.open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}
