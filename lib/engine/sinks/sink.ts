import type { OutputMode, Row, Schema } from '../types';

/**
 * Exactly-once signature 3:
 * - `idempotent`: the sink recognizes a replayed batch id and writes nothing the second time.
 * - `transactional`: rows and the batch id commit atomically, so a replay commits nothing.
 * - `at-least-once`: a replayed batch is written again (duplicates, unless a downstream honours
 *   an idempotency key).
 */
export type SinkSignature = 'idempotent' | 'transactional' | 'at-least-once';

export interface SinkBatchContext {
  outputMode: OutputMode;
  /** Output schema of the query, used to render timestamps and windows. */
  schema: Schema;
  /** The query id (checkpoint metadata id), e.g. for idempotency keys. */
  queryId: string;
  /** The run id (new per start): lets a sink name an attempt's files apart from a failed attempt's. */
  runId?: string;
}

/**
 * A streaming sink (Spark's Sink.addBatch).
 *
 * Contract: `addBatch(batchId, rows)` either writes the batch or throws (SinkError), in which
 * case the engine does not commit the batch and will re-run it. Whether a replay of the same
 * batchId is recognized is what `signature` declares; the sink contract suite checks it.
 */
export interface Sink {
  readonly description: string;
  readonly signature: SinkSignature;
  /** Why the signature holds, in a sentence for the contract audit. */
  readonly signatureReason: string;
  readonly supportedOutputModes: readonly OutputMode[];
  open?(): Promise<void>;
  addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void>;
  /**
   * Set by a sink whose tasks can write their own partitions (Spark's FileCommitProtocol): when a
   * batch's last stage runs as remote reduce tasks, each task writes its rows and the driver
   * commits the batch with `commitJob` instead of calling `addBatch`. Unset: the driver writes.
   */
  readonly commitProtocol?: SinkCommitProtocol;
  close(): Promise<void>;
}

/** Where one attempt of one task writes its partition of a batch's output (SinkCommitProtocol.commitTask). */
export interface SinkTaskContext extends SinkBatchContext {
  batchId: number;
  partitionId: number;
  /** Unique per attempt of the task: a retried task's earlier (zombie) attempt writes under another name. */
  attemptId: string;
}

/**
 * Spark's FileCommitProtocol (ManifestFileCommitProtocol for the file stream sink), for a sink
 * whose tasks write their own partition of a batch's output: each reduce task writes its rows
 * where nothing reads them yet (`commitTask`, on the worker that ran it) and returns a commit
 * message (plain data: a file's SinkFileStatus); the driver then makes the batch visible once,
 * with the messages of the attempts that completed (`commitJob`, beside the batch's state commit,
 * in place of `addBatch`). What a zombie attempt wrote is in no message the driver holds, so it
 * is never made visible. `commitJob` keeps `addBatch`'s replay rule: a batch id the sink already
 * holds commits nothing (and may delete what the messages name, which nothing reads).
 */
export interface SinkCommitProtocol<M = unknown> {
  commitTask(rows: Row[], task: SinkTaskContext): Promise<M>;
  commitJob(batchId: number, messages: M[], ctx: SinkBatchContext): Promise<void>;
}
