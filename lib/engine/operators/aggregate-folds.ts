/**
 * The folds of StatefulAggregateExec: how a batch's rows reach their groups' buffers. The
 * operator picks one fold when it is built (chooseFold), from its keys and aggregates alone:
 *
 * - ByValueFold, one plain grouping key (no window): groups are found by the raw key value and
 *   kept decoded between batches while the stores stay at the version they were built on; then
 *   count(*) alone bumps a counter per group, numeric aggregates fold column by column
 *   (ColumnarFold), anything else row by row.
 * - ByTupleFold, several plain keys or a tumbling window among them: groups are found through one
 *   Map per key level by raw values, then folded as above (count, columnar or rows).
 * - GeneralFold, anything else (expressions over arrays/structs, sliding windows): groups by
 *   their encoded key, row by row.
 *
 * The columnar fold still falls back to the row fold for a batch that holds a non-number: that
 * depends on the data, not on the plan. The hot loops are top-level functions: each is optimized
 * on its own feedback, so a path a batch has not reached yet cannot deoptimize the loop that is
 * running.
 */
import {
  foldSlots,
  foldsNumbersOnly,
  isCountStar,
  loadSlots,
  merge,
  readsNumbers,
  storeSlots,
  update,
  type AggregateOp,
} from '../query/aggregate-functions';
import type { Evaluator } from '../query/expression-compiler';
import { partitionForKey, type StateStore } from '../state/state-store';
import { decodeKey, decodeValue, encodeKey, encodeValueByteString } from '../state/state-value-codec';
import type { Row } from '../types';
import type { AggregateSpec, GroupingKey, StatefulAggregateOptions } from './aggregate';
import { lateEventsWatermark, type OperatorContext } from './physical-operator';
import { lastWindowStart, windowsFor, type TimeWindow } from './window';

/** One way of folding a batch into its groups, picked once per operator (chooseFold). */
export interface AggregateFold {
  /**
   * Folds the batch's rows into their groups, each loaded once from `stores` (version N), and
   * appends the groups touched to `touched` in first-touch order (what Update mode emits).
   * With `dropLate`, a row whose watermarked key (a window's end) is at or before the batch's
   * watermark is dropped. Returns how many groups the dropped rows make (Spark drops late rows
   * after aggregating them, in StateStoreSaveExec, and counts the aggregated rows). The rows
   * may come in pieces (a source read piece by piece, the pipelined stage of query-runtime.ts):
   * the pass's `add` folds each, in order, and `end` returns the late groups; the groups touched
   * and their buffers are what one piece of all the rows would give.
   */
  begin(ctx: OperatorContext, stores: StateStore[], touched: Group[], dropLate: boolean): FoldPass;
  /** Whether the fold keeps decoded groups between batches (an eviction must then tell it, by `forget`). */
  readonly keepsGroups: boolean;
  /** Estimated heap of the groups kept between batches (state memory too). */
  readonly keptBytes: number;
  /** An evicted group: drop the copy kept between batches, if any. */
  forget(key: string, tuple: unknown[]): void;
  /** The stores committed at `version`: the groups kept are valid for it (see StatefulOperator.onCommitted). */
  onCommitted(version: number): void;
  /** The stores were aborted: the groups kept are not what the re-run loads. */
  onAborted(): void;
}

/** One batch's fold, its rows given in pieces (AggregateFold.begin). */
interface FoldPass {
  add(rows: Row[]): void;
  /** How many groups the late rows made (see AggregateFold.begin). */
  end(): number;
}

/** A fold of the batch's rows given in one piece. */
function foldOnce(fold: AggregateFold, rows: Row[], ctx: OperatorContext, stores: StateStore[], touched: Group[], dropLate: boolean): number {
  const pass = fold.begin(ctx, stores, touched, dropLate);
  pass.add(rows);
  return pass.end();
}

/** The fold for these keys and aggregates (see the header). */
export function chooseFold(o: StatefulAggregateOptions): AggregateFold {
  const updater = new BufferUpdater(o.aggregates);
  const columnar = o.aggregates.every((a) => foldsNumbersOnly(a.fn)) ? new ColumnarFold(o.aggregates) : null;
  const { keys } = o;
  if (keys.length === 1 && !keys[0].window && byRawValue(keys[0])) return new ByValueFold(o, updater, columnar);
  if (byRawTuple(keys)) return new ByTupleFold(o, updater, columnar);
  return new GeneralFold(o, updater);
}

