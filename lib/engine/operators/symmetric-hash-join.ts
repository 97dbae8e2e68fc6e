/**
 * StreamingSymmetricHashJoinExec: Spark's stream-stream equi-join (inner, left/right/full outer,
 * left semi).
 *
 * Both inputs are buffered in state, one side each (symmetric-hash-join-state.ts), keyed by the
 * join key. Per batch N, with the stores at version N, as Spark's processPartitions:
 * 1. each left input row that is not late (its event time ≤ the watermark, when the left side has
 *    one) and passes the condition's left-only conjuncts (else an outer join emits it padded at
 *    once: Spark's early state exclusion) joins with the right side's buffered rows of its key
 *    that pass the other conditions, and is then buffered itself, unless it is already behind
 *    the left side's state watermark (it could match no future row) or it is a left semi join's
 *    row that has matched;
 * 2. each right input row likewise joins with the left side's buffered rows, this batch's left
 *    rows included, so a pair that arrives in one batch is emitted once;
 * 3. rows behind each side's state watermark are evicted; an outer join emits its side's evicted
 *    rows that never matched, padded with NULLs, which is why an outer join's unmatched rows come
 *    out only when the watermark passes them (often in the no-data batch that follows).
 *
 * A side's state watermark says which of its buffered rows no future row of the other side can
 * match: from a time-range condition (`l.t BETWEEN r.t - INTERVAL 10 SECONDS AND r.t + …`) a
 * buffered left row whose `l.t` is ≤ watermark + offset, or from an event-time column in the join
 * key (a window), a row whose key's time is ≤ the watermark. Without one the side's state grows
 * for ever, as Spark's does (the analyzer warns).
 */
import type { Row, Schema } from '../types';
import type { EvalContext } from '../query/expression-compiler';
import { partitionForKey, providerMetrics, storeKey, type StateStore } from '../state/state-store';
import { decodeKey, encodeKey } from '../state/state-value-codec';
import { cacheKeyOf, JOIN_STORE_NAMES, joinKeyOfStoreKey, JoinStateCache, SymmetricHashJoinStateManager, type JoinSide, type OnRemoved } from './symmetric-hash-join-state';
import { lateEventsWatermark, type OperatorContext, type PhysicalOperator, type StateOperatorProgress, type StatefulOperator } from './physical-operator';

export type StreamingJoinType = 'inner' | 'leftOuter' | 'rightOuter' | 'fullOuter' | 'leftSemi';

/** Spark's JoinStateWatermarkPredicate: when a buffered row of a side can be dropped. */
type JoinStateWatermark =
  /** JoinStateValueWatermarkPredicate: the row's `column` ≤ the watermark + `offsetMs`. */
  | { kind: 'value'; column: string; offsetMs: number }
  /** JoinStateKeyWatermarkPredicate: the join key's `keyIndex`-th part (a time, or a window's end) ≤ the watermark. */
  | { kind: 'key'; keyIndex: number };

interface JoinInput {
  /** The operators that produce this side's rows from the batch (starting with its source's scan). */
  operators: PhysicalOperator[];
  schema: Schema;
  /** The side's join key values (the equi-join's expressions), in the order of the other side's. */
  keys: (row: Row, ctx: EvalContext) => unknown[];
  /** The side's watermarked event-time column: input rows at or behind the watermark are late and dropped. */
  eventTime?: string;
  /**
   * The join condition's conjuncts over this side's columns only (Spark's preJoinFilter): a row
   * failing them can match nothing, so it is neither joined nor buffered; an outer join's
   * preserved side emits it padded with NULLs at once (Spark's early state exclusion).
   */
  preJoinFilter?: (row: Row, ctx: EvalContext) => unknown;
  stateWatermark?: JoinStateWatermark;
}

