/**
 * Session windows (Spark 3.2+'s SessionWindow): `GROUP BY session_window(ts, gap), key`.
 *
 * A row opens the session [ts, ts + gap); sessions of the same key that overlap or touch (a
 * start at or before the other's end, as Spark's MergingSessionsIterator compares) merge into
 * one from the earliest start to the latest end. The gap is an interval string ('10 seconds'),
 * an interval value, or a per-row expression (CASE …): a row whose gap is NULL, unreadable, zero
 * or negative (its session end not after its start) is left out, as Spark's SessionWindowing
 * filter leaves it out; so is a row with a NULL event time.
 *
 * SessionWindowAggregateExec does in one operator what Spark splits into
 * SessionWindowStateStoreRestoreExec (drop late rows, bring back the key's sessions),
 * MergingSessionsExec (merge them with the batch's rows) and SessionWindowStateStoreSaveExec
 * (keep the sessions, emit and evict the closed ones):
 * 1. A row is late when its own session ends at or before the watermark late rows are judged by
 *    (the previous batch's, Spark's eventTimeWatermarkForLateEvents, through its watermark
 *    predicate on session_window.end): dropped, counted in numRowsDroppedByWatermark.
 *    Complete mode keeps every session and drops nothing, as for a windowed aggregation.
 * 2. Per key (the grouping keys without the session), the state holds the key's sessions, sorted
 *    by start; a batch merges its rows into them and writes the key back once.
 * 3. Append: a session whose end is ≤ the batch's watermark W is final: emitted once and
 *    evicted in the same step.
 *    Complete: every session in state, every batch. Update is refused by the analyzer, as
 *    Spark's UnsupportedOperationChecker refuses it.
 *
 * What a session keeps: each of its rows' aggregate inputs with the row's event time, not a
 * folded buffer. Two sessions in state can become one when a later row bridges them, and
 * Weir's aggregation buffers cannot be merged with each other; folding the kept inputs in
 * event-time order gives the answer Spark's sort-based merge gives, for every aggregate
 * (first, last and collect_list included). The price is state that grows with the rows of an
 * open session; the watermark bounds how long a session stays open.
 */
import { update } from '../query/aggregate-functions';
import type { Evaluator } from '../query/expression-compiler';
import { safeStringToInterval, type CalendarInterval } from '../query/calendar-interval';
import { timestampAddInterval } from '../query/datetime-arithmetic';
import { timestampAddMicros, timestampAddMonths } from '../query/interval-utils';
import type { Long } from '../query/long';
import { providerMetrics, type StateStore } from '../state/state-store';
import { decodeKey, decodeValue, encodeKey, encodeValue } from '../state/state-value-codec';
import type { Row, Schema } from '../types';
import { aggregateOutputSchema, type AggregateSpec, type GroupingKey } from './aggregate';
import { partitionOfGroup } from './aggregate-folds';
import { lateEventsWatermark, partitionStores, StateOperatorTimes, type OperatorContext, type StatefulOperator, type StateOperatorProgress } from './physical-operator';

/** How the gap expression's value reads: its type decides (the planner checked it is one of these). */
export type GapKind = 'string' | 'day_time_interval' | 'year_month_interval' | 'calendar_interval' | 'null';

/**
 * The end of the session a row at `ts` opens (Spark's `ts + gap`, months on the calendar in
 * UTC, then days of 24 hours, then microseconds, kept as the timestamp's fraction), or null when
 * the gap is NULL or unreadable.
 */
export function sessionEnd(ts: number, gap: unknown, kind: GapKind): number | null {
  if (gap === null || gap === undefined) return null;
  switch (kind) {
    case 'day_time_interval':
      return timestampAddMicros(ts, gap as Long);
    case 'year_month_interval':
      return timestampAddMonths(ts, gap as number);
    case 'calendar_interval':
      return timestampAddInterval(ts, gap as CalendarInterval);
    case 'string': {
      const iv = safeStringToInterval(String(gap));
      return iv && timestampAddInterval(ts, iv);
    }
    case 'null':
      return null;
  }
}

/** Keys whose first session end is remembered (firstEnds), at most this many. */
const MAX_FIRST_ENDS = 1_000_000;
/** Estimated heap of one memo entry (a Map entry and a heap number). */
const FIRST_END_BYTES = 40;

/** One session of a key: [start, end) and its rows, each `[eventTime, ...aggregate inputs]`, in event-time order. */
type Session = [start: number, end: number, rows: unknown[][]];

export interface SessionWindowAggregateOptions {
  operatorId: number;
  /** The grouping keys in GROUP BY order; the session key's `eval` gives the event time. */
  keys: GroupingKey[];
  /** Index in `keys` of the session window. */
  sessionIndex: number;
  /** The gap per row, read as `gapKind` says. */
  gap: Evaluator;
  gapKind: GapKind;
  aggregates: AggregateSpec[];
  outputMode: 'append' | 'complete';
  /** Whether the event time carries the watermark: only then are late rows dropped and sessions closed. */
  bounded: boolean;
  numPartitions?: number;
}

