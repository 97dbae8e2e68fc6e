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
 *    window end) is ≤ W are late: dropped and counted in numRowsDroppedByWatermark.
 * 3. Each touched group's buffers are read from the store once, updated by every row of the
 *    batch, and written back once: store work follows the groups touched, not the rows. With
 *    one plain grouping column the operator also keeps the decoded groups between batches
 *    (at most 100k, valid only for the store version it built them on), so a group touched
 *    every batch is not decoded every batch. That cache is state memory too: its estimate is
 *    added to memoryUsedBytes and shown alone as customMetrics.groupCacheBytes. With one key or
 *    several plain keys (a tumbling window among them), count(*) alone bumps a counter on the
 *    group (one lookup per row), and aggregates that fold numbers only are folded a batch at a
 *    time, column by column (ColumnarFold), falling back to the row fold on a non-number.
 * 4. Output, by mode (Spark's semantics):
 *    - Complete: every group in state, every batch; nothing is evicted.
 *    - Update: the groups touched in this batch; then groups with event time ≤ W are evicted.
 *    - Append: groups with event time ≤ W are emitted once, as final, and evicted in the same
 *      step, so a group can never be emitted twice. (Append without a bound is refused by
 *      the analyzer before this runs.)
 * MicroBatchExecution commits the stores (version N+1) after the sink took the output; a
 * crash before that re-runs batch N from version N and yields the same output.
 */
import { AnalysisException } from '../errors';
import {
  foldSlots,
  foldsNumbersOnly,
  isCountStar,
  loadSlots,
  readsNumbers,
  storeSlots,
  update,
  type AggregateFunction,
  type AggregateOp,
} from '../query/aggregate-functions';
import type { Evaluator } from '../query/expression-compiler';
import { partitionForKey, providerMetrics, type StateStore } from '../state/state-store';
import { decodeKey, decodeValue, encodeKey, encodeValue } from '../state/state-value-codec';
import type { Field, OutputMode, Row, Schema } from '../types';
import type { OperatorContext, StatefulOperator, StateOperatorProgress } from './physical-operator';
import { windowsFor, type TimeWindow, type TimeWindowSpec } from './window';

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

/** A group being aggregated: its encoded key, key tuple and buffers (one class: one shape). */
class Group {
  /** count(*) hot path: rows of this batch not yet folded into `bufs[0]` (0 between batches). */
  pending = 0;
  /** Columnar path: where this batch's slots of the group start (its index in `touched` × stride). */
  base = 0;
  constructor(
    readonly key: string,
    readonly tuple: unknown[],
    public bufs: unknown[],
    public store: StateStore,
    /** Last batch that touched the group (the cache reuses Group objects across batches). */
    public batchId: number,
  ) {}
}

/** Event times of encoded keys remembered for the eviction scan, at most this many. */
const MAX_KEY_TIMES = 1_000_000;
/** Estimated heap of one memo entry (a Map entry and a heap number). */
const KEY_TIME_BYTES = 40;

/** Decoded groups kept between batches by the one-column hot path, at most this many. */
const MAX_CACHED_GROUPS = 100_000;

/**
 * Estimated heap of one cached group beyond what the store holds (the store's map shares its
 * key string): the Group object, its tuple and buffer arrays, the cache's Map entry; plus each
 * buffer value. An estimate, as the store's memoryUsedBytes is.
 */
const CACHED_GROUP_BYTES = 150;
function cachedGroupBytes(g: Group): number {
  let n = CACHED_GROUP_BYTES;
  for (const b of g.bufs) {
    n += typeof b === 'string' ? b.length * 2 + 24 : b instanceof Uint8Array ? b.byteLength + 96 : typeof b === 'object' && b !== null ? objectBytes(b) : 16;
  }
  return n;
}

/** An array buffer (collect_list's, the moments') by its length; an object's (percentile_approx's summary) by its arrays'. */
function objectBytes(b: object): number {
  if (Array.isArray(b)) return 64 + 16 * b.length;
  let n = 64;
  for (const v of Object.values(b)) n += Array.isArray(v) ? 64 + 16 * v.length : 16;
  return n;
}

export class StatefulAggregateExec implements StatefulOperator {
  readonly stateful = true as const;
  readonly name: string;
  readonly operatorId: number;
  readonly numPartitions: number;
  readonly outputSchema: Schema;
  private droppedByWatermark = 0;
  private lastStores: StateStore[] = [];
  /** Watermark up to which state is known evicted (confirmed once the batch committed). */
  private evictedUpTo = -Infinity;
  private pendingEvictedUpTo = -Infinity;
  /**
   * One-column hot path: the groups as of the last committed version, by raw key value, so a
   * group touched every batch is decoded once, not once per batch. Valid only while the stores
   * are at `cacheVersion` (set after a commit); a re-run after an abort starts from scratch.
   */
  private readonly cache = new Map<unknown, Group>();
  /** Estimated bytes of `cache`, reported with the stores' memoryUsedBytes (it is state memory too). */
  private cacheBytes = 0;
  private cacheVersion = -1;
  private pendingCacheVersion = -1;
  /**
   * Event time (a window's end) of encoded keys, so the eviction scan does not decode every key
   * in state every batch. A key's time is a function of the key alone, so an entry never goes
   * stale; entries leave with their evicted key, and all at once past MAX_KEY_TIMES.
   */
  private readonly keyTimes = new Map<string, number | null>();
  private readonly updater: BufferUpdater;
  /** Set when every aggregate folds numbers only: batches are then folded column by column. */
  private readonly columnar: ColumnarFold | null;

  constructor(private readonly o: StatefulAggregateOptions) {
    this.updater = new BufferUpdater(o.aggregates);
    this.columnar = o.aggregates.every((a) => foldsNumbersOnly(a.fn)) ? new ColumnarFold(o.aggregates) : null;
    this.name = o.name ?? 'stateStoreSave';
    this.operatorId = o.operatorId;
    this.numPartitions = o.numPartitions ?? 1;
    this.outputSchema = [
      ...o.keys.map((k) => ({ name: k.name, type: k.window ? ('window' as const) : k.type, ...k.decimal, ...(k.elementType ? { elementType: k.elementType } : {}) })),
      ...o.aggregates.map((a) => ({ name: a.name, type: a.fn.resultType, ...a.fn.resultDecimal, ...a.fn.resultShape })),
    ];
  }

  private stores(ctx: OperatorContext): StateStore[] {
    const out: StateStore[] = [];
    for (let p = 0; p < this.numPartitions; p++) {
      const s = ctx.stateStores?.get(`${this.operatorId}/${p}`);
      if (!s) throw new AnalysisException(`Internal: no state store for operator ${this.operatorId} partition ${p} in batch ${ctx.batchId}`);
      out.push(s);
    }
    return out;
  }

  /** Event time of a grouping tuple for the watermark predicate (a window's end). */
  private keyTime(tuple: unknown[]): number | null {
    const v = tuple[this.o.watermarkKeyIndex!];
    if (v === null || v === undefined) return null;
    return typeof v === 'object' ? (v as TimeWindow).end : (v as number);
  }

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const { keys, aggregates, outputMode, watermarkKeyIndex } = this.o;
    const stores = this.stores(ctx);
    this.lastStores = stores;
    const wm = ctx.batchWatermarkMs;
    const bounded = watermarkKeyIndex !== undefined;
    const dropLate = bounded && outputMode !== 'complete';
    /** Groups touched by this batch, in first-touch order (what Update mode emits). */
    const touched: Group[] = [];
    // The folds are top-level functions: each hot loop is optimized on its own feedback, so
    // a path the batch has not reached yet cannot deoptimize the loop that is running.
    this.droppedByWatermark =
      keys.length === 1 && !keys[0].window && byRawValue(keys[0])
        ? this.foldByValue(rows, ctx, stores, touched, dropLate)
        : byRawTuple(keys)
          ? foldByTuple(rows, ctx, stores, touched, this.o, this.updater, this.columnar, dropLate)
          : foldGeneral(rows, ctx, stores, touched, this.o, this.updater, dropLate ? (t) => this.keyTime(t) : null);
    writeGroups(touched);
    if (bounded) {
      if (this.keyTimes.size > MAX_KEY_TIMES) this.keyTimes.clear();
      // A key's time never changes: setting it again is as cheap as asking whether it is there.
      for (let i = 0; i < touched.length; i++) {
        const g = touched[i];
        this.keyTimes.set(g.key, this.keyTime(g.tuple));
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
      const keyTimes = this.keyTimes;
      for (const s of stores) {
        // Keys only: the scan passes every group in state, and only Append reads the values
        // (of the expired groups).
        const expired: string[] = [];
        for (const k of s.keys()) {
          let t = keyTimes.get(k);
          if (t === undefined) keyTimes.set(k, (t = this.keyTime(decodeKey(k))));
          if (t !== null && t <= wm) expired.push(k);
        }
        // The tuple is needed only to emit the group (Append) or to drop it from the one-key cache.
        const needTuple = outputMode === 'append' || this.cache.size > 0;
        for (const k of expired) {
          const v = outputMode === 'append' ? s.get(k) : undefined;
          s.remove(k, 'watermark');
          keyTimes.delete(k);
          if (!needTuple) continue;
          const tuple = decodeKey(k);
          if (v !== undefined) out.push(render(keys, aggregates, tuple, decodeValue(v) as unknown[]));
          const cached = this.cache.get(tuple[0]);
          if (cached !== undefined && cached.key === k) {
            this.cacheBytes -= cachedGroupBytes(cached);
            this.cache.delete(tuple[0]);
          }
        }
      }
      this.pendingEvictedUpTo = wm;
    }
    return out;
  }

  /**
   * Hot path, one plain grouping key (no window): groups are looked up by the raw value (a
   * Map's SameValueZero tells 1 from '1' and groups -0 with 0, as SQL does) instead of a key
   * string per row, and kept between batches in `cache`; the encoded key is made once per group.
   * Returns the rows dropped as late.
   */
  private foldByValue(rows: Row[], ctx: OperatorContext, stores: StateStore[], touched: Group[], dropLate: boolean): number {
    const { keys, aggregates } = this.o;
    const byValue = this.cache;
    const version = stores[0].version;
    if (this.cacheVersion !== version || byValue.size > MAX_CACHED_GROUPS) {
      byValue.clear();
      this.cacheBytes = 0;
    }
    this.cacheVersion = -1; // dirty until this batch commits
    this.pendingCacheVersion = version + 1;
    const batchId = ctx.batchId;
    const touch = (v: unknown): Group => {
      let g = byValue.get(v);
      if (g === undefined) {
        g = loadGroup(encodeKey([v]), [v], stores, aggregates, batchId);
        touched.push(g);
        byValue.set(v, g);
        this.cacheBytes += cachedGroupBytes(g);
      } else if (g.batchId !== batchId) {
        g.batchId = batchId;
        g.store = stores[partitionForKey(g.key, stores.length)];
        touched.push(g);
      }
      return g;
    };
    const lateBefore = dropLate ? ctx.batchWatermarkMs : -Infinity;
    // count(*) alone (the commonest streaming aggregate): count rows per group, fold once.
    if (aggregates.length === 1 && isCountStar(aggregates[0].fn)) {
      const dropped = countByValue(rows, keys[0].column, keys[0].eval, ctx, byValue, batchId, lateBefore, touch);
      for (const g of touched) {
        g.bufs[0] = (g.bufs[0] as number) + g.pending;
        g.pending = 0;
      }
      return dropped;
    }
    if (this.columnar !== null) {
      const dropped = foldByValueColumnar(rows, keys[0].column, keys[0].eval, ctx, byValue, batchId, lateBefore, touch, touched, this.columnar);
      // A value or buffer that is not a number (nothing was changed): fold this batch row by row.
      if (dropped >= 0) return dropped;
    }
    return foldByValueRows(rows, keys[0].column, keys[0].eval, ctx, byValue, batchId, lateBefore, touch, this.updater);
  }

  /**
   * Spark's shouldRunAnotherBatch: with a bounded aggregation outside Complete mode, a watermark
   * past the last eviction means windows to close (Append) or state to evict, even without new
   * data, so MicroBatchExecution runs a no-data batch.
   */
  shouldRunAnotherBatch(newWatermarkMs: number): boolean {
    return this.o.watermarkKeyIndex !== undefined && this.o.outputMode !== 'complete' && newWatermarkMs > this.evictedUpTo;
  }

  /** Called after the batch's stores committed: figures for progress. */
  progress(): StateOperatorProgress {
    // Only now are the eviction and the cached groups durable; a re-run after an abort starts over.
    this.evictedUpTo = this.pendingEvictedUpTo;
    this.cacheVersion = this.pendingCacheVersion;
    let total = 0, updated = 0, removed = 0, memory = 0, commitTimeMs = 0;
    for (const s of this.lastStores) {
      const m = s.metrics();
      total += m.numRowsTotal;
      updated += m.numRowsUpdated;
      removed += m.numRowsEvictedByWatermark + m.numRowsRemoved;
      memory += m.memoryUsedBytes;
      commitTimeMs += m.commitTimeMs;
    }
    return {
      operatorName: this.name,
      numRowsTotal: total,
      numRowsUpdated: updated,
      numRowsRemoved: removed,
      numRowsDroppedByWatermark: this.droppedByWatermark,
      // The key-time memo shares its key strings with the store: its Map entry and number only.
      memoryUsedBytes: memory + this.cacheBytes + this.keyTimes.size * KEY_TIME_BYTES,
      commitTimeMs,
      customMetrics: {
        groupCacheBytes: this.cacheBytes,
        keyTimeMemoBytes: this.keyTimes.size * KEY_TIME_BYTES,
        numRowsEvictedByWatermark: this.lastStores.reduce((n, s) => n + s.metrics().numRowsEvictedByWatermark, 0),
        stateOnDiskBytes: this.lastStores.reduce((n, s) => n + s.metrics().bytesOnDisk, 0),
        ...providerMetrics(this.lastStores.map((s) => s.metrics())),
      },
    };
  }
}

/**
 * count(*) by one key value: one Map lookup per row, bumping the group's pending count (a
 * plain number field). A numeric key at or before `lateBefore` (the watermark, when late rows
 * are dropped; else -Infinity) is late. Returns the late rows.
 */
function countByValue(
  rows: Row[],
  keyColumn: string | undefined,
  keyEval: Evaluator,
  ctx: OperatorContext,
  byValue: Map<unknown, Group>,
  batchId: number,
  lateBefore: number,
  touch: (v: unknown) => Group,
): number {
  let dropped = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    // A plain column is read at this call site, which sees only source rows (a monomorphic load).
    const v = keyColumn !== undefined ? (row[keyColumn] ?? null) : keyEval(row, ctx);
    if (typeof v === 'number' && v <= lateBefore) {
      dropped++;
      continue;
    }
    let g = byValue.get(v);
    if (g === undefined || g.batchId !== batchId) g = touch(v);
    g.pending++;
  }
  return dropped;
}