export interface StreamingJoinOptions {
  operatorId: number;
  joinType: StreamingJoinType;
  left: JoinInput;
  right: JoinInput;
  /** The join's other conditions over a left and a right row (true joins; false and NULL do not). */
  condition?: (left: Row, right: Row, ctx: EvalContext) => unknown;
  /**
   * How far this join's input watermark is behind the global one (≤ 0), when a side is itself a
   * join of streams, whose output watermark lags (InputWatermarkExec says why); its sides read
   * their own.
   */
  inputWatermarkDeltaMs?: number;
  /**
   * Every pair the condition joins has minMs ≤ left time − right time ≤ maxMs, each side's time
   * the column its value state watermark reads (the planner reads the range from the condition's
   * time bounds): a buffered row outside it is passed over by the time it is buffered with,
   * without reading the row, which for most rows of a wide state is the probe's costliest step.
   * Ignored unless both sides have a value state watermark.
   */
  timeRange?: { minMs: number; maxMs: number };
  /** State partitions, by the hash of the join key (default 1). */
  numPartitions?: number;
  /** Per key part, whether it is compared by `<=>` (a NULL matches a NULL); unset: every part by `=`. */
  nullSafeKeys?: boolean[];
}

/** A partition's figures of its last batch; `updatesMs` and `removalsMs` are Spark's allUpdatesTimeMs and allRemovalsTimeMs. */
type JoinCounts = { droppedByWatermark: number; updated: number; leftEvicted: number; rightEvicted: number; leftRows: number; rightRows: number; updatesMs: number; removalsMs: number };

/** What the operator keeps of one state partition between batches. */
interface JoinPartition {
  /** The partition's four stores, as the last batch used them (progress). */
  stores: StateStore[];
  counts: JoinCounts;
  /**
   * Each side's rows decoded, as of store version `cacheVersion`: valid for the next batch only if
   * that batch loads the version this operator's own last batch committed (a failed batch, or
   * stores loaded at another version after a restart, start from empty caches).
   */
  caches: Record<JoinSide, JoinStateCache>;
  cacheVersion: number | undefined;
}

/** A time, or a window's end (a window key is `{start, end}`), as the watermark compares them. */
function eventTimeOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v !== null && typeof v === 'object' && typeof (v as { end?: unknown }).end === 'number') return (v as { end: number }).end;
  return undefined;
}

/**
 * The partition of a key as the join's store `storeName` holds it: its join key's, the one
 * partitionOf routes the key's rows of either side to.
 */
export function partitionOfJoinStoreKey(storeName: string, key: string, numPartitions: number): number {
  return partitionForKey(joinKeyOfStoreKey(storeName, key), numPartitions);
}

export class StreamingSymmetricHashJoinExec implements StatefulOperator {
  readonly stateful = true as const;
  readonly name = 'StreamingSymmetricHashJoin';
  readonly operatorId: number;
  readonly storeNames = JOIN_STORE_NAMES;
  readonly numPartitions: number;
  /** The state partitions this instance has run (all of them, or a reduce task's one). */
  private readonly partitions = new Map<number, JoinPartition>();
  /** The watermark the last committed version evicted up to. */
  private evictedUpTo = -Infinity;
  private pendingEvictedUpTo = -Infinity;
  /** Output column names for each side's columns, by position (a left semi join's right side has none). */
  private readonly outputNames: Record<JoinSide, string[]>;
  /** An output row with every column NULL, in output order. */
  private readonly outputTemplate: Row;
  /** Each side's column names, in the order of its buffered values. */
  private readonly columns: Record<JoinSide, string[]>;
  /** Per side with a value state watermark, a buffered row's time as it compares it. */
  private readonly timeOf: Record<JoinSide, ((row: Row) => number | undefined) | undefined>;
  /**
   * Per probing side, where a buffered row of the other side must be for the pair to join
   * (timeRange): its time in [t + from, t + to], t the probing row's; undefined without a range.
   * A millisecond wider either way than the range: the times are doubles, the condition exact.
   */
  private readonly probeRange: Record<JoinSide, { from: number; to: number } | undefined>;

