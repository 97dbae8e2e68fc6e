/**
 * StatefulAggregateExec: streaming GROUP BY (Spark's StateStoreRestoreExec + StateStoreSaveExec
 * in one operator), with event-time windows and watermark eviction.
 *
 * Per batch N, with the stores MicroBatchExecution loaded at version N (`ctx.stateStores`,
 * `${operatorId}/${partition}`) and the batch's watermark W (`batchWatermarkMs`, from offsets/N):
 * 1. Each input row gives its grouping tuple; a window key expands a row into one tuple per
 *    window containing its event time (sliding windows: several).
 * 2. If the aggregation is bounded by the watermark (a grouping key is the watermarked event
 *    time, or a window over it) and the mode is not Complete, tuples whose event time (window:
 *    window end) is ≤ W are late: dropped, and numRowsDroppedByWatermark counts the groups they
 *    make, as Spark's StateStoreSaveExec drops late rows after the partial aggregation and
 *    counts aggregated rows (ten late rows of one window: 1).
 * 3. Each touched group's buffers are read from the store once, updated by every row of the
 *    batch, and written back once: store work follows the groups touched, not the rows. With
 *    one plain grouping column the operator also keeps the decoded groups between batches
 *    (at most 100k, valid only for the store version it built them on), so a group touched
 *    every batch is not decoded every batch. That cache is state memory too: its estimate is
 *    added to memoryUsedBytes and shown alone as customMetrics.groupCacheBytes. With one key or
 *    several plain keys (a tumbling window among them), count(*) alone bumps a counter on the
 *    group (one lookup per row), and aggregates that fold numbers only are folded a batch at a
 *    time, column by column (ColumnarFold), falling back to the row fold on a non-number. The
 *    fold is picked once, when the operator is built (aggregate-folds.ts).
 * 4. Output, by mode (Spark's semantics):
 *    - Complete: every group in state, every batch; nothing is evicted.
 *    - Update: the groups touched in this batch; then groups with event time ≤ W are evicted.
 *    - Append: groups with event time ≤ W are emitted once, as final, and evicted in the same
 *      step, so a group can never be emitted twice. (Append without a bound is refused by
 *      the analyzer before this runs.)
 * With partial aggregation (map tasks, when every aggregate's buffers merge exactly), step 1
 * ran in the map tasks over their splits (partialAggregate), late rows aggregated too; the
 * reduce side drops the late groups (step 2) and merges the others' buffers, in map order, into
 * the groups' (mergePartials, step 3); step 4 is the same.
 * MicroBatchExecution commits the stores (version N+1) beside the sink write; a crash before
 * commits/N re-runs batch N from version N and yields the same output. How far the state is
 * evicted, and the cached groups, count only from onCommitted; onAborted forgets them.
 */
import { isMergeable, type AggregateFunction } from '../query/aggregate-functions';
import type { Evaluator } from '../query/expression-compiler';
import { providerMetrics, type StateStore } from '../state/state-store';
import { decodeKey, decodeValue } from '../state/state-value-codec';
import type { Field, OutputMode, Row, Schema } from '../types';
import {
  chooseFold, keyTime, mergePartialBuffers, partialAggregate, partitionOfGroup, writeGroups, type AggregateFold, type Group, type PartialAggregateBuffer,
} from './aggregate-folds';
import { partitionStores, StateOperatorTimes, type OperatorContext, type StatefulOperator, type StateOperatorProgress } from './physical-operator';
import type { TimeWindowSpec } from './window';

export interface GroupingKey {
  /** Output column name (`window` for a window key). */
  name: string;
  type: Field['type'];
  /** The key value; for a window key, the event time the windows are computed from. */
  eval: Evaluator;
  window?: TimeWindowSpec;
  /** A decimal key's precision and scale (spread into its output Field). */
  decimal?: { precision: number; scale: number };
  /** An array key's element type (kept in its output Field). */
  elementType?: Field;
  /** A struct key's fields (kept in its output Field, so that a field of the key is read above). */
  fields?: Field[];
  /** An INT, SMALLINT or TINYINT key's width (kept in its output Field). */
  integral?: Field['integral'];
  /** A FLOAT key's marker (kept in its output Field). */
  float32?: true;
  /** A TIMESTAMP_NTZ key. */
  ntz?: true;
  /** An interval key's unit range (INTERVAL DAY is not INTERVAL HOUR: kept in its output Field). */
  interval?: Field['interval'];
  /** A key of NULLs (Spark's VOID, kept as a STRING): its output Field stays VOID, as Spark's grouping attribute does. */
  void?: true;
  /**
   * Set when the key is a plain source column: the hot loop reads `row[column]` at its own call
   * site, which sees only source rows (a monomorphic property load), instead of the shared
   * column closure that every query's rows go through.
   */
  column?: string;
}