export class SessionWindowAggregateExec implements StatefulOperator {
  readonly stateful = true as const;
  /** Spark's name for the operator that keeps the sessions. */
  readonly name = 'sessionWindowStateStoreSaveExec';
  readonly operatorId: number;
  readonly numPartitions: number;
  readonly outputSchema: Schema;
  private droppedByWatermark = 0;
  private lastStores: StateStore[] = [];
  /** Watermark up to which sessions are closed in the last committed version. */
  private evictedUpTo = -Infinity;
  /** The last batch's update and eviction times (Spark's allUpdatesTimeMs, allRemovalsTimeMs). */
  private readonly times = new StateOperatorTimes();
  /** This batch's closing, until its stores commit (onCommitted) or abort (onAborted). */
  private pendingEvictedUpTo = -Infinity;
  /**
   * The end of each key's first (earliest) session as this process last wrote it, so the
   * closing scan decodes only the keys with a session to close. Forgotten on an abort (the
   * stores go back to an older version) and past MAX_FIRST_ENDS entries.
   */
  private readonly firstEnds = new Map<string, number>();

  /** Whether sessions close at the watermark (Append over the watermarked event time). */
  private readonly closes: boolean;

  constructor(private readonly o: SessionWindowAggregateOptions) {
    this.closes = o.outputMode === 'append' && o.bounded;
    this.operatorId = o.operatorId;
    this.numPartitions = o.numPartitions ?? 1;
    // The session key is a window (its GroupingKey's type says so: stateful-planner.ts).
    this.outputSchema = aggregateOutputSchema(o.keys.map((k, i) => (i === o.sessionIndex ? { ...k, type: 'window' } : k)), o.aggregates);
  }

  /** The grouping values without the session: what the state is keyed and partitioned by. */
  private groupTuple(row: Row, ctx: OperatorContext): unknown[] {
    const { keys, sessionIndex } = this.o;
    const tuple: unknown[] = [];
    for (let i = 0; i < keys.length; i++) if (i !== sessionIndex) tuple.push(keys[i].eval(row, ctx) ?? null);
    return tuple;
  }

  partitionOf(row: Row, ctx: OperatorContext): number {
    return partitionOfGroup(this.groupTuple(row, ctx), -1, this.numPartitions);
  }

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const { keys, sessionIndex, gap, gapKind, aggregates, outputMode, bounded } = this.o;
    const stores = partitionStores(ctx, this.operatorId, this.numPartitions);
    this.lastStores = stores;
    const wm = ctx.batchWatermarkMs;
    const lateWm = lateEventsWatermark(ctx);
    const dropLate = bounded && outputMode !== 'complete';
    this.droppedByWatermark = 0;
    this.times.reset();
    this.times.begin();

    // 1. Each row's own session; the late ones and those without a session left out.
    const byKey = new Map<string, { tuple: unknown[]; rows: Session[] }>();
    const eventTime = keys[sessionIndex].eval;
    for (const row of rows) {
      const ts = eventTime(row, ctx);
      if (ts === null || ts === undefined) continue;
      const start = ts as number;
      const end = sessionEnd(start, gap(row, ctx), gapKind);
      if (end === null || !(end > start)) continue;
      if (dropLate && end <= lateWm) {
        this.droppedByWatermark++;
        continue;
      }
      const tuple = this.groupTuple(row, ctx);
      const key = encodeKey(tuple);
      let g = byKey.get(key);
      if (!g) byKey.set(key, (g = { tuple, rows: [] }));
      const inputs: unknown[] = [start];
      for (const a of aggregates) inputs.push(a.arg ? a.arg(row, ctx) : null);
      g.rows.push([start, end, [inputs]]);
    }

    // 2. Merge them into each key's sessions in state; 3. (Append) close the sessions the watermark passed.
    const out: Row[] = [];
    const closing = this.closes;
    for (const [key, g] of byKey) {
      const store = stores[partitionOfGroup(g.tuple, -1, stores.length)];
      const raw = store.get(key);
      const merged = mergeSessions([...(raw ? (decodeValue(raw) as Session[]) : []), ...g.rows]);
      const open = closing ? this.close(merged, wm, g.tuple, out) : merged;
      this.write(store, key, open, raw !== undefined);
    }
    this.times.endUpdates();