  constructor(
    private readonly o: StreamingJoinOptions,
    readonly outputSchema: Schema,
  ) {
    this.operatorId = o.operatorId;
    this.numPartitions = o.numPartitions ?? 1;
    const names = outputSchema.map((f) => f.name);
    const nLeft = o.left.schema.length;
    this.outputNames = { left: names.slice(0, nLeft), right: o.joinType === 'leftSemi' ? [] : names.slice(nLeft, nLeft + o.right.schema.length) };
    this.outputTemplate = Object.fromEntries([...this.outputNames.left, ...this.outputNames.right].map((n) => [n, null]));
    this.columns = { left: o.left.schema.map((f) => f.name), right: o.right.schema.map((f) => f.name) };
    const timeOf = (side: JoinSide) => {
      const w = o[side].stateWatermark;
      if (w?.kind !== 'value') return undefined;
      const column = w.column;
      return (row: Row) => eventTimeOf(row[column]);
    };
    this.timeOf = { left: timeOf('left'), right: timeOf('right') };
    const range = this.timeOf.left && this.timeOf.right ? o.timeRange : undefined;
    this.probeRange = range
      ? { left: { from: -range.maxMs - 1, to: -range.minMs + 1 }, right: { from: range.minMs - 1, to: range.maxMs + 1 } }
      : { left: undefined, right: undefined };
  }

  /** Each side's operators (a side that is itself a join of streams holds that join's). */
  get children(): PhysicalOperator[] {
    return [...this.o.left.operators, ...this.o.right.operators];
  }

  /** The same join with its state in `numPartitions` partitions (the job's parallelism). */
  withNumPartitions(numPartitions: number): StreamingSymmetricHashJoinExec {
    return new StreamingSymmetricHashJoinExec({ ...this.o, numPartitions }, this.outputSchema);
  }

  private storesOf(ctx: OperatorContext, partitionId: number): Record<JoinSide, SymmetricHashJoinStateManager> {
    const get = (name: string): StateStore => {
      const s = ctx.stateStores?.get(storeKey({ operatorId: this.operatorId, partitionId, storeName: name }));
      if (!s) throw new Error(`Internal: no state store ${name} for operator ${this.operatorId} partition ${partitionId}`);
      return s;
    };
    let part = this.partitions.get(partitionId);
    if (!part) this.partitions.set(partitionId, (part = { stores: [], counts: noCounts(), caches: { left: new JoinStateCache(), right: new JoinStateCache() }, cacheVersion: undefined }));
    part.stores = JOIN_STORE_NAMES.map(get);
    if (part.cacheVersion !== part.stores[0].version) part.caches = { left: new JoinStateCache(), right: new JoinStateCache() };
    // Until this batch's stores commit, the caches hold its uncommitted changes.
    part.cacheVersion = undefined;
    return {
      left: new SymmetricHashJoinStateManager(part.stores[0], part.stores[1], part.caches.left, this.columns.left, this.timeOf.left),
      right: new SymmetricHashJoinStateManager(part.stores[2], part.stores[3], part.caches.right, this.columns.right, this.timeOf.right),
    };
  }

  /** The partition of a row of input `child` (0 the left side, 1 the right): the hash of its join key. */
  partitionOf(row: Row, ctx: OperatorContext, child: number): number {
    return partitionForKey(encodeKey(this.o[child === 0 ? 'left' : 'right'].keys(row, ctx)), this.numPartitions);
  }

  /** The map side: each side's rows, from the batch's rows through the side's operators. */
  async mapInputs(rows: Row[], ctx: OperatorContext): Promise<Row[][]> {
    const inputs: Record<JoinSide, Row[]> = { left: rows, right: rows };
    for (const side of ['left', 'right'] as const) for (const op of this.o[side].operators) inputs[side] = await op.execute(inputs[side], ctx);
    return [inputs.left, inputs.right];
  }

