/**
 * `progress/N`: batch N's StreamingQueryProgress, written right after `commits/N` and purged by
 * the same retention as offsets/ and commits/. It is not part of the recovery protocol (nothing
 * reads it to decide what to run); it keeps the last batches' progress where it survives a
 * worker restart, so a control plane that could not record a committed batch's history (its
 * database was down) fills it in later, as Spark's listener bus is allowed to fall behind the
 * batch loop. Format: `v1`, newline, the progress JSON.
 *
 * A batch commits once, so progress/N is written once; finding it already there (a write retried
 * after a lost reply) is not an error.
 */
import type { StreamingQueryProgress } from '../progress';
import { BatchMetadataLog, parseVersionLine } from './batch-metadata-log';
import type { CheckpointFileManager } from './checkpoint-file-manager';
import { CommitLog } from './commit-log';
import { ConcurrentStreamLogUpdateError } from '../errors';

export class ProgressLog extends BatchMetadataLog<StreamingQueryProgress> {
  static readonly VERSION = 1;

  constructor(fm: CheckpointFileManager, dir = 'progress') {
    super(fm, dir);
  }

  /** Writes progress/N unless it is already there. */
  async record(p: StreamingQueryProgress): Promise<void> {
    try {
      await this.add(p.batchId, p);
    } catch (e) {
      if (!(e instanceof ConcurrentStreamLogUpdateError)) throw e;
    }
  }

  protected serialize(p: StreamingQueryProgress): string {
    return `v${ProgressLog.VERSION}\n${JSON.stringify(p)}`;
  }

  protected deserialize(text: string, path: string): StreamingQueryProgress {
    const nl = text.indexOf('\n');
    parseVersionLine(nl < 0 ? text : text.slice(0, nl), ProgressLog.VERSION, path);
    try {
      return JSON.parse(text.slice(nl + 1)) as StreamingQueryProgress;
    } catch (e) {
      return this.corrupt(path, `progress is not JSON (${(e as Error).message})`);
    }
  }
}

/**
 * The progress of the committed batches the checkpoint still keeps, ascending by batch id:
 * those of `commits/` that have a `progress/` file (a batch committed just before its runner died
 * may have none). An unreadable progress file is skipped: this is history, not recovery.
 */
export async function readRecentProgress(fm: CheckpointFileManager, opts: { after?: number } = {}): Promise<StreamingQueryProgress[]> {
  const log = new ProgressLog(fm);
  const committed = new Set(await new CommitLog(fm).batchIds());
  const out: StreamingQueryProgress[] = [];
  for (const id of await log.batchIds()) {
    if (!committed.has(id) || (opts.after !== undefined && id <= opts.after)) continue;
    const p = await log.get(id).catch(() => undefined);
    if (p) out.push(p);
  }
  return out;
}
