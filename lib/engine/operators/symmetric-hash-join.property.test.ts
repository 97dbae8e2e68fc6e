/**
 * The stream-stream join against a hand-written loop over the whole input: once the stream has
 * ended and a final watermark has passed every row, the join's output over all batches (with
 * restarts from the committed state, and batches that failed and ran again) is exactly the
 * nested loop's answer over the rows that were not late when they arrived: inner pairs, a left or
 * right outer join's unmatched rows padded with NULLs once, a left semi join's matched left rows
 * once. Eviction by the state watermark derived from the time range must lose no pair.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { FileBackedStateStoreProvider } from '../state/file-backed-state-store-provider';
import type { StateStore, StateStoreProvider } from '../state/state-store';
import type { Row, Schema } from '../types';
import { JOIN_STORE_NAMES } from './symmetric-hash-join-state';
import { StreamingSymmetricHashJoinExec, type StreamingJoinType } from './symmetric-hash-join';

const LEFT: Schema = [
  { name: 'lk', type: 'long' },
  { name: 'lt', type: 'timestamp' },
  { name: 'lv', type: 'long' },
];
const RIGHT: Schema = [
  { name: 'rk', type: 'long' },
  { name: 'rt', type: 'timestamp' },
  { name: 'rv', type: 'long' },
];
/** rt BETWEEN lt - RANGE AND lt + RANGE */
const RANGE = 10;
const DELAY = 5;
const FLUSH = 1e9;

/** The condition's range of lt − rt, as the planner reads it from the SQL's time bounds. */
const TIME_RANGE = { minMs: -RANGE, maxMs: RANGE };

function joinOf(joinType: StreamingJoinType, numPartitions = 1, timeRange?: typeof TIME_RANGE): StreamingSymmetricHashJoinExec {
  const output = joinType === 'leftSemi' ? LEFT : [...LEFT, ...RIGHT];
  return new StreamingSymmetricHashJoinExec(
    {
      operatorId: 0,
      joinType,
      left: { operators: [], schema: LEFT, keys: (r) => [r.lk], eventTime: 'lt', stateWatermark: { kind: 'value', column: 'lt', offsetMs: -RANGE } },
      right: { operators: [], schema: RIGHT, keys: (r) => [r.rk], eventTime: 'rt', stateWatermark: { kind: 'value', column: 'rt', offsetMs: -RANGE } },
      condition: (l, r) => (r.rt as number) >= (l.lt as number) - RANGE && (r.rt as number) <= (l.lt as number) + RANGE,
      numPartitions,
      ...(timeRange ? { timeRange } : {}),
    },
    output,
  );
}

interface Batch {
  left: Row[];
  right: Row[];
}

/** The nested loop: every pair over the rows that were not late when they came. */
function handLoop(joinType: StreamingJoinType, left: Row[], right: Row[]): Row[] {
  const out: Row[] = [];
  const matches = (l: Row, r: Row) => l.lk !== null && l.lk === r.rk && (r.rt as number) >= (l.lt as number) - RANGE && (r.rt as number) <= (l.lt as number) + RANGE;
  const nullRight = { rk: null, rt: null, rv: null };
  const nullLeft = { lk: null, lt: null, lv: null };
  if (joinType === 'leftSemi') return left.filter((l) => right.some((r) => matches(l, r)));
  for (const l of left) for (const r of right) if (matches(l, r)) out.push({ ...l, ...r });
  if (joinType === 'leftOuter' || joinType === 'fullOuter') for (const l of left) if (!right.some((r) => matches(l, r))) out.push({ ...l, ...nullRight });
  if (joinType === 'rightOuter' || joinType === 'fullOuter') for (const r of right) if (!left.some((l) => matches(l, r))) out.push({ ...nullLeft, ...r });
  return out;
}

const canon = (rows: Row[]) => rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]))).sort();

/**
 * Runs the batches as MicroBatchExecution does: stores at version N, commit to N+1, restart or
 * fail on cue. With several partitions, each side's rows go to the partition of their join key
 * and the operator joins one partition after the other (its reduce side, as the tasks run it).
 */
