/**
 * LIMIT on a stream (Spark's StreamingGlobalLimitExec / StreamingLocalLimitExec).
 *
 * - Complete mode: each batch's output is the whole result, so the limit applies to it afresh
 *   (stateless).
 * - Append mode: rows are final once emitted, so the query emits the first N rows overall and
 *   then nothing: the count emitted so far is kept in the state store (key "" → count), so a
 *   restart does not emit N more. A re-run of a batch starts from the committed count.
 * Update mode is refused by the analyzer.
 */
import type { OutputMode, Row, Schema } from '../types';
import { decodeValue, encodeValue } from '../state/state-value-codec';
import { StateOperatorTimes, type OperatorContext, type PhysicalOperator, type StateOperatorProgress, type StatefulOperator } from './physical-operator';
import { providerMetrics, type StateStore } from '../state/state-store';

class CompleteModeLimitExec implements PhysicalOperator {
  readonly name = 'Limit';
  readonly stateful = false;
  constructor(private readonly limit: number, readonly outputSchema: Schema) {}
  execute(rows: Row[]): Row[] {
    return rows.slice(0, this.limit);
  }
}

class StreamingGlobalLimitExec implements StatefulOperator {
  readonly name = 'globalLimit';
  readonly stateful = true as const;
  private store?: StateStore;
  /** The last batch's update time (Spark's allUpdatesTimeMs; a limit removes nothing). */
  private readonly times = new StateOperatorTimes();
  constructor(
    readonly operatorId: number,
    private readonly limit: number,
    readonly outputSchema: Schema,
  ) {}

  execute(rows: Row[], ctx: OperatorContext): Row[] {
    const store = ctx.stateStores?.get(`${this.operatorId}/0`);
    if (!store) throw new Error(`Internal: no state store for operator ${this.operatorId}`);
    this.store = store;
    this.times.reset();
    this.times.begin();
    const raw = store.get('');
    const emitted = raw ? (decodeValue(raw) as number) : 0;
    const take = Math.max(0, Math.min(rows.length, this.limit - emitted));
    if (take > 0) store.put('', encodeValue(emitted + take));
    this.times.endUpdates();
    return rows.slice(0, take);
  }

  /** The emitted count lives in the store only: nothing to confirm or forget. */
  onCommitted(): void {}
  onAborted(): void {}

  progress(): StateOperatorProgress {
    const m = this.store?.metrics();
    return {
      operatorName: this.name,
      numRowsTotal: m?.numRowsTotal ?? 0,
      numRowsUpdated: m?.numRowsUpdated ?? 0,
      numRowsRemoved: 0,
      ...this.times.progress,
      numRowsDroppedByWatermark: 0,
      memoryUsedBytes: m?.memoryUsedBytes ?? 0,
      commitTimeMs: m?.commitTimeMs ?? 0,
      customMetrics: providerMetrics([m]),
    };
  }
}

export function limitExec(mode: OutputMode, operatorId: number, limit: number, schema: Schema): PhysicalOperator {
  return mode === 'append' ? new StreamingGlobalLimitExec(operatorId, limit, schema) : new CompleteModeLimitExec(limit, schema);
}