  /** The reduce side: one partition's left and right rows (ctx.partitionId). */
  reduceInputs([left, right]: Row[][], ctx: OperatorContext): Row[] {
    return this.join(left, right, ctx);
  }

  /**
   * The whole batch: each partition's share of both sides joined in turn (a reduce task is handed
   * one, reduceInputs), each as the task of its partition: rand(seed) in the condition draws from
   * seed + p there, as Spark initializes a task's nondeterministic expressions.
   */
  async execute(rows: Row[], ctx: OperatorContext): Promise<Row[]> {
    const [left, right] = await this.mapInputs(rows, ctx);
    if (ctx.partitionId !== undefined || this.numPartitions === 1) return this.join(left, right, ctx);
    const out: Row[] = [];
    for (let p = 0; p < this.numPartitions; p++) {
      const mine = (child: number) => (r: Row) => this.partitionOf(r, ctx, child) === p;
      out.push(...this.join(left.filter(mine(0)), right.filter(mine(1)), { ...ctx, partitionId: p, partitionIndex: p }));
    }
    return out;
  }

  /** Joins one batch's left and right rows with the buffered ones (steps 1–3 above). */
  join(left: Row[], right: Row[], ctx: OperatorContext): Row[] {
    const partitionId = ctx.partitionId ?? 0;
    const state = this.storesOf(ctx, partitionId);
    const wm = ctx.batchWatermarkMs + (this.o.inputWatermarkDeltaMs ?? 0);
    const late = lateEventsWatermark(ctx) + (this.o.inputWatermarkDeltaMs ?? 0);
    const { joinType } = this.o;
    const out: Row[] = [];
    const counts = noCounts();
    const started = performance.now();
    const semi = joinType === 'leftSemi';
    // Whose buffered rows' matched flag is ever read: an outer side's (padding on eviction) and a
    // left semi join's left side (a left row is emitted once). Spark sets it always; an inner join
    // that skips it writes half as much state.
    const keepsMatched: Record<JoinSide, boolean> = {
      left: joinType === 'leftOuter' || joinType === 'fullOuter' || semi,
      right: joinType === 'rightOuter' || joinType === 'fullOuter',
    };

    const condition = this.o.condition;
    const preserved: Record<JoinSide, boolean> = {
      left: joinType === 'leftOuter' || joinType === 'fullOuter',
      right: joinType === 'rightOuter' || joinType === 'fullOuter',
    };
    for (const side of ['left', 'right'] as const) {
      // What the rows' loop reads, looked up once a side: a property read by a name that varies
      // (`state[side]`) is a slow, megamorphic one, and this loop runs for every input row.
      const input = this.o[side];
      const other: JoinSide = side === 'left' ? 'right' : 'left';
      const ownState = state[side];
      const otherState = state[other];
      const marksOther = keepsMatched[other];
      const w = input.stateWatermark;
      const filter = input.preJoinFilter;
      // On a side that is not preserved Spark's optimizer pushes the filter below the join
      // (PushPredicateThroughJoin), so a row it drops is never judged late; a preserved side's
      // rows are judged late first, then filtered by the join (and padded).
      const filterFirst = filter !== undefined && !preserved[side];
      const range = this.probeRange[side];
      const ownTime = this.timeOf[side];
      for (const row of side === 'left' ? left : right) {
        if (filterFirst && filter(row, ctx) !== true) continue;
        if (input.eventTime !== undefined) {
          const t = eventTimeOf(row[input.eventTime]);
          if (t !== undefined && t <= late) {
            counts.droppedByWatermark++;
            continue;
          }
        }
        if (filter !== undefined && !filterFirst && filter(row, ctx) !== true) {
          out.push(side === 'left' ? this.joined(row, null) : this.joined(null, row));
          continue;
        }
        const key = input.keys(row, ctx);
        // NULL equals nothing: a row with a NULL key part joins with no row (an outer join still
        // pads it), unless the part is compared by <=>.
        const nullKey = hasNull(key, this.o.nullSafeKeys);
        // Made once: the probe and the append find the key's rows by it.
        const k = cacheKeyOf(key);
        let matched = false;
        const buffered = nullKey ? undefined : otherState.rowsOf(k);
        if (buffered !== undefined) {
          // Only the own side's appends grow its slab: the other side's stays as it is here.
          const { rows, meta } = buffered.slab;
          const at = buffered.at;
          // The times the other side's rows must have to join this one (probeRange), if known.
          const t = range !== undefined ? ownTime!(row) : undefined;
          const from = t === undefined ? -Infinity : t + range!.from;
          const to = t === undefined ? Infinity : t + range!.to;
          for (let i = 0, n = buffered.length; i < n; i++) {
            // A row buffered without a time (NaN) is never passed over.
            if (t !== undefined && (meta[2 * (at + i)] < from || meta[2 * (at + i)] > to)) continue;
            if (semi && side === 'right' && buffered.isMatched(i)) continue;
            const b = rows[at + i];
            const l = side === 'left' ? row : b;
            const r = side === 'left' ? b : row;
            if (condition && condition(l, r, ctx) !== true) continue;
            matched = true;
            if (marksOther) otherState.markMatched(buffered, i);
            if (!semi) out.push(this.joined(l, r));
            else if (side === 'right') out.push(this.joined(l, null));
            else break;
          }
        }
        if (semi && side === 'left' && matched) {
          out.push(this.joined(row, null));
          continue;
        }
        // Kept unless already behind the state watermark as late rows are judged (the previous
        // batch's): a row an aggregation below released because this batch's watermark passed it
        // must still meet the other side's rows of this batch (Spark 4's fix for time-window
        // aggregations of separate streams joined on the window); eviction below then drops it.
        if (behindStateWatermark(w, key, w?.kind === 'value' ? row[w.column] : undefined, late)) continue;
        ownState.append(k, row, matched);
        counts.updated++;
      }
    }

    const evicting = performance.now();
    counts.updatesMs = evicting - started;
    this.pendingEvictedUpTo = this.evictedUpTo;
    for (const side of ['left', 'right'] as const) {
      if (!this.o[side].stateWatermark || wm === -Infinity) continue;
      const w = this.o[side].stateWatermark!;
      const padded: OnRemoved | undefined = !preserved[side] ? undefined : (b, matched) => {
        if (!matched) out.push(side === 'left' ? this.joined(b, null) : this.joined(null, b));
      };
      counts[`${side}Evicted`] += w.kind === 'value' ? state[side].removeUpTo(wm + w.offsetMs, padded) : state[side].removeKeysWhere((k) => behindStateWatermark(w, decodeKey(k), undefined, wm), padded);
      this.pendingEvictedUpTo = wm;
    }
    const flushing = performance.now();
    counts.removalsMs = flushing - evicting;
    state.left.flush();
    state.right.flush();
    // The stores' writes of what the input and the eviction changed: counted as updates.
    counts.updatesMs += performance.now() - flushing;
    counts.leftRows = state.left.numRows;
    counts.rightRows = state.right.numRows;
    this.partitions.get(partitionId)!.counts = counts;
    return out;
  }