/** Any aggregate list by one key value (see countByValue). Returns the late rows. */
function foldByValueRows(
  rows: Row[],
  keyColumn: string | undefined,
  keyEval: Evaluator,
  ctx: OperatorContext,
  byValue: Map<unknown, Group>,
  batchId: number,
  lateBefore: number,
  touch: (v: unknown) => Group,
  updater: BufferUpdater,
): number {
  let dropped = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const v = keyColumn !== undefined ? (row[keyColumn] ?? null) : keyEval(row, ctx);
    if (typeof v === 'number' && v <= lateBefore) {
      dropped++;
      continue;
    }
    let g = byValue.get(v);
    if (g === undefined || g.batchId !== batchId) g = touch(v);
    updater.apply(g.bufs, row, ctx);
  }
  return dropped;
}

/**
 * Numeric aggregates by one key value, a batch at a time: one pass finds each row's group (as
 * foldByValueRows does), then ColumnarFold folds each aggregate's column in one loop. Returns
 * the late rows, or -1 (nothing folded) when a value or buffer is not a number.
 */
function foldByValueColumnar(
  rows: Row[],
  keyColumn: string | undefined,
  keyEval: Evaluator,
  ctx: OperatorContext,
  byValue: Map<unknown, Group>,
  batchId: number,
  lateBefore: number,
  touch: (v: unknown) => Group,
  touched: Group[],
  fold: ColumnarFold,
): number {
  const base = new Int32Array(rows.length);
  const stride = fold.stride;
  let dropped = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const v = keyColumn !== undefined ? (row[keyColumn] ?? null) : keyEval(row, ctx);
    if (typeof v === 'number' && v <= lateBefore) {
      dropped++;
      base[r] = -1;
      continue;
    }
    let g = byValue.get(v);
    if (g === undefined || g.batchId !== batchId) {
      g = touch(v);
      g.base = (touched.length - 1) * stride;
    }
    base[r] = g.base;
  }
  return fold.apply(rows, base, touched, ctx) ? dropped : -1;
}

