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

/**
 * offsets/N `conf` key: the ids of the plan's stateful operators ("0,1"; "" for a stateless plan).
 * It is what lets a restart tell state that was deleted (the checkpoint says operator 0 kept
 * state, and state/0 is gone: CORRUPT_CHECKPOINT) from a stateful operator added to a query
 * that ran without one (INCOMPATIBLE_QUERY_CHANGE). Offsets written before the key existed
 * lack it: then nothing is known either way.
 */
export const STATEFUL_OPERATORS_CONF = 'weir.statefulOperators';

/** The stateful operator ids recorded in a batch's conf, or undefined when the conf predates the key. */
export function statefulOperatorsOf(meta: OffsetSeqMetadata): number[] | undefined {
  const v = meta.conf[STATEFUL_OPERATORS_CONF];
  if (v === undefined) return undefined;
  return v.split(',').filter((x) => /^\d+$/.test(x)).map(Number);
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
