/**
 * `offsets/N` (Spark's OffsetSeqLog, VERSION 1), the write-ahead record of batch N, written
 * before the batch runs. File format, no trailing newline:
 *
 *   v1
 *   {"batchWatermarkMs":0,"batchTimestampMs":1703081374762,"conf":{}}
 *   <offset JSON of source 0, or "-" when the source has no offset>
 *   ...one line per source, in source order
 */
import type { Offset } from '../types';
import { BatchMetadataLog, parseVersionLine } from './batch-metadata-log';
import type { CheckpointFileManager } from './checkpoint-file-manager';

export interface OffsetSeqMetadata {
  batchWatermarkMs: number;
  batchTimestampMs: number;
  /** Settings fixed for the query's life (restored from the checkpoint on restart). */
  conf: Record<string, string>;
}

export interface OffsetSeq {
  metadata: OffsetSeqMetadata;
  /** End offsets of batch N, one per source; null = the source has no offset yet. */
  offsets: (Offset | null)[];
}

export class OffsetSeqLog extends BatchMetadataLog<OffsetSeq> {
  static readonly VERSION = 1;

  constructor(fm: CheckpointFileManager, dir = 'offsets') {
    super(fm, dir);
  }

  protected serialize(seq: OffsetSeq): string {
    const meta = {
      batchWatermarkMs: seq.metadata.batchWatermarkMs,
      batchTimestampMs: seq.metadata.batchTimestampMs,
      conf: seq.metadata.conf,
    };
    const lines = [`v${OffsetSeqLog.VERSION}`, JSON.stringify(meta)];
    for (const o of seq.offsets) lines.push(o === null || o === undefined ? '-' : JSON.stringify(o));
    return lines.join('\n');
  }

  protected deserialize(text: string, path: string): OffsetSeq {
    const lines = text.split('\n');
    parseVersionLine(lines[0], OffsetSeqLog.VERSION, path);
    if (lines.length < 2) this.corrupt(path, 'missing the metadata line');
    let meta: Partial<OffsetSeqMetadata> = {};
    if (lines[1].trim() !== '') {
      try {
        meta = JSON.parse(lines[1]);
      } catch (e) {
        this.corrupt(path, `metadata line is not JSON (${(e as Error).message})`);
      }
    }
    const offsets = lines.slice(2).map((l, i) => {
      if (l === '-') return null;
      try {
        return JSON.parse(l) as Offset;
      } catch (e) {
        return this.corrupt(path, `offset line ${i + 3} is not JSON (${(e as Error).message})`);
      }
    });
    return {
      metadata: {
        batchWatermarkMs: Number(meta.batchWatermarkMs ?? 0),
        batchTimestampMs: Number(meta.batchTimestampMs ?? 0),
        conf: meta.conf ?? {},
      },
      offsets,
    };
  }
}
