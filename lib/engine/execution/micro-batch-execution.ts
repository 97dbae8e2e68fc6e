/**
 * MicroBatchExecution: runs a job as a sequence of micro-batches with Spark's write-ahead
 * protocol. For batch N:
 *
 *   1. plan: fence() (at most once a second when idle), ask the source for the end offset (latestOffset) after the last planned
 *      end (a source may log its plan, e.g. the files source's sources/0/K); no new data → no
 *      batch (unless a stateful operator asks for a no-data batch to close windows)
 *   2. fence(), write offsets/N = { batchWatermarkMs, batchTimestampMs, conf: {weir.source, weir.statefulOperators, spark.sql.shuffle.partitions} } + end offset
 *      (create-if-absent: an existing file means another runner: CONCURRENT_STREAM_LOG_UPDATE),
 *      purge offsets/ and commits/ below N - minBatchesToRetain + 1        [crash: after-offsets]
 *   3. source.getBatch(start, end], read beside step 2's write (a read leaves nothing a restart
 *      could see; only the sink write must follow offsets/N), or, with map tasks, the map
 *      tasks' reads beside it (their reduce tasks, which commit state, wait for it); bad
 *      records → fail or dead-letter (bad-record-policy.ts)
 *   4. run the operators (stateful ones get state version N; one reduce task per state partition,
 *      task-scheduler.ts), track max event time
 *   5. fence(), sink.addBatch(N, rows), beside the first state store's commit to N+1 (both
 *      durable before anything else goes on)                             [crash: after-sink];
 *      when the last stage's remote tasks wrote their partitions to the sink themselves
 *      (Sink.commitProtocol), sink.commitProtocol.commitJob(N, their messages) instead
 *   6. commit the other state stores to version N+1                       [crash: mid-state-commit]
 *      then the stateful operators confirm what they did (onCommitted); a failure in 4–6 aborts
 *      the uncommitted stores instead and the operators forget it (onAborted)
 *   7. fence(), write commits/N = { nextBatchWatermarkMs }                [crash: after-commit]
 *   8. in the background: state maintenance (snapshots, retention), progress/N (history kept
 *      for the control plane, progress-log.ts) and onProgress, in batch order
 *      (progress-reporter.ts)
 *
 * Steps 3–8 are runBatch, top to bottom. The state stores are QueryRuntime's (query-runtime.ts),
 * but when they commit, beside what, and what follows, is decided here only.
 *
 * On start, before anything is written, the checkpoint must be intact (checkpoint-integrity.ts):
 * offsets without metadata, state without its schema, or an unreadable log is CORRUPT_CHECKPOINT.
 * populateStartOffsets (on start, populate-start-offsets.ts): latest offsets/L with commits/L → resume at L+1 from L's
 * end offsets, watermark from commits/L; offsets/L without commits/L → re-run batch L over
 * exactly (offsets/L-1, offsets/L] with L's recorded batchTimestampMs and watermark.
 * The watermark is max(event time seen) - watermarkDelay, never moving back, computed at the
 * end of batch N and used by batch N+1.
 */
import { randomUUID } from 'node:crypto';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import { checkpointFileManagerFor } from '../checkpoint/checkpoint-location';
import { CommitLog } from '../checkpoint/commit-log';
import { assertCheckpointIntact } from '../checkpoint/checkpoint-integrity';
import { OffsetSeqLog, STATEFUL_OPERATORS_CONF, type OffsetSeq } from '../checkpoint/offset-seq-log';
import { ProgressLog } from '../checkpoint/progress-log';
import { getOrCreateStreamMetadata } from '../checkpoint/stream-metadata';
import { SystemClock, type Clock } from '../clock';
import type { StreamingQueryProgress, StreamingQueryStatus } from '../progress';
import type { JobSpec } from '../spec/job-spec';
import type { Sink } from '../sinks/sink';
import type { ReadLimit, Source, SourceBatch } from '../sources/source';
import type { StateStoreId, StateStoreProvider } from '../state/state-store';
import type { Offset } from '../types';
import { readsOfSource } from '../query/streaming-query';
import { BadRecordPolicy } from './bad-record-policy';
import { CrashPoints, type CrashPlan } from './crash-points';
import { MULTIPLE_WATERMARK_POLICY_CONF, populateStartOffsets, recordedParallelism, SHUFFLE_PARTITIONS_CONF, sourceConfKey } from './populate-start-offsets';
import { CorruptCheckpointError } from '../errors';
import { DEFAULT_MULTIPLE_WATERMARK_POLICY, MULTIPLE_WATERMARK_POLICIES, withSourcesReconciled, type MultipleWatermarkPolicy } from '../spec/job-spec';
import { ProgressReporter } from './progress-reporter';
import { QueryRuntime, type BatchResult, type MappedBatch } from './query-runtime';
import type { TaskScheduler } from './task-scheduler';
import { nextTriggerTime, triggerFromSpec, type Trigger } from './trigger';