/** Event time of a grouping tuple for the watermark predicate (a window's end). */
export function keyTime(tuple: unknown[], watermarkKeyIndex: number): number | null {
  const v = tuple[watermarkKeyIndex];
  if (v === null || v === undefined) return null;
  return typeof v === 'object' ? (v as TimeWindow).end : (v as number);
}

/** A group being aggregated: its encoded key, key tuple and buffers (one class: one shape). */
export class Group {
  /** count(*) hot path: rows of this batch not yet folded into `bufs[0]` (0 between batches). */
  pending = 0;
  /** Columnar path: where the group's slots start among those of the piece `piece` touches (pieceSlot). */
  base = 0;
  piece = 0;
  constructor(
    readonly key: string,
    readonly tuple: unknown[],
    public bufs: unknown[],
    public store: StateStore,
    /** Last batch that touched the group (the cache reuses Group objects across batches). */
    public batchId: number,
  ) {}
}

/** The last piece of rows a columnar fold numbered (pieceSlot); never reused, as Groups outlive batches. */
let lastPiece = 0;

/**
 * The slot base of `g` among the groups that piece `piece` touches (`local`, in first-touch
 * order): a columnar fold loads and stores the slots of those groups only, so a batch read in
 * many pieces does not load every group it touched so far for each piece.
 */
function pieceSlot(g: Group, piece: number, local: Group[], stride: number): number {
  if (g.piece !== piece) {
    g.piece = piece;
    g.base = local.length * stride;
    local.push(g);
  }
  return g.base;
}

/** count(*): the rows counted on each touched group (Group.pending) go into its count, once per batch. */
function foldPending(touched: Group[]): void {
  for (let j = 0; j < touched.length; j++) {
    const g = touched[j];
    g.bufs[0] = (g.bufs[0] as number) + g.pending;
    g.pending = 0;
  }
}

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

/**
 * One plain grouping key (no window): groups are looked up by the raw value (a Map's
 * SameValueZero tells 1 from '1' and groups -0 with 0, as SQL does) instead of a key string per
 * row, and kept between batches in `cache`; the encoded key is made once per group. The cache
 * holds the groups as of `cacheVersion` of the stores; a batch that loads another version (a
 * re-run after an abort, a restart) starts it afresh.
 */
class ByValueFold implements AggregateFold {
  private readonly cache = new Map<unknown, Group>();
  keptBytes = 0;
  /** The store version the cached groups are, -1 while a batch that changed them is not committed. */
  private cacheVersion = -1;
  /** The version this batch's stores commit as (they were loaded at one less). */
  private pendingCacheVersion = -1;
  private readonly countOnly: boolean;

  constructor(
    private readonly o: StatefulAggregateOptions,
    private readonly updater: BufferUpdater,
    private readonly columnar: ColumnarFold | null,
  ) {
    this.countOnly = o.aggregates.length === 1 && isCountStar(o.aggregates[0].fn);
  }

  get keepsGroups(): boolean {
    return this.cache.size > 0;
  }

  begin(ctx: OperatorContext, stores: StateStore[], touched: Group[], dropLate: boolean): FoldPass {
    const { keys, aggregates } = this.o;
    const byValue = this.cache;
    const version = stores[0].version;
    if (this.cacheVersion !== version || byValue.size > MAX_CACHED_GROUPS) {
      byValue.clear();
      this.keptBytes = 0;
    }
    this.cacheVersion = -1; // dirty until this batch commits
    this.pendingCacheVersion = version + 1;
    const batchId = ctx.batchId;
    const touch = (v: unknown): Group => {
      let g = byValue.get(v);
      if (g === undefined) {
        g = loadGroup(encodeKey([v]), [v], -1, stores, aggregates, batchId);
        touched.push(g);
        byValue.set(v, g);
        this.keptBytes += cachedGroupBytes(g);
      } else if (g.batchId !== batchId) {
        g.batchId = batchId;
        g.store = stores[partitionOfGroup(g.tuple, -1, stores.length)];
        touched.push(g);
      }
      return g;
    };
    const lateBefore = dropLate ? lateEventsWatermark(ctx) : -Infinity;
    const late = new Set<number>();
    const { countOnly, columnar, updater } = this;
    return {
      add: (rows) => {
        // count(*) alone (the commonest streaming aggregate): count rows per group, fold once.
        if (countOnly) {
          countByValue(rows, keys[0].column, keys[0].eval, ctx, byValue, batchId, lateBefore, touch, late);
          return;
        }
        // A value or buffer that is not a number (nothing was changed): fold these rows row by row.
        if (columnar !== null && foldByValueColumnar(rows, keys[0].column, keys[0].eval, ctx, byValue, batchId, lateBefore, touch, columnar, late)) return;
        foldByValueRows(rows, keys[0].column, keys[0].eval, ctx, byValue, batchId, lateBefore, touch, updater, late);
      },
      end: () => {
        if (countOnly) foldPending(touched);
        return late.size;
      },
    };
  }