export interface AggregateSpec {
  name: string;
  fn: AggregateFunction;
  /** Argument; absent for count(*). */
  arg?: Evaluator;
  /** Set when the argument is a plain source column (see GroupingKey.column). */
  argColumn?: string;
}

export interface StatefulAggregateOptions {
  operatorId: number;
  keys: GroupingKey[];
  aggregates: AggregateSpec[];
  outputMode: OutputMode;
  /** Index in `keys` of the watermarked event time (or window over it); absent: unbounded state. */
  watermarkKeyIndex?: number;
  numPartitions?: number;
  /** Operator name for explain and progress (default `stateStoreSave`). */
  name?: string;
}

/** Event times of encoded keys remembered for the eviction scan, at most this many. */
const MAX_KEY_TIMES = 1_000_000;
/** Estimated heap of one memo entry (a Map entry and a heap number). */
const KEY_TIME_BYTES = 40;


/**
 * An aggregation's output columns: the grouping keys (a window or session key as a window), then
 * each aggregate's result (Spark's Aggregate.output); the session window exec's as well.
 */
export function aggregateOutputSchema(keys: readonly GroupingKey[], aggregates: readonly AggregateSpec[]): Schema {
  return [
    ...keys.map((k) => ({ name: k.name, type: k.window ? ('window' as const) : k.type, ...k.decimal, ...(k.elementType ? { elementType: k.elementType } : {}), ...(k.fields ? { fields: k.fields } : {}), ...(k.integral ? { integral: k.integral } : {}), ...(k.float32 ? { float32: true as const } : {}), ...(k.ntz ? { ntz: true as const } : {}), ...(k.interval ? { interval: k.interval } : {}), ...(k.void ? { void: true as const } : {}) })),
    ...aggregates.map((a) => ({ name: a.name, type: a.fn.resultType, ...a.fn.resultDecimal, ...a.fn.resultShape })),
  ];
}

export class StatefulAggregateExec implements StatefulOperator {
  readonly stateful = true as const;
  readonly name: string;
  readonly operatorId: number;
  readonly numPartitions: number;
  readonly outputSchema: Schema;
  private droppedByWatermark = 0;
  private lastStores: StateStore[] = [];
  /** Watermark up to which state is evicted in the last committed version. */
  private evictedUpTo = -Infinity;
  /** The last batch's update and eviction times (Spark's allUpdatesTimeMs, allRemovalsTimeMs). */
  private readonly times = new StateOperatorTimes();
  /** This batch's eviction, until its stores commit (onCommitted) or abort (onAborted). */
  private pendingEvictedUpTo = -Infinity;
  /**
   * Event time (a window's end) of encoded keys, so the eviction scan does not decode every key
   * in state every batch. A key's time is a function of the key alone, so an entry never goes
   * stale; entries leave with their evicted key, and all at once past MAX_KEY_TIMES.
   */
  private readonly keyTimes = new Map<string, number | null>();
  /** How rows reach their groups: picked once, from the keys and aggregates (aggregate-folds.ts). */
  readonly fold: AggregateFold;

  constructor(private readonly o: StatefulAggregateOptions) {
    this.fold = chooseFold(o);
    this.name = o.name ?? 'stateStoreSave';
    this.operatorId = o.operatorId;
    this.numPartitions = o.numPartitions ?? 1;
    this.outputSchema = aggregateOutputSchema(o.keys, o.aggregates);
  }

