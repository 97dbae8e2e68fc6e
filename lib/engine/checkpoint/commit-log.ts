/**
 * `commits/N` (Spark's CommitLog), written after batch N's output reached the sink and its state
 * was committed. Format: `v1`, newline, `{"nextBatchWatermarkMs":<ms>}`. A missing second line
 * reads as `{}` (watermark 0), as in Spark.
 */
import { BatchMetadataLog, parseVersionLine } from './batch-metadata-log';
import type { CheckpointFileManager } from './checkpoint-file-manager';

export interface CommitMetadata {
  nextBatchWatermarkMs: number;
}

export class CommitLog extends BatchMetadataLog<CommitMetadata> {
  static readonly VERSION = 1;

  constructor(fm: CheckpointFileManager, dir = 'commits') {
    super(fm, dir);
  }

  protected serialize(c: CommitMetadata): string {
    return `v${CommitLog.VERSION}\n${JSON.stringify({ nextBatchWatermarkMs: c.nextBatchWatermarkMs })}`;
  }

  protected deserialize(text: string, path: string): CommitMetadata {
    const lines = text.split('\n');
    parseVersionLine(lines[0], CommitLog.VERSION, path);
    if (!lines[1] || lines[1].trim() === '') return { nextBatchWatermarkMs: 0 };
    try {
      const j = JSON.parse(lines[1]) as Partial<CommitMetadata>;
      return { nextBatchWatermarkMs: Number(j.nextBatchWatermarkMs ?? 0) };
    } catch (e) {
      return this.corrupt(path, `commit metadata is not JSON (${(e as Error).message})`);
    }
  }
}
