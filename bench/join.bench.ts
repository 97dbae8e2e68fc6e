/**
 * Stream-stream join benchmark: two streams of ROWS rows each (1M by default; WEIR_BENCH_JOIN_ROWS
 * to change it), an inner join on a key with a 10 s time range (`r.t BETWEEN l.t - 10 s AND l.t +
 * 10 s`), in batches of BATCH rows per side, the watermark 5 s behind the slower stream's latest
 * event time, state evicted behind it. Event time advances 1,000 rows a second per stream over
 * 10,000 keys, so each row meets about two of the other side's.
 *
 * Weir: StreamingSymmetricHashJoinExec with its four state stores on the local checkpoint (fsync
 * on, as in production), each batch's stores loaded, committed (the first, then the other three at
 * once) and maintained as the engine does: a maintenance round (snapshots, retention) every
 * stateStore.maintenanceInterval, Spark's 60 s by default, which a run shorter than that never
 * reaches; a job running for hours snapshots each store once a minute.
 * The operator case builds the operator by hand; the engine case compiles the join from SQL
 * (compileStreamingQuery over two sources with watermarks) and runs the query's operators over
 * each batch's two inputs, as QueryRuntime does (no sources, sink or logs).
 *
 * Baseline: a hand-written loop doing the same join with the same eviction in plain Maps of
 * arrays, nothing durable. Every run's result is checked to be the same pairs as the loop's (count
 * and a checksum of every pair).
 *
 * Figures are rows per CPU-second (process.cpuUsage, user + system of every thread, so the
 * engine's filesystem calls, its fsyncs' system time and its snapshot worker count), best of
 * ROUNDS interleaved rounds (hand loop, operator, engine) after a warm-up round, as
 * bench/ysb.bench.ts measures: on this shared machine a wall-clock ratio swings with whatever
 * else runs (0.17–0.88 in one sitting). A Weir run is timed up to its providers' close, which
 * waits for the snapshot maintenance started in the run. `join.vsHandLoop` = Weir's rows per
 * CPU-second over the loop's (goal 0.5); the wall-clock figures (best of the same rounds, each
 * case on its own) are reported beside them as `… rows/s (wall)` and `join.vsHandLoopWall`.
 *
 * Run: npx tsx bench/join.bench.ts   (also `npm run bench -- join`; WEIR_BENCH_JOIN_ROUNDS sets
 * the rounds, WEIR_BENCH_JOIN_ONLY=weir|engine|hand runs one case, for --cpu-prof)
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
import { MaintenanceSchedule } from '../lib/engine/state/maintenance-schedule';
import { maintenanceIntervalMsOf } from '../lib/engine/spec/job-spec';
import { storeKey, type StateStore, type StateStoreId } from '../lib/engine/state/state-store';
import type { Row, Schema } from '../lib/engine/types';
import type { BenchResult } from './run';
import { mulberry32 } from '../lib/testing/mulberry32';

const ROWS = Number(process.env.WEIR_BENCH_JOIN_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.WEIR_BENCH_JOIN_ROUNDS ?? 3);
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

interface Answer {
  pairs: number;
  sum: number;
}

interface Timed {
  answer: Answer;
  /** CPU seconds, user + system, of every thread of the process. */
  cpu: number;
  wall: number;
}

async function timed(fn: () => Promise<Answer> | Answer): Promise<Timed> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const answer = await fn();
  const c = process.cpuUsage(c0);
  return { answer, cpu: (c.user + c.system) / 1e6, wall: (performance.now() - t0) / 1000 };
}

/**
 * Commits a batch's stores as MicroBatchExecution does: the first (beside the sink's write, which
 * a bench has none of), then the others at once, so their writes and fsyncs overlap.
 */
async function commit([first, ...others]: StateStore[]): Promise<void> {
  await first.commit();
  await Promise.all(others.map((s) => s.commit()));
}

