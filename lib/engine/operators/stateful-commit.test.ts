/**
 * What a stateful operator learns while running batch N (how far it evicted, which decoded groups
 * it may keep) counts only once the batch's stores commit (onCommitted), and is forgotten when
 * they abort (onAborted): otherwise a batch that failed after evicting would leave the operator
 * believing the state evicted, so no no-data batch would come to close those windows, or a re-run
 * would fold into groups the abort rolled back. Both state store providers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import type { StreamingRelation } from '../query/logical-plan';
import { compileStreamingQuery } from '../query/streaming-query';
import { FileBackedStateStoreProvider } from '../state/file-backed-state-store-provider';
import { LmdbStateStoreProvider } from '../state/lmdb-state-store-provider';
import type { StateStore, StateStoreId, StateStoreProvider } from '../state/state-store';
import type { OutputMode, Row } from '../types';
import { isStatefulOperator, type StatefulOperator } from './physical-operator';

const MIN = 60_000;
const events: StreamingRelation = {
  kind: 'StreamingRelation',
  sourceName: 'events',
  schema: [
    { name: 'user', type: 'string' },
    { name: 'ts', type: 'timestamp' },
  ],
  eventTime: 'ts',
  watermarkDelayMs: 5 * MIN,
};
const ev = (user: string, minute: number): Row => ({ user, ts: minute * MIN });

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const providers: Record<string, (id: StateStoreId) => Promise<StateStoreProvider>> = {
  hdfs: async (id) => new FileBackedStateStoreProvider(new InMemoryCheckpointFileManager(), id, {}),
  lmdb: async (id) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'weir-stateful-commit-'));
    dirs.push(dir);
    return new LmdbStateStoreProvider(new InMemoryCheckpointFileManager(), id, {}, { localDir: dir });
  },
};

/** One stateful operator over one store, driven batch by batch as MicroBatchExecution does. */
async function operatorOf(sql: string, mode: OutputMode, provider: string) {
  const q = compileStreamingQuery(sql, events, { outputMode: mode });
  const op = q.operators.find(isStatefulOperator) as StatefulOperator;
  expect(op.numPartitions ?? 1).toBe(1);
  const p = await providers[provider]({ operatorId: op.operatorId, partitionId: 0 });
  /** Runs batch N at watermark `wm` over the store at version N; the caller commits or aborts. */
  const execute = async (batchId: number, wm: number, rows: Row[]): Promise<{ output: Row[]; store: StateStore }> => {
    const store = await p.getStore(batchId);
    let out = rows;
    for (const o of q.operators) out = await o.execute(out, { batchId, batchWatermarkMs: wm, batchTimestampMs: 0, stateStores: new Map([[`${op.operatorId}/0`, store]]) });
    return { output: out, store };
  };
  const commit = async (batchId: number, store: StateStore) => {
    expect(await store.commit()).toBe(batchId + 1);
    op.onCommitted(batchId + 1);
  };
  const abort = (store: StateStore) => {
    store.abort();
    op.onAborted();
  };
  return { op, execute, commit, abort, close: () => p.close() };
}

describe.each(['hdfs', 'lmdb'])('eviction bookkeeping follows the commit (%s state store)', (provider) => {
  it.each([
    ['aggregate', 'SELECT ts, count(*) AS n FROM events GROUP BY ts', 'update'],
    ['aggregate over a window', "SELECT window(ts, '10 minutes') AS w, count(*) AS n FROM events GROUP BY window(ts, '10 minutes')", 'append'],
    ['deduplicate', 'SELECT DISTINCT user, ts FROM events', 'append'],
  ] as const)('%s: evicted state counts at onCommitted, not when the batch ran, and an abort forgets it', async (_name, sql, mode) => {
    const q = await operatorOf(sql, mode, provider);
    const wm = 35 * MIN;
    // Batch 0: three entries, two of them behind the next watermark.
    const b0 = await q.execute(0, 0, [ev('a', 1), ev('b', 12), ev('c', 40)]);
    await q.commit(0, b0.store);
    expect(q.op.shouldRunAnotherBatch?.(wm)).toBe(true);

    // Batch 1 at watermark 35 min evicts them; until its stores commit, nothing is evicted yet.
    const b1 = await q.execute(1, wm, []);
    expect(b1.store.size).toBe(1);
    expect(q.op.shouldRunAnotherBatch?.(wm)).toBe(true);
    // The batch fails (the sink write, say): the stores roll back to version 1 and the operator
    // must still ask for the batch that evicts.
    q.abort(b1.store);
    expect(q.op.shouldRunAnotherBatch?.(wm)).toBe(true);

    // The re-run evicts again, from version 1, with the same output; committed, it holds.
    const again = await q.execute(1, wm, []);
    expect(again.store.size).toBe(1);
    expect(again.output).toEqual(b1.output);
    await q.commit(1, again.store);
    expect(q.op.shouldRunAnotherBatch?.(wm)).toBe(false);
    expect(q.op.progress()).toMatchObject({ numRowsTotal: 1, numRowsRemoved: 2 });
    expect(q.op.shouldRunAnotherBatch?.(wm + 1)).toBe(true);
    await q.close();
  });

  it('aggregate: the groups it keeps between batches are valid from onCommitted, never after an abort', async () => {
    const q = await operatorOf('SELECT user, count(*) AS n FROM events GROUP BY user', 'update', provider);
    const b0 = await q.execute(0, 0, [ev('a', 1), ev('a', 2), ev('b', 3)]);
    await q.commit(0, b0.store);
    const perGroup = (q.op.progress().customMetrics!.groupCacheBytes as number) / 2;
    expect(perGroup).toBeGreaterThan(0);

    // Batch 1 counts into the kept groups, then aborts: the re-run counts from version 1 again.
    const b1 = await q.execute(1, 0, [ev('a', 4), ev('c', 5)]);
    expect(b1.output).toEqual([{ user: 'a', n: 3 }, { user: 'c', n: 1 }]);
    q.abort(b1.store);
    const again = await q.execute(1, 0, [ev('a', 4), ev('c', 5)]);
    expect(again.output).toEqual(b1.output);
    await q.commit(1, again.store);

    // Committed: batch 2 finds the kept groups valid (group a counted once more, not decoded stale).
    const b2 = await q.execute(2, 0, [ev('a', 6), ev('b', 7)]);
    expect(b2.output).toEqual([{ user: 'a', n: 4 }, { user: 'b', n: 2 }]);
    await q.commit(2, b2.store);
    // Three groups kept (a and b since batch 0, c since the re-run of batch 1): the cache outlived
    // the commits and holds each group once.
    expect(q.op.progress().customMetrics!.groupCacheBytes).toBe(3 * perGroup);
    await q.close();
  });
});