  forget(key: string, tuple: unknown[]): void {
    const cached = this.cache.get(tuple[0]);
    if (cached !== undefined && cached.key === key) {
      this.keptBytes -= cachedGroupBytes(cached);
      this.cache.delete(tuple[0]);
    }
  }

  onCommitted(version: number): void {
    // Only now do the cached groups hold what the stores load at `version`.
    this.cacheVersion = this.pendingCacheVersion === version ? version : -1;
  }

  onAborted(): void {
    // The groups hold the aborted batch's changes: the re-run decodes them afresh.
    this.cacheVersion = -1;
    this.pendingCacheVersion = -1;
    this.cache.clear();
    this.keptBytes = 0;
  }
}

/** Several plain keys, or a tumbling window among them (see foldByTuple); nothing kept between batches. */
class ByTupleFold implements AggregateFold {
  readonly keepsGroups = false;
  readonly keptBytes = 0;
  constructor(
    private readonly o: StatefulAggregateOptions,
    private readonly updater: BufferUpdater,
    private readonly columnar: ColumnarFold | null,
  ) {}

  begin(ctx: OperatorContext, stores: StateStore[], touched: Group[], dropLate: boolean): FoldPass {
    const root = new Map<unknown, unknown>();
    const late = new Set<string>();
    const { aggregates } = this.o;
    const countOnly = aggregates.length === 1 && isCountStar(aggregates[0].fn);
    return {
      add: (rows) => foldByTuple(rows, ctx, stores, touched, this.o, this.updater, this.columnar, dropLate, root, late),
      end: () => {
        // count(*) alone counted the rows on the groups (foldByTuple).
        if (countOnly) foldPending(touched);
        return late.size;
      },
    };
  }

  forget(): void {}
  onCommitted(): void {}
  onAborted(): void {}
}

/** Any keys (see foldGeneral); nothing kept between batches. */
class GeneralFold implements AggregateFold {
  readonly keepsGroups = false;
  readonly keptBytes = 0;
  private readonly keyTime: (tuple: unknown[]) => number | null;
  constructor(
    private readonly o: StatefulAggregateOptions,
    private readonly updater: BufferUpdater,
  ) {
    const i = o.watermarkKeyIndex ?? -1;
    this.keyTime = (t) => keyTime(t, i);
  }

  begin(ctx: OperatorContext, stores: StateStore[], touched: Group[], dropLate: boolean): FoldPass {
    const groups = new Map<string, Group>();
    const late = new Set<string>();
    return {
      add: (rows) => foldGeneral(rows, ctx, stores, touched, this.o, this.updater, dropLate ? this.keyTime : null, groups, late),
      end: () => late.size,
    };
  }

  forget(): void {}
  onCommitted(): void {}
  onAborted(): void {}
}

/**
 * count(*) by one key value: one Map lookup per row, bumping the group's pending count (a
 * plain number field). A numeric key at or before `lateBefore` (the watermark, when late rows
 * are dropped; else -Infinity) is late: its group goes into `late`.
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
  late: Set<number>,
): void {
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    // A plain column is read at this call site, which sees only source rows (a monomorphic load).
    const v = keyColumn !== undefined ? (row[keyColumn] ?? null) : keyEval(row, ctx);
    if (typeof v === 'number' && v <= lateBefore) {
      late.add(v);
      continue;
    }
    let g = byValue.get(v);
    if (g === undefined || g.batchId !== batchId) g = touch(v);
    g.pending++;
  }
}

/** Any aggregate list by one key value (see countByValue); the late groups go into `late`. */
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
  late: Set<number>,
): void {
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const v = keyColumn !== undefined ? (row[keyColumn] ?? null) : keyEval(row, ctx);
    if (typeof v === 'number' && v <= lateBefore) {
      late.add(v);
      continue;
    }
    let g = byValue.get(v);
    if (g === undefined || g.batchId !== batchId) g = touch(v);
    updater.apply(g.bufs, row, ctx);
  }
}