export interface EngineLogEvent {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  batchId?: number;
  [k: string]: unknown;
}

/** Spark's QueryIdleEvent. */
export interface QueryIdleEvent {
  id: string;
  runId: string;
  /** When the idle trigger asked the source, epoch ms. */
  timestampMs: number;
}

export const DEFAULT_NO_DATA_PROGRESS_EVENT_INTERVAL_MS = 10_000;

export interface MicroBatchExecutionOptions {
  /** A validated spec (parseJobSpec / validateJob). */
  spec: JobSpec;
  clock?: Clock;
  /** Checkpoint storage; default: from spec.checkpointLocation. */
  checkpoint?: CheckpointFileManager;
  onProgress?: (p: StreamingQueryProgress) => void | Promise<void>;
  /**
   * Spark's onQueryIdle (QueryIdleEvent): a trigger asked the source and found no new data.
   * Called at most once per `noDataProgressEventIntervalMs` while the query stays idle, and not
   * awaited: it tells a quiet source (the query polls, nothing comes) from a stuck query (no
   * batch, and no idle poll either).
   */
  onQueryIdle?: (e: QueryIdleEvent) => void;
  /** Spark's spark.sql.streaming.noDataProgressEventInterval: default 10 s. */
  noDataProgressEventIntervalMs?: number;
  /**
   * Spark's spark.sql.streaming.noDataMicroBatches.enabled (default true): false runs a batch
   * only when a source has new data, so a moved watermark evicts (and emits) at the next one.
   */
  noDataMicroBatchesEnabled?: boolean;
  crash?: CrashPlan;
  /**
   * Called before planning a batch (a source may log its plan), before every checkpoint log write
   * and before sink.addBatch; throws to stop a zombie runner whose lease was lost.
   */
  fence?: () => Promise<void>;
  log?: (event: EngineLogEvent) => void;
  /** State store providers for stateful operators; required only by stateful plans. */
  stateStoreProvider?: (id: StateStoreId, checkpoint: CheckpointFileManager) => StateStoreProvider;
  /** Where the `lmdb` state store provider keeps its local copy of the state (QueryRuntimeDeps.stateLocalDir). */
  stateLocalDir?: string;
  /** Where a stateful stage's reduce tasks run (default: in this process, task-scheduler.ts). */
  taskScheduler?: TaskScheduler;
  /** Ready-made source/sink instead of building them from the registries (tests, embedding). */
  source?: Source;
  /** Ready-made sources, one per spec source in order (a query over several sources). */
  sources?: Source[];
  sink?: Sink;
  /** Id generator for the query id (first start) and run ids; seed it in tests. */
  newId?: () => string;
  /**
   * This start's runId, when the caller already names the run (the control plane's Run row): the
   * progress JSON, the sink and the logs then carry the same id as the Runs tab. Default: a new one.
   */
  runId?: string;
  /**
   * Whom the query runs as (Spark's session user): what current_user(), user() and
   * session_user() return. Default: DEFAULT_CURRENT_USER. The control plane gives the job's
   * creator, which stays the same on every run, so a re-run batch computes the same rows.
   */
  currentUser?: string;
}

/** Idle triggers call fence() at most this often (writes always call it). */
const PLANNING_FENCE_INTERVAL_MS = 1000;
/** Longest an idle interval-0 trigger waits on a source's data signal before planning again. */
const IDLE_WAIT_MAX_MS = PLANNING_FENCE_INTERVAL_MS;
/**
 * The bounded poll of a source without a data signal: the first look after a batch comes 5 ms
 * later (data often comes in runs), doubling while idle up to 100 ms, so an idle query asks its
 * source at most ten times a second.
 */
const IDLE_POLL_MIN_MS = 5;
const IDLE_POLL_MAX_MS = 100;

interface PlannedBatch {
  batchId: number;
  /** Per source, in order: where the batch starts (the previous batch's end offsets). */
  start: (Offset | null)[];
  seq: OffsetSeq;
  /** Each source's latest offset when the batch was read (progress and commit lag). */
  latest: (Offset | null)[];
}

export class MicroBatchExecution {
  readonly clock: Clock;
  readonly checkpoint: CheckpointFileManager;
  readonly trigger: Trigger;
  /** Query id from the checkpoint's `metadata`; set by start(). */
  id = '';
  runId = '';
  status: StreamingQueryStatus = { message: 'Initializing', isDataAvailable: false, isTriggerActive: false };

