/**
 * One progress record per batch: Spark's StreamingQueryProgress (same keys, same order: id,
 * runId, name, timestamp, batchId, batchDuration, numInputRows, inputRowsPerSecond,
 * processedRowsPerSecond, durationMs, eventTime, stateOperators, sources, sink,
 * observedMetrics) followed by Weir's additions: commitLag (how far the committed end offset
 * is behind the source's latest, in the source's unit: rows, or files for the files source),
 * numBadRecords / numDeadLetterRecords, and the exactly-once contract audit of the run.
 * As in Spark, empty maps are omitted and NaN/Infinity rates are left out.
 */
import type { ContractAudit } from './contract';
import type { StateOperatorProgress } from './operators/physical-operator';
import type { Offset } from './types';

export interface SourceProgress {
  description: string;
  startOffset: Offset | null;
  endOffset: Offset | null;
  latestOffset: Offset | null;
  numInputRows: number;
  inputRowsPerSecond?: number;
  processedRowsPerSecond?: number;
  metrics?: Record<string, string>;
  /** A query over several sources: this source's commit lag (the query's commitLag is their sum). */
  commitLag?: number | null;
  /**
   * A query over several watermarks: this source's own watermark after the batch (its max event
   * time in this run minus its delay), one of those the policy picks the next global one from.
   */
  watermark?: string;
}

export interface SinkProgress {
  description: string;
  numOutputRows: number;
  metrics?: Record<string, string>;
}

export interface StreamingQueryProgress {
  id: string;
  runId: string;
  name: string;
  /** Trigger start, ISO-8601 UTC. */
  timestamp: string;
  batchId: number;
  batchDuration: number;
  numInputRows: number;
  inputRowsPerSecond?: number;
  processedRowsPerSecond?: number;
  durationMs: Record<string, number>;
  eventTime?: { avg?: string; max?: string; min?: string; watermark: string };
  stateOperators: StateOperatorProgress[];
  sources: SourceProgress[];
  sink: SinkProgress;
  observedMetrics?: Record<string, unknown>;
  commitLag: number | null;
  numBadRecords: number;
  numDeadLetterRecords: number;
  contract: ContractAudit;
  /** A query over several watermarks: how the global watermark is picked from theirs (Spark's spark.sql.streaming.multipleWatermarkPolicy, as the checkpoint records it). */
  multipleWatermarkPolicy?: 'min' | 'max';
  /**
   * Set on a batch whose progress was lost (its runner died between commits/N and progress/N):
   * the history row is rebuilt from the checkpoint, so only the batch id, trigger time, offsets
   * and watermark are known; the counts and durations read 0.
   */
  reconstructed?: true;
  /**
   * Weir's own: the batch's reduce tasks, when they ran on the workers (WEIR_TASK_SCHEDULER=cluster),
   * added by the worker as it reports the progress; absent for tasks run in the run's own process.
   */
  tasks?: TaskProgress[];
}

/** One reduce task of a batch as it ran: which worker, how many rows, how long, which attempt. */
export interface TaskProgress {
  stageId: number;
  /** A reduce task's state partition; a map task's split (its mapId). */
  partitionId: number;
  /** A map task (reading its split of the source, before the stage's shuffle); unset: a reduce task. */
  kind?: 'map';
  workerId: string;
  inputRows: number;
  rows: number;
  /** Bytes of the task's input and output blocks (the shuffle). */
  shuffleBytes: number;
  durationMs: number;
  /** 1 for the first start; more after its worker died or it failed. */
  attempt: number;
}

export interface StreamingQueryStatus {
  message: string;
  isDataAvailable: boolean;
  isTriggerActive: boolean;
}

export interface BatchFigures {
  id: string;
  runId: string;
  name: string;
  triggerStartMs: number;
  triggerEndMs: number;
  /** Start of the previous trigger, for inputRowsPerSecond. */
  previousTriggerStartMs?: number;
  batchId: number;
  numInputRows: number;
  durationMs: Record<string, number>;
  eventTimes?: { min: number; max: number; avg: number };
  hasEventTime: boolean;
  watermarkMs: number;
  stateOperators: StateOperatorProgress[];
  /** One per source, in source order (Spark's `sources`); their rows add up to numInputRows. */
  sources: (Omit<SourceProgress, 'inputRowsPerSecond' | 'processedRowsPerSecond' | 'commitLag' | 'watermark'> & { commitLag: number | null; watermarkMs?: number })[];
  sink: SinkProgress;
  numBadRecords: number;
  numDeadLetterRecords: number;
  contract: ContractAudit;
  multipleWatermarkPolicy?: 'min' | 'max';
}

const finite = (x: number): number | undefined => (Number.isFinite(x) ? x : undefined);
const iso = (ms: number) => new Date(ms).toISOString();

function sortedKeys<T>(m: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k];
  return out;
}

export function buildProgress(f: BatchFigures): StreamingQueryProgress {
  const processingMs = Math.max(1, f.durationMs.triggerExecution ?? f.triggerEndMs - f.triggerStartMs);
  const inputRate = f.previousTriggerStartMs === undefined ? undefined : finite((f.numInputRows * 1000) / (f.triggerStartMs - f.previousTriggerStartMs));
  const processedRate = finite((f.numInputRows * 1000) / processingMs);
  const p: StreamingQueryProgress = {
    id: f.id,
    runId: f.runId,
    name: f.name,
    timestamp: iso(f.triggerStartMs),
    batchId: f.batchId,
    batchDuration: f.triggerEndMs - f.triggerStartMs,
    numInputRows: f.numInputRows,
    inputRowsPerSecond: inputRate,
    processedRowsPerSecond: processedRate,
    durationMs: sortedKeys(f.durationMs),
    eventTime: undefined,
    stateOperators: f.stateOperators,
    // Each source's rates as Spark's SourceProgress: its rows over the same intervals.
    sources: f.sources.map(({ commitLag, watermarkMs, ...s }) => {
      const own = {
        ...s,
        inputRowsPerSecond: inputRate === undefined ? undefined : finite((s.numInputRows * 1000) / (f.triggerStartMs - f.previousTriggerStartMs!)),
        processedRowsPerSecond: processedRate === undefined ? undefined : finite((s.numInputRows * 1000) / processingMs),
      };
      if (own.inputRowsPerSecond === undefined) delete own.inputRowsPerSecond;
      if (own.processedRowsPerSecond === undefined) delete own.processedRowsPerSecond;
      const several = f.sources.length > 1 ? { ...own, commitLag } : own;
      return watermarkMs === undefined ? several : { ...several, watermark: iso(watermarkMs) };
    }),
    sink: f.sink,
    // Several sources: how far the query is behind in all of them (unknown if one cannot say).
    commitLag: f.sources.some((s) => s.commitLag === null) ? null : f.sources.reduce((n, s) => n + s.commitLag!, 0),
    numBadRecords: f.numBadRecords,
    numDeadLetterRecords: f.numDeadLetterRecords,
    contract: f.contract,
    ...(f.multipleWatermarkPolicy ? { multipleWatermarkPolicy: f.multipleWatermarkPolicy } : {}),
  };
  if (f.hasEventTime) {
    p.eventTime = f.eventTimes
      ? { avg: iso(f.eventTimes.avg), max: iso(f.eventTimes.max), min: iso(f.eventTimes.min), watermark: iso(f.watermarkMs) }
      : { watermark: iso(f.watermarkMs) };
  } else delete p.eventTime;
  if (inputRate === undefined) delete p.inputRowsPerSecond;
  if (processedRate === undefined) delete p.processedRowsPerSecond;
  return p;
}