/**
 * Batch-at-a-time fold of aggregates that fold numbers only (count, sum, avg, min, max of
 * numbers): the touched groups' buffers go into one Float64Array (two slots per aggregate, see
 * foldSlots), each distinct argument is read into a column once, and each aggregate is one
 * tight loop over the batch: no call, switch or buffer array per row, and an argument shared
 * by several aggregates (`sum(v), avg(v), max(v)`) is read once.
 */
class ColumnarFold {
  readonly stride: number;
  private readonly ops: AggregateOp[];
  /** Per aggregate, its index in `args` (-1: count(*), no argument). */
  private readonly argOf: number[];
  private readonly args: { column?: string; eval?: Evaluator; numbers: boolean }[] = [];

  constructor(aggregates: AggregateSpec[]) {
    this.stride = 2 * aggregates.length;
    this.ops = aggregates.map((a) => a.fn.op);
    this.argOf = aggregates.map((a) => {
      if (!a.arg) return -1;
      let i = a.argColumn !== undefined ? this.args.findIndex((x) => x.column === a.argColumn) : -1;
      if (i < 0) i = this.args.push({ column: a.argColumn, eval: a.arg, numbers: false }) - 1;
      if (readsNumbers(a.fn.op)) this.args[i].numbers = true;
      return i;
    });
  }

