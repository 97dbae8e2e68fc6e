/**
 * The files source's log (Spark's FileStreamSourceLog) in `sources/<i>/`: which files each
 * planned batch (log offset K) covers, so a replay reads exactly those files.
 *
 * A CompactibleFileStreamLog (compaction, deletion, concurrent-writer detection live there):
 * a delta `K` holds one `{"path","size","timestamp"}` per file (`timestamp`, Spark's FileEntry's:
 * the modification time when listed; absent in logs written before it was kept); a compact the
 * same lines with `batchId`.
 * A log offset with no files has no line in a compact and reads as []. Superseded files are
 * deleted as soon as the compact is written: only this source reads its log.
 */
import { CompactibleFileStreamLog } from '../checkpoint/compactible-file-stream-log';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';

export interface SourceFileEntry {
  path: string;
  size: number;
  /** Epoch milliseconds the file was last modified when it was listed (`_metadata.file_modification_time`). */
  modificationTime?: number;
}

export class FileStreamSourceLog extends CompactibleFileStreamLog<SourceFileEntry[]> {
  constructor(fm: CheckpointFileManager, dir: string, compactInterval = 10) {
    super(fm, dir, compactInterval);
  }

  protected serialize(files: SourceFileEntry[]): Record<string, unknown>[] {
    return files.map((f) => ({ path: f.path, size: f.size, ...(f.modificationTime !== undefined ? { timestamp: f.modificationTime } : {}) }));
  }

  protected deserialize(lines: Record<string, unknown>[]): SourceFileEntry[] {
    return lines.map((e) => ({ path: String(e.path), size: Number(e.size), ...(typeof e.timestamp === 'number' ? { modificationTime: e.timestamp } : {}) }));
  }

  protected override absentFromCompact(): SourceFileEntry[] {
    return [];
  }

  /** Every logged entry by log offset (an offset with no files is present with []). */
  async allEntries(): Promise<Map<number, SourceFileEntry[]>> {
    return new Map((await this.all()).map((b) => [b.batchId, b.entry]));
  }
}