  private readonly offsetLog: OffsetSeqLog;
  private readonly commitLog: CommitLog;
  private readonly progressLog: ProgressLog;
  private readonly reporter: ProgressReporter;
  private readonly crashPoints: CrashPoints;
  private readonly newId: () => string;
  private runtime?: QueryRuntime;
  /** One per source: each source's onBadRecord. */
  private badRecords: BadRecordPolicy[] = [];
  private started = false;
  private closed = false;
  private stopping = false;
  private readonly sleepAbort = new AbortController();
  private running?: Promise<void>;
  private queue: Promise<unknown> = Promise.resolve();
  // Recovery state
  private nextBatchId = 0;
  /** Per source, in order: the end offsets of the last committed batch. */
  private committedOffsets: (Offset | null)[] = [];
  private watermarkMs = 0;
  /** The watermark the last batch run in this process ran under (previousBatchWatermark). */
  private lastBatchWatermark?: { batchId: number; ms: number };
  /**
   * Until this run commits a batch: the watermark the checkpoint's last committed batch evicted
   * up to. A new run's operators do not know it, so each would ask for a no-data batch at once;
   * one at that same watermark evicts and emits nothing, and is not run (Spark's first trigger
   * after a restart runs none at all: it has no lastExecution to ask). One whose watermark the
   * last batch moved past still runs, so what it closes is emitted without waiting for new data.
   */
  private evictedBeforeStartMs?: number;
  private pending?: { batchId: number; start: (Offset | null)[]; seq: OffsetSeq };
  private purgedOnce = false;
  private lastFenceMs?: number;
  private idlePollMs = IDLE_POLL_MIN_MS;

  constructor(private readonly opts: MicroBatchExecutionOptions) {
    // Where the engine takes a parsed spec: everything below reads its sources as they will run.
    this.opts = { ...opts, spec: withSourcesReconciled(opts.spec) };
    this.clock = opts.clock ?? new SystemClock();
    this.checkpoint = opts.checkpoint ?? checkpointFileManagerFor(opts.spec.checkpointLocation);
    this.trigger = triggerFromSpec(opts.spec.trigger);
    this.offsetLog = new OffsetSeqLog(this.checkpoint);
    this.commitLog = new CommitLog(this.checkpoint);
    this.progressLog = new ProgressLog(this.checkpoint);
    this.reporter = new ProgressReporter({
      clock: this.clock,
      progressLog: this.progressLog,
      onProgress: opts.onProgress,
      warn: (msg, batchId) => this.log('warn', msg, { batchId }),
    });
    this.crashPoints = new CrashPoints(opts.crash);
    this.newId = opts.newId ?? randomUUID;
  }

  get name(): string {
    return this.opts.spec.name;
  }

  /** The last committed batch's progress (ProgressReporter). */
  get lastProgress(): StreamingQueryProgress | undefined {
    return this.reporter.lastProgress;
  }

  /** The progress of the last 100 committed batches, oldest first. */
  get recentProgress(): readonly StreamingQueryProgress[] {
    return this.reporter.recentProgress;
  }

  private log(level: EngineLogEvent['level'], msg: string, extra: Omit<EngineLogEvent, 'level' | 'msg'> = {}): void {
    this.opts.log?.({ level, msg, queryId: this.id, runId: this.runId, ...extra });
  }

  private async fence(): Promise<void> {
    if (!this.opts.fence) return;
    await this.opts.fence();
    this.lastFenceMs = this.clock.now();
  }

  /**
   * Before planning, a fence only guards availability (a zombie's source-log write would make
   * this runner fail and restart, never lose or double data), so idle polls fence at most once
   * per PLANNING_FENCE_INTERVAL_MS; writes always fence.
   */
  private async fenceBeforePlanning(): Promise<void> {
    if (this.lastFenceMs === undefined || this.clock.now() - this.lastFenceMs >= PLANNING_FENCE_INTERVAL_MS) await this.fence();
  }

  /** Opens the checkpoint, source and sink and recovers the position. Idempotent. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // Before anything is written: a checkpoint that lost its metadata or its state schema must not
    // quietly become a new query (see checkpoint-integrity.ts).
    await assertCheckpointIntact(this.checkpoint);
    const meta = await getOrCreateStreamMetadata(this.checkpoint, this.newId);
    this.id = meta.id;
    this.runId = this.opts.runId ?? this.newId();
    this.log('info', meta.created ? 'Starting new streaming query' : 'Resuming streaming query from checkpoint', { checkpoint: this.checkpoint.description });
    this.runtime = await QueryRuntime.create(this.opts.spec, {
      numPartitions: await this.checkpointParallelism(),
      clock: this.clock,
      checkpoint: this.checkpoint,
      queryId: this.id,
      sources: this.opts.sources ?? (this.opts.source ? [this.opts.source] : undefined),
      sink: this.opts.sink,
      stateStoreProvider: this.opts.stateStoreProvider,
      stateLocalDir: this.opts.stateLocalDir,
      taskScheduler: this.opts.taskScheduler,
    });
    const rt = this.runtime;
    this.badRecords = this.opts.spec.sources.map((s, i) => new BadRecordPolicy({ onBadRecord: s.onBadRecord, badRecordsPath: s.badRecordsPath, queryId: this.id, source: rt.sources[i].description }));
    await this.populateStartOffsets();
    this.status = { message: 'Waiting for data to arrive', isDataAvailable: false, isTriggerActive: false };
  }

  /**
   * As Spark restores spark.sql.shuffle.partitions from the checkpoint: the parallelism recorded
   * in the latest offsets/L wins over the spec's (the state is split into that many partitions);
   * a checkpoint without it has one. Unset for a new query (the spec's).
   */
  private async checkpointParallelism(): Promise<number | undefined> {
    const latest = await this.offsetLog.getLatest();
    if (!latest) return undefined;
    const recorded = recordedParallelism(latest.value.metadata.conf, this.offsetLog.pathOf(latest.batchId));
    if (recorded !== this.opts.spec.parallelism) {
      this.log('warn', `parallelism ${this.opts.spec.parallelism} of the spec is ignored: the checkpoint was written with ${recorded}, which stays for its life (as Spark's ${SHUFFLE_PARTITIONS_CONF})`);
    }
    return recorded;
  }

