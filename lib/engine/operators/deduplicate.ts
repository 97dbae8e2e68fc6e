/**
 * StreamingDeduplicateExec: Spark's dropDuplicates and dropDuplicatesWithinWatermark.
 *
 * State: one entry per key seen (key = the dedup columns' values). Per batch N, with the store
 * at version N and the batch's watermark W:
 * - dropDuplicates(keys) without a watermark on the keys: a row whose key is in state is dropped,
 *   else it is emitted and its key stored, forever (unbounded: the analyzer warns).
 * - dropDuplicates(keys) where the keys include the watermarked event-time column: rows with
 *   event time ≤ W are late (dropped, counted); entries whose event time ≤ W are evicted.
 * - withinWatermark (keys need not include the event time): the entry stores
 *   expiresAt = event time + delay; late rows are dropped; entries with expiresAt ≤ W are
 *   evicted. A duplicate arriving within `delay` of the first is dropped, as Spark's does.
 * Keys are stored before the next row is looked at, so duplicates inside one batch are caught
 * too; the first occurrence in source order wins, which a re-run of the batch reproduces.
 */
import type { Row, Schema } from '../types';
import { partitionForKey, providerMetrics, type StateStore } from '../state/state-store';
import { decodeValue, encodeKey, encodeValue } from '../state/state-value-codec';
import { lateEventsWatermark, partitionStores, StateOperatorTimes, type OperatorContext, type StateOperatorProgress, type StatefulOperator } from './physical-operator';

export interface DeduplicateOptions {
  operatorId: number;
  keys: string[];
  withinWatermark: boolean;
  /** The watermarked event-time column and delay, when the source has one. */
  eventTime?: string;
  delayMs?: number;
  /** State partitions, by the hash of the key (default 1). */
  numPartitions?: number;
}

const NO_VALUE = new Uint8Array(0);

/** The partition of a dedup key as its store holds it (encodeKey of the key columns' values). */
export function partitionOfDedupKey(key: string, numPartitions: number): number {
  return partitionForKey(key, numPartitions);
}

export class StreamingDeduplicateExec implements StatefulOperator {
  readonly stateful = true as const;
  readonly name: string;
  readonly operatorId: number;
  readonly numPartitions: number;
  private stores: StateStore[] = [];
  private dropped = 0;
  /** This batch's rows dropped as duplicates (Spark's numDroppedDuplicateRows). */
  private duplicates = 0;
  /** Watermark up to which state is evicted in the last committed version. */
  private evictedUpTo = -Infinity;
  /** The last batch's update and eviction times (Spark's allUpdatesTimeMs, allRemovalsTimeMs). */
  private readonly times = new StateOperatorTimes();
  /** This batch's eviction, until its stores commit (onCommitted) or abort (onAborted). */
  private pendingEvictedUpTo = -Infinity;
  private readonly bounded: boolean;

  constructor(private readonly o: DeduplicateOptions, readonly outputSchema: Schema) {
    this.operatorId = o.operatorId;
    this.numPartitions = o.numPartitions ?? 1;
    this.name = o.withinWatermark ? 'dedupeWithinWatermark' : 'dedupe';
    const inKeys = o.eventTime !== undefined && o.keys.some((k) => k.toLowerCase() === o.eventTime!.toLowerCase());
    this.bounded = o.eventTime !== undefined && (o.withinWatermark || inKeys);
  }

  /** The partition of a row's key (the dedup columns' values). */
  partitionOf(row: Row): number {
    return partitionOfDedupKey(this.keyOf(row), this.numPartitions);
  }

  private keyOf(row: Row): string {
    return encodeKey(this.o.keys.map((k) => row[k] ?? null));
  }

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const stores = partitionStores(ctx, this.operatorId, this.numPartitions);
    this.stores = stores;
    const { eventTime, withinWatermark } = this.o;
    const delay = this.o.delayMs ?? 0;
    const wm = ctx.batchWatermarkMs;
    const late = lateEventsWatermark(ctx);
    const out: Row[] = [];
    let dropped = 0;
    let duplicates = 0;
    const times = this.times;
    times.reset();
    times.begin();
    for (const row of rows) {
      const t = this.bounded ? row[eventTime!] : undefined;
      if (typeof t === 'number' && t <= late) {
        dropped++;
        continue;
      }
      const key = this.keyOf(row);
      const store = stores.length === 1 ? stores[0] : stores[partitionOfDedupKey(key, stores.length)];
      if (store.has(key)) {
        duplicates++;
        continue;
      }
      store.put(key, !this.bounded || typeof t !== 'number' ? NO_VALUE : encodeValue(withinWatermark ? t + delay : t));
      out.push(row);
    }
    times.endUpdates();
    this.dropped = dropped;
    this.duplicates = duplicates;
    this.pendingEvictedUpTo = this.evictedUpTo;
    if (this.bounded && wm > this.evictedUpTo) {
      times.begin();
      for (const store of stores) {
        const expired: string[] = [];
        for (const [k, v] of store.entries()) {
          if (v.length === 0) continue;
          if ((decodeValue(v) as number) <= wm) expired.push(k);
        }
        for (const k of expired) store.remove(k, 'watermark');
      }
      this.pendingEvictedUpTo = wm;
      times.endRemovals();
    }
    return out;
  }

  /** After the commit: whether the watermark moved enough to be worth a no-data batch. */
  shouldRunAnotherBatch(newWatermarkMs: number): boolean {
    return this.bounded && newWatermarkMs > this.evictedUpTo;
  }

  /** The eviction up to this batch's watermark is durable: a no-data batch for it is no longer needed. */
  onCommitted(): void {
    this.evictedUpTo = this.pendingEvictedUpTo;
  }

  /** The eviction was rolled back with the stores: the re-run evicts again. */
  onAborted(): void {
    this.pendingEvictedUpTo = this.evictedUpTo;
  }

  progress(): StateOperatorProgress {
    const ms = this.stores.map((s) => s.metrics());
    const sum = (f: (m: (typeof ms)[number]) => number) => ms.reduce((n, m) => n + f(m), 0);
    const evicted = sum((m) => m.numRowsEvictedByWatermark);
    return {
      operatorName: this.name,
      numRowsTotal: sum((m) => m.numRowsTotal),
      numRowsUpdated: sum((m) => m.numRowsUpdated),
      numRowsRemoved: evicted + sum((m) => m.numRowsRemoved),
      ...this.times.progress,
      numRowsDroppedByWatermark: this.dropped,
      memoryUsedBytes: sum((m) => m.memoryUsedBytes),
      commitTimeMs: sum((m) => m.commitTimeMs),
      customMetrics: { numDroppedDuplicateRows: this.duplicates, numRowsEvictedByWatermark: evicted, stateOnDiskBytes: sum((m) => m.bytesOnDisk), ...providerMetrics(ms) },
    };
  }
}
