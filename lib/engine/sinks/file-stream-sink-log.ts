/**
 * The files sink's batch log `_weir_metadata/` (Spark's FileStreamSinkLog): which data files
 * each committed batch consists of, and which query wrote it.
 *
 * Format: a delta file per batch N: line 1 `v1`, line 2 `{"queryId":…}`, then one SinkFileStatus
 * JSON per data file (path, size, isDir, modificationTime, blockReplication, blockSize, action).
 * Every `compactInterval`-th batch ((N+1) % interval == 0, Spark's default 10) is written instead
 * as `N.compact`, holding every batch so far: per batch a `{"batchId","queryId"}` line followed by
 * its file lines, each with `batchId`. Writing a compact deletes what the previous compact
 * superseded (deltas at or below it and older compacts), one interval late so that a reader who
 * listed the log just before still finds its files: the log stays about 2 × interval files.
 * Both kinds are written create-if-absent: finding one already there means another runner.
 */
import { listCompactedLog, readLogLines } from '../checkpoint/compacted-file-log';
import { FileAlreadyExistsError, type CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { ConcurrentStreamLogUpdateError } from '../errors';

export const SINK_LOG_DIR = '_weir_metadata';

export interface SinkFileStatus {
  path: string;
  size: number;
  isDir: boolean;
  modificationTime: number;
  blockReplication: number;
  blockSize: number;
  action: 'add' | 'delete';
}

export interface SinkLogEntry {
  queryId?: string;
  files: SinkFileStatus[];
}

export class FileStreamSinkLog {
  constructor(
    private readonly fm: CheckpointFileManager,
    readonly compactInterval = 10,
    readonly dir = SINK_LOG_DIR,
  ) {}

  private deltaPath(id: number): string {
    return `${this.dir}/${id}`;
  }

  private compactPath(id: number): string {
    return `${this.dir}/${id}.compact`;
  }

  private names(): Promise<{ deltas: number[]; compacts: number[] }> {
    return listCompactedLog(this.fm, this.dir);
  }

  private lines(path: string): Promise<Record<string, unknown>[] | undefined> {
    return readLogLines(this.fm, path);
  }

  private static entryOf(lines: Record<string, unknown>[]): SinkLogEntry {
    const e: SinkLogEntry = { files: [] };
    for (const j of lines) {
      if (typeof j.path === 'string') {
        const { batchId: _b, ...status } = j;
        e.files.push(status as unknown as SinkFileStatus);
      } else if (typeof j.queryId === 'string') e.queryId = j.queryId;
    }
    return e;
  }

  private async readCompact(id: number): Promise<Map<number, SinkLogEntry>> {
    const byBatch = new Map<number, Record<string, unknown>[]>();
    for (const j of (await this.lines(this.compactPath(id))) ?? []) {
      const b = Number(j.batchId);
      if (!byBatch.has(b)) byBatch.set(b, []);
      byBatch.get(b)!.push(j);
    }
    return new Map([...byBatch].map(([b, ls]) => [b, FileStreamSinkLog.entryOf(ls)]));
  }

  /** The latest committed batch id, or -1. */
  async latestBatchId(): Promise<number> {
    const { deltas, compacts } = await this.names();
    return Math.max(-1, deltas.at(-1) ?? -1, compacts.at(-1) ?? -1);
  }

  async get(id: number): Promise<SinkLogEntry | undefined> {
    const delta = await this.lines(this.deltaPath(id));
    if (delta) return FileStreamSinkLog.entryOf(delta);
    const { compacts } = await this.names();
    const covering = compacts.find((c) => c >= id);
    return covering === undefined ? undefined : (await this.readCompact(covering)).get(id);
  }

  /** Every committed batch in order (the latest compact plus the deltas after it). */
  async all(): Promise<{ batchId: number; entry: SinkLogEntry }[]> {
    const { deltas, compacts } = await this.names();
    const c = compacts.at(-1) ?? -1;
    const out = c >= 0 ? [...(await this.readCompact(c))].map(([batchId, entry]) => ({ batchId, entry })) : [];
    for (const id of deltas) {
      if (id <= c) continue;
      const ls = await this.lines(this.deltaPath(id));
      if (ls) out.push({ batchId: id, entry: FileStreamSinkLog.entryOf(ls) });
    }
    return out.sort((a, b) => a.batchId - b.batchId);
  }

  async add(id: number, entry: SinkLogEntry): Promise<void> {
    const compact = (id + 1) % this.compactInterval === 0;
    let path: string;
    let text: string;
    if (compact) {
      const lines = ['v1'];
      for (const b of [...(await this.all()).filter((x) => x.batchId !== id), { batchId: id, entry }]) {
        lines.push(JSON.stringify({ batchId: b.batchId, queryId: b.entry.queryId }));
        for (const f of b.entry.files) lines.push(JSON.stringify({ ...f, batchId: b.batchId }));
      }
      path = this.compactPath(id);
      text = lines.join('\n');
    } else {
      path = this.deltaPath(id);
      text = ['v1', JSON.stringify({ queryId: entry.queryId }), ...entry.files.map((f) => JSON.stringify(f))].join('\n');
    }
    try {
      await this.fm.createAtomic(path, text, { overwrite: false });
    } catch (e) {
      if (e instanceof FileAlreadyExistsError) throw new ConcurrentStreamLogUpdateError(id, path);
      throw e;
    }
    if (compact) {
      // One interval late: remove what the previous compact superseded.
      const { deltas, compacts } = await this.names();
      const previous = compacts.filter((c) => c < id).at(-1);
      if (previous !== undefined) {
        for (const d of deltas) if (d <= previous) await this.fm.delete(this.deltaPath(d));
        for (const c of compacts) if (c < previous) await this.fm.delete(this.compactPath(c));
      }
    }
  }
}
