/**
 * Stream-stream join benchmark: two streams of ROWS rows each (1M by default; WEIR_BENCH_JOIN_ROWS
 * to change it), an inner join on a key with a 10 s time range (`r.t BETWEEN l.t - 10 s AND l.t +
 * 10 s`), in batches of BATCH rows per side, the watermark 5 s behind the slower stream's latest
 * event time, state evicted behind it. Event time advances 1,000 rows a second per stream over
 * 10,000 keys, so each row meets about two of the other side's.
 *
 * Weir: StreamingSymmetricHashJoinExec with its four state stores on the local checkpoint (fsync
 * on, as in production), each batch's stores loaded, committed (the first, then the other three at
 * once) and maintained as the engine does.
 * The operator case builds the operator by hand; the engine case compiles the join from SQL
 * (compileStreamingQuery over two sources with watermarks) and runs the query's operators over
 * each batch's two inputs, as QueryRuntime does (no sources, sink or logs).
 *
 * Baseline: a hand-written loop doing the same join with the same eviction in plain Maps of
 * arrays, nothing durable. Both results are checked to be the same pairs (count and a checksum of
 * every pair). `join.vsHandLoop` = Weir's rows per second over the loop's (goal 0.5).
 *
 * Run: npx tsx bench/join.bench.ts   (also `npm run bench -- join`)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalCheckpointFileManager } from '../lib/engine/checkpoint/local-checkpoint-file-manager';
import { JOIN_STORE_NAMES } from '../lib/engine/operators/symmetric-hash-join-state';
import { StreamingSymmetricHashJoinExec } from '../lib/engine/operators/symmetric-hash-join';
import { isStatefulOperator, type OperatorContext } from '../lib/engine/operators/physical-operator';
import { compileStreamingQuery } from '../lib/engine/query/streaming-query';
import type { StreamingRelation } from '../lib/engine/query/logical-plan';
import { FileBackedStateStoreProvider } from '../lib/engine/state/file-backed-state-store-provider';
import { storeKey, type StateStore, type StateStoreId } from '../lib/engine/state/state-store';
import type { Row, Schema } from '../lib/engine/types';
import type { BenchResult } from './run';
import { mulberry32 } from '../lib/testing/mulberry32';

const ROWS = Number(process.env.WEIR_BENCH_JOIN_ROWS ?? 1_000_000);
const BATCH = 10_000;
const KEYS = 10_000;
const RANGE_MS = 10_000;
const DELAY_MS = 5_000;
const T0 = Date.UTC(2026, 0, 1);

/** One stream's rows: 1,000 a second of event time, a little out of order. */
function stream(seed: number, prefix: 'l' | 'r'): Row[] {
  const rnd = mulberry32(seed);
  const rows: Row[] = [];
  for (let i = 0; i < ROWS; i++) rows.push({ [`${prefix}k`]: Math.floor(rnd() * KEYS), [`${prefix}t`]: T0 + i + Math.floor(rnd() * 2000), [`${prefix}v`]: i });
  return rows;
}

const LEFT: Schema = [{ name: 'lk', type: 'long' }, { name: 'lt', type: 'timestamp' }, { name: 'lv', type: 'long' }];
const RIGHT: Schema = [{ name: 'rk', type: 'long' }, { name: 'rt', type: 'timestamp' }, { name: 'rv', type: 'long' }];
const inRange = (lt: number, rt: number) => rt >= lt - RANGE_MS && rt <= lt + RANGE_MS;
const pairSum = (lv: number, rv: number) => (lv * 1_000_003 + rv) % 1_000_000_007;

/** The batches' watermarks, as the engine computes them: behind the slower stream, never back. */
function watermarks(left: Row[], right: Row[]): number[] {
  const out: number[] = [];
  let wm = 0, maxL = -Infinity, maxR = -Infinity;
  for (let b = 0; b * BATCH < ROWS; b++) {
    out.push(wm);
    for (let i = b * BATCH; i < Math.min(ROWS, (b + 1) * BATCH); i++) {
      maxL = Math.max(maxL, left[i].lt as number);
      maxR = Math.max(maxR, right[i].rt as number);
    }
    wm = Math.max(wm, Math.min(maxL, maxR) - DELAY_MS);
  }
  return out;
}