  /**
   * Folds the rows into the touched groups' buffers (row r into the group whose slots start at
   * `base[r]`, -1: skipped). Returns false, with no buffer changed, when a buffer or a value
   * an aggregate reads is not a number.
   */
  apply(rows: Row[], base: Int32Array, touched: Group[], ctx: OperatorContext): boolean {
    const { ops, argOf, stride } = this;
    const slots = new Float64Array(touched.length * stride);
    for (let j = 0; j < touched.length; j++) {
      const bufs = touched[j].bufs;
      for (let i = 0; i < ops.length; i++) if (!loadSlots(ops[i], bufs[i], slots, j * stride + 2 * i)) return false;
    }
    const n = rows.length;
    const vals: Float64Array[] = [], nulls: Uint8Array[] = [];
    for (const a of this.args) {
      const v = new Float64Array(n), nul = new Uint8Array(n);
      if (!readColumn(rows, base, a.column, a.eval, a.numbers, ctx, v, nul)) return false;
      vals.push(v);
      nulls.push(nul);
    }
    const none = new Float64Array(0), noNulls = new Uint8Array(0);
    for (let i = 0; i < ops.length; i++) {
      const k = argOf[i];
      if (!foldSlots(ops[i], slots, 2 * i, base, k < 0 ? none : vals[k], k < 0 ? noNulls : nulls[k])) return false;
    }
    for (let j = 0; j < touched.length; j++) {
      const bufs = touched[j].bufs;
      for (let i = 0; i < ops.length; i++) bufs[i] = storeSlots(ops[i], bufs[i], slots, j * stride + 2 * i);
    }
    return true;
  }
}