/**
 * Numeric aggregates by one key value, a batch at a time: one pass finds each row's group (as
 * foldByValueRows does), then ColumnarFold folds each aggregate's column in one loop. False
 * (nothing folded) when a value or buffer is not a number; the late groups go into `late`.
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
  fold: ColumnarFold,
  late: Set<number>,
): boolean {
  const base = new Int32Array(rows.length);
  const stride = fold.stride;
  const piece = ++lastPiece;
  const local: Group[] = [];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const v = keyColumn !== undefined ? (row[keyColumn] ?? null) : keyEval(row, ctx);
    if (typeof v === 'number' && v <= lateBefore) {
      late.add(v);
      base[r] = -1;
      continue;
    }
    let g = byValue.get(v);
    if (g === undefined || g.batchId !== batchId) g = touch(v);
    base[r] = pieceSlot(g, piece, local, stride);
  }
  return fold.apply(rows, base, local, ctx);
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
 * Groups are found by their encoded key in `groups` (the batch's so far); `keyTime` is set when
 * late tuples are dropped, whose groups go into `late`.
 */
function foldGeneral(
  rows: Row[],
  ctx: OperatorContext,
  stores: StateStore[],
  touched: Group[],
  o: StatefulAggregateOptions,
  updater: BufferUpdater,
  keyTime: ((tuple: unknown[]) => number | null) | null,
  groups: Map<string, Group>,
  late: Set<string>,
): void {
  const { keys, aggregates } = o;
  const nKeys = keys.length;
  const windowIndex = keys.findIndex((k) => k.window);
  const wm = lateEventsWatermark(ctx);
  const fold = (tuple: unknown[], row: Row) => {
    if (keyTime !== null) {
      const t = keyTime(tuple);
      if (t !== null && t <= wm) {
        late.add(encodeKey(tuple));
        return;
      }
    }
    updater.apply(groupOf(groups, touched, tuple, windowIndex, stores, aggregates, ctx.batchId).bufs, row, ctx);
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
 * level, by raw value (a window by its start; its level first, see levelOrder), the first
 * level skipped when a row's first key is the previous row's. Only a group's first row in the
 * batch builds its tuple and encoded key. The pass that finds the groups folds only count(*) alone (a
 * pending count per group, folded in at the pass's end); otherwise it records each row's
 * group slot base (pieceSlot: its index among the groups of these rows × stride, -1: the row
 * is skipped), and the rows are then folded column by column
 * by ColumnarFold, or row by row when an aggregate does not fold numbers or the columnar fold
 * meets a non-number (which it gives back with nothing folded). `root` holds the batch's groups
 * so far (its rows may come in pieces); the late groups go into `late`.
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
  root: Map<unknown, unknown>,
  late: Set<string>,
): void {
  const { keys, aggregates } = o;
  const nKeys = keys.length;
  const windowIndex = keys.findIndex((k) => k.window);
  const window = windowIndex >= 0 ? keys[windowIndex].window! : undefined;
  const sizeMs = window?.sizeMs ?? 0;
  // Late: the watermarked key (a window's end) at or before the watermark.
  const lateIndex = dropLate ? (o.watermarkKeyIndex ?? -1) : -1;
  const wm = lateEventsWatermark(ctx);
  const countOnly = aggregates.length === 1 && isCountStar(aggregates[0].fn);
  const base = countOnly ? null : new Int32Array(rows.length);
  const stride = columnar !== null ? columnar.stride : 1;
  const vals = new Array<unknown>(nKeys);
  const piece = ++lastPiece;
  const local: Group[] = [];
  const levels = levelOrder(nKeys, windowIndex);
  const first = levels[0];
  const last = levels[nKeys - 1];
  // What the first level gave the previous row (its next level, or with one key its group):
  // rows come in about event-time order, so consecutive rows mostly share the window.
  let memoKey: unknown = NO_KEY;
  let memoEntry: unknown;
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
        v = lastWindowStart(v as number, window!);
      }
      vals[i] = v;
    }
    if (lateIndex >= 0) {
      const t = vals[lateIndex];
      if (t !== null && (lateIndex === windowIndex ? (t as number) + sizeMs : (t as number)) <= wm) {
        late.add(encodeKey(vals));
        if (base !== null) base[r] = -1;
        continue;
      }
    }
    const v0 = vals[first];
    let entry: unknown;
    if (v0 === memoKey || (v0 !== v0 && memoKey !== memoKey)) entry = memoEntry;
    else {
      entry = root.get(v0);
      if (entry === undefined && nKeys > 1) root.set(v0, (entry = new Map()));
      memoKey = v0;
      memoEntry = entry;
    }
    let g: Group | undefined;
    let level = root;
    // One key (or none, a global aggregate): the first level holds the groups.
    if (nKeys <= 1) g = entry as Group | undefined;
    else {
      level = entry as Map<unknown, unknown>;
      for (let j = 1; j < nKeys - 1; j++) {
        let next = level.get(vals[levels[j]]) as Map<unknown, unknown> | undefined;
        if (next === undefined) level.set(vals[levels[j]], (next = new Map()));
        level = next;
      }
      g = level.get(vals[last]) as Group | undefined;
    }
    if (g === undefined) {
      const tuple = vals.slice();
      if (windowIndex >= 0) tuple[windowIndex] = { start: tuple[windowIndex] as number, end: (tuple[windowIndex] as number) + sizeMs };
      g = loadGroup(encodeKey(tuple), tuple, windowIndex, stores, aggregates, ctx.batchId);
      level.set(vals[last], g);
      if (nKeys <= 1) memoEntry = g;
      touched.push(g);
    }
    if (base !== null) base[r] = pieceSlot(g, piece, local, stride);
    else g.pending++;
  }
  if (base !== null && (columnar === null || !columnar.apply(rows, base, local, ctx))) {
    for (let r = 0; r < rows.length; r++) if (base[r] >= 0) updater.apply(local[base[r] / stride].bufs, rows[r], ctx);
  }
}

