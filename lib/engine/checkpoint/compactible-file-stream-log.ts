/**
 * A batch log that compacts itself every N batches (Spark's CompactibleFileStreamLog), written
 * once for the files source's log (`sources/<i>/`, FileStreamSourceLog) and the files sink's
 * `_weir_metadata/` (FileStreamSinkLog), which supply only how one batch's entry becomes lines.
 *
 * Layout: a delta file `N` per batch (`v1`, then one JSON object per line). Every
 * `compactInterval`-th batch ((N+1) % interval == 0, Spark's default 10) is written instead as
 * `N.compact`, holding every batch so far, each line tagged with its `batchId`. After a compact,
 * what it supersedes is deleted (deltas at or below it, older compacts), so the log stays a
 * handful of files however long the query runs and a restart reads one compact plus at most
 * interval-1 deltas. `cleanupDelayCompactions` (Spark's fileCleanupDelayMs, counted in
 * compactions rather than time) lets a log delete one compaction late instead, so that a reader
 * who listed the log just before still finds its files: the files sink overrides it, because
 * other programs read its `_weir_metadata/`.
 *
 * Both kinds of file are written create-if-absent; finding one already there means another
 * runner (CONCURRENT_STREAM_LOG_UPDATE). A crash between writing a compact and deleting what it
 * supersedes leaves extra files that are ignored (the latest compact wins at or below its id).
 */
import { parseVersionLine } from './batch-metadata-log';
import { FileAlreadyExistsError, FileNotFoundError, type CheckpointFileManager } from './checkpoint-file-manager';
import { ConcurrentStreamLogUpdateError } from '../errors';

const COMPACT = /^(\d+)\.compact$/;
const DELTA = /^(\d+)$/;

type Line = Record<string, unknown>;

export abstract class CompactibleFileStreamLog<T> {
  /** How many compactions late superseded files are deleted: 0 deletes at once. */
  protected readonly cleanupDelayCompactions: number = 0;

  constructor(
    protected readonly fm: CheckpointFileManager,
    readonly dir: string,
    readonly compactInterval = 10,
  ) {}

  /** One batch's entry as the lines of its delta file (after `v1`). */
  protected abstract serialize(entry: T): Line[];
  /** The inverse of `serialize`; also given a compact's lines of one batch, their `batchId` removed. */
  protected abstract deserialize(lines: Line[]): T;
  /**
   * One batch's lines in a compact, each carrying `batchId`. A batch with no lines is absent from
   * the compact: `absentFromCompact` says what it reads as.
   */
  protected compactLines(batchId: number, entry: T): Line[] {
    return this.serialize(entry).map((l) => ({ ...l, batchId }));
  }
  /** What a batch at or below a compact that has no line in it reads as (undefined: not logged). */
  protected absentFromCompact(): T | undefined {
    return undefined;
  }

  pathOf(id: number): string {
    return `${this.dir}/${id}`;
  }

  private compactPathOf(id: number): string {
    return `${this.dir}/${id}.compact`;
  }

  isCompactionBatch(id: number): boolean {
    return (id + 1) % this.compactInterval === 0;
  }

  /** The batch ids of the delta and compaction files, ascending. */
  private async names(): Promise<{ deltas: number[]; compacts: number[] }> {
    const deltas: number[] = [];
    const compacts: number[] = [];
    for (const n of await this.fm.list(this.dir)) {
      const c = COMPACT.exec(n);
      if (c) compacts.push(Number(c[1]));
      else if (DELTA.test(n)) deltas.push(Number(n));
    }
    return { deltas: deltas.sort((a, b) => a - b), compacts: compacts.sort((a, b) => a - b) };
  }

  /** The JSON lines of one log file after its `v1` header, or undefined if it does not exist. */
  private async readLines(path: string): Promise<Line[] | undefined> {
    let text: string;
    try {
      text = (await this.fm.read(path)).toString('utf8');
    } catch (e) {
      if (e instanceof FileNotFoundError) return undefined;
      throw e;
    }
    const lines = text.split('\n');
    parseVersionLine(lines[0], 1, path);
    return lines.slice(1).filter((l) => l !== '').map((l) => JSON.parse(l) as Line);
  }

  private async readCompact(id: number): Promise<Map<number, T>> {
    const byBatch = new Map<number, Line[]>();
    for (const { batchId, ...line } of (await this.readLines(this.compactPathOf(id))) ?? []) {
      const b = Number(batchId);
      if (!byBatch.has(b)) byBatch.set(b, []);
      byBatch.get(b)!.push(line);
    }
    return new Map([...byBatch].map(([b, lines]) => [b, this.deserialize(lines)]));
  }

  /** The latest logged batch id, or -1. */
  async latestBatchId(): Promise<number> {
    const { deltas, compacts } = await this.names();
    return Math.max(-1, deltas.at(-1) ?? -1, compacts.at(-1) ?? -1);
  }

  async get(id: number): Promise<T | undefined> {
    const delta = await this.readLines(this.pathOf(id));
    if (delta) return this.deserialize(delta);
    const { compacts } = await this.names();
    const covering = compacts.find((c) => c >= id);
    if (covering === undefined) return undefined;
    return (await this.readCompact(covering)).get(id) ?? this.absentFromCompact();
  }

  /** Every logged batch in order (the latest compact plus the deltas after it). */
  async all(): Promise<{ batchId: number; entry: T }[]> {
    const { deltas, compacts } = await this.names();
    const latest = compacts.at(-1) ?? -1;
    const byBatch = latest >= 0 ? await this.readCompact(latest) : new Map<number, T>();
    const absent = this.absentFromCompact();
    if (absent !== undefined) for (let id = 0; id <= latest; id++) if (!byBatch.has(id)) byBatch.set(id, absent);
    for (const id of deltas) {
      if (id <= latest) continue;
      const lines = await this.readLines(this.pathOf(id));
      if (lines) byBatch.set(id, this.deserialize(lines));
    }
    return [...byBatch].map(([batchId, entry]) => ({ batchId, entry })).sort((a, b) => a.batchId - b.batchId);
  }

  async add(id: number, entry: T): Promise<void> {
    const compact = this.isCompactionBatch(id);
    let path: string;
    let lines: Line[];
    if (compact) {
      path = this.compactPathOf(id);
      lines = [...(await this.all()).filter((b) => b.batchId !== id), { batchId: id, entry }].flatMap((b) => this.compactLines(b.batchId, b.entry));
    } else {
      path = this.pathOf(id);
      lines = this.serialize(entry);
    }
    try {
      await this.fm.createAtomic(path, ['v1', ...lines.map((l) => JSON.stringify(l))].join('\n'), { overwrite: false });
    } catch (e) {
      if (e instanceof FileAlreadyExistsError) throw new ConcurrentStreamLogUpdateError(id, path);
      throw e;
    }
    if (compact) await this.deleteExpiredLog(id);
  }

  /** After compact `id`: delete what the compact `cleanupDelayCompactions` before it superseded. */
  private async deleteExpiredLog(id: number): Promise<void> {
    const { deltas, compacts } = await this.names();
    const upTo = compacts.filter((c) => c <= id).at(-1 - this.cleanupDelayCompactions);
    if (upTo === undefined) return;
    for (const d of deltas) if (d <= upTo) await this.fm.delete(this.pathOf(d));
    for (const c of compacts) if (c < upTo) await this.fm.delete(this.compactPathOf(c));
  }
}
