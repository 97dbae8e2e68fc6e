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
 *
 * A write that storage refuses (full, over quota, read-only, no permission, an I/O error: see
 * STORAGE_ERRNOS) removes its temp file and throws CHECKPOINT_WRITE_FAILED naming the file and
 * the errno, so the run ends with what to do instead of a bare `ENOSPC: ..., write`.
 */
import { promises as nodeFs } from 'node:fs';
import path from 'node:path';
import { CheckpointWriteFailedError, STORAGE_ERRNOS } from '../errors';
import { FileAlreadyExistsError, FileNotFoundError, type CheckpointFileManager } from './checkpoint-file-manager';

/** The part of `fs.promises` this manager uses; tests pass a fault-injecting wrapper. */
export type LocalFs = Pick<typeof nodeFs, 'mkdir' | 'open' | 'link' | 'unlink' | 'rename' | 'rm' | 'stat' | 'readFile' | 'readdir'>;

let tempCounter = 0;

export interface LocalCheckpointFileManagerOptions {
  /** fsync file and directory on every write (default true). Off only for throwaway benches. */
  fsync?: boolean;
  /** 'link' (default; switches to 'claim' by itself when the filesystem refuses hard links). */
  createIfAbsent?: 'link' | 'claim';
  /** Age after which an orphaned claim is taken over (default 60 s). */
  claimTtlMs?: number;
  /** The filesystem calls (default node:fs promises); tests inject storage faults through it. */
  fs?: LocalFs;
}

const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

export class LocalCheckpointFileManager implements CheckpointFileManager {
  readonly description: string;
  readonly outlivesMachine = false;
  private readonly fsync: boolean;
  private mode: 'link' | 'claim';
  private readonly claimTtlMs: number;
  private readonly fs: LocalFs;
  /**
   * Directories this manager made or wrote into: a write there skips mkdir (one filesystem
   * round trip fewer on the batch's path); a write that finds one gone makes it again.
   */
  private readonly madeDirs = new Set<string>();
  /** A link succeeded here: this filesystem has hard links, so no Weir on it makes claims. */
  private linksWork = false;

  constructor(readonly root: string, opts: LocalCheckpointFileManagerOptions = {}) {
    this.root = path.resolve(root);
    this.description = `file://${this.root}`;
    this.fsync = opts.fsync ?? true;
    this.mode = opts.createIfAbsent ?? 'link';
    this.claimTtlMs = opts.claimTtlMs ?? 60_000;
    this.fs = opts.fs ?? nodeFs;
  }

  private static claimOf(target: string): string {
    return path.join(path.dirname(target), `.${path.basename(target)}.claim`);
  }

  /** The temp file, opened for writing; its directory is made on the first write there. */
  private async openTemp(dir: string, temp: string) {
    if (this.madeDirs.has(dir)) {
      try {
        return await this.fs.open(temp, 'wx');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        this.madeDirs.delete(dir);
      }
    }
    await this.fs.mkdir(dir, { recursive: true });
    const fh = await this.fs.open(temp, 'wx');
    this.madeDirs.add(dir);
    return fh;
  }