async function weir(left: Row[], right: Row[], wms: number[]): Promise<Timed> {
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
        // lt − rt in [−10 s, 10 s]: what the planner reads from the SQL's time bounds.
        timeRange: { minMs: -RANGE_MS, maxMs: RANGE_MS },
      },
      [...LEFT, ...RIGHT],
    );
    return await timed(async () => {
      const schedule = new MaintenanceSchedule(maintenanceIntervalMsOf({}), Date.now());
      let pairs = 0, sum = 0;
      for (let b = 0; b < wms.length; b++) {
        const stores = new Map<string, StateStore>();
        for (let i = 0; i < providers.length; i++) stores.set(`0/0/${JOIN_STORE_NAMES[i]}`, await providers[i].getStore(b));
        const out = op.join(left.slice(b * BATCH, (b + 1) * BATCH), right.slice(b * BATCH, (b + 1) * BATCH), { batchId: b, batchWatermarkMs: wms[b], batchTimestampMs: 0, stateStores: stores });
        await commit([...stores.values()]);
        op.onCommitted(b + 1);
        if (schedule.due(Date.now())) for (const p of providers) void p.maintenance();
        pairs += out.length;
        for (const r of out) sum = (sum + pairSum(r.lv as number, r.rv as number)) % 1_000_000_007;
      }
      for (const p of providers) await p.close();
      return { pairs, sum };
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const SQL = `SELECT lv, rv FROM l JOIN r ON rk = lk AND rt >= lt - INTERVAL ${RANGE_MS / 1000} SECONDS AND rt <= lt + INTERVAL ${RANGE_MS / 1000} SECONDS`;

/** The join written in SQL, compiled as a job's query is, its operators run over each batch's two inputs. */
async function engine(left: Row[], right: Row[], wms: number[]): Promise<Timed> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-join-bench-'));
  try {
    const fm = new LocalCheckpointFileManager(dir);
    const relation = (sourceName: string, schema: Schema, eventTime: string): StreamingRelation => ({ kind: 'StreamingRelation', sourceName, schema, eventTime, watermarkDelayMs: DELAY_MS });
    const query = compileStreamingQuery(SQL, [relation('l', LEFT, 'lt'), relation('r', RIGHT, 'rt')], { outputMode: 'append' });
    const stateful = query.operators.filter(isStatefulOperator);
    const ids: StateStoreId[] = stateful.flatMap((op) => (op.storeNames ?? [undefined]).map((storeName) => ({ operatorId: op.operatorId, partitionId: 0, ...(storeName ? { storeName } : {}) })));
    const providers = ids.map((id) => new FileBackedStateStoreProvider(fm, id, {}));
    return await timed(async () => {
      const schedule = new MaintenanceSchedule(maintenanceIntervalMsOf({}), Date.now());
      let pairs = 0, sum = 0;
      for (let b = 0; b < wms.length; b++) {
        const stores = new Map<string, StateStore>();
        for (let i = 0; i < providers.length; i++) stores.set(storeKey(ids[i]), await providers[i].getStore(b));
        const l = left.slice(b * BATCH, (b + 1) * BATCH);
        const ctx: OperatorContext = { batchId: b, batchWatermarkMs: wms[b], batchTimestampMs: 0, stateStores: stores, inputs: new Map([['l', l], ['r', right.slice(b * BATCH, (b + 1) * BATCH)]]) };
        let out = l;
        for (const op of query.operators) out = await op.execute(out, ctx);
        await commit([...stores.values()]);
        for (const op of stateful) op.onCommitted(b + 1);
        if (schedule.due(Date.now())) for (const p of providers) void p.maintenance();
        pairs += out.length;
        for (const r of out) sum = (sum + pairSum(r.lv as number, r.rv as number)) % 1_000_000_007;
      }
      for (const p of providers) await p.close();
      return { pairs, sum };
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The same join by hand: per side a Map from key to its buffered [time, value] rows. */
function handLoop(left: Row[], right: Row[], wms: number[]): Answer {
  const bufL = new Map<number, [number, number][]>();
  const bufR = new Map<number, [number, number][]>();
  let pairs = 0, sum = 0;
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
  return { pairs, sum };
}

const CASES = {
  hand: (l: Row[], r: Row[], wms: number[]) => timed(() => handLoop(l, r, wms)),
  weir,
  engine,
};
const CASE_NAMES = { hand: 'hand loop', weir: 'Weir', engine: "Weir's engine" } as const;

export async function run(): Promise<BenchResult[]> {
  const only = process.env.WEIR_BENCH_JOIN_ONLY as keyof typeof CASES | undefined;
  if (only && !(only in CASES)) throw new Error(`WEIR_BENCH_JOIN_ONLY=${only}: use one of ${Object.keys(CASES).join(', ')}`);
  const left = stream(1, 'l');
  const right = stream(2, 'r');
  const wms = watermarks(left, right);
  const best = { hand: { cpu: Infinity, wall: Infinity }, weir: { cpu: Infinity, wall: Infinity }, engine: { cpu: Infinity, wall: Infinity } };
  let reference: Answer | undefined;
  for (let round = -1; round < ROUNDS; round++) {
    const line: string[] = [];
    for (const name of Object.keys(CASES) as (keyof typeof CASES)[]) {
      if (only && name !== only) continue;
      const t = await CASES[name](left, right, wms);
      reference ??= t.answer;
      if (t.answer.pairs !== reference.pairs || t.answer.sum !== reference.sum) {
        throw new Error(`join results differ: ${CASE_NAMES[name]} ${t.answer.pairs} pairs (checksum ${t.answer.sum}), ${only ? 'its first run' : 'hand loop'} ${reference.pairs} (${reference.sum})`);
      }
      if (round >= 0) best[name] = { cpu: Math.min(best[name].cpu, t.cpu), wall: Math.min(best[name].wall, t.wall) };
      line.push(`${name} ${t.cpu.toFixed(2)} cpu-s (${t.wall.toFixed(2)} s wall)`);
    }
    process.stderr.write(`  join ${round < 0 ? 'warm-up' : `round ${round}`}: ${line.join(', ')}\n`);
  }
  const rows = 2 * ROWS;
  const cpuRate = (name: keyof typeof CASES) => rows / best[name].cpu;
  const wallRate = (name: keyof typeof CASES) => rows / best[name].wall;
  if (only) {
    console.log(`join ${only}: ${Math.round(cpuRate(only))} rows per cpu-s, ${Math.round(wallRate(only))} rows/s wall (best of ${ROUNDS})`);
    return [];
  }
  const ratio = best.hand.cpu / best.weir.cpu;
  const engineRatio = best.hand.cpu / best.engine.cpu;
  const wallRatio = best.hand.wall / best.weir.wall;
  const engineWallRatio = best.hand.wall / best.engine.wall;
  const fmt = (v: number) => Math.round(v).toLocaleString('en');
  console.log(
    `join: ${fmt(rows)} rows, ${wms.length} batches, ${fmt(reference!.pairs)} pairs; rows per CPU-second (best of ${ROUNDS}): weir ${fmt(cpuRate('weir'))}, ` +
      `engine (SQL) ${fmt(cpuRate('engine'))}, hand loop ${fmt(cpuRate('hand'))}; weir/hand ${ratio.toFixed(3)} (goal 0.5), engine/hand ${engineRatio.toFixed(3)}; ` +
      `wall rows/s: weir ${fmt(wallRate('weir'))}, engine ${fmt(wallRate('engine'))}, hand loop ${fmt(wallRate('hand'))}; weir/hand ${wallRatio.toFixed(3)}, engine/hand ${engineWallRatio.toFixed(3)}`,
  );
  return [
    { name: 'join: weir rows/cpu-s', value: Math.round(cpuRate('weir')), unit: 'rows/cpu-s', note: `${rows} rows, ${wms.length} batches, ${reference!.pairs} pairs, best of ${ROUNDS} rounds` },
    { name: 'join: weir engine (SQL) rows/cpu-s', value: Math.round(cpuRate('engine')), unit: 'rows/cpu-s' },
    { name: 'join: hand loop rows/cpu-s', value: Math.round(cpuRate('hand')), unit: 'rows/cpu-s' },
    { name: 'join.vsHandLoop', value: Number(ratio.toFixed(3)), unit: 'ratio', goal: '>= 0.5', ok: ratio >= 0.5, note: 'CPU seconds' },
    { name: 'join.engineVsHandLoop', value: Number(engineRatio.toFixed(3)), unit: 'ratio', note: 'CPU seconds' },
    { name: 'join: weir rows/s (wall)', value: Math.round(wallRate('weir')), unit: 'rows/s' },
    { name: 'join: weir engine (SQL) rows/s (wall)', value: Math.round(wallRate('engine')), unit: 'rows/s' },
    { name: 'join: hand loop rows/s (wall)', value: Math.round(wallRate('hand')), unit: 'rows/s' },
    { name: 'join.vsHandLoopWall', value: Number(wallRatio.toFixed(3)), unit: 'ratio', note: 'wall clock' },
    { name: 'join.engineVsHandLoopWall', value: Number(engineWallRatio.toFixed(3)), unit: 'ratio', note: 'wall clock' },
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
