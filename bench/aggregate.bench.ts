/**
 * Streaming GROUP BY benchmark (issue 4): `SELECT key, count(*) FROM events GROUP BY key` over
 * 1M rows, against a hand-written Map loop over the same rows in the same run.
 *
 * - baseline: `for (row of rows) m.set(row.key, (m.get(row.key) ?? 0) + 1)`, one pass;
 * - stage: the compiled query's operators (stateful aggregate + projection), each batch loading
 *   its state store version, committing the next as a delta on a local-disk checkpoint (fsync
 *   on), and reporting progress, as MicroBatchExecution does;
 * - engine: the whole MicroBatchExecution path (memory source → compiled SQL → stateful
 *   aggregate → memory sink, offsets/commits logs and state commits on a local-disk checkpoint),
 *   update mode.
 * Both in one batch of 1M rows (a backlog read available-now) and in 10 batches of 100k.
 * Each runs ROUNDS times, interleaved; the median is reported. Keys: 10k distinct (seeded), so
 * every batch touches every group: the streaming price (state read, delta written, one output
 * row per changed group, every batch) that a one-pass Map loop never pays.
 * Goal: 40% or more of the baseline's rows per second.
 *
 * Run: npx tsx bench/aggregate.bench.ts   (also run by `npm run bench`)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '../lib/engine/clock';
import { LocalCheckpointFileManager } from '../lib/engine/checkpoint/local-checkpoint-file-manager';
import type { OperatorContext, StatefulOperator } from '../lib/engine/operators/physical-operator';
import { compileStreamingQuery } from '../lib/engine/query/streaming-query';
import { FileBackedStateStoreProvider } from '../lib/engine/state/file-backed-state-store-provider';
import { MicroBatchExecution } from '../lib/engine/execution/micro-batch-execution';
import { MemorySinkTable } from '../lib/engine/sinks/memory-sink';
import { MemoryStream } from '../lib/engine/sources/memory-source';
import { parseJobSpec } from '../lib/engine/spec/job-spec';
import '../lib/engine/index';
import type { Row } from '../lib/engine/types';

const ROWS = 1_000_000;
const KEYS = 10_000;
const ROUNDS = 3;

function rows(): Row[] {
  let s = 12345;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296);
  return Array.from({ length: ROWS }, (_, i) => ({ key: `k${Math.floor(rnd() * KEYS)}`, amount: i % 100, ts: 1_700_000_000_000 + i }));
}

function baseline(data: Row[]): number {
  const t0 = performance.now();
  const m = new Map<unknown, number>();
  for (const r of data) m.set(r.key, (m.get(r.key) ?? 0) + 1);
  const ms = performance.now() - t0;
  if (m.size === 0) throw new Error('no groups');
  return ms;
}

const SCHEMA = [{ name: 'key', type: 'string' as const }, { name: 'amount', type: 'long' as const }, { name: 'ts', type: 'timestamp' as const }];
const SQL = 'SELECT key, count(*) AS n FROM events GROUP BY key';

async function stage(data: Row[], BATCHES: number): Promise<number> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-bench-agg-stage-'));
  try {
    const q = compileStreamingQuery(SQL, { kind: 'StreamingRelation', sourceName: 'events', schema: SCHEMA }, { outputMode: 'update' });
    const provider = new FileBackedStateStoreProvider(new LocalCheckpointFileManager(dir), { operatorId: 0, partitionId: 0 });
    const per = ROWS / BATCHES;
    const t0 = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      const store = await provider.getStore(b);
      const ctx: OperatorContext = { batchId: b, batchWatermarkMs: 0, batchTimestampMs: 0, stateStores: new Map([['0/0', store]]) };
      let rows = data.slice(b * per, (b + 1) * per);
      for (const op of q.operators) rows = await op.execute(rows, ctx);
      await store.commit();
      await provider.maintenance();
      for (const op of q.operators) (op as StatefulOperator).progress?.();
    }
    return performance.now() - t0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

let run = 0;
async function engine(data: Row[], BATCHES: number): Promise<{ ms: number; groups: number }> {
  const name = `agg-bench-${process.pid}-${run++}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-bench-agg-'));
  try {
    const parsed = parseJobSpec({
      name,
      source: { name: 'events', type: 'memory', options: { stream: name }, schema: SCHEMA },
      sql: SQL,
      sink: { type: 'memory', options: { table: name } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: dir,
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const stream = MemoryStream.named(name);
    const q = new MicroBatchExecution({ spec: parsed.spec, clock: new ManualClock(0) });
    await q.start();
    const per = ROWS / BATCHES;
    const t0 = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      // addData takes rest arguments: feed it in chunks that fit the call stack.
      for (let i = b * per; i < (b + 1) * per; i += 10_000) stream.addData(...data.slice(i, Math.min(i + 10_000, (b + 1) * per)));
      await q.processAllAvailable();
    }
    const ms = performance.now() - t0;
    const groups = q.lastProgress!.stateOperators[0].numRowsTotal;
    await q.stop();
    MemoryStream.drop(name);
    MemorySinkTable.drop(name);
    return { ms, groups };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Figures {
  batches: number;
  stageRowsPerSec: number;
  engineRowsPerSec: number;
  stageRatio: number;
  engineRatio: number;
  goalMet: boolean;
}

async function measure(data: Row[], batches: number): Promise<Figures & { baselineRowsPerSec: number }> {
  const base: number[] = [], stg: number[] = [], eng: number[] = [];
  let groups = 0;
  for (let r = 0; r < ROUNDS; r++) {
    base.push(baseline(data));
    stg.push(await stage(data, batches));
    const e = await engine(data, batches);
    eng.push(e.ms);
    groups = e.groups;
  }
  const rps = (ms: number[]) => ROWS / (median(ms) / 1000);
  const baselineRowsPerSec = rps(base), stageRowsPerSec = rps(stg), engineRowsPerSec = rps(eng);
  const stageRatio = stageRowsPerSec / baselineRowsPerSec;
  const engineRatio = engineRowsPerSec / baselineRowsPerSec;
  const goalMet = stageRatio >= 0.4;
  const fmt = (n: number) => Math.round(n).toLocaleString('en');
  console.log(`aggregate group-by count, ${ROWS.toLocaleString('en')} rows, ${groups.toLocaleString('en')} groups, ${batches} batch(es) (median of ${ROUNDS}):`);
  console.log(`  Map loop            ${fmt(baselineRowsPerSec)} rows/s (${median(base).toFixed(0)} ms)`);
  console.log(`  stateful stage      ${fmt(stageRowsPerSec)} rows/s (${median(stg).toFixed(0)} ms) = ${(stageRatio * 100).toFixed(1)}% of the Map loop (goal ≥ 40%: ${goalMet ? 'met' : 'NOT met'})`);
  console.log(`  MicroBatchExecution ${fmt(engineRowsPerSec)} rows/s (${median(eng).toFixed(0)} ms) = ${(engineRatio * 100).toFixed(1)}% of the Map loop (memory source and sink included)`);
  return { batches, baselineRowsPerSec, stageRowsPerSec, engineRowsPerSec, stageRatio, engineRatio, goalMet };
}

/** One batch of 1M rows (available-now over a backlog), and 10 batches of 100k (every batch touches every group). */
export async function main(): Promise<{ oneBatch: Figures; tenBatches: Figures }> {
  const data = rows();
  return { oneBatch: await measure(data, 1), tenBatches: await measure(data, 10) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