async function runJoin(joinType: StreamingJoinType, batches: Batch[], restartAfter: Set<number>, failOnce: Set<number>, numPartitions = 1, timeRange?: typeof TIME_RANGE) {
  const fm = new InMemoryCheckpointFileManager();
  const providersOf = () => new Map<string, StateStoreProvider>(
    Array.from({ length: numPartitions }, (_, partitionId) => JOIN_STORE_NAMES.map((storeName): [string, StateStoreProvider] => [`0/${partitionId}/${storeName}`, new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId, storeName }, {})])).flat(),
  );
  let providers = providersOf();
  let op = joinOf(joinType, numPartitions, timeRange);
  const output: Row[] = [];
  const kept = { left: [] as Row[], right: [] as Row[] };
  let wm = 0;
  let maxLeft = -Infinity, maxRight = -Infinity;
  const all = [...batches, { left: [], right: [] }];
  for (let n = 0; n < all.length; n++) {
    const b = all[n];
    if (n === all.length - 1) wm = FLUSH;
    for (const r of b.left) if ((r.lt as number) > wm) kept.left.push(r);
    for (const r of b.right) if ((r.rt as number) > wm) kept.right.push(r);
    for (let attempt = 0; ; attempt++) {
      const stores = new Map<string, StateStore>();
      for (const [key, p] of providers) stores.set(key, await p.getStore(n));
      const ctx = { batchId: n, batchWatermarkMs: wm, batchTimestampMs: 0, stateStores: stores };
      const out: Row[] = [];
      for (let partitionId = 0; partitionId < numPartitions; partitionId++) {
        const mine = (child: number) => (r: Row) => op.partitionOf(r, ctx, child) === partitionId;
        out.push(...op.reduceInputs([b.left.filter(mine(0)), b.right.filter(mine(1))], { ...ctx, partitionId }));
      }
      if (attempt === 0 && failOnce.has(n)) {
        for (const s of stores.values()) s.abort();
        op.onAborted();
        continue;
      }
      for (const s of stores.values()) expect(await s.commit()).toBe(n + 1);
      op.onCommitted(n + 1);
      output.push(...out);
      break;
    }
    // The watermark of the next batch, as Spark's: the minimum over the inputs of (max event time − delay), never back.
    for (const r of b.left) maxLeft = Math.max(maxLeft, r.lt as number);
    for (const r of b.right) maxRight = Math.max(maxRight, r.rt as number);
    wm = Math.max(wm, Math.min(maxLeft, maxRight) - DELAY);
    if (restartAfter.has(n)) {
      for (const p of providers.values()) await p.close();
      providers = providersOf();
      op = joinOf(joinType, numPartitions, timeRange);
    }
  }
  return { output, kept, op };
}

const row = (side: 'l' | 'r') =>
  fc.record({ k: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 10 }), t: fc.integer({ min: 1000, max: 1080 }), v: fc.integer({ min: 0, max: 9 }) }).map(({ k, t, v }) => ({ [`${side}k`]: k, [`${side}t`]: t, [`${side}v`]: v }) as Row);
const batches = fc.array(fc.record({ left: fc.array(row('l'), { maxLength: 6 }), right: fc.array(row('r'), { maxLength: 6 }) }), { minLength: 1, maxLength: 10 });
const batchSet = fc.array(fc.integer({ min: 0, max: 10 }), { maxLength: 3 }).map((a) => new Set(a));

describe('stream-stream join against a hand-written loop', () => {
  it.each(['inner', 'leftOuter', 'rightOuter', 'fullOuter', 'leftSemi'] as const)('%s: every pair once after the final watermark, through restarts and failed batches', async (joinType) => {
    await fc.assert(
      fc.asyncProperty(batches, batchSet, batchSet, async (bs, restarts, failures) => {
        const { output, kept, op } = await runJoin(joinType, bs, restarts, failures);
        expect(canon(output)).toEqual(canon(handLoop(joinType, kept.left, kept.right)));
        // The final watermark passed every row: both sides' state is empty.
        expect(op.progress().numRowsTotal).toBe(0);
      }),
      { numRuns: 40, seed: 3636 },
    );
  });

  it.each(['inner', 'leftOuter', 'rightOuter', 'fullOuter', 'leftSemi'] as const)('%s passing over buffered rows by the time range: the same answer', async (joinType) => {
    await fc.assert(
      fc.asyncProperty(batches, batchSet, batchSet, async (bs, restarts, failures) => {
        const { output, kept, op } = await runJoin(joinType, bs, restarts, failures, 1, TIME_RANGE);
        expect(canon(output)).toEqual(canon(handLoop(joinType, kept.left, kept.right)));
        expect(op.progress().numRowsTotal).toBe(0);
      }),
      { numRuns: 40, seed: 3638 },
    );
  });

  it.each(['inner', 'fullOuter', 'leftSemi'] as const)('%s with the state in 3 partitions: the same answer, each partition holding its keys', async (joinType) => {
    await fc.assert(
      fc.asyncProperty(batches, batchSet, batchSet, async (bs, restarts, failures) => {
        const { output, kept, op } = await runJoin(joinType, bs, restarts, failures, 3);
        expect(canon(output)).toEqual(canon(handLoop(joinType, kept.left, kept.right)));
        expect(op.progress().numRowsTotal).toBe(0);
      }),
      { numRuns: 30, seed: 3637 },
    );
  });
});

