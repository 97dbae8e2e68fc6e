/**
 * Dead-letter output for `onBadRecord: "dead-letter"`: a batch's bad records go to
 * `<badRecordsPath>/<queryId>/batch-<N>.jsonl`, one JSON line each:
 * `{"batchId","source","line","offset","reason","record"}`.
 * The file is written whole and atomically per batch (overwrite), so a re-run of batch N writes
 * the same file again instead of doubling its lines.
 */
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { checkpointFileManagerFor } from '../checkpoint/checkpoint-location';
import type { BadRecord } from '../sources/source';

export class DeadLetterWriter {
  private readonly fm: CheckpointFileManager;
  constructor(
    readonly badRecordsPath: string,
    private readonly queryId: string,
  ) {
    this.fm = checkpointFileManagerFor(badRecordsPath);
  }

  fileFor(batchId: number): string {
    return `${this.queryId}/batch-${batchId}.jsonl`;
  }

  async write(batchId: number, records: BadRecord[]): Promise<void> {
    if (records.length === 0) return;
    const lines = records.map((r) =>
      JSON.stringify({ batchId, source: r.location.source, line: r.location.line ?? null, offset: r.location.offset ?? null, reason: r.reason, record: r.raw }),
    );
    await this.fm.createAtomic(this.fileFor(batchId), lines.join('\n') + '\n', { overwrite: true });
  }
}