  /** Spark's populateStartOffsets (see the header and populate-start-offsets.ts). */
  private async populateStartOffsets(): Promise<void> {
    const rt = this.runtime!;
    const r = await populateStartOffsets({
      offsetLog: this.offsetLog,
      commitLog: this.commitLog,
      sources: rt.sources.map((s) => ({ description: s.description, replayable: s.replayable })),
      checkpointDescription: this.checkpoint.description,
      log: (level, msg, batchId) => this.log(level, msg, batchId === undefined ? {} : { batchId }),
    });
    // As Spark restores spark.sql.streaming.multipleWatermarkPolicy from the checkpoint: the
    // recorded policy wins over the spec's; a checkpoint without one means "min".
    if (r.conf) {
      // Lower-cased as Spark reads it (a checkpoint Spark wrote may hold "MAX").
      const recorded = (r.conf[MULTIPLE_WATERMARK_POLICY_CONF] ?? DEFAULT_MULTIPLE_WATERMARK_POLICY).toLowerCase();
      if (!(MULTIPLE_WATERMARK_POLICIES as readonly string[]).includes(recorded)) {
        throw new CorruptCheckpointError(this.offsetLog.pathOf(r.nextBatchId - (r.pending ? 0 : 1)), `${MULTIPLE_WATERMARK_POLICY_CONF} is "${recorded}", which is not one of ${MULTIPLE_WATERMARK_POLICIES.join(', ')}`);
      }
      const specPolicy = this.opts.spec.multipleWatermarkPolicy;
      if (specPolicy !== undefined && specPolicy !== recorded) {
        this.log('warn', `multipleWatermarkPolicy "${specPolicy}" of the spec is ignored: the checkpoint was written with "${recorded}", which stays for its life (as Spark's spark.sql.streaming.multipleWatermarkPolicy)`);
      }
      rt.useWatermarkPolicy(recorded as MultipleWatermarkPolicy);
    }
    this.nextBatchId = r.nextBatchId;
    this.committedOffsets = r.committedOffsets;
    this.watermarkMs = r.watermarkMs;
    this.pending = r.pending;
    if (r.lastBatchWatermarkMs !== undefined) {
      this.lastBatchWatermark = { batchId: r.nextBatchId - 1, ms: r.lastBatchWatermarkMs };
      this.evictedBeforeStartMs = r.lastBatchWatermarkMs;
    } else if (r.nextBatchId === 0 && !r.pending) {
      // A new checkpoint has no state: its starting watermark closes and evicts nothing, so only
      // data starts batch 0 (Spark's first trigger has no lastExecution to ask for one either).
      this.evictedBeforeStartMs = this.watermarkMs;
    }
  }

  /** Runs until the trigger is done (once, available-now) or stop(); closes source and sink. */
  run(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.running ??= this.runLoop().finally(() => this.close());
    return this.running;
  }

  private async runLoop(): Promise<void> {
    await this.runTriggers();
    await this.reporter.drain();
  }

  private async runTriggers(): Promise<void> {
    await this.start();
    const t = this.trigger;
    if (t.kind === 'once') {
      await this.exclusive(() => this.runOneTrigger('all'));
      return;
    }
    if (t.kind === 'available-now') {
      for (const s of this.runtime!.sources) await s.prepareForTriggerAvailableNow?.();
      while (!this.stopping && (await this.exclusive(() => this.runOneTrigger('default'))));
      return;
    }
    while (!this.stopping) {
      const startedAt = this.clock.now();
      const ran = await this.exclusive(() => this.runOneTrigger('default'));
      if (this.stopping) break;
      const wait = nextTriggerTime(startedAt, t.intervalMs) - this.clock.now();
      if (wait > 0) {
        this.status = { ...this.status, message: 'Waiting for next trigger', isTriggerActive: false };
        await this.clock.sleep(wait, this.sleepAbort.signal);
      } else if (t.intervalMs === 0) {
        if (ran) this.idlePollMs = IDLE_POLL_MIN_MS;
        else await this.waitForData();
      }
    }
  }

