import type { EventTimeStats } from '../operators/watermark';
import type { Offset, Row, Schema } from '../types';

/** Whether per-trigger read limits apply to the next batch ('all' for Trigger.Once). */
export type ReadLimit = 'default' | 'all';

/** Where a record came from, for bad-record reports and the dead-letter file. */
interface RecordLocation {
  /** e.g. a file name, a stream entry id, a table row key */
  source: string;
  /** 1-based line number within a file, when there is one */
  line?: number;
  offset?: Offset;
}

export interface BadRecord {
  raw: string;
  location: RecordLocation;
  reason: string;
}

export interface SourceBatch {
  rows: Row[];
  /** Records that did not parse against the schema; the execution applies `onBadRecord`. */
  badRecords: BadRecord[];
  /**
   * Set by a source that applied `SourceContext.pushedFilter` and so left rows out of `rows`:
   * how many rows it read (the batch's numInputRows) and the event times of all of them (the
   * watermark folds every row read, before any WHERE).
   */
  scanned?: { numInputRows: number; eventTimes?: EventTimeStats };
  /**
   * What reading the batch had to skip and its user must hear about (records a source could no
   * longer read, with failOnDataLoss false): the execution logs each at warn level with the batch
   * id, as Spark's sources log them, so they reach the CLI's stderr and the worker's log.
   */
  warnings?: string[];
}

/** The bounds of a look at a source's most recent records (the editor's Preview). */
export interface RecentRecordsLimit {
  /** At most this many records (rows and bad records together). */
  records: number;
  /** Stop reading once about this many bytes of records were read. */
  bytes: number;
  /** How long the read may take; a source sets it as its own server-side timeout where it can. */
  timeoutMs: number;
  /** Aborted when the time is up: stop reading (the caller then calls `stop()`). */
  signal: AbortSignal;
}

export interface RecentRecords extends SourceBatch {
  /** About how many bytes of records were read (the records' encoded size). */
  bytesRead: number;
  /** The byte bound stopped the read before `records` were read. */
  stoppedAtBytes: boolean;
}

/**
 * A streaming source (Spark's Source / MicroBatchStream).
 *
 * Contract (every implementation passes the source contract suite):
 * - `latestOffset()` is the end of what is available now; null when the source has never had data.
 * - `getBatch(start, end)` is deterministic over (start, end]: called twice with the same range it
 *   returns the same rows in the same order, so an uncommitted batch re-runs exactly. `start` null
 *   means from the beginning. A replayable source whose data for the range is gone throws
 *   DataLossError; a non-replayable source says so in `replayable` and may return less on replay.
 * - `commit(end)` tells the source everything up to `end` is committed and may be released.
 */
export interface Source {
  /** e.g. `FileSource[/data/in]`, shown in progress `sources[].description`. */
  readonly description: string;
  /** Exactly-once signature 1: can (start, end] be read again after a crash? */
  readonly replayable: boolean;
  /** Why `replayable` holds or not, in a sentence for the contract audit. */
  readonly replayableReason: string;
  readonly schema: Schema;
  /** Called once before the first batch with the checkpoint's per-source metadata area. */
  open?(): Promise<void>;
  /**
   * The end offset of the next batch. `start` is where that batch would start (the last
   * planned end) and `limit` says whether per-trigger limits such as `maxFilesPerTrigger`
   * apply ('default') or not ('all', Trigger.Once). A source may persist what it planned here
   * (the files source logs the files of the new offset), so the execution calls it only when
   * planning a batch; monitoring uses `reportLatestOffset`.
   */
  latestOffset(start?: Offset | null, limit?: ReadLimit): Promise<Offset | null>;
  /** The true latest offset, ignoring limits and without side effects (commit lag, progress). */
  reportLatestOffset?(): Promise<Offset | null>;
  /** Trigger.AvailableNow: fix what "available" means now; later data waits for the next run. */
  prepareForTriggerAvailableNow?(): Promise<void>;
  getBatch(start: Offset | null, end: Offset): Promise<SourceBatch>;
  /**
   * getBatch with its rows handed over while reading (Spark's scan iterator, which a whole-stage
   * pipeline consumes row by row): `onRows` gets consecutive pieces of the rows getBatch returns,
   * in order, each awaited before the source reads on; the batch returned has no rows, and the
   * rest (bad records, `scanned`, warnings) is getBatch's. The execution then runs the plan's
   * stateless operators and the first stateful one's fold piece by piece, so the batch's rows
   * die young instead of all being held until the last one is read.
   */
  getBatchInPieces?(start: Offset | null, end: Offset, onRows: (rows: Row[]) => void | Promise<void>): Promise<SourceBatch>;
  /**
   * Spark's MicroBatchStream.planInputPartitions: (start, end] cut into splits, in order, each a
   * range that `getBatch` of another instance of the source (same options and checkpoint, never
   * opened) reads alone; together they read what `getBatch(start, end)` reads, in the same order.
   * Map tasks read one split each. Without it, the range is one split.
   */
  planInputPartitions?(start: Offset | null, end: Offset): Promise<{ start: Offset | null; end: Offset }[]>;
  /** How many records `to` is ahead of `from` (commit lag); null when it cannot be said. */
  offsetLag?(from: Offset | null, to: Offset | null): number | null;
  commit?(end: Offset): Promise<void>;
  /** Source-specific progress metrics for a batch (string values, as Spark's `metrics` map). */
  metrics?(start: Offset | null, end: Offset, latest: Offset | null): Record<string, string>;
  /**
   * The source's own "new data" signal, for a trigger with interval 0 that found nothing new:
   * instead of sleeping a fixed time it waits here (LISTEN/NOTIFY, XREAD BLOCK, a JetStream fetch
   * with expires). Resolves as soon as data may have arrived after what `latestOffset` /
   * `reportLatestOffset` last saw (a spurious wake-up only costs one more empty look), after
   * `maxWaitMs` at the latest, and at once when `signal` aborts (the query stops). Never rejects:
   * when the signal channel is lost it falls back to a short poll. A source without it is polled.
   */
  waitForData?(signal: AbortSignal, maxWaitMs: number): Promise<void>;
  /**
   * Up to `limit.records` of the most recent records, oldest first (so event time and the
   * watermark move as they would in a batch), for a preview. Spark has no such call; it is
   * Weir's. Read-only: called on a source that was never opened, it writes nothing to the
   * checkpoint, commits nothing and moves no consumer group, durable consumer or offset; what it
   * reads is what the job's own source would read (same options, same outbound policy). A source
   * that cannot look back (a push source) leaves it out.
   */
  sampleRecent?(limit: RecentRecordsLimit): Promise<RecentRecords>;
  stop(): Promise<void>;
}
