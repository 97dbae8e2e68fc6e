/**
 * The files sink's batch log `_weir_metadata/` (Spark's FileStreamSinkLog): which data files
 * each committed batch consists of, and which query wrote it.
 *
 * A CompactibleFileStreamLog (compaction, deletion, concurrent-writer detection live there).
 * A delta N: line 1 `v1`, line 2 `{"queryId":…}`, then one SinkFileStatus JSON per data file
 * (path, size, isDir, modificationTime, blockReplication, blockSize, action). In a compact, per
 * batch a `{"batchId","queryId"}` line followed by its file lines, each with `batchId`. What a
 * compact supersedes is deleted one compaction late (as Spark's sink log keeps it for
 * fileCleanupDelayMs): other programs read this log (readCommittedRows), and one that listed it
 * just before a compaction still finds its files. The log stays about 2 × interval files.
 */
import { CompactibleFileStreamLog } from '../checkpoint/compactible-file-stream-log';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';

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

export class FileStreamSinkLog extends CompactibleFileStreamLog<SinkLogEntry> {
  protected override readonly cleanupDelayCompactions = 1;

  constructor(fm: CheckpointFileManager, compactInterval = 10, dir = SINK_LOG_DIR) {
    super(fm, dir, compactInterval);
  }

  protected serialize(entry: SinkLogEntry): Record<string, unknown>[] {
    return [{ queryId: entry.queryId }, ...entry.files.map((f) => ({ ...f }))];
  }

  protected deserialize(lines: Record<string, unknown>[]): SinkLogEntry {
    const e: SinkLogEntry = { files: [] };
    for (const j of lines) {
      if (typeof j.path === 'string') e.files.push(j as unknown as SinkFileStatus);
      else if (typeof j.queryId === 'string') e.queryId = j.queryId;
    }
    return e;
  }

  /** The batch header first, so a compact reads as the deltas it replaces. */
  protected override compactLines(batchId: number, entry: SinkLogEntry): Record<string, unknown>[] {
    return [{ batchId, queryId: entry.queryId }, ...entry.files.map((f) => ({ ...f, batchId }))];
  }
}
