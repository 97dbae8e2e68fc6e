/**
 * State store benchmark, snapshots included: per-batch time with maintenance running as the
 * engine runs it (started after each commit, in the background, never awaited by a batch), the
 * restart time, and the heap per key against a plain Map.
 *
 * For each state size (10k and 1M keys) on the local-filesystem checkpoint (fsync on, as in
 * production): load the keys as version 1 and snapshot it, then run BATCHES batches that each
 * read and update UPDATED_PER_BATCH random keys (seeded) and commit, with a snapshot due every
 * 10 deltas. A batch's time runs from getStore to its commit returning; the event loop gaps
 * between batches stand in for the engine's own I/O, so a background snapshot gets its slices.
 * Then a fresh provider (a restarted process) loads the latest version: restart time. Heap per
 * key is measured with gc() around a fresh load, against a Map of the same keys to the decoded
 * values (what an operator would hold without a store); the time to build that Map is the
 * reference a restart is judged against on a loaded machine (a restart cannot beat it).
 *
 * Goals: batch time p99 <= 3x its median with 1M keys (a snapshot never stalls a batch); median
 * commit with 1M keys within 2x of 10k keys; restart with 1M keys <= 1 s on a quiet machine; heap
 * per key <= 2x the plain Map.
 *
 * The same batches then run on the LMDB provider with 1M keys (loaded as 10 versions of 100k
 * keys, its local environment in a directory of its own): `stateStore.lmdb.restartMs` is a fresh
 * provider on the same local directory (the same worker restarting: the environment is reused),
 * `stateStore.lmdb.rebuildMs` one on an empty local directory (another worker: snapshot plus
 * changelogs from the checkpoint), `stateStore.lmdb.batchP99OverMedian` the batches' spread with
 * its snapshots (read from an LMDB read transaction in slices) running beside them. Goals: restart
 * <= 200 ms, rebuild <= 3 s, p99 <= 3x the median. The heap store's figures are beside them under
 * `stateStore.hdfs`. `keysScanMs` (both stores, on the restarted 1M keys) is one pass over every
 * key, which watermark eviction makes whenever the watermark moves. With WEIR_BENCH_LMDB_10M=1 the LMDB store also loads 10M keys (in a process
 * of its own with a 512 MB heap) and reports its RSS and heap (`stateStore.lmdb.tenMillionKeys`).
 *
 * Run: npx tsx bench/state-store.bench.ts   (also run by `npm run bench`)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LocalCheckpointFileManager } from '../lib/engine/checkpoint/local-checkpoint-file-manager';
import { FileBackedStateStoreProvider } from '../lib/engine/state/file-backed-state-store-provider';
import { LmdbStateStoreProvider } from '../lib/engine/state/lmdb-state-store-provider';
import type { StateStore, StateStoreProvider } from '../lib/engine/state/state-store';
import { decodeValue, encodeKey, encodeValue } from '../lib/engine/state/state-value-codec';
import { mulberry32 } from '../lib/testing/mulberry32';

const BATCHES = 60;
const UPDATED_PER_BATCH = 1000;
const ID = { operatorId: 0, partitionId: 0 };

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const keyOf = (i: number) => encodeKey([`user-${i}`]);
const valueOf = (i: number) => ({ count: i % 100, sum: i * 1.5 });
const gap = () => new Promise((r) => setTimeout(r, 2));

function gcFunction(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
function heapUsed(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

export interface StateStoreBenchResult {
  keys: number;
  batchMedianMs: number;
  batchP99Ms: number;
  batchMaxMs: number;
  /** Batches that ran while a background snapshot was being encoded or written. */
  batchesDuringSnapshot: number;
  batchDuringSnapshotMedianMs: number;
  batchDuringSnapshotMaxMs: number;
  commitMedianMs: number;
  deltaBytes: number;
  snapshotsWritten: number;
  restartMs: number;
  heapBytesPerKey: number;
  memoryUsedBytesPerKey: number;
  plainMapBytesPerKey: number;
  /** Building that plain Map in the same run: the floor a restart into a Map cannot beat. */
  plainMapBuildMs: number;
  bytesOnDisk: number;
  /** One pass over every key of the restarted store: what watermark eviction does whenever the watermark moves. */
  keysScanMs: number;
}