/**
 * One argument over the batch's kept rows: numbers into `vals`, NULLs marked in `nulls`.
 * Returns false at a value that is neither when `numbers` (an aggregate reads it).
 */
function readColumn(
  rows: Row[],
  base: Int32Array,
  column: string | undefined,
  arg: Evaluator | undefined,
  numbers: boolean,
  ctx: OperatorContext,
  vals: Float64Array,
  nulls: Uint8Array,
): boolean {
  for (let r = 0; r < rows.length; r++) {
    if (base[r] < 0) continue;
    // A plain column is read here, where only source rows are seen (a monomorphic load).
    const x = column !== undefined ? rows[r][column] : arg!(rows[r], ctx);
    if (typeof x === 'number') vals[r] = x;
    else if (x === null || x === undefined) nulls[r] = 1;
    else if (numbers) return false;
  }
  return true;
}

/**
 * The aggregates laid out for the per-row fold: one array per field, read by index, and every
 * function applied through `update`'s one switch, so the fold of a row is one monomorphic call.
 */
class BufferUpdater {
  private readonly ops: AggregateOp[];
  private readonly columns: (string | undefined)[];
  private readonly args: (Evaluator | undefined)[];
  constructor(aggregates: AggregateSpec[]) {
    this.ops = aggregates.map((a) => a.fn.op);
    this.columns = aggregates.map((a) => a.argColumn);
    this.args = aggregates.map((a) => a.arg);
  }