  /**
   * Publishes temp as target only if target does not exist yet (see the header). After a link
   * the temp name is still there (`linkedTemp`) for the caller to remove.
   */
  private async publishIfAbsent(p: string, temp: string, target: string): Promise<{ linkedTemp?: string }> {
    if (this.mode === 'link') {
      let linked = false;
      try {
        await this.fs.link(temp, target);
        linked = true;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? '';
        if (code === 'EEXIST') throw new FileAlreadyExistsError(p);
        if (!NO_HARD_LINKS.has(code)) throw e;
        this.mode = 'claim';
      }
      // Only link's own refusal means "no hard links here"; a failing unlink is a storage error.
      if (linked) {
        this.linksWork = true;
        return { linkedTemp: temp };
      }
    }
    const claim = LocalCheckpointFileManager.claimOf(target);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.fs.mkdir(claim);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        if (attempt > 0 || (await this.exists(p))) throw new FileAlreadyExistsError(p);
        const [c, t] = await Promise.all([this.fs.stat(claim), this.fs.stat(temp)]);
        if (t.mtimeMs - c.mtimeMs < this.claimTtlMs) throw new FileAlreadyExistsError(p);
        // The claimant died before publishing: take the name over.
        await this.fs.rm(claim, { recursive: true, force: true });
      }
    }
    try {
      if (await this.exists(p)) throw new FileAlreadyExistsError(p);
      await this.fs.rename(temp, target);
      return {};
    } catch (e) {
      // Our claim, not published: release the name rather than block it for claimTtlMs.
      if (!(e instanceof FileAlreadyExistsError)) await this.fs.rm(claim, { recursive: true, force: true }).catch(() => undefined);
      throw e;
    }
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

  async createAtomic(p: string, data: Uint8Array | string, opts: { overwrite?: boolean; sync?: boolean } = {}): Promise<void> {
    const sync = this.fsync && opts.sync !== false;
    const target = this.abs(p);
    const dir = path.dirname(target);
    let temp: string | undefined;
    try {
      temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${++tempCounter}.tmp`);
      const fh = await this.openTemp(dir, temp);
      try {
        await fh.writeFile(data);
        if (sync) await fh.sync();
      } finally {
        await fh.close();
      }
      if (opts.overwrite) {
        await this.fs.rename(temp, target);
        temp = undefined;
        if (sync) await syncDir(this.fs, dir);
      } else {
        const published = await this.publishIfAbsent(p, temp, target);
        temp = undefined;
        // After a link the temp name still has to go; that removal need not be durable (a temp
        // left by a crash is hidden and ignored), so it runs beside the directory's fsync.
        const [synced, unlinked] = await Promise.allSettled([
          sync ? syncDir(this.fs, dir) : undefined,
          published.linkedTemp ? this.fs.unlink(published.linkedTemp) : undefined,
        ]);
        if (synced.status === 'rejected') throw synced.reason;
        if (unlinked.status === 'rejected') throw unlinked.reason;
      }
    } catch (e) {
      if (temp) await this.fs.rm(temp, { force: true }).catch(() => undefined);
      throw storageWriteError(e, target);
    }
  }

  localPath(p: string): string {
    return this.abs(p);
  }

  async read(p: string): Promise<Buffer> {
    try {
      return await this.fs.readFile(this.abs(p));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR') throw new FileNotFoundError(p);
      throw e;
    }
  }

  async exists(p: string): Promise<boolean> {
    try {
      await this.fs.stat(this.abs(p));
      return true;
    } catch {
      return false;
    }
  }

  async list(dir: string): Promise<string[]> {
    try {
      const names = await this.fs.readdir(this.abs(dir));
      return names.filter((n) => !n.startsWith('.')).sort();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw e;
    }
  }

  async delete(p: string): Promise<void> {
    const target = this.abs(p);
    try {
      // A claim (no-hard-link filesystems) would otherwise keep the name taken forever. Where
      // hard links work (a link succeeded) no Weir makes claims, so there is none to remove.
      await Promise.all([
        this.fs.rm(target, { force: true, recursive: true }),
        this.linksWork ? undefined : this.fs.rm(LocalCheckpointFileManager.claimOf(target), { force: true, recursive: true }),
      ]);
    } catch (e) {
      throw storageWriteError(e, target);
    }
  }

  async size(p: string): Promise<number> {
    const full = this.abs(p);
    let st;
    try {
      st = await this.fs.stat(full);
    } catch {
      return 0;
    }
    if (!st.isDirectory()) return st.size;
    let total = 0;
    for (const name of await this.fs.readdir(full)) total += await this.size(path.posix.join(p, name));
    return total;
  }
}

/** A storage errno becomes CHECKPOINT_WRITE_FAILED naming the file; anything else passes through. */
function storageWriteError(e: unknown, file: string): unknown {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || !STORAGE_ERRNOS.has(code)) return e;
  // Node's message is "ENOSPC: no space left on device, write"; keep the description.
  const cause = (e as Error).message.replace(/^[A-Z]+: /, '');
  return new CheckpointWriteFailedError(file, code, cause);
}

async function syncDir(fs: LocalFs, dir: string): Promise<void> {
  const dh = await fs.open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}
