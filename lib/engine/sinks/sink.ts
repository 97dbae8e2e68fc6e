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
  close(): Promise<void>;
}
