/**
 * State store benchmark: does the per-batch commit cost follow the changed keys or the
 * total state size? And how long does a restart with 1M keys in state take?
 *
 * For each state size (10k and 1M keys) on the local-filesystem checkpoint (fsync on, as in
 * production): load the keys as version 1, then run BATCHES batches that each update 1k random
 * keys (seeded) and commit; maintenance (snapshot every 10 deltas, retention) runs after each
 * commit, off the commit path as Spark's maintenance task is, and is reported separately.
 * Then a fresh provider (a restarted process) loads the latest version: restart time.
 *
 * Goal: median commit with 1M keys within 2x of the median with 10k keys.
 *
 * Run: npx tsx bench/state-store.bench.ts   (also run by `npm run bench`)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalCheckpointFileManager } from '../lib/engine/checkpoint/local-checkpoint-file-manager';
import { FileBackedStateStoreProvider } from '../lib/engine/state/file-backed-state-store-provider';
import { encodeKey, encodeValue } from '../lib/engine/state/state-value-codec';

const BATCHES = 30;
const UPDATED_PER_BATCH = 1000;
const ID = { operatorId: 0, partitionId: 0 };

function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

export interface StateStoreBenchResult {
  keys: number;
  commitMedianMs: number;
  commitP90Ms: number;
  deltaBytes: number;
  maintenanceTotalMs: number;
  snapshotsWritten: number;
  restartMs: number;
  memoryUsedBytes: number;
  bytesOnDisk: number;
}

async function runSize(keys: number): Promise<StateStoreBenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-bench-state-'));
  try {
    const fm = new LocalCheckpointFileManager(dir);
    const provider = new FileBackedStateStoreProvider(fm, ID);
    const rand = mulberry32(42);
    const keyOf = (i: number) => encodeKey([`user-${i}`]);
    const s0 = await provider.getStore(0);
    for (let i = 0; i < keys; i++) s0.put(keyOf(i), encodeValue({ count: i % 100, sum: i * 1.5 }));
    await s0.commit();
    await provider.maintenance();

    const commits: number[] = [];
    let maintenanceTotalMs = 0, deltaBytes = 0;
    for (let b = 1; b <= BATCHES; b++) {
      const store = await provider.getStore(b);
      for (let u = 0; u < UPDATED_PER_BATCH; u++) {
        const k = keyOf(Math.floor(rand() * keys));
        store.get(k);
        store.put(k, encodeValue({ count: b, sum: b * 2.5 + u }));
      }
      const t0 = performance.now();
      await store.commit();
      commits.push(performance.now() - t0);
      deltaBytes = store.metrics().deltaBytes;
      const t1 = performance.now();
      await provider.maintenance();
      maintenanceTotalMs += performance.now() - t1;
    }
    const latest = BATCHES + 1;
    const finalMetrics = (await provider.getStore(latest)).metrics();
    const snapshotsWritten = (await fm.list('state/0/0')).filter((n) => n.endsWith('.snapshot')).length;

    const t2 = performance.now();
    const restarted = await new FileBackedStateStoreProvider(fm, ID).getStore(latest);
    const restartMs = performance.now() - t2;
    if (restarted.size !== keys) throw new Error(`restart loaded ${restarted.size} keys, expected ${keys}`);
    const sorted = [...commits].sort((a, b) => a - b);
    return {
      keys,
      commitMedianMs: median(commits),
      commitP90Ms: sorted[Math.floor(sorted.length * 0.9)],
      deltaBytes,
      maintenanceTotalMs,
      snapshotsWritten,
      restartMs,
      memoryUsedBytes: finalMetrics.memoryUsedBytes,
      bytesOnDisk: finalMetrics.bytesOnDisk,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<{ small: StateStoreBenchResult; large: StateStoreBenchResult; ratio: number; goalMet: boolean }> {
  const small = await runSize(10_000);
  const large = await runSize(1_000_000);
  const ratio = large.commitMedianMs / small.commitMedianMs;
  for (const r of [small, large]) {
    console.log(
      `state-store ${r.keys.toLocaleString('en')} keys, ${UPDATED_PER_BATCH} updated/batch: commit median ${r.commitMedianMs.toFixed(2)} ms ` +
        `(p90 ${r.commitP90Ms.toFixed(2)} ms, delta ${r.deltaBytes} B); maintenance ${r.maintenanceTotalMs.toFixed(0)} ms over ${BATCHES} batches ` +
        `(${r.snapshotsWritten} snapshots); restart ${r.restartMs.toFixed(0)} ms; memory ${mb(r.memoryUsedBytes)}, on disk ${mb(r.bytesOnDisk)}`,
    );
  }
  const goalMet = ratio <= 2;
  console.log(`state-store commit cost 1M keys / 10k keys = ${ratio.toFixed(2)}x (goal ≤ 2x: ${goalMet ? 'met' : 'NOT met'})`);
  return { small, large, ratio, goalMet };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