/** One pass over every key (store.keys()), as watermark eviction makes; its time. */
function scanKeys(store: StateStore, keys: number): number {
  const t = performance.now();
  let n = 0;
  for (const k of store.keys()) if (k.length >= 0) n++;
  const ms = performance.now() - t;
  if (n !== keys) throw new Error(`the key scan saw ${n} keys, expected ${keys}`);
  return ms;
}

/** Heap of a plain Map of the same keys to the decoded values, measured in a frame of its own. */
function plainMap(keys: number, gc: () => void): { bytes: number; buildMs: number } {
  const base = heapUsed(gc);
  const t = performance.now();
  const plain = new Map<string, unknown>();
  for (let i = 0; i < keys; i++) plain.set(keyOf(i), decodeValue(encodeValue(valueOf(i))));
  const buildMs = performance.now() - t;
  const grown = heapUsed(gc) - base;
  if (plain.size !== keys) throw new Error('plain map lost keys');
  return { bytes: grown, buildMs };
}

/** A restart: a fresh provider loads `version`; its time, heap growth and memoryUsedBytes. */
async function restart(fm: LocalCheckpointFileManager, version: number, keys: number, gc: () => void) {
  const base = heapUsed(gc);
  const t = performance.now();
  const store = await new FileBackedStateStoreProvider(fm, ID).getStore(version);
  const restartMs = performance.now() - t;
  const heap = heapUsed(gc) - base;
  if (store.size !== keys) throw new Error(`restart loaded ${store.size} keys, expected ${keys}`);
  const memoryUsedBytes = store.metrics().memoryUsedBytes;
  const keysScanMs = scanKeys(store, keys);
  store.abort();
  return { restartMs, heap, memoryUsedBytes, keysScanMs };
}