/** Not a key value: the first-level memo of foldByTuple before its first row. */
const NO_KEY = Symbol('no key');

/**
 * The order foldByTuple's Map levels take the keys in: a window key first (consecutive rows
 * mostly share it, so its level is mostly skipped), then the others in order. The groups are
 * the same in any order; only the lookups differ.
 */
function levelOrder(nKeys: number, windowIndex: number): number[] {
  const order = windowIndex >= 0 ? [windowIndex] : [];
  for (let i = 0; i < nKeys; i++) if (i !== windowIndex) order.push(i);
  return order;
}

/**
 * The state partition of a group (Spark's hash partitioning on the grouping keys): the hash of
 * its keys other than the window, so that every window of a row (several, when they slide) is
 * in the partition its row is shuffled to. `windowIndex` -1: no window key.
 */
export function partitionOfGroup(tuple: readonly unknown[], windowIndex: number, numPartitions: number): number {
  if (numPartitions <= 1) return 0;
  const parts: unknown[] = [];
  for (let i = 0; i < tuple.length; i++) if (i !== windowIndex) parts.push(tuple[i] ?? null);
  return partitionForKey(encodeKey(parts), numPartitions);
}

/**
 * partitionOfGroup of a group as its store keys it (encodeKey of its tuple, window included):
 * where `weir checkpoint repartition` moves it, so the rows that update it find it there.
 */
export function partitionOfGroupKey(key: string, windowIndex: number, numPartitions: number): number {
  return partitionOfGroup(decodeKey(key), windowIndex, numPartitions);
}

/**
 * One group's partial aggregation buffers as a map task ships them (Spark's HashAggregateExec in
 * Partial mode): its grouping tuple (a window as {start, end}) and its buffers, in the aggregates'
 * order. The tuple, not its encoded key: the reduce side keys it again, and emits the tuple as the
 * fold of the rows would have (its first row's values).
 */
export type PartialAggregateBuffer = [tuple: unknown[], bufs: unknown[]];