describe('stream-stream join, batch by batch', () => {
  it('emits a left outer join’s unmatched row padded with NULLs only when the watermark passes it', async () => {
    const { output } = await runJoin('leftOuter', [{ left: [{ lk: 1, lt: 1000, lv: 1 }], right: [] }, { left: [], right: [{ rk: 1, rt: 1005, rv: 2 }] }, { left: [{ lk: 2, lt: 1050, lv: 3 }], right: [{ rk: 9, rt: 1050, rv: 0 }] }], new Set(), new Set());
    expect(output).toEqual([
      { lk: 1, lt: 1000, lv: 1, rk: 1, rt: 1005, rv: 2 },
      { lk: 2, lt: 1050, lv: 3, rk: null, rt: null, rv: null },
    ]);
  });

  it('passes over a buffered row outside the time range without evaluating the condition on it', async () => {
    const seen: number[] = [];
    const op = new StreamingSymmetricHashJoinExec(
      {
        operatorId: 0,
        joinType: 'inner',
        left: { operators: [], schema: LEFT, keys: (r) => [r.lk], eventTime: 'lt', stateWatermark: { kind: 'value', column: 'lt', offsetMs: -RANGE } },
        right: { operators: [], schema: RIGHT, keys: (r) => [r.rk], eventTime: 'rt', stateWatermark: { kind: 'value', column: 'rt', offsetMs: -RANGE } },
        condition: (l, r) => {
          seen.push(r.rt as number);
          return (r.rt as number) >= (l.lt as number) - RANGE && (r.rt as number) <= (l.lt as number) + RANGE;
        },
        timeRange: TIME_RANGE,
      },
      [...LEFT, ...RIGHT],
    );
    const fm = new InMemoryCheckpointFileManager();
    const providers = JOIN_STORE_NAMES.map((storeName) => new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0, storeName }, {}));
    const storesAt = async (v: number) => new Map<string, StateStore>(await Promise.all(providers.map(async (p, i): Promise<[string, StateStore]> => [`0/0/${JOIN_STORE_NAMES[i]}`, await p.getStore(v)])));
    const first = await storesAt(0);
    op.join([], [1000, 1020, 1040].map((rt, i) => ({ rk: 1, rt, rv: i })), { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0, stateStores: first });
    for (const s of first.values()) await s.commit();
    op.onCommitted(1);
    // A left row at 1021 can join right rows in [1011, 1031] only: the condition sees 1020 alone.
    const out = op.join([{ lk: 1, lt: 1021, lv: 9 }], [], { batchId: 1, batchWatermarkMs: 0, batchTimestampMs: 0, stateStores: await storesAt(1) });
    expect(out).toEqual([{ lk: 1, lt: 1021, lv: 9, rk: 1, rt: 1020, rv: 1 }]);
    expect(seen).toEqual([1020]);
  });

  it('keeps state bounded: rows behind the state watermark are evicted and counted', async () => {
    const op = joinOf('inner');
    const fm = new InMemoryCheckpointFileManager();
    const stores = new Map<string, StateStore>();
    for (const storeName of JOIN_STORE_NAMES) stores.set(`0/0/${storeName}`, await new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0, storeName }, {}).getStore(0));
    const left = [1000, 1001, 1002, 1030].map((t, i) => ({ lk: 1, lt: t, lv: i }));
    const out = op.join(left, [{ rk: 1, rt: 1031, rv: 0 }], { batchId: 0, batchWatermarkMs: 1015, batchTimestampMs: 0, stateStores: stores });
    // Rows at or behind the watermark (1015) are late and dropped; 1030 joins with 1031.
    expect(out).toEqual([{ lk: 1, lt: 1030, lv: 3, rk: 1, rt: 1031, rv: 0 }]);
    const p = op.progress();
    expect(p.numRowsDroppedByWatermark).toBe(3);
    expect(p.numRowsTotal).toBe(2);
    expect(p.customMetrics).toMatchObject({ leftBufferedRows: 1, rightBufferedRows: 1 });
  });

  it('reports each side\'s state apart: rows, rows evicted, and memory, which add up to the operator\'s', async () => {
    const op = joinOf('inner');
    const fm = new InMemoryCheckpointFileManager();
    const stores = new Map<string, StateStore>();
    for (const storeName of JOIN_STORE_NAMES) stores.set(`0/0/${storeName}`, await new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0, storeName }, {}).getStore(0));
    op.join([1000, 1001, 1002].map((t, i) => ({ lk: i, lt: t, lv: i })), [{ rk: 9, rt: 1003, rv: 0 }], { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0, stateStores: stores });
    const kept = op.progress();
    expect(kept.customMetrics).toMatchObject({ leftBufferedRows: 3, rightBufferedRows: 1, leftRowsRemoved: 0, rightRowsRemoved: 0 });
    const { leftMemoryUsedBytes: left, rightMemoryUsedBytes: right } = kept.customMetrics!;
    expect(left).toBeGreaterThan(right);
    expect(right).toBeGreaterThan(0);
    expect(left + right).toBe(kept.memoryUsedBytes);
    // runJoin ends with a watermark past every row: each side evicts its own.
    const { op: flushed } = await runJoin('inner', [{ left: [1000, 1001, 1002].map((t, i) => ({ lk: i, lt: t, lv: i })), right: [{ rk: 9, rt: 1003, rv: 0 }] }], new Set(), new Set());
    const evicted = flushed.progress();
    expect(evicted.customMetrics).toMatchObject({ leftBufferedRows: 0, rightBufferedRows: 0, leftRowsRemoved: 3, rightRowsRemoved: 1 });
    expect(evicted.numRowsRemoved).toBe(4);
  });
});
