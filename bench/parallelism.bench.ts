/**
 * What a job's parallelism costs in one process: the whole MicroBatchExecution path (memory
 * source → `SELECT key, count(*) AS n FROM events GROUP BY key` → memory sink, update mode,
 * state on a local-disk checkpoint) with the state in 1, 2 and 4 partitions. With N > 1 each
 * batch shuffles its rows by the key's hash and runs one reduce task per partition
 * (LocalTaskScheduler, one after the other), each committing its own store delta: the overhead
 * is the shuffle, the per-task setup and N - 1 more store commits per batch, with nothing run in
 * parallel yet.
 *
 * 500k rows in 10 batches of 50k, 10k distinct keys (every batch touches every group). Each
 * parallelism runs ROUNDS times after a warm-up round, interleaved (each round in the other order
 * than the last); the median is reported, in
 * rows per CPU-second of this process (user + system, as the machine is shared). Each run's
 * answer is checked (every group, every row counted).
 * Goal: parallelism 2 at ≥ 80% of parallelism 1's rows per CPU-second.
 *
 * Run: npx tsx bench/parallelism.bench.ts   (also run by `npm run bench -- parallelism`)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SystemClock } from '../lib/engine/clock';
import { MicroBatchExecution } from '../lib/engine/execution/micro-batch-execution';
import { MemorySinkTable } from '../lib/engine/sinks/memory-sink';
import { MemoryStream } from '../lib/engine/sources/memory-source';
import { parseJobSpec } from '../lib/engine/spec/job-spec';
import '../lib/engine/index';
import { mulberry32 } from '../lib/testing/mulberry32';
import type { Row } from '../lib/engine/types';

const ROWS = 500_000;
const BATCHES = 10;
const KEYS = 10_000;
const ROUNDS = 5;
const PARALLELISMS = [1, 2, 4] as const;

function rows(): Row[] {
  const rnd = mulberry32(12345);
  return Array.from({ length: ROWS }, (_, i) => ({ key: `k${Math.floor(rnd() * KEYS)}`, amount: i % 100 }));
}

function cpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

let runs = 0;

/** CPU milliseconds of the batches (the rows' arrival in the source not counted). */
async function engine(data: Row[], parallelism: number): Promise<number> {
  const name = `parallelism-bench-${process.pid}-${runs++}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-bench-parallelism-'));
  try {
    const parsed = parseJobSpec({
      name,
      source: { name: 'events', type: 'memory', options: { stream: name }, schema: [{ name: 'key', type: 'string' }, { name: 'amount', type: 'long' }] },
      sql: 'SELECT key, count(*) AS n FROM events GROUP BY key',
      sink: { type: 'memory', options: { table: name } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: dir,
      parallelism,
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const stream = MemoryStream.named(name);
    const q = new MicroBatchExecution({ spec: parsed.spec, clock: new SystemClock() });
    await q.start();
    const per = ROWS / BATCHES;
    let ms = 0;
    for (let b = 0; b < BATCHES; b++) {
      stream.addRows(data.slice(b * per, (b + 1) * per));
      const t0 = cpuMs();
      await q.processAllAvailable();
      ms += cpuMs() - t0;
    }
    const last = new Map<unknown, number>();
    for (const r of MemorySinkTable.named(name).rows) last.set(r.key, r.n as number);
    const counted = [...last.values()].reduce((n, c) => n + c, 0);
    if (last.size !== KEYS || counted !== ROWS || q.lastProgress!.stateOperators[0].numRowsTotal !== KEYS) {
      throw new Error(`wrong result with parallelism ${parallelism}: ${last.size} groups, ${counted} rows counted`);
    }
    await q.stop();
    MemoryStream.drop(name);
    MemorySinkTable.drop(name);
    return ms;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function main(): Promise<{ rowsPerCpuSecond: Record<string, number>; p2VsP1: number; p4VsP1: number; goalMet: boolean }> {
  const data = rows();
  for (const p of PARALLELISMS) await engine(data, p);
  const ms = new Map<number, number[]>(PARALLELISMS.map((p) => [p, []]));
  // Each round in the other order than the last, so that a drift (JIT, the machine's load) does not favour one.
  for (let r = 0; r < ROUNDS; r++) for (const p of r % 2 ? [...PARALLELISMS].reverse() : PARALLELISMS) ms.get(p)!.push(await engine(data, p));
  const rps = Object.fromEntries(PARALLELISMS.map((p) => [`parallelism${p}`, Math.round(ROWS / (median(ms.get(p)!) / 1000))]));
  const p2VsP1 = rps.parallelism2 / rps.parallelism1;
  const p4VsP1 = rps.parallelism4 / rps.parallelism1;
  console.log(`aggregate count(*) by key, ${ROWS.toLocaleString('en')} rows in ${BATCHES} batches, ${KEYS.toLocaleString('en')} keys (median of ${ROUNDS}, rows per CPU-s):`);
  for (const p of PARALLELISMS) console.log(`  parallelism ${p}: ${rps[`parallelism${p}`].toLocaleString('en')} (median ${median(ms.get(p)!).toFixed(0)} CPU-ms; rounds ${ms.get(p)!.map((x) => x.toFixed(0)).join(', ')})`);
  const goalMet = p2VsP1 >= 0.8;
  console.log(`goal: parallelism 2 at ≥ 80% of parallelism 1: ${goalMet ? 'met' : 'NOT met'} (${(p2VsP1 * 100).toFixed(1)}%; parallelism 4 ${(p4VsP1 * 100).toFixed(1)}%)`);
  return { rowsPerCpuSecond: rps, p2VsP1, p4VsP1, goalMet };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
