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
 *
 * Filesystems without hard links (SMB shares such as Azure Files, FUSE object-store mounts)
 * refuse link(); the manager then switches to claims: `mkdir(.<name>.claim)` is the atomic
 * create-if-absent (EEXIST: someone else owns the name), then rename(temp, final). A claim left
 * by a writer that died before its rename is stale once it is older than `claimTtlMs` (judged
 * against the just-written temp file's mtime, so no wall clock is read) and is taken over.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FileAlreadyExistsError, FileNotFoundError, type CheckpointFileManager } from './checkpoint-file-manager';

let tempCounter = 0;

export interface LocalCheckpointFileManagerOptions {
  /** fsync file and directory on every write (default true). Off only for throwaway benches. */
  fsync?: boolean;
  /** 'link' (default; switches to 'claim' by itself when the filesystem refuses hard links). */
  createIfAbsent?: 'link' | 'claim';
  /** Age after which an orphaned claim is taken over (default 60 s). */
  claimTtlMs?: number;
}

const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

export class LocalCheckpointFileManager implements CheckpointFileManager {
  readonly description: string;
  readonly outlivesMachine = false;
  private readonly fsync: boolean;
  private mode: 'link' | 'claim';
  private readonly claimTtlMs: number;

  constructor(readonly root: string, opts: LocalCheckpointFileManagerOptions = {}) {
    this.root = path.resolve(root);
    this.description = `file://${this.root}`;
    this.fsync = opts.fsync ?? true;
    this.mode = opts.createIfAbsent ?? 'link';
    this.claimTtlMs = opts.claimTtlMs ?? 60_000;
  }

  private static claimOf(target: string): string {
    return path.join(path.dirname(target), `.${path.basename(target)}.claim`);
  }

  /** Publishes temp as target only if target does not exist yet (see the header). */
  private async publishIfAbsent(p: string, temp: string, target: string): Promise<void> {
    if (this.mode === 'link') {
      try {
        await fs.link(temp, target);
        await fs.unlink(temp);
        return;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? '';
        if (code === 'EEXIST') throw new FileAlreadyExistsError(p);
        if (!NO_HARD_LINKS.has(code)) throw e;
        this.mode = 'claim';
      }
    }
    const claim = LocalCheckpointFileManager.claimOf(target);
    for (let attempt = 0; ; attempt++) {
      try {
        await fs.mkdir(claim);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        if (attempt > 0 || (await this.exists(p))) throw new FileAlreadyExistsError(p);
        const [c, t] = await Promise.all([fs.stat(claim), fs.stat(temp)]);
        if (t.mtimeMs - c.mtimeMs < this.claimTtlMs) throw new FileAlreadyExistsError(p);
        // The claimant died before publishing: take the name over.
        await fs.rm(claim, { recursive: true, force: true });
      }
    }
    if (await this.exists(p)) throw new FileAlreadyExistsError(p);
    await fs.rename(temp, target);
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
      if (opts.overwrite) await fs.rename(temp, target);
      else await this.publishIfAbsent(p, temp, target);
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
    const target = this.abs(p);
    await fs.rm(target, { force: true, recursive: true });
    // A claim (no-hard-link filesystems) would otherwise keep the name taken forever.
    await fs.rm(LocalCheckpointFileManager.claimOf(target), { force: true, recursive: true });
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