  apply(bufs: unknown[], row: Row, ctx: OperatorContext): void {
    const { ops, columns, args } = this;
    for (let i = 0; i < ops.length; i++) {
      // A plain column is read here, where only source rows are seen (a monomorphic load).
      const c = columns[i];
      const arg = args[i];
      const v = c !== undefined ? (row[c] ?? null) : arg !== undefined ? arg(row, ctx) : undefined;
      bufs[i] = update(ops[i], bufs[i], v);
    }
  }
}

/**
 * General path: several keys, expressions, or a window (one tuple per window of the row).
 * Groups are found by their encoded key; `keyTime` is set when late tuples are dropped.
 * Returns the late tuples.
 */
function foldGeneral(
  rows: Row[],
  ctx: OperatorContext,
  stores: StateStore[],
  touched: Group[],
  o: StatefulAggregateOptions,
  updater: BufferUpdater,
  keyTime: ((tuple: unknown[]) => number | null) | null,
): number {
  const { keys, aggregates } = o;
  const nKeys = keys.length;
  const windowIndex = keys.findIndex((k) => k.window);
  const wm = ctx.batchWatermarkMs;
  const groups = new Map<string, Group>();
  let dropped = 0;
  const fold = (tuple: unknown[], row: Row) => {
    if (keyTime !== null) {
      const t = keyTime(tuple);
      if (t !== null && t <= wm) {
        dropped++;
        return;
      }
    }
    const key = encodeKey(tuple);
    let g = groups.get(key);
    if (g === undefined) {
      g = loadGroup(key, tuple, stores, aggregates, ctx.batchId);
      groups.set(key, g);
      touched.push(g);
    }
    updater.apply(g.bufs, row, ctx);
  };
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const tuple = new Array<unknown>(nKeys);
    for (let i = 0; i < nKeys; i++) tuple[i] = keys[i].eval(row, ctx);
    if (windowIndex < 0) {
      fold(tuple, row);
      continue;
    }
    const ts = tuple[windowIndex];
    // A row without an event time belongs to no window (Spark: window is NULL, row dropped by the grouping).
    if (ts === null || ts === undefined) continue;
    for (const w of windowsFor(ts as number, keys[windowIndex].window!)) {
      const t = tuple.slice();
      t[windowIndex] = w;
      fold(t, row);
    }
  }
  return dropped;
}

/**
 * Whether groups can be found by their raw key values (foldByTuple): every key is a primitive
 * (a Map's SameValueZero then groups exactly as encodeKey does) and a window key, if any, is
 * tumbling (one window per row, named by its start).
 */
function byRawTuple(keys: GroupingKey[]): boolean {
  return keys.every((k) => (k.window ? k.window.slideMs === k.window.sizeMs : k.type !== 'window' && k.type !== 'unknown' && byRawValue(k)));
}

/**
 * Whether a key's values are primitives, which a Map finds by value. An array (or a struct) is
 * an object: two equal ones are two Map keys, so such a key groups by its encodeKey.
 */
function byRawValue(k: GroupingKey): boolean {
  return k.type !== 'array' && k.type !== 'struct' && k.type !== 'map';
}

/**
 * Several keys (or a tumbling window beside other keys) without a temporary object per row:
 * the key values go into one reused array and the group is found through one Map per key
 * level, by raw value (a window by its start). Only a group's first row in the batch builds
 * its tuple and encoded key. The pass that finds the groups folds only count(*) alone (a
 * pending count per group); otherwise it records each row's group slot base (its index in
 * `touched` × stride, -1: the row is skipped), and the batch is then folded column by column
 * by ColumnarFold, or row by row when an aggregate does not fold numbers or the columnar fold
 * meets a non-number (which it gives back with nothing folded). Returns the late rows.
 */
