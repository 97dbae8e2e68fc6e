/**
 * LIMIT on a stream (Spark's StreamingGlobalLimitExec / StreamingLocalLimitExec).
 *
 * - Complete mode: each batch's output is the whole result, so the limit applies to it afresh
 *   (stateless).
 * - Append mode: rows are final once emitted, so the query emits the first N rows overall and
 *   then nothing: the count emitted so far is kept in the state store (key "" → count), so a
 *   restart does not emit N more. A re-run of a batch starts from the committed count.
 * Update mode is refused by the analyzer.
 * - OFFSET runs in a batch plan only (a static side's; the analyzer refuses it over a stream):
 *   the rows of its whole input after the first ones.
 */
import type { OutputMode, Row, Schema } from '../types';
import { decodeValue, encodeValue } from '../state/state-value-codec';
import { StateOperatorTimes, type OperatorContext, type PhysicalOperator, type StateOperatorProgress, type StatefulOperator } from './physical-operator';
import { providerMetrics, type StateStore } from '../state/state-store';

/**
 * Spark's GlobalLimitExec(limit, child, offset) over a whole result (a batch, or a Complete mode
 * batch's output): the rows after the first `offset`, then at most `limit` of them (-1: all).
 */
class GlobalLimitExec implements PhysicalOperator {
  readonly stateful = false;
  constructor(private readonly limit: number, private readonly offset: number, readonly outputSchema: Schema) {}
  get name(): string {
    return this.limit < 0 ? 'Offset' : 'Limit';
  }
  execute(rows: Row[]): Row[] {
    return rows.slice(this.offset, this.limit < 0 ? undefined : this.offset + this.limit);
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
  return mode === 'append' ? new StreamingGlobalLimitExec(operatorId, limit, schema) : new GlobalLimitExec(limit, 0, schema);
}

/**
 * OFFSET in a batch plan (Spark plans a lone Offset as GlobalLimitExec(-1, child, offset)); a
 * LIMIT above it takes its rows from what this one leaves, as Spark's GlobalLimitAndOffset does.
 */
export function offsetExec(offset: number, schema: Schema): PhysicalOperator {
  return new GlobalLimitExec(-1, offset, schema);
}