  /**
   * Interval 0 with nothing new: wait on the source's own signal when it has one (bounded, so that
   * idle planning still fences about once a second), else poll with a short delay that backs off
   * while the source stays idle. stop() aborts either wait at once.
   */
  private async waitForData(): Promise<void> {
    const sources = this.runtime!.sources;
    if (sources.every((s) => s.waitForData)) {
      // Several sources: the first signal wakes the query, and the other waits end with it.
      const woken = new AbortController();
      const stop = () => woken.abort();
      this.sleepAbort.signal.addEventListener('abort', stop, { once: true });
      try {
        await Promise.race(sources.map((s) => s.waitForData!(woken.signal, IDLE_WAIT_MAX_MS)));
      } finally {
        woken.abort();
        this.sleepAbort.signal.removeEventListener('abort', stop);
      }
      return;
    }
    await this.clock.sleep(this.idlePollMs, this.sleepAbort.signal);
    this.idlePollMs = Math.min(IDLE_POLL_MAX_MS, this.idlePollMs * 2);
  }

  /** Tests: runs batches until the source has nothing new (starting the query if needed). */
  async processAllAvailable(): Promise<void> {
    await this.start();
    while (await this.exclusive(() => this.runOneTrigger('default')));
    await this.reporter.drain();
  }

  /** Graceful stop: the running batch finishes and commits; then run() returns. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.sleepAbort.abort();
    if (this.running) await this.running.catch(() => undefined);
    else await this.queue.catch(() => undefined);
    await this.close();
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.reporter.idle();
    // A failed run keeps its "Terminated with exception" status for whoever inspects it.
    if (!this.status.message.startsWith('Terminated')) this.status = { message: 'Stopped', isDataAvailable: false, isTriggerActive: false };
    await this.runtime?.close();
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** One trigger: the pending re-run, or a new batch if there is new data. Returns whether a batch ran. */
  private async runOneTrigger(limit: ReadLimit): Promise<boolean> {
    if (this.closed) return false;
    const rt = this.runtime!;
    const triggerStartMs = this.clock.now();
    this.reporter.startTrigger(triggerStartMs);
    this.status = { message: 'Processing new data', isDataAvailable: true, isTriggerActive: true };
    try {
      this.reporter.throwIfFailed();
      if (this.pending) {
        const p = this.pending;
        this.pending = undefined;
        const { inputs, latest } = await this.readBatch(p.start, p.seq.offsets);
        await this.runBatch({ ...p, latest }, inputs);
        this.lastIdleEventMs = undefined;
        return true;
      }
      // A source may log its plan (the files source's sources/0/K): stop a zombie here too.
      await this.fenceBeforePlanning();
      // A graceful stop asked for while this trigger fenced (a stop, restart or drill request that
      // the fence itself returned) lets the running batch finish; this one has not begun.
      if (this.stopping) return false;
      const t0 = this.clock.now();
      // Each source plans its own end offset; a batch runs when any of them has new data.
      const ends = await Promise.all(rt.sources.map((s, i) => s.latestOffset(this.committedOffsets[i], limit)));
      this.reporter.recordTimeTaken('latestOffset', this.clock.now() - t0);
      // A stop requested while planning (the fence above may be what asked for it): no new batch
      // is started. A graceful stop finishes a batch whose offsets are written, never begins one,
      // so whoever stopped the query knows that input arriving after the stop is left to the next run.
      if (this.stopping) return false;
      if (ends.every((end, i) => end === null || sameOffset(end, this.committedOffsets[i]))) {
        const noDataBatches = this.opts.noDataMicroBatchesEnabled ?? true;
        if (!noDataBatches || this.watermarkMs <= (this.evictedBeforeStartMs ?? -Infinity) || !rt.needsNoDataBatch(this.watermarkMs)) {
          this.status = { message: 'Waiting for data to arrive', isDataAvailable: false, isTriggerActive: false };
          this.reportIdle(triggerStartMs);
          return false;
        }
      }
      const batchId = this.nextBatchId;
      const seq: OffsetSeq = {
        metadata: { batchWatermarkMs: this.watermarkMs, batchTimestampMs: triggerStartMs, conf: this.batchConf() },
        offsets: ends,
      };
      const t1 = this.clock.now();
      await this.fence();
      // Reading (start, end] has no effect a restart could see (getBatch is deterministic), so it
      // overlaps the offsets/N write; only the sink write must wait for offsets/N to be durable.
      // Map tasks are that read where they run (their blocks are named by this driver's run), so
      // they overlap it too; the reduce tasks, which commit state, wait for it (runMapStage).
      const start = this.committedOffsets;
      const read = this.readBatch(start, ends);
      const logged = (async () => {
        await this.offsetLog.add(batchId, seq);
        await this.purgeLogs(batchId);
        this.reporter.recordTimeTaken('walCommit', this.clock.now() - t1);
        this.crashPoints.check('after-offsets', batchId);
      })();
      // A pipelined stage reads its source while its operators run (runBatch), overlapping the write too.
      const overlapped = rt.mapStageId !== undefined || rt.pipelinedStageId !== undefined;
      const [wrote, got] = await Promise.allSettled([overlapped ? undefined : logged, read]);
      if (wrote.status === 'rejected') throw wrote.reason;
      if (got.status === 'rejected') {
        // offsets/N's failure, if it failed too, is the cause to report.
        await logged;
        throw got.reason;
      }
      const b = { batchId, start, seq, latest: got.value.latest };
      // offsets/N's failure first: the batch's own (its reduce tasks never started) follows from it.
      if (overlapped) await settleAll([logged, this.runBatch(b, got.value.inputs, logged)]);
      else await this.runBatch(b, got.value.inputs);
      // The first idle trigger after a batch reports at once: the source went quiet after it.
      this.lastIdleEventMs = undefined;
      return true;
    } catch (e) {
      this.status = { message: `Terminated with exception: ${(e as Error).message}`, isDataAvailable: false, isTriggerActive: false };
      this.log('error', (e as Error).message, { code: (e as { code?: string }).code });
      throw e;
    }
  }