function foldByTuple(
  rows: Row[],
  ctx: OperatorContext,
  stores: StateStore[],
  touched: Group[],
  o: StatefulAggregateOptions,
  updater: BufferUpdater,
  columnar: ColumnarFold | null,
  dropLate: boolean,
): number {
  const { keys, aggregates } = o;
  const nKeys = keys.length;
  const windowIndex = keys.findIndex((k) => k.window);
  const sizeMs = windowIndex >= 0 ? keys[windowIndex].window!.sizeMs : 0;
  // Late: the watermarked key (a window's end) at or before the watermark.
  const lateIndex = dropLate ? (o.watermarkKeyIndex ?? -1) : -1;
  const wm = ctx.batchWatermarkMs;
  const countOnly = aggregates.length === 1 && isCountStar(aggregates[0].fn);
  const base = countOnly ? null : new Int32Array(rows.length);
  const stride = columnar !== null ? columnar.stride : 1;
  const root = new Map<unknown, unknown>();
  const vals = new Array<unknown>(nKeys);
  let dropped = 0;
  rows: for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    for (let i = 0; i < nKeys; i++) {
      const k = keys[i];
      let v = k.column !== undefined ? (row[k.column] ?? null) : (k.eval(row, ctx) ?? null);
      if (i === windowIndex) {
        // A row without an event time belongs to no window (Spark: dropped by the grouping).
        if (v === null) {
          if (base !== null) base[r] = -1;
          continue rows;
        }
        const ts = v as number;
        v = ts - (((ts % sizeMs) + sizeMs) % sizeMs);
      }
      vals[i] = v;
    }
    if (lateIndex >= 0) {
      const t = vals[lateIndex];
      if (t !== null && (lateIndex === windowIndex ? (t as number) + sizeMs : (t as number)) <= wm) {
        dropped++;
        if (base !== null) base[r] = -1;
        continue;
      }
    }
    let level = root;
    for (let i = 0; i < nKeys - 1; i++) {
      let next = level.get(vals[i]) as Map<unknown, unknown> | undefined;
      if (next === undefined) level.set(vals[i], (next = new Map()));
      level = next;
    }
    let g = level.get(vals[nKeys - 1]) as Group | undefined;
    if (g === undefined) {
      const tuple = vals.slice();
      if (windowIndex >= 0) tuple[windowIndex] = { start: tuple[windowIndex] as number, end: (tuple[windowIndex] as number) + sizeMs };
      g = loadGroup(encodeKey(tuple), tuple, stores, aggregates, ctx.batchId);
      g.base = touched.length * stride;
      level.set(vals[nKeys - 1], g);
      touched.push(g);
    }
    if (base !== null) base[r] = g.base;
    else g.pending++;
  }
  if (base === null) {
    for (let j = 0; j < touched.length; j++) {
      const g = touched[j];
      g.bufs[0] = (g.bufs[0] as number) + g.pending;
      g.pending = 0;
    }
  } else if (columnar === null || !columnar.apply(rows, base, touched, ctx)) {
    for (let r = 0; r < rows.length; r++) if (base[r] >= 0) updater.apply(touched[base[r] / stride].bufs, rows[r], ctx);
  }
  return dropped;
}

/** A group as its partition's store holds it at this version (fresh buffers when it holds none). */
function loadGroup(key: string, tuple: unknown[], stores: StateStore[], aggregates: AggregateSpec[], batchId: number): Group {
  const store = stores[partitionForKey(key, stores.length)];
  const raw = store.get(key);
  return new Group(key, tuple, raw ? (decodeValue(raw) as unknown[]) : aggregates.map((a) => a.fn.init()), store, batchId);
}

/** Writes each touched group's buffers back to its store, once per batch. */
function writeGroups(touched: Group[]): void {
  for (let i = 0; i < touched.length; i++) {
    const g = touched[i];
    g.store.put(g.key, encodeValue(g.bufs));
  }
}

function render(keys: GroupingKey[], aggregates: AggregateSpec[], tuple: unknown[], bufs: unknown[]): Row {
  const out: Row = {};
  for (let i = 0; i < keys.length; i++) out[keys[i].name] = tuple[i];
  for (let i = 0; i < aggregates.length; i++) out[aggregates[i].name] = aggregates[i].fn.result(bufs[i]);
  return out;
}
