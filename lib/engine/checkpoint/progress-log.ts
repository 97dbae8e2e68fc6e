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
import { OffsetSeqLog } from './offset-seq-log';
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
 * The progress of the committed batches the checkpoint still keeps, ascending by batch id.
 *
 * A committed batch without a readable progress/N (its runner died between commits/N and
 * progress/N, or the write failed) is rebuilt from its offsets/N (and offsets/N-1 for the start offsets), marked
 * `reconstructed`, so that every committed batch can have a history row: the batch id, the
 * trigger time, the source offsets and the watermark are exact, the counts and durations are
 * unknown and read 0. The query's identity, sources, sink and contract come from the nearest
 * kept progress; with none kept (a checkpoint from before progress/N) nothing is rebuilt.
 */
export async function readRecentProgress(fm: CheckpointFileManager, opts: { after?: number } = {}): Promise<StreamingQueryProgress[]> {
  const log = new ProgressLog(fm);
  const commits = new CommitLog(fm);
  const committed = (await commits.batchIds()).filter((id) => opts.after === undefined || id > opts.after);
  const haveFile = new Set(await log.batchIds());
  const kept = new Map<number, StreamingQueryProgress>();
  for (const id of committed) {
    const p = haveFile.has(id) ? await log.get(id).catch(() => undefined) : undefined;
    if (p) kept.set(id, p);
  }
  if (kept.size === 0) return [];
  const offsets = new OffsetSeqLog(fm);
  const out: StreamingQueryProgress[] = [];
  for (const id of committed) {
    const p = kept.get(id) ?? (await reconstruct(id, nearest(kept, id), offsets).catch(() => undefined));
    if (p) out.push(p);
  }
  return out;
}

function nearest(kept: Map<number, StreamingQueryProgress>, id: number): StreamingQueryProgress {
  let best: StreamingQueryProgress | undefined;
  for (const [k, p] of kept) if (!best || Math.abs(k - id) < Math.abs(best.batchId - id)) best = p;
  return best!;
}

async function reconstruct(batchId: number, like: StreamingQueryProgress, offsets: OffsetSeqLog): Promise<StreamingQueryProgress | undefined> {
  const seq = await offsets.get(batchId);
  if (!seq) return undefined;
  const previous = batchId > 0 ? await offsets.get(batchId - 1).catch(() => undefined) : undefined;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: like.id,
    runId: '',
    name: like.name,
    timestamp: iso(seq.metadata.batchTimestampMs),
    batchId,
    batchDuration: 0,
    numInputRows: 0,
    inputRowsPerSecond: 0,
    processedRowsPerSecond: 0,
    durationMs: {},
    ...(like.eventTime ? { eventTime: { watermark: iso(seq.metadata.batchWatermarkMs) } } : {}),
    stateOperators: [],
    sources: like.sources.map((s, i) => ({
      description: s.description,
      startOffset: previous?.offsets[i] ?? null,
      endOffset: seq.offsets[i] ?? null,
      latestOffset: null,
      numInputRows: 0,
    })),
    sink: { description: like.sink.description, numOutputRows: 0 },
    commitLag: null,
    numBadRecords: 0,
    numDeadLetterRecords: 0,
    contract: like.contract,
    reconstructed: true,
  };
}