/**
 * The map side of partial aggregation: the rows folded by the operator's own fold (so that rows
 * are grouped and windowed exactly as the reduce side folds them) into fresh buffers, one per
 * group, each group under the reduce partition it belongs to. Late rows are aggregated too: the
 * reduce side drops their groups after merging them (mergePartialBuffers), as Spark's
 * StateStoreSaveExec drops late rows after its partial aggregation. Returns the groups per
 * partition in first-touch order.
 */
export function partialAggregate(rows: Row[], ctx: OperatorContext, o: StatefulAggregateOptions, numPartitions: number): PartialAggregateBuffer[][] {
  // Empty stand-ins for the partitions' stores (the folds read only `version` and `get`), so each
  // group starts from init() and says its partition by the store the fold picked for it.
  const stores = Array.from({ length: numPartitions }, () => ({ version: -1, get: () => undefined }) as unknown as StateStore);
  const partitionOf = new Map(stores.map((s, p) => [s, p]));
  const touched: Group[] = [];
  // A fold of its own: ByValueFold keeps groups between calls, which must not leak between map tasks.
  foldOnce(chooseFold(o), rows, ctx, stores, touched, false);
  const partitions: PartialAggregateBuffer[][] = stores.map(() => []);
  for (const g of touched) partitions[partitionOf.get(g.store)!].push([g.tuple, g.bufs]);
  return partitions;
}

/**
 * The reduce side of partial aggregation (Spark's Final mode): the map tasks' buffers, in map
 * order (the order the rows were read in), merged into their groups' buffers as loaded from
 * `stores` at version N; the groups touched are appended to `touched` in first-touch order.
 * With `dropLate`, a group whose watermarked key is at or before the batch's late-events
 * watermark is dropped, as StateStoreSaveExec drops it. Returns how many groups were dropped.
 */
export function mergePartialBuffers(partials: readonly PartialAggregateBuffer[], ctx: OperatorContext, stores: StateStore[], touched: Group[], o: StatefulAggregateOptions, dropLate: boolean): number {
  const { keys, aggregates } = o;
  const ops = aggregates.map((a) => a.fn.op);
  const windowIndex = keys.findIndex((k) => k.window);
  const lateIndex = dropLate ? (o.watermarkKeyIndex ?? -1) : -1;
  const wm = lateEventsWatermark(ctx);
  const groups = new Map<string, Group>();
  const late = new Set<string>();
  for (const [tuple, bufs] of partials) {
    if (lateIndex >= 0) {
      const t = keyTime(tuple, lateIndex);
      if (t !== null && t <= wm) {
        late.add(encodeKey(tuple));
        continue;
      }
    }
    const g = groupOf(groups, touched, tuple, windowIndex, stores, aggregates, ctx.batchId);
    for (let i = 0; i < ops.length; i++) g.bufs[i] = merge(ops[i], g.bufs[i], bufs[i]);
  }
  return late.size;
}

/**
 * The batch's group of `tuple`, found by its encoded key in `groups`, or loaded from its store
 * and then remembered there and appended to `touched` (first-touch order).
 */
function groupOf(groups: Map<string, Group>, touched: Group[], tuple: unknown[], windowIndex: number, stores: StateStore[], aggregates: AggregateSpec[], batchId: number): Group {
  const key = encodeKey(tuple);
  let g = groups.get(key);
  if (g === undefined) {
    g = loadGroup(key, tuple, windowIndex, stores, aggregates, batchId);
    groups.set(key, g);
    touched.push(g);
  }
  return g;
}

/** A group as its partition's store holds it at this version (fresh buffers when it holds none). */
function loadGroup(key: string, tuple: unknown[], windowIndex: number, stores: StateStore[], aggregates: AggregateSpec[], batchId: number): Group {
  const store = stores[partitionOfGroup(tuple, windowIndex, stores.length)];
  const raw = store.get(key);
  return new Group(key, tuple, raw ? (decodeValue(raw) as unknown[]) : aggregates.map((a) => a.fn.init()), store, batchId);
}

/** Writes each touched group's buffers back to its store, once per batch. */
export function writeGroups(touched: Group[]): void {
  for (let i = 0; i < touched.length; i++) {
    const g = touched[i];
    // As a byte string, the form the store keeps: no byte array is made per group.
    g.store.putByteString(g.key, encodeValueByteString(g.bufs));
  }
}
