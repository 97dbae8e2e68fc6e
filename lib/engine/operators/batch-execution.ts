/**
 * A plan's operators run once over fixed inputs, as a batch query (Spark's batch execution of a
 * static side): the streaming operators planned in Complete mode see every row in one batch, so
 * an aggregation outputs each group once (a global one its one row, over no rows too), a sort or
 * limit the whole result. Their state lives in memory for that one batch and is dropped after:
 * nothing is checkpointed, nothing is committed.
 */
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { EvalContext } from '../query/function-types';
import { FileBackedStateStoreProvider } from '../state/file-backed-state-store-provider';
import { storeKey, type StateStore, type StateStoreId } from '../state/state-store';
import type { Row } from '../types';
import type { StaticTableSpec } from './stream-static-join';
import { allOperators, isStatefulOperator, type OperatorContext, type PhysicalOperator } from './physical-operator';

/**
 * Runs `operators` (planned with one MicroBatchScanExec per input) over `inputs`, by scan name; a
 * join among them reads its table through `load`, as the inputs were read.
 */
export async function executeBatch(operators: readonly PhysicalOperator[], inputs: ReadonlyMap<string, Row[]>, ctx: EvalContext, load: (t: StaticTableSpec) => Promise<Row[]>): Promise<Row[]> {
  const files = new InMemoryCheckpointFileManager();
  const stateStores = new Map<string, StateStore>();
  for (const op of allOperators(operators).filter(isStatefulOperator)) {
    for (let partitionId = 0; partitionId < (op.numPartitions ?? 1); partitionId++) {
      for (const storeName of op.storeNames ?? [undefined]) {
        const id: StateStoreId = { operatorId: op.operatorId, partitionId, ...(storeName ? { storeName } : {}) };
        stateStores.set(storeKey(id), await new FileBackedStateStoreProvider(files, id).getStore(0));
      }
    }
  }
  // The caller's time and user (current_timestamp() is the batch's); the batch's own stores and inputs.
  const batch: OperatorContext = { batchTimestampMs: ctx.batchTimestampMs, ...(ctx.currentUser !== undefined ? { currentUser: ctx.currentUser } : {}), batchId: 0, batchWatermarkMs: 0, stateStores, inputs, loadStaticTable: load };
  let rows: Row[] = [];
  for (const op of operators) rows = await op.execute(rows, batch);
  return rows;
}
