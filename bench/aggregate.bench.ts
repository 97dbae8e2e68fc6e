/**
 * Streaming GROUP BY benchmark (issue 4): `SELECT key, count(*) FROM events GROUP BY key` over
 * 1M rows, against a hand-written Map loop over the same rows in the same run.
 *
 * - baseline: `for (row of rows) m.set(row.key, (m.get(row.key) ?? 0) + 1)`, one pass;
 * - engine: the whole MicroBatchExecution path (memory source → compiled SQL → stateful
 *   aggregate with its state store → memory sink, write-ahead logs and state commits on a
 *   local-disk checkpoint with fsync), update mode, 10 batches of 100k rows.
 * Each runs ROUNDS times, interleaved; the median is reported. Keys: 10k distinct (seeded).
 * Goal: the engine at 40% or more of the baseline's rows per second.
 *
 * Run: npx tsx bench/aggregate.bench.ts   (also run by `npm run bench`)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '../lib/engine/clock';
import { MicroBatchExecution } from '../lib/engine/execution/micro-batch-execution';
import { MemorySinkTable } from '../lib/engine/sinks/memory-sink';
import { MemoryStream } from '../lib/engine/sources/memory-source';
import { parseJobSpec } from '../lib/engine/spec/job-spec';
import '../lib/engine/index';
import type { Row } from '../lib/engine/types';

const ROWS = 1_000_000;
const BATCHES = 10;
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

let run = 0;
async function engine(data: Row[]): Promise<{ ms: number; groups: number }> {
  const name = `agg-bench-${process.pid}-${run++}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-bench-agg-'));
  try {
    const parsed = parseJobSpec({
      name,
      source: { name: 'events', type: 'memory', options: { stream: name }, schema: [{ name: 'key', type: 'string' }, { name: 'amount', type: 'long' }, { name: 'ts', type: 'timestamp' }] },
      sql: 'SELECT key, count(*) AS n FROM events GROUP BY key',
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

export async function main(): Promise<{ baselineRowsPerSec: number; engineRowsPerSec: number; ratio: number; goalMet: boolean }> {
  const data = rows();
  const base: number[] = [], eng: number[] = [];
  let groups = 0;
  for (let r = 0; r < ROUNDS; r++) {
    base.push(baseline(data));
    const e = await engine(data);
    eng.push(e.ms);
    groups = e.groups;
  }
  const baselineRowsPerSec = ROWS / (median(base) / 1000);
  const engineRowsPerSec = ROWS / (median(eng) / 1000);
  const ratio = engineRowsPerSec / baselineRowsPerSec;
  const goalMet = ratio >= 0.4;
  const fmt = (n: number) => Math.round(n).toLocaleString('en');
  console.log(`aggregate group-by count, ${ROWS.toLocaleString('en')} rows, ${groups.toLocaleString('en')} groups, ${BATCHES} batches: ` +
    `engine ${fmt(engineRowsPerSec)} rows/s (median ${median(eng).toFixed(0)} ms), Map loop ${fmt(baselineRowsPerSec)} rows/s (median ${median(base).toFixed(0)} ms)`);
  console.log(`aggregate engine / Map loop = ${(ratio * 100).toFixed(1)}% (goal ≥ 40%: ${goalMet ? 'met' : 'NOT met'})`);
  return { baselineRowsPerSec, engineRowsPerSec, ratio, goalMet };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