/**
 * Commits a batch's stores as MicroBatchExecution does: the first (beside the sink's write, which
 * a bench has none of), then the others at once, so their writes and fsyncs overlap.
 */
async function commit([first, ...others]: StateStore[]): Promise<void> {
  await first.commit();
  await Promise.all(others.map((s) => s.commit()));
}

async function weir(left: Row[], right: Row[], wms: number[]): Promise<{ ms: number; pairs: number; sum: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-join-bench-'));
  try {
    const fm = new LocalCheckpointFileManager(dir);
    const providers = JOIN_STORE_NAMES.map((storeName) => new FileBackedStateStoreProvider(fm, { operatorId: 0, partitionId: 0, storeName }, {}));
    const op = new StreamingSymmetricHashJoinExec(
      {
        operatorId: 0,
        joinType: 'inner',
        left: { operators: [], schema: LEFT, keys: (r) => [r.lk], eventTime: 'lt', stateWatermark: { kind: 'value', column: 'lt', offsetMs: -RANGE_MS } },
        right: { operators: [], schema: RIGHT, keys: (r) => [r.rk], eventTime: 'rt', stateWatermark: { kind: 'value', column: 'rt', offsetMs: -RANGE_MS } },
        condition: (l, r) => inRange(l.lt as number, r.rt as number),
      },
      [...LEFT, ...RIGHT],
    );
    let pairs = 0, sum = 0;
    const t0 = performance.now();
    for (let b = 0; b < wms.length; b++) {
      const stores = new Map<string, StateStore>();
      for (let i = 0; i < providers.length; i++) stores.set(`0/0/${JOIN_STORE_NAMES[i]}`, await providers[i].getStore(b));
      const out = op.join(left.slice(b * BATCH, (b + 1) * BATCH), right.slice(b * BATCH, (b + 1) * BATCH), { batchId: b, batchWatermarkMs: wms[b], batchTimestampMs: 0, stateStores: stores });
      await commit([...stores.values()]);
      op.onCommitted(b + 1);
      for (const p of providers) void p.maintenance();
      pairs += out.length;
      for (const r of out) sum = (sum + pairSum(r.lv as number, r.rv as number)) % 1_000_000_007;
    }
    const ms = performance.now() - t0;
    for (const p of providers) await p.close();
    return { ms, pairs, sum };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const SQL = `SELECT lv, rv FROM l JOIN r ON rk = lk AND rt >= lt - INTERVAL ${RANGE_MS / 1000} SECONDS AND rt <= lt + INTERVAL ${RANGE_MS / 1000} SECONDS`;

/** The join written in SQL, compiled as a job's query is, its operators run over each batch's two inputs. */
async function engine(left: Row[], right: Row[], wms: number[]): Promise<{ ms: number; pairs: number; sum: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-join-bench-'));
  try {
    const fm = new LocalCheckpointFileManager(dir);
    const relation = (sourceName: string, schema: Schema, eventTime: string): StreamingRelation => ({ kind: 'StreamingRelation', sourceName, schema, eventTime, watermarkDelayMs: DELAY_MS });
    const query = compileStreamingQuery(SQL, [relation('l', LEFT, 'lt'), relation('r', RIGHT, 'rt')], { outputMode: 'append' });
    const stateful = query.operators.filter(isStatefulOperator);
    const ids: StateStoreId[] = stateful.flatMap((op) => (op.storeNames ?? [undefined]).map((storeName) => ({ operatorId: op.operatorId, partitionId: 0, ...(storeName ? { storeName } : {}) })));
    const providers = ids.map((id) => new FileBackedStateStoreProvider(fm, id, {}));
    let pairs = 0, sum = 0;
    const t0 = performance.now();
    for (let b = 0; b < wms.length; b++) {
      const stores = new Map<string, StateStore>();
      for (let i = 0; i < providers.length; i++) stores.set(storeKey(ids[i]), await providers[i].getStore(b));
      const l = left.slice(b * BATCH, (b + 1) * BATCH);
      const ctx: OperatorContext = { batchId: b, batchWatermarkMs: wms[b], batchTimestampMs: 0, stateStores: stores, inputs: new Map([['l', l], ['r', right.slice(b * BATCH, (b + 1) * BATCH)]]) };
      let out = l;
      for (const op of query.operators) out = await op.execute(out, ctx);
      await commit([...stores.values()]);
      for (const op of stateful) op.onCommitted(b + 1);
      for (const p of providers) void p.maintenance();
      pairs += out.length;
      for (const r of out) sum = (sum + pairSum(r.lv as number, r.rv as number)) % 1_000_000_007;
    }
    const ms = performance.now() - t0;
    for (const p of providers) await p.close();
    return { ms, pairs, sum };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The same join by hand: per side a Map from key to its buffered [time, value] rows. */
function handLoop(left: Row[], right: Row[], wms: number[]): { ms: number; pairs: number; sum: number } {
  const bufL = new Map<number, [number, number][]>();
  const bufR = new Map<number, [number, number][]>();
  let pairs = 0, sum = 0;
  const t0 = performance.now();
  for (let b = 0; b < wms.length; b++) {
    const wm = wms[b];
    for (let i = b * BATCH; i < Math.min(ROWS, (b + 1) * BATCH); i++) {
      const k = left[i].lk as number, t = left[i].lt as number, v = left[i].lv as number;
      if (t <= wm) continue;
      for (const [rt, rv] of bufR.get(k) ?? []) if (inRange(t, rt)) { pairs++; sum = (sum + pairSum(v, rv)) % 1_000_000_007; }
      if (t > wm - RANGE_MS) (bufL.get(k) ?? bufL.set(k, []).get(k)!).push([t, v]);
    }
    for (let i = b * BATCH; i < Math.min(ROWS, (b + 1) * BATCH); i++) {
      const k = right[i].rk as number, t = right[i].rt as number, v = right[i].rv as number;
      if (t <= wm) continue;
      for (const [lt, lv] of bufL.get(k) ?? []) if (inRange(lt, t)) { pairs++; sum = (sum + pairSum(lv, v)) % 1_000_000_007; }
      if (t > wm - RANGE_MS) (bufR.get(k) ?? bufR.set(k, []).get(k)!).push([t, v]);
    }
    for (const buf of [bufL, bufR]) {
      for (const [k, rows] of buf) {
        const kept = rows.filter(([t]) => t > wm - RANGE_MS);
        if (kept.length === 0) buf.delete(k);
        else if (kept.length !== rows.length) buf.set(k, kept);
      }
    }
  }
  return { ms: performance.now() - t0, pairs, sum };
}

export async function run(): Promise<BenchResult[]> {
  const left = stream(1, 'l');
  const right = stream(2, 'r');
  const wms = watermarks(left, right);
  const loop = handLoop(left, right, wms);
  const w = await weir(left, right, wms);
  if (w.pairs !== loop.pairs || w.sum !== loop.sum) throw new Error(`join results differ: Weir ${w.pairs} pairs (checksum ${w.sum}), hand loop ${loop.pairs} (${loop.sum})`);
  const e = await engine(left, right, wms);
  if (e.pairs !== loop.pairs || e.sum !== loop.sum) throw new Error(`join results differ: Weir's engine ${e.pairs} pairs (checksum ${e.sum}), hand loop ${loop.pairs} (${loop.sum})`);
  const rate = (ms: number) => (2 * ROWS) / (ms / 1000);
  const ratio = rate(w.ms) / rate(loop.ms);
  const engineRatio = rate(e.ms) / rate(loop.ms);
  return [
    { name: 'join: weir rows/s', value: Math.round(rate(w.ms)), unit: 'rows/s', note: `${2 * ROWS} rows, ${wms.length} batches, ${w.pairs} pairs` },
    { name: 'join: weir engine (SQL) rows/s', value: Math.round(rate(e.ms)), unit: 'rows/s' },
    { name: 'join: hand loop rows/s', value: Math.round(rate(loop.ms)), unit: 'rows/s' },
    { name: 'join.vsHandLoop', value: Number(ratio.toFixed(3)), unit: 'ratio', goal: '>= 0.5', ok: ratio >= 0.5 },
    { name: 'join.engineVsHandLoop', value: Number(engineRatio.toFixed(3)), unit: 'ratio' },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
