/**
 * A log with one file per batch id under a directory (Spark's HDFSMetadataLog): the shared
 * mechanics of `offsets/` and `commits/`. (The files source's `sources/<i>/` log and the files
 * sink's `_weir_metadata/` follow the same create-if-absent protocol and add compaction.)
 *
 * Protocol: `add(batchId, value)` publishes `<dir>/<batchId>` with create-if-absent. If the file
 * already exists another runner wrote it: ConcurrentStreamLogUpdateError, and nothing of ours was
 * written. Files are never edited; `purge(threshold)` deletes entries with id < threshold.
 */
import { ConcurrentStreamLogUpdateError, CorruptCheckpointError } from '../errors';
import { FileAlreadyExistsError, FileNotFoundError, type CheckpointFileManager } from './checkpoint-file-manager';

export abstract class BatchMetadataLog<T> {
  constructor(
    protected readonly fm: CheckpointFileManager,
    readonly dir: string,
  ) {}

  protected abstract serialize(value: T): string;
  protected abstract deserialize(text: string, path: string): T;

  pathOf(batchId: number): string {
    return `${this.dir}/${batchId}`;
  }

  async add(batchId: number, value: T): Promise<void> {
    try {
      await this.fm.createAtomic(this.pathOf(batchId), this.serialize(value), { overwrite: false });
    } catch (e) {
      if (e instanceof FileAlreadyExistsError) throw new ConcurrentStreamLogUpdateError(batchId, this.pathOf(batchId));
      throw e;
    }
  }

  async get(batchId: number): Promise<T | undefined> {
    let buf: Buffer;
    try {
      buf = await this.fm.read(this.pathOf(batchId));
    } catch (e) {
      if (e instanceof FileNotFoundError) return undefined;
      throw e;
    }
    return this.deserialize(buf.toString('utf8'), this.pathOf(batchId));
  }

  /** Batch ids present, ascending. Names that are not batch ids (temp files) are ignored. */
  async batchIds(): Promise<number[]> {
    const names = await this.fm.list(this.dir);
    return names.filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
  }

  async getLatest(): Promise<{ batchId: number; value: T } | undefined> {
    const ids = await this.batchIds();
    for (let i = ids.length - 1; i >= 0; i--) {
      const value = await this.get(ids[i]);
      if (value !== undefined) return { batchId: ids[i], value };
    }
    return undefined;
  }

  /** Deletes one entry (missing is fine). */
  async remove(batchId: number): Promise<void> {
    await this.fm.delete(this.pathOf(batchId));
  }

  /** Deletes every entry with batch id < threshold. */
  async purge(threshold: number): Promise<number[]> {
    const gone = (await this.batchIds()).filter((id) => id < threshold);
    for (const id of gone) await this.fm.delete(this.pathOf(id));
    return gone;
  }

  protected corrupt(path: string, reason: string): never {
    throw new CorruptCheckpointError(path, reason);
  }
}

/** Parses a log file's `v<N>` header line; only versions up to `max` are understood. */
export function parseVersionLine(line: string | undefined, max: number, path: string): number {
  const m = /^v(\d+)$/.exec(line ?? '');
  if (!m) throw new CorruptCheckpointError(path, `expected a version line like "v1", found ${JSON.stringify(line ?? '')}`);
  const v = Number(m[1]);
  if (v > max || v < 1) {
    throw new CorruptCheckpointError(path, `log version v${v} is not supported (this Weir reads up to v${max}); upgrade Weir`);
  }
  return v;
}
