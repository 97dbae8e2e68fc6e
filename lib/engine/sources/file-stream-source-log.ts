/**
 * The files source's log (Spark's FileStreamSourceLog) in `sources/<i>/`: which files each
 * planned batch (log offset K) covers, so a replay reads exactly those files.
 *
 * Format: a delta file `K` per log offset (`v1`, then one `{"path","size"}` per file). Every
 * `compactInterval`-th entry ((K+1) % interval == 0) is written instead as `K.compact`, holding
 * every entry so far (`{"path","size","batchId"}` per file), after which the older deltas and
 * compacts are deleted: the log stays a handful of files however long the query runs, and a
 * restart reads one compact plus at most interval-1 deltas. Both kinds are written
 * create-if-absent; finding one already there means another runner (CONCURRENT_STREAM_LOG_UPDATE).
 * A crash between writing a compact and deleting what it supersedes leaves extra files that are
 * ignored (the latest compact wins for everything at or below its id).
 */
import { listCompactedLog, readLogLines } from '../checkpoint/compacted-file-log';
import { FileAlreadyExistsError, type CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { ConcurrentStreamLogUpdateError } from '../errors';

export interface SourceFileEntry {
  path: string;
  size: number;
}

export class FileStreamSourceLog {
  constructor(
    private readonly fm: CheckpointFileManager,
    readonly dir: string,
    readonly compactInterval = 10,
  ) {}

  pathOf(id: number): string {
    return `${this.dir}/${id}`;
  }

  private compactPathOf(id: number): string {
    return `${this.dir}/${id}.compact`;
  }

  private names(): Promise<{ deltas: number[]; compacts: number[] }> {
    return listCompactedLog(this.fm, this.dir);
  }

  private readLines(path: string): Promise<Record<string, unknown>[] | undefined> {
    return readLogLines(this.fm, path);
  }

  private async readCompact(id: number): Promise<Map<number, SourceFileEntry[]>> {
    const out = new Map<number, SourceFileEntry[]>();
    for (const e of (await this.readLines(this.compactPathOf(id))) ?? []) {
      const b = Number(e.batchId);
      if (!out.has(b)) out.set(b, []);
      out.get(b)!.push({ path: String(e.path), size: Number(e.size) });
    }
    return out;
  }

  /** Every logged entry by log offset (an offset with no files is present with []). */
  async allEntries(): Promise<Map<number, SourceFileEntry[]>> {
    const { deltas, compacts } = await this.names();
    const latestCompact = compacts.at(-1) ?? -1;
    const all = latestCompact >= 0 ? await this.readCompact(latestCompact) : new Map<number, SourceFileEntry[]>();
    // A compact also records offsets that had no files.
    for (let id = 0; id <= latestCompact; id++) if (!all.has(id)) all.set(id, []);
    for (const id of deltas) {
      if (id <= latestCompact) continue;
      const lines = await this.readLines(this.pathOf(id));
      if (lines) all.set(id, lines.map((e) => ({ path: String(e.path), size: Number(e.size) })));
    }
    return all;
  }

  async get(id: number): Promise<SourceFileEntry[] | undefined> {
    const delta = await this.readLines(this.pathOf(id));
    if (delta) return delta.map((e) => ({ path: String(e.path), size: Number(e.size) }));
    const { compacts } = await this.names();
    const covering = compacts.find((c) => c >= id);
    if (covering === undefined) return undefined;
    return (await this.readCompact(covering)).get(id) ?? [];
  }

  async add(id: number, files: SourceFileEntry[]): Promise<void> {
    const compact = (id + 1) % this.compactInterval === 0;
    let path = this.pathOf(id);
    let text: string;
    if (compact) {
      const all = await this.allEntries();
      all.set(id, files);
      const lines = ['v1'];
      for (const [batchId, entries] of [...all.entries()].sort((a, b) => a[0] - b[0])) {
        for (const f of entries) lines.push(JSON.stringify({ path: f.path, size: f.size, batchId }));
      }
      path = this.compactPathOf(id);
      text = lines.join('\n');
    } else {
      text = ['v1', ...files.map((f) => JSON.stringify({ path: f.path, size: f.size }))].join('\n');
    }
    try {
      await this.fm.createAtomic(path, text, { overwrite: false });
    } catch (e) {
      if (e instanceof FileAlreadyExistsError) throw new ConcurrentStreamLogUpdateError(id, path);
      throw e;
    }
    if (compact) {
      const { deltas, compacts } = await this.names();
      for (const d of deltas) if (d <= id) await this.fm.delete(this.pathOf(d));
      for (const c of compacts) if (c < id) await this.fm.delete(this.compactPathOf(c));
    }
  }
}