    if (outputMode === 'complete') {
      for (const s of stores) for (const [k, v] of s.entries()) for (const session of decodeValue(v) as Session[]) out.push(this.render(decodeKey(k), session));
      return out;
    }
    this.pendingEvictedUpTo = this.evictedUpTo;
    if (closing && wm > this.evictedUpTo) {
      this.times.begin();
      for (const s of stores) {
        const changed: [string, Session[]][] = [];
        for (const k of s.keys()) {
          const known = this.firstEnds.get(k);
          if (byKey.has(k) || (known !== undefined && known > wm)) continue;
          const sessions = decodeValue(s.get(k)!) as Session[];
          // Sorted by start, and sessions never overlap: the first one ends first.
          if (sessions[0][1] > wm) {
            this.firstEnds.set(k, sessions[0][1]);
            continue;
          }
          changed.push([k, this.close(sessions, wm, decodeKey(k), out)]);
        }
        for (const [k, open] of changed) this.write(s, k, open, true);
      }
      this.pendingEvictedUpTo = wm;
      this.times.endRemovals();
    }
    return out;
  }

  /** A key's open sessions into its store, or the key out of it when none is left. */
  private write(store: StateStore, key: string, open: Session[], stored: boolean): void {
    if (this.firstEnds.size > MAX_FIRST_ENDS) this.firstEnds.clear();
    if (open.length > 0) {
      store.put(key, encodeValue(open));
      if (this.closes) this.firstEnds.set(key, open[0][1]);
    } else {
      if (stored) store.remove(key, 'watermark');
      this.firstEnds.delete(key);
    }
  }

  /** Emits the sessions that end at or before `wm` into `out`; returns the others. */
  private close(sessions: Session[], wm: number, tuple: unknown[], out: Row[]): Session[] {
    const open: Session[] = [];
    for (const s of sessions) {
      if (s[1] <= wm) out.push(this.render(tuple, s));
      else open.push(s);
    }
    return open;
  }

  /** A session's output row: the keys, the session as `{start, end}`, and each aggregate folded over its rows. */
  private render(tuple: unknown[], [start, end, rows]: Session): Row {
    const { keys, sessionIndex, aggregates } = this.o;
    const out: Row = {};
    let t = 0;
    for (let i = 0; i < keys.length; i++) out[keys[i].name] = i === sessionIndex ? { start, end } : tuple[t++];
    for (let a = 0; a < aggregates.length; a++) {
      const fn = aggregates[a].fn;
      let buf = fn.init();
      for (const r of rows) buf = update(fn.op, buf, r[a + 1]);
      out[aggregates[a].name] = fn.result(buf);
    }
    return out;
  }

  shouldRunAnotherBatch(newWatermarkMs: number): boolean {
    return this.closes && newWatermarkMs > this.evictedUpTo;
  }

  onCommitted(): void {
    this.evictedUpTo = this.pendingEvictedUpTo;
  }

  onAborted(): void {
    this.pendingEvictedUpTo = this.evictedUpTo;
    this.firstEnds.clear();
  }

  progress(): StateOperatorProgress {
    let total = 0, updated = 0, removed = 0, memory = 0, commitTimeMs = 0, evicted = 0, onDisk = 0;
    for (const s of this.lastStores) {
      const m = s.metrics();
      total += m.numRowsTotal;
      updated += m.numRowsUpdated;
      removed += m.numRowsEvictedByWatermark + m.numRowsRemoved;
      memory += m.memoryUsedBytes;
      commitTimeMs += m.commitTimeMs;
      evicted += m.numRowsEvictedByWatermark;
      onDisk += m.bytesOnDisk;
    }
    return {
      operatorName: this.name,
      // State rows are keys, each holding that key's open sessions.
      numRowsTotal: total,
      numRowsUpdated: updated,
      numRowsRemoved: removed,
      ...this.times.progress,
      numRowsDroppedByWatermark: this.droppedByWatermark,
      // The first-end memo shares its key strings with the store: its Map entry and number only.
      memoryUsedBytes: memory + this.firstEnds.size * FIRST_END_BYTES,
      commitTimeMs,
      customMetrics: { numRowsEvictedByWatermark: evicted, stateOnDiskBytes: onDisk, ...providerMetrics(this.lastStores.map((s) => s.metrics())) },
    };
  }
}

/**
 * Sessions sorted by start and merged where one starts at or before the end of the one being
 * built (Spark's MergingSessionsIterator); a merged session's rows in event-time order, the
 * earlier-kept first among equal times.
 */
export function mergeSessions(sessions: Session[]): Session[] {
  // Array sort is stable: equal starts and equal times keep the order they came in.
  const out: Session[] = [];
  for (const s of [...sessions].sort((a, b) => a[0] - b[0])) {
    const cur = out[out.length - 1];
    if (cur && s[0] <= cur[1]) {
      if (s[1] > cur[1]) cur[1] = s[1];
      cur[2] = cur[2].concat(s[2]);
    } else {
      out.push([s[0], s[1], s[2]]);
    }
  }
  for (const s of out) s[2].sort((a, b) => (a[0] as number) - (b[0] as number));
  return out;
}