  private lastIdleEventMs: number | undefined;

  /** onQueryIdle, at most once per noDataProgressEventIntervalMs (the first idle trigger reports at once). */
  private reportIdle(triggerStartMs: number): void {
    const interval = this.opts.noDataProgressEventIntervalMs ?? DEFAULT_NO_DATA_PROGRESS_EVENT_INTERVAL_MS;
    if (!this.opts.onQueryIdle || (this.lastIdleEventMs !== undefined && triggerStartMs - this.lastIdleEventMs < interval)) return;
    this.lastIdleEventMs = triggerStartMs;
    try {
      this.opts.onQueryIdle({ id: this.id, runId: this.runId, timestampMs: triggerStartMs });
    } catch (e) {
      // A listener's failure is not the query's.
      this.log('warn', `onQueryIdle listener failed: ${(e as Error).message}`);
    }
  }

  /**
   * offsets/N `conf`: each source (checked on restart), the stateful operators (see
   * STATEFUL_OPERATORS_CONF), the parallelism (spark.sql.shuffle.partitions) and, with several
   * sources or a source read several times (a self-join: a watermark per read), the
   * multipleWatermarkPolicy (a checkpoint of one read of one source stays as it always was: its
   * policy is moot).
   */
  private batchConf(): Record<string, string> {
    const rt = this.runtime!;
    const conf: Record<string, string> = {};
    rt.sources.forEach((s, i) => (conf[sourceConfKey(i)] = s.description));
    conf[STATEFUL_OPERATORS_CONF] = rt.query.statefulOperators.map((o) => o.operatorId).join(',');
    if (rt.sources.length > 1 || rt.watermarkInputCount > 1) conf[MULTIPLE_WATERMARK_POLICY_CONF] = rt.watermarkPolicy;
    conf[SHUFFLE_PARTITIONS_CONF] = String(rt.numPartitions);
    return conf;
  }

  /**
   * Retention (Spark's minBatchesToRetain): after offsets/N, keep batches N-retain+1..N. The
   * first purge of a run lists the logs; later ones delete the one entry that fell out, so the
   * per-batch cost does not grow with the log.
   */
  private async purgeLogs(batchId: number): Promise<void> {
    const threshold = batchId - this.opts.spec.minBatchesToRetain + 1;
    if (threshold <= 0) return;
    // A progress/N still being written must not outlive the purge that should remove it.
    await this.reporter.idle();
    if (!this.purgedOnce) {
      await this.offsetLog.purge(threshold);
      await this.commitLog.purge(threshold);
      await this.progressLog.purge(threshold);
      this.purgedOnce = true;
    } else {
      await this.offsetLog.remove(threshold - 1);
      await this.commitLog.remove(threshold - 1);
      await this.progressLog.remove(threshold - 1);
    }
  }

  /** Each source's input over its own (start, end] and, beside it, its true latest offset (for progress and commit lag). */
  private async readBatch(start: readonly (Offset | null)[], end: readonly (Offset | null)[]): Promise<{ inputs: SourceBatch[]; latest: (Offset | null)[] }> {
    const rt = this.runtime!;
    const read = rt.sources.map(async (src, i): Promise<[SourceBatch, Offset | null]> => {
      const e = end[i];
      return Promise.all([
        // Map tasks read the source where they run, a pipelined stage while it runs (runBatch).
        e === null || sameOffset(e, start[i]) || rt.mapStageId !== undefined || rt.pipelinedStageId !== undefined
          ? { rows: [], badRecords: [] }
          : this.reporter.reportTimeTaken('getBatch', () => src.getBatch(start[i], e)),
        src.reportLatestOffset ? src.reportLatestOffset() : e,
      ]);
    });
    const got = await Promise.all(read);
    return { inputs: got.map((g) => g[0]), latest: got.map((g) => g[1]) };
  }