  /** The output row: the left side's columns then the right side's (a left semi join: the left's), named by position. */
  private joined(l: Row | null, r: Row | null): Row {
    // A copy of a literal-like object gets its final shape at once (every column in the object),
    // where adding the columns one by one grew it (one output row per pair, the join's most
    // allocated object).
    const out: Row = { ...this.outputTemplate };
    // A side without a row (padding) keeps the template's NULLs.
    if (l !== null) copyColumns(out, l, this.outputNames.left, this.columns.left);
    if (r !== null) copyColumns(out, r, this.outputNames.right, this.columns.right);
    return out;
  }

  /** Spark's shouldRunAnotherBatch for a join: a watermark past the last eviction evicts (and, outer, emits). */
  shouldRunAnotherBatch(newWatermarkMs: number): boolean {
    return (this.o.left.stateWatermark !== undefined || this.o.right.stateWatermark !== undefined) && newWatermarkMs + (this.o.inputWatermarkDeltaMs ?? 0) > this.evictedUpTo;
  }

  onCommitted(version: number): void {
    this.evictedUpTo = this.pendingEvictedUpTo;
    for (const part of this.partitions.values()) part.cacheVersion = version;
  }

  onAborted(): void {
    this.pendingEvictedUpTo = this.evictedUpTo;
    for (const part of this.partitions.values()) part.cacheVersion = undefined;
  }