  /** The partition of a row's group (see partitionOfGroup): a row's windows all share it. */
  partitionOf(row: Row, ctx: OperatorContext): number {
    const { keys } = this.o;
    const tuple = new Array<unknown>(keys.length);
    let windowIndex = -1;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i].window) windowIndex = i;
      else tuple[i] = keys[i].eval(row, ctx);
    }
    return partitionOfGroup(tuple, windowIndex, this.numPartitions);
  }

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const input = this.consumeInput(ctx);
    input.add(rows);
    return input.finish();
  }

  /**
   * execute, its input given in pieces (StatefulOperator.consumeInput): each piece is folded as
   * it comes, so the batch's rows need not all be held at once; `finish` goes on as execute does.
   */
  consumeInput(ctx: OperatorContext): { add(rows: Row[]): void; finish(): Row[] } {
    const stores = partitionStores(ctx, this.operatorId, this.numPartitions);
    /** Groups touched by this batch, in first-touch order (what Update mode emits). */
    const touched: Group[] = [];
    const times = this.times;
    times.reset();
    const pass = this.fold.begin(ctx, stores, touched, this.dropsLateRows);
    return {
      add: (rows) => {
        times.begin();
        pass.add(rows);
        times.endUpdates();
      },
      finish: () => this.aggregate(ctx, stores, touched, pass.end()),
    };
  }

  /**
   * Whether a map task may aggregate its split before the shuffle (Spark's partial aggregation:
   * HashAggregateExec in Partial mode before the exchange, Final mode after it): every
   * aggregate's buffers merge exactly (isMergeable). Otherwise the rows themselves are shuffled.
   */
  get partialAggregation(): boolean {
    return this.o.aggregates.every((a) => isMergeable(a.fn));
  }

  /**
   * The map side (Partial mode): a split's rows folded into one buffer per group, each group
   * under its reduce partition; late rows too, whose groups the reduce side drops.
   */
  partialAggregate(rows: Row[], ctx: OperatorContext): PartialAggregateBuffer[][] {
    return partialAggregate(rows, ctx, this.o, this.numPartitions);
  }

  /**
   * The reduce side (Final mode): the map tasks' buffers for this partition, in map order, merged
   * into the state's buffers, the late groups dropped; then the batch goes on as execute's (state
   * written in the same format, output, watermark eviction).
   */
  mergePartials(partials: readonly PartialAggregateBuffer[], ctx: OperatorContext): Row[] {
    const stores = partitionStores(ctx, this.operatorId, this.numPartitions);
    const touched: Group[] = [];
    // The fold's groups kept between batches do not see buffers merged here: forget them.
    this.fold.onAborted();
    this.times.reset();
    this.times.begin();
    const dropped = mergePartialBuffers(partials, ctx, stores, touched, this.o, this.dropsLateRows);
    this.times.endUpdates();
    return this.aggregate(ctx, stores, touched, dropped);
  }

  /** A bounded aggregation outside Complete mode drops rows behind the watermark (Spark's late rows). */
  private get dropsLateRows(): boolean {
    return this.o.watermarkKeyIndex !== undefined && this.o.outputMode !== 'complete';
  }

  /**
   * The batch, its input folded into `touched` (the groups of `stores` it touched, in first-touch
   * order; `dropped` the late groups left out): state write, output by mode, eviction.
   */
  private aggregate(ctx: OperatorContext, stores: StateStore[], touched: Group[], dropped: number): Row[] {
    const { keys, aggregates, outputMode, watermarkKeyIndex } = this.o;
    this.lastStores = stores;
    const wm = ctx.batchWatermarkMs;
    const bounded = watermarkKeyIndex !== undefined;
    this.droppedByWatermark = dropped;
    this.times.begin();
    writeGroups(touched);
    this.times.endUpdates();
    if (bounded) {
      if (this.keyTimes.size > MAX_KEY_TIMES) this.keyTimes.clear();
      // A key's time never changes: setting it again is as cheap as asking whether it is there.
      for (let i = 0; i < touched.length; i++) {
        const g = touched[i];
        this.keyTimes.set(g.key, keyTime(g.tuple, watermarkKeyIndex));
      }
    }

    const out: Row[] = [];
    if (outputMode === 'complete') {
      for (const s of stores) for (const [k, v] of s.entries()) out.push(render(keys, aggregates, decodeKey(k), decodeValue(v) as unknown[]));
      // A global aggregate that has seen no row still has its one row, as Spark's: count 0, sum NULL.
      if (keys.length === 0 && out.length === 0) out.push(render(keys, aggregates, [], aggregates.map((a) => a.fn.init())));
      return out;
    }
    if (outputMode === 'update') for (const g of touched) out.push(render(keys, aggregates, g.tuple, g.bufs));
    this.pendingEvictedUpTo = this.evictedUpTo;
    if (bounded && wm > this.evictedUpTo) {
      this.times.begin();
      const keyTimes = this.keyTimes;
      for (const s of stores) {
        // Keys only: the scan passes every group in state, and only Append reads the values
        // (of the expired groups).
        const expired: string[] = [];
        for (const k of s.keys()) {
          let t = keyTimes.get(k);
          if (t === undefined) keyTimes.set(k, (t = keyTime(decodeKey(k), watermarkKeyIndex)));
          if (t !== null && t <= wm) expired.push(k);
        }
        // The tuple is needed only to emit the group (Append) or to drop it from the fold's kept groups.
        const needTuple = outputMode === 'append' || this.fold.keepsGroups;
        for (const k of expired) {
          const v = outputMode === 'append' ? s.get(k) : undefined;
          s.remove(k, 'watermark');
          keyTimes.delete(k);
          if (!needTuple) continue;
          const tuple = decodeKey(k);
          if (v !== undefined) out.push(render(keys, aggregates, tuple, decodeValue(v) as unknown[]));
          this.fold.forget(k, tuple);
        }
      }
      this.pendingEvictedUpTo = wm;
      this.times.endRemovals();
    }
    return out;
  }

  /**
   * Spark's shouldRunAnotherBatch: with a bounded aggregation outside Complete mode, a watermark
   * past the last eviction means windows to close (Append) or state to evict, even without new
   * data, so MicroBatchExecution runs a no-data batch.
   */
  shouldRunAnotherBatch(newWatermarkMs: number): boolean {
    return this.o.watermarkKeyIndex !== undefined && this.o.outputMode !== 'complete' && newWatermarkMs > this.evictedUpTo;
  }

  /** The eviction and the fold's kept groups are durable at `version`. */
  onCommitted(version: number): void {
    this.evictedUpTo = this.pendingEvictedUpTo;
    this.fold.onCommitted(version);
  }

  /** The stores are back at the batch's version N: the re-run evicts again and decodes its groups afresh. */
  onAborted(): void {
    this.pendingEvictedUpTo = this.evictedUpTo;
    this.fold.onAborted();
  }

  progress(): StateOperatorProgress {
    let total = 0, updated = 0, removed = 0, memory = 0, commitTimeMs = 0;
    for (const s of this.lastStores) {
      const m = s.metrics();
      total += m.numRowsTotal;
      updated += m.numRowsUpdated;
      removed += m.numRowsEvictedByWatermark + m.numRowsRemoved;
      memory += m.memoryUsedBytes;
      commitTimeMs += m.commitTimeMs;
    }
    const groupCacheBytes = this.fold.keptBytes;
    return {
      operatorName: this.name,
      numRowsTotal: total,
      numRowsUpdated: updated,
      numRowsRemoved: removed,
      ...this.times.progress,
      numRowsDroppedByWatermark: this.droppedByWatermark,
      // The key-time memo shares its key strings with the store: its Map entry and number only.
      memoryUsedBytes: memory + groupCacheBytes + this.keyTimes.size * KEY_TIME_BYTES,
      commitTimeMs,
      customMetrics: {
        groupCacheBytes,
        keyTimeMemoBytes: this.keyTimes.size * KEY_TIME_BYTES,
        numRowsEvictedByWatermark: this.lastStores.reduce((n, s) => n + s.metrics().numRowsEvictedByWatermark, 0),
        stateOnDiskBytes: this.lastStores.reduce((n, s) => n + s.metrics().bytesOnDisk, 0),
        ...providerMetrics(this.lastStores.map((s) => s.metrics())),
      },
    };
  }
}

function render(keys: GroupingKey[], aggregates: AggregateSpec[], tuple: unknown[], bufs: unknown[]): Row {
  const out: Row = {};
  for (let i = 0; i < keys.length; i++) out[keys[i].name] = tuple[i];
  for (let i = 0; i < aggregates.length; i++) out[aggregates[i].name] = aggregates[i].fn.result(bufs[i]);
  return out;
}