async function runSize(keys: number): Promise<StateStoreBenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-bench-state-'));
  try {
    const fm = new LocalCheckpointFileManager(dir);
    const gc = gcFunction();
    const run = await runBatches(fm, keys);
    const r = await restart(fm, BATCHES + 1, keys, gc);
    const plain = plainMap(keys, gc);
    return {
      ...run,
      keys,
      restartMs: r.restartMs,
      heapBytesPerKey: r.heap / keys,
      memoryUsedBytesPerKey: r.memoryUsedBytes / keys,
      plainMapBytesPerKey: plain.bytes / keys,
      plainMapBuildMs: plain.buildMs,
      keysScanMs: r.keysScanMs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Versions the keys are loaded in: the heap store takes them in one, the LMDB store in slices of 100k (its batch's changes are held in the heap until commit). */
async function runBatches(fm: LocalCheckpointFileManager, keys: number, provider: StateStoreProvider = new FileBackedStateStoreProvider(fm, ID), loadVersions = 1) {
  {
    const rand = mulberry32(42);
    const perVersion = Math.ceil(keys / loadVersions);
    for (let v = 0; v < loadVersions; v++) {
      const s0 = await provider.getStore(v);
      for (let i = v * perVersion; i < Math.min(keys, (v + 1) * perVersion); i++) s0.put(keyOf(i), encodeValue(valueOf(i)));
      await s0.commit();
    }

    const batches: number[] = [];
    const commits: number[] = [];
    let deltaBytes = 0;
    let maintenance: Promise<void> = provider.maintenance();
    await maintenance; // version 1's snapshot, before the timed batches
    let snapshotting = false;
    const duringSnapshot: number[] = [];
    for (let b = loadVersions; b < loadVersions + BATCHES; b++) {
      const overlapped = snapshotting;
      const t0 = performance.now();
      const store = await provider.getStore(b);
      for (let u = 0; u < UPDATED_PER_BATCH; u++) {
        const k = keyOf(Math.floor(rand() * keys));
        store.get(k);
        store.put(k, encodeValue({ count: b, sum: b * 2.5 + u }));
      }
      const t1 = performance.now();
      await store.commit();
      const t2 = performance.now();
      batches.push(t2 - t0);
      if (overlapped) duringSnapshot.push(t2 - t0);
      commits.push(t2 - t1);
      deltaBytes = store.metrics().deltaBytes;
      // After every commit (the engine waits a maintenanceInterval between rounds; every batch is
      // the case that costs most): started, never awaited by the next batch.
      maintenance = provider.maintenance();
      // A round that writes a snapshot runs on across the next batches; one that does not ends
      // within the gap, so the next batch counts as overlapping a snapshot only when one was running.
      snapshotting = true;
      void maintenance.finally(() => (snapshotting = false));
      await gap();
    }
    await maintenance;
    const latest = loadVersions + BATCHES;
    const finalMetrics = (await provider.getStore(latest)).metrics();
    await provider.close();
    const snapshotsWritten = (await fm.list('state/0/0')).filter((n) => n.endsWith('.snapshot')).length;
    return {
      batchMedianMs: quantile(batches, 0.5),
      batchP99Ms: quantile(batches, 0.99),
      batchMaxMs: Math.max(...batches),
      batchesDuringSnapshot: duringSnapshot.length,
      batchDuringSnapshotMedianMs: duringSnapshot.length ? quantile(duringSnapshot, 0.5) : 0,
      batchDuringSnapshotMaxMs: duringSnapshot.length ? Math.max(...duringSnapshot) : 0,
      commitMedianMs: quantile(commits, 0.5),
      deltaBytes,
      snapshotsWritten,
      bytesOnDisk: finalMetrics.bytesOnDisk,
    };
  }
}

/** The LMDB provider with `keys` keys: batches, then a restart on the same local directory and a rebuild on an empty one. */
async function runLmdb(keys: number) {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-bench-lmdb-'));
  try {
    const fm = new LocalCheckpointFileManager(dir);
    const gc = gcFunction();
    const local = (name: string) => ({ localDir: path.join(dir, name) });
    const loadVersions = Math.max(1, Math.ceil(keys / 100_000));
    const run = await runBatches(fm, keys, new LmdbStateStoreProvider(fm, ID, {}, local('worker-a')), loadVersions);
    const latest = loadVersions + BATCHES;
    const open = async (name: string) => {
      const base = heapUsed(gc);
      const provider = new LmdbStateStoreProvider(fm, ID, {}, local(name));
      const t = performance.now();
      const store = await provider.getStore(latest);
      const ms = performance.now() - t;
      const heap = heapUsed(gc) - base;
      if (store.size !== keys) throw new Error(`loaded ${store.size} keys, expected ${keys}`);
      const m = store.metrics();
      const keysScanMs = scanKeys(store, keys);
      store.abort();
      await provider.close();
      return { ms, heap, rebuilt: m.customMetrics?.lmdbRebuiltFromCheckpoint ?? -1, localBytes: m.customMetrics?.lmdbLocalBytes ?? 0, keysScanMs };
    };
    const restart = await open('worker-a');
    const rebuild = await open('worker-b');
    if (restart.rebuilt !== 0 || rebuild.rebuilt !== 1) throw new Error(`restart rebuilt=${restart.rebuilt}, rebuild rebuilt=${rebuild.rebuilt}`);
    return {
      ...run,
      keys,
      restartMs: restart.ms,
      rebuildMs: rebuild.ms,
      heapBytesPerKeyAfterRestart: restart.heap / keys,
      localBytes: restart.localBytes,
      keysScanMs: restart.keysScanMs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * 10M keys in the LMDB store, in a process of its own whose heap is a run's default (512 MB, as
 * WEIR_RUN_MEMORY_MB gives the engine process): loaded as 40 versions of 250k keys, a snapshot
 * of all 10M (in the worker thread), 20 batches of 1k updates, then a restart on the same local
 * directory. Prints its figures as one JSON line.
 */
async function tenMillionChild(): Promise<void> {
  const keys = 10_000_000;
  const versions = 40;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-bench-lmdb10m-'));
  try {
    const fm = new LocalCheckpointFileManager(dir);
    const gc = gcFunction();
    const conf = { minDeltasForSnapshot: versions };
    const provider = new LmdbStateStoreProvider(fm, ID, conf, { localDir: path.join(dir, 'local') });
    const t0 = performance.now();
    let peakRss = 0;
    for (let v = 0; v < versions; v++) {
      const s = await provider.getStore(v);
      for (let i = v * (keys / versions); i < (v + 1) * (keys / versions); i++) s.put(keyOf(i), encodeValue(valueOf(i)));
      await s.commit();
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }
    const loadMs = performance.now() - t0;
    const t1 = performance.now();
    await provider.maintenance();
    const snapshotMs = performance.now() - t1;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const rand = mulberry32(7);
    const batches: number[] = [];
    for (let b = versions; b < versions + 20; b++) {
      const t = performance.now();
      const s = await provider.getStore(b);
      for (let u = 0; u < UPDATED_PER_BATCH; u++) {
        const k = keyOf(Math.floor(rand() * keys));
        s.get(k);
        s.put(k, encodeValue({ count: b, sum: u }));
      }
      await s.commit();
      batches.push(performance.now() - t);
    }
    await provider.close();
    const t2 = performance.now();
    const again = await new LmdbStateStoreProvider(fm, ID, conf, { localDir: path.join(dir, 'local') }).getStore(versions + 20);
    const restartMs = performance.now() - t2;
    if (again.size !== keys) throw new Error(`restart loaded ${again.size} keys`);
    const heapMB = heapUsed(gc) / 2 ** 20;
    const rssMB = process.memoryUsage().rss / 2 ** 20;
    console.log(JSON.stringify({ keys, rssMB, peakRssMB: peakRss / 2 ** 20, heapMB, loadMs, snapshotMs, batchMedianMs: quantile(batches, 0.5), restartMs }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs tenMillionChild in a node with a 512 MB heap and the same loader (tsx) as this one. */
async function tenMillionKeys(): Promise<Record<string, number>> {
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const out = execFileSync(process.execPath, ['--max-old-space-size=512', '--import', 'tsx', fileURLToPath(import.meta.url), '--lmdb-10m-child'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
}

export async function main() {
  const small = await runSize(10_000);
  const large = await runSize(1_000_000);
  const lmdb = await runLmdb(1_000_000);
  // Opt-in: minutes of a loaded 2-core machine and a few GB of temp disk.
  const tenMillion = process.env.WEIR_BENCH_LMDB_10M === '1' ? await tenMillionKeys() : null;
  if (tenMillion) console.log(`state-store lmdb 10M keys in a 512 MB heap: ${JSON.stringify(tenMillion)}`);
  console.log(
    `state-store lmdb ${lmdb.keys.toLocaleString('en')} keys, ${UPDATED_PER_BATCH} updated/batch, ${BATCHES} batches (${lmdb.snapshotsWritten} snapshots kept): ` +
      `batch median ${lmdb.batchMedianMs.toFixed(1)} ms, p99 ${lmdb.batchP99Ms.toFixed(1)} ms, max ${lmdb.batchMaxMs.toFixed(1)} ms (${lmdb.batchesDuringSnapshot} beside a snapshot: median ${lmdb.batchDuringSnapshotMedianMs.toFixed(1)}, max ${lmdb.batchDuringSnapshotMaxMs.toFixed(1)} ms); commit median ${lmdb.commitMedianMs.toFixed(2)} ms (changelog ${lmdb.deltaBytes} B); ` +
      `restart (same local dir) ${lmdb.restartMs.toFixed(0)} ms, a scan of every key (watermark eviction) ${lmdb.keysScanMs.toFixed(0)} ms, rebuild (empty local dir) ${lmdb.rebuildMs.toFixed(0)} ms; heap after restart ${lmdb.heapBytesPerKeyAfterRestart.toFixed(1)} B/key; local LMDB ${mb(lmdb.localBytes)}; checkpoint ${mb(lmdb.bytesOnDisk)}`,
  );
  const loadAvg1m = os.loadavg()[0];
  for (const r of [small, large]) {
    console.log(
      `state-store ${r.keys.toLocaleString('en')} keys, ${UPDATED_PER_BATCH} updated/batch, ${BATCHES} batches (${r.snapshotsWritten} snapshots kept): ` +
        `batch median ${r.batchMedianMs.toFixed(1)} ms, p99 ${r.batchP99Ms.toFixed(1)} ms, max ${r.batchMaxMs.toFixed(1)} ms (${r.batchesDuringSnapshot} beside a snapshot: median ${r.batchDuringSnapshotMedianMs.toFixed(1)}, max ${r.batchDuringSnapshotMaxMs.toFixed(1)} ms); commit median ${r.commitMedianMs.toFixed(2)} ms (delta ${r.deltaBytes} B); ` +
        `restart ${r.restartMs.toFixed(0)} ms, a scan of every key ${r.keysScanMs.toFixed(0)} ms (building a plain Map of the keys: ${r.plainMapBuildMs.toFixed(0)} ms); heap ${r.heapBytesPerKey.toFixed(0)} B/key (memoryUsedBytes ${r.memoryUsedBytesPerKey.toFixed(0)}, plain Map ${r.plainMapBytesPerKey.toFixed(0)}); on disk ${mb(r.bytesOnDisk)}`,
    );
  }
  const commitRatio = large.commitMedianMs / small.commitMedianMs;
  const batchP99OverMedian = large.batchP99Ms / large.batchMedianMs;
  const heapVsMap = large.heapBytesPerKey / large.plainMapBytesPerKey;
  const memoryEstimateError = Math.abs(large.memoryUsedBytesPerKey - large.heapBytesPerKey) / large.heapBytesPerKey;
  const result = {
    small,
    large,
    loadAvg1m,
    ratio: commitRatio,
    goalMet: commitRatio <= 2,
    batchP99OverMedian,
    batchP99GoalMet: batchP99OverMedian <= 3,
    restartGoalMet: large.restartMs <= 1000,
    restartVsPlainMapBuild: large.restartMs / large.plainMapBuildMs,
    heapVsMap,
    heapGoalMet: heapVsMap <= 2,
    memoryEstimateError,
    memoryEstimateGoalMet: memoryEstimateError <= 0.25,
    lmdbLarge: lmdb,
    stateStore: {
      hdfs: { restartMs: large.restartMs, batchP99OverMedian, batchMedianMs: large.batchMedianMs, heapBytesPerKey: large.heapBytesPerKey, keysScanMs: large.keysScanMs },
      lmdb: {
        restartMs: lmdb.restartMs,
        restartGoalMet: lmdb.restartMs <= 200,
        rebuildMs: lmdb.rebuildMs,
        rebuildGoalMet: lmdb.rebuildMs <= 3000,
        batchP99OverMedian: lmdb.batchP99Ms / lmdb.batchMedianMs,
        batchP99GoalMet: lmdb.batchP99Ms / lmdb.batchMedianMs <= 3,
        batchMedianMs: lmdb.batchMedianMs,
        heapBytesPerKeyAfterRestart: lmdb.heapBytesPerKeyAfterRestart,
        keysScanMs: lmdb.keysScanMs,
        ...(tenMillion ? { tenMillionKeys: { ...tenMillion, heapGoalMet: tenMillion.heapMB < 256 } } : {}),
      },
    },
  };
  console.log(
    `state-store 1M keys: batch p99/median ${batchP99OverMedian.toFixed(2)}x (goal <= 3x), commit 1M/10k ${commitRatio.toFixed(2)}x (goal <= 2x), ` +
      `restart ${large.restartMs.toFixed(0)} ms (goal <= 1000 quiet), heap/Map ${heapVsMap.toFixed(2)}x (goal <= 2x), memoryUsedBytes off by ${(memoryEstimateError * 100).toFixed(0)}% (goal <= 25%); ` +
      `load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  );
  return result;
}

if (process.argv.includes('--lmdb-10m-child')) {
  await tenMillionChild();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