  progress(): StateOperatorProgress {
    const parts = [...this.partitions.values()];
    // Each store with its side: two of a partition's four are the left's (JOIN_STORE_NAMES).
    const metered = parts.flatMap((p) => p.stores.map((s, i) => ({ left: JOIN_STORE_NAMES[i].startsWith('left-'), m: s.metrics() })));
    const ms = metered.map((x) => x.m);
    const sideMemory = (left: boolean) => metered.reduce((n, x) => n + (x.left === left ? x.m.memoryUsedBytes : 0), 0);
    const counts = noCounts();
    for (const p of parts) for (const k of Object.keys(counts) as (keyof JoinCounts)[]) counts[k] += p.counts[k];
    return {
      operatorName: 'symmetricHashJoin',
      numRowsTotal: counts.leftRows + counts.rightRows,
      numRowsUpdated: counts.updated,
      numRowsRemoved: counts.leftEvicted + counts.rightEvicted,
      allUpdatesTimeMs: Math.round(counts.updatesMs),
      allRemovalsTimeMs: Math.round(counts.removalsMs),
      numRowsDroppedByWatermark: counts.droppedByWatermark,
      memoryUsedBytes: ms.reduce((n, m) => n + m.memoryUsedBytes, 0),
      commitTimeMs: ms.reduce((n, m) => n + m.commitTimeMs, 0),
      customMetrics: {
        leftBufferedRows: counts.leftRows,
        rightBufferedRows: counts.rightRows,
        // Each side's share of the state, as Spark's UI cannot show it (its join reports the sum).
        leftRowsRemoved: counts.leftEvicted,
        rightRowsRemoved: counts.rightEvicted,
        leftMemoryUsedBytes: sideMemory(true),
        rightMemoryUsedBytes: sideMemory(false),
        stateOnDiskBytes: ms.reduce((n, m) => n + m.bytesOnDisk, 0),
        ...providerMetrics(ms),
      },
    };
  }
}

/** A side's columns of `from` into the output row `out`, under their output names (absent: NULL). */
function copyColumns(out: Row, from: Row, names: readonly string[], cols: readonly string[]): void {
  for (let i = 0; i < names.length; i++) out[names[i]] = from[cols[i]] ?? null;
}

/**
 * Whether a row of a side with state watermark `w` (its join key, and its value of a value
 * watermark's column) is behind it at watermark `wm`.
 */
function behindStateWatermark(w: JoinStateWatermark | undefined, key: unknown[], columnValue: unknown, wm: number): boolean {
  if (!w || wm === -Infinity) return false;
  const t = w.kind === 'key' ? eventTimeOf(key[w.keyIndex]) : eventTimeOf(columnValue);
  return t !== undefined && t <= (w.kind === 'key' ? wm : wm + w.offsetMs);
}

/** Whether a join key has a NULL part that matches nothing (a loop: this runs for every input row). */
function hasNull(key: readonly unknown[], nullSafe: readonly boolean[] | undefined): boolean {
  for (let i = 0; i < key.length; i++) if ((key[i] === null || key[i] === undefined) && nullSafe?.[i] !== true) return true;
  return false;
}

function noCounts(): JoinCounts {
  return { droppedByWatermark: 0, updated: 0, leftEvicted: 0, rightEvicted: 0, leftRows: 0, rightRows: 0, updatesMs: 0, removalsMs: 0 };
}