  /**
   * The watermark batch N judges late rows by: batch N-1's (Spark's PropagateWatermarkSimulator
   * gives each operator its previous batch's input watermark for late events, its current one
   * for eviction). After a restart it is read back from offsets/N-1; batch 0 has no previous one
   * and, as Spark, judges by 0.
   */
  private async previousBatchWatermark(batchId: number, current: number): Promise<number> {
    if (batchId === 0) return Math.min(0, current);
    if (this.lastBatchWatermark?.batchId === batchId - 1) return this.lastBatchWatermark.ms;
    const previous = await this.offsetLog.get(batchId - 1);
    // A purged offsets/N-1 (beyond retention) leaves the batch's own: the stricter of the two.
    return previous?.metadata.batchWatermarkMs ?? current;
  }

  /**
   * Steps 3–8 of the header for batch N, whose offsets/N is durable (or being written:
   * `offsetsLogged`, which the map tasks overlap and everything after them awaits): the bad-record policy, the
   * operators, then the commit, in this order and nowhere else: the sink write beside the first
   * state store's commit, the other stores, the operators' confirmation (onCommitted; onAborted
   * if anything before failed), commits/N.
   */
  private async runBatch(b: PlannedBatch, inputs: SourceBatch[], offsetsLogged?: Promise<void>): Promise<void> {
    const rt = this.runtime!;
    const { batchId, seq } = b;
    const ends = seq.offsets;
    const batch = {
      batchId,
      batchWatermarkMs: seq.metadata.batchWatermarkMs,
      lateEventsWatermarkMs: await this.previousBatchWatermark(batchId, seq.metadata.batchWatermarkMs),
      batchTimestampMs: seq.metadata.batchTimestampMs,
      ...(this.opts.currentUser !== undefined ? { currentUser: this.opts.currentUser } : {}),
    };
    // The first stateful stage's map and reduce tasks run where the scheduler puts them, reading
    // the source there; what they read comes back as the batch's input (query-runtime.ts).
    let mapped: MappedBatch | undefined;
    if (rt.mapStageId !== undefined) {
      const [start, end] = [b.start[0], ends[0]];
      try {
        mapped = await this.reporter.reportTimeTaken('addBatch', () => rt.runMapStage(start, end === null || sameOffset(end, start) ? null : end, batch, offsetsLogged));
      } catch (e) {
        rt.abortState();
        throw e;
      }
      inputs = [mapped.input];
    } else if (rt.pipelinedStageId !== undefined) {
      const [start, end] = [b.start[0], ends[0]];
      // The read and the stage's fold are one pass: its time is the batch's getBatch.
      try {
        mapped = await this.reporter.reportTimeTaken('getBatch', () => rt.runPipelinedStage(start, end === null || sameOffset(end, start) ? null : end, batch));
      } catch (e) {
        rt.abortState();
        throw e;
      }
      inputs = [mapped.input];
    }
    // Nothing below runs before offsets/N is durable (runMapStage's reduce tasks waited for it;
    // the pipelined stage's state is only committed below).
    let sourceBadRecords: ReturnType<BadRecordPolicy['beginBatch']>[];
    try {
      await offsetsLogged;
      for (const w of inputs.flatMap((input) => input.warnings ?? [])) this.log('warn', `Batch ${batchId}: ${w}`, { batchId });
      // 3. A source's bad record under onBadRecord "fail" fails the batch before any operator runs
      // (a pipelined stage's operators ran, but their state is not committed: it is aborted).
      // A row that fails an expression is the first source's to divert (a union's rows no longer
      // say which source they came from).
      sourceBadRecords = inputs.map((input, i) => this.badRecords[i].beginBatch(batchId, input.badRecords));
    } catch (e) {
      if (rt.pipelinedStageId !== undefined) rt.abortState();
      throw e;
    }
    const badRecords = sourceBadRecords[0];
    let result: BatchResult;
    let numBadRecords: number;
    try {
      // 4. The plan is compiled once at start, so planning costs nothing per batch; as in Spark,
      // where execution is lazy, running the operators counts towards addBatch.
      this.reporter.recordTimeTaken('queryPlanning', 0);
      for (const { row, error } of mapped?.expressionErrors ?? []) badRecords.onRecordError(row, error);
      const ctx = { ...batch, onRecordError: badRecords.onRecordError };
      result = await this.reporter.reportTimeTaken('addBatch', () => rt.execute(inputs, ctx, mapped)).catch(badRecords.rethrow);
      for (const { row, error } of result.sinkCommits?.expressionErrors ?? []) badRecords.onRecordError(row, error);
      numBadRecords = 0;
      for (const r of sourceBadRecords) numBadRecords += await r.settle();
      // 5. The sink write and the first state store's commit to N+1 are both durable before
      // anything else goes on; neither needs the other, so they overlap (both settle before an
      // error is thrown, so no write is left running behind it). A crash from here to commits/N
      // re-runs the batch, which the sink's batch id makes harmless and which rewrites the state
      // version it commits.
      const [firstStore, ...otherStores] = rt.batchStateStores();
      await settleAll([
        this.reporter.reportTimeTaken('addBatch', async () => {
          await this.fence();
          const sinkCtx = { outputMode: this.opts.spec.outputMode, schema: rt.query.outputSchema, queryId: this.id, runId: this.runId };
          // The last stage's tasks wrote their partitions to the sink: one commit of all of them.
          if (result.sinkCommits) await rt.sink.commitProtocol!.commitJob(batchId, result.sinkCommits.messages, sinkCtx);
          else await rt.sink.addBatch(batchId, result.rows, sinkCtx);
        }),
        firstStore?.commit(),
      ]);
      this.crashPoints.check('after-sink', batchId);
      // 6. The other state stores (a crash here leaves some at N+1, others at N).
      this.crashPoints.check('mid-state-commit', batchId);
      await settleAll(otherStores.map((s) => s.commit()));
    } catch (e) {
      rt.abortState();
      throw e;
    }
    // Every store is at N+1: what the operators kept aside while running the batch (how far
    // they evicted, the groups they cache) now holds; their figures are the committed version's.
    rt.stateCommitted(batchId + 1);
    const stateOperators = rt.stateOperatorProgress();
    // 7. commits/N: the batch is done; a restart resumes after it.
    const nextWatermarkMs = rt.nextWatermark(seq.metadata.batchWatermarkMs, result.watermarkEventTimes);
    await this.reporter.reportTimeTaken('commitOffsets', async () => {
      await this.fence();
      await this.commitLog.add(batchId, { nextBatchWatermarkMs: nextWatermarkMs });
    });
    for (const [i, end] of ends.entries()) if (end !== null) await rt.sources[i].commit?.(end);
    this.committedOffsets = ends;
    this.watermarkMs = nextWatermarkMs;
    this.lastBatchWatermark = { batchId, ms: seq.metadata.batchWatermarkMs };
    this.evictedBeforeStartMs = undefined;
    this.nextBatchId = batchId + 1;
    this.crashPoints.check('after-commit', batchId);
    // 8. In the background: snapshots and retention of state (Spark's maintenance task), then
    // progress/N and onProgress.
    rt.startStateMaintenance((e) => this.log('warn', `State maintenance failed (retried after the next batch): ${(e as Error).message}`, { batchId }));
    // Several watermarks: each source's own, and the policy that picks the global one from them.
    const severalWatermarks = rt.watermarkInputCount > 1;
    const sourceWatermarks = severalWatermarks ? rt.sourceWatermarksMs() : [];
    const sources = rt.sources.map((src, i) => ({
      description: src.description,
      startOffset: b.start[i],
      endOffset: ends[i],
      latestOffset: b.latest[i],
      ...sourceMetrics(src, b.start[i], ends[i], b.latest[i]),
      // Spark counts each scan's rows: a source the plan reads twice (a self-union) counts twice.
      numInputRows: (inputs[i].scanned?.numInputRows ?? inputs[i].rows.length) * Math.max(1, readsOfSource(rt.query, this.opts.spec.sources[i].name)),
      commitLag: src.offsetLag?.(ends[i], b.latest[i]) ?? null,
      ...(sourceWatermarks[i] !== undefined ? { watermarkMs: sourceWatermarks[i] } : {}),
    }));
    this.reporter.finishTrigger({
      id: this.id,
      runId: this.runId,
      name: this.name,
      batchId,
      numInputRows: sources.reduce((n, s) => n + s.numInputRows, 0),
      eventTimes: result.eventTimes,
      hasEventTime: rt.hasEventTime,
      watermarkMs: seq.metadata.batchWatermarkMs,
      stateOperators,
      sources,
      sink: { description: rt.sink.description, numOutputRows: result.sinkCommits?.numOutputRows ?? result.rows.length },
      numBadRecords,
      numDeadLetterRecords: numBadRecords,
      contract: rt.contract,
      ...(severalWatermarks ? { multipleWatermarkPolicy: rt.watermarkPolicy } : {}),
    });
    this.status = { message: 'Waiting for data to arrive', isDataAvailable: false, isTriggerActive: false };
  }
}

function sameOffset(a: Offset | null, b: Offset | null): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** A source's own progress metrics (e.g. Kafka's per-partition offsets and lag), when it has any. */
function sourceMetrics(source: Source, start: Offset | null, end: Offset | null, latest: Offset | null): { metrics?: Record<string, string> } {
  const m = end === null ? undefined : source.metrics?.(start, end, latest);
  return m && Object.keys(m).length ? { metrics: m } : {};
}

/** Awaits every promise (undefined: nothing to wait for) and throws the first failure, if any. */
async function settleAll(ps: (Promise<unknown> | undefined)[]): Promise<void> {
  const results = await Promise.allSettled(ps);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}
