/**
 * One query across workers (WEIR_TASK_SCHEDULER=cluster): a YSB-shaped job (ad events in JSON
 * files, filtered to views, counted per campaign in 10-second event-time windows, update mode) at
 * parallelism 2 with its map tasks (one per file, two files a batch) and reduce tasks on two worker
 * processes, against parallelism 1 run in one process, in the same run. The driver here is this
 * process (MicroBatchExecution with ClusterTaskScheduler and the TaskDispatcher over Redis, as a
 * worker's run has them); the two workers are task-worker processes (worker/task-worker.ts) over
 * the same Redis queue and local checkpoint.
 *
 * count(*) merges exactly, so the map tasks aggregate their files before the shuffle (Spark's
 * partial aggregation) and ship one buffer per campaign and window, not the views.
 *
 * Measured: wall-clock time of the batches (the rows' arrival in the source not counted), median
 * of ROUNDS, interleaved; speedup2 = parallelism 1's time / parallelism 2's. And the shuffle's bytes
 * per event (the map tasks' output blocks, the reduce tasks' input and output blocks, over the
 * events read).
 * Goal: speedup2 >= 1.7 on a 2-core machine.
 *
 * The sweep beside it: the same job over the same SWEEP_EVENTS events cut into batches of
 * 50,000, 200,000 and 400,000 events (two files each), speedup2 per batch size. A batch's fixed
 * costs (planning, two queue round trips, block I/O) are paid once a batch whatever its size, so
 * the speedup climbs with the map work a batch gives each worker (docs/engine.md, the curve).
 *
 * Run: npm run bench -- parallel   (needs Redis on 127.0.0.1:6379; uses its db 13)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { checkpointFileManagerFor } from '../lib/engine/checkpoint/checkpoint-location';
import { SystemClock } from '../lib/engine/clock';
import { MicroBatchExecution } from '../lib/engine/execution/micro-batch-execution';
import { MemorySinkTable } from '../lib/engine/sinks/memory-sink';
import { parseJobSpec } from '../lib/engine/spec/job-spec';
import '../lib/engine/index';
import { mulberry32 } from '../lib/testing/mulberry32';
import { simulateBatch, type MeasuredCosts } from './scaling-model';
import type { Row } from '../lib/engine/types';
import { queueConfigFrom } from '../lib/queue/connection';
import { ClusterTaskScheduler } from '../worker/cluster-task-scheduler';
import { TaskDispatcher } from '../worker/task-dispatcher';

const EVENTS = 400_000;
const BATCHES = 8;
/** The sweep's events, cut into batches of each SWEEP_BATCH_EVENTS. */
const SWEEP_EVENTS = 800_000;
const SWEEP_BATCH_EVENTS = [50_000, 200_000, 400_000];
const CAMPAIGNS = 100;
/** Files a batch: one map task each. */
const FILES_PER_BATCH = 2;
const ROUNDS = 3;
const REDIS_URL = 'redis://127.0.0.1:6379/13';
const ROOT = path.resolve(import.meta.dirname, '..');

function events(n: number): Row[] {
  const rnd = mulberry32(2026);
  const types = ['view', 'click', 'purchase'];
  const t0 = Date.UTC(2026, 0, 1);
  return Array.from({ length: n }, (_, i) => ({
    user_id: `u${Math.floor(rnd() * 100_000)}`,
    ad_id: `ad-${Math.floor(rnd() * CAMPAIGNS * 10)}`,
    campaign_id: `c${Math.floor(rnd() * CAMPAIGNS)}`,
    event_type: types[Math.floor(rnd() * 3)],
    event_time: new Date(t0 + Math.floor((i / n) * 600_000)),
  }));
}

/** A worker's executor alone (no database needed): worker/task-worker.ts over the bench's Redis. */
function spawnTaskWorker(dataDir: string): Promise<ChildProcess> {
  const script = `
    import pino from 'pino';
    import { startTaskWorker } from '${path.join(ROOT, 'worker/task-worker.ts')}';
    await startTaskWorker({
      config: { REDIS_URL: '${REDIS_URL}', dataDir: '${dataDir}', WEIR_FAILOVER_MS: 15000, WEIR_TASK_CONCURRENCY: 1, WEIR_TEST_TASK_DELAY_MS: 0 },
      workerId: 'bench-' + process.pid,
      log: pino({ level: 'warn' }),
      // No database here: the bench's "job id" is its input folder (see engine()).
      sourceOptions: async (jobId) => [{ path: jobId, format: 'json', maxFilesPerTrigger: ${FILES_PER_BATCH} }],
    });
    console.log('ready');`;
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`task worker exited (${code})`)));
  });
}

let runs = 0;

/** Per-task costs of the last parallelism-2 run, for the scaling model (docs/engine.md). */
const costs = { mapDispatchMs: 0, reduceDispatchMs: 0, taskMs: 0, tasks: 0, mapTaskMs: 0, mapTasks: 0, movedTasks: 0 };

/** Runs the job over all of `data` in `batches` batches of FILES_PER_BATCH files each. */
async function engine(data: Row[], batches: number, parallelism: number, dispatcher?: TaskDispatcher): Promise<{ ms: number; shuffleBytes: number }> {
  const name = `parallel-bench-${process.pid}-${runs++}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-bench-parallel-'));
  const input = path.join(dir, 'in');
  await mkdir(input);
  try {
    const parsed = parseJobSpec({
      name,
      source: {
        name: 'events', type: 'files', options: { path: input, format: 'json', maxFilesPerTrigger: FILES_PER_BATCH },
        schema: [{ name: 'user_id', type: 'string' }, { name: 'ad_id', type: 'string' }, { name: 'campaign_id', type: 'string' }, { name: 'event_type', type: 'string' }, { name: 'event_time', type: 'timestamp' }],
        eventTime: 'event_time', watermarkDelay: '10 seconds',
      },
      sql: "SELECT campaign_id, window(event_time, '10 seconds') AS w, count(*) AS views FROM events WHERE event_type = 'view' GROUP BY campaign_id, window(event_time, '10 seconds')",
      sink: { type: 'memory', options: { table: name } },
      outputMode: 'update',
      trigger: { type: 'available-now' },
      checkpointLocation: path.join(dir, 'checkpoint'),
      parallelism,
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const spec = parsed.spec;
    const scheduler = dispatcher && new ClusterTaskScheduler({
      spec, checkpoint: checkpointFileManagerFor(spec.checkpointLocation), queryId: () => q.id,
      submit: async (p) => {
        const t0 = performance.now();
        // The workers' sourceOptions take the job id as the input folder.
        const out = await dispatcher.dispatch(p.map((t) => ({ ...t, jobId: input })));
        costs[p[0]?.kind === 'map' ? 'mapDispatchMs' : 'reduceDispatchMs'] += performance.now() - t0;
        return out;
      },
    });
    const q: MicroBatchExecution = new MicroBatchExecution({ spec, clock: new SystemClock(), taskScheduler: scheduler });
    await q.start();
    const per = data.length / batches;
    let ms = 0;
    const perFile = per / FILES_PER_BATCH;
    for (let b = 0; b < batches; b++) {
      for (let f = 0; f < FILES_PER_BATCH; f++) {
        const from = b * per + f * perFile;
        const file = `part-${String(b * FILES_PER_BATCH + f).padStart(5, '0')}.json`;
        await writeFile(path.join(input, `.${file}`), data.slice(from, from + perFile).map((r) => JSON.stringify(r)).join('\n') + '\n');
        await rename(path.join(input, `.${file}`), path.join(input, file));
      }
      const t0 = performance.now();
      await q.processAllAvailable();
      ms += performance.now() - t0;
    }
    const last = new Map<string, number>();
    for (const r of MemorySinkTable.named(name).rows) last.set(`${String(r.campaign_id)}|${JSON.stringify(r.w)}`, r.views as number);
    const counted = [...last.values()].reduce((n, c) => n + c, 0);
    const views = data.filter((r) => r.event_type === 'view').length;
    if (counted !== views) throw new Error(`wrong result with parallelism ${parallelism}: ${counted} views counted of ${views}`);
    await q.stop();
    MemorySinkTable.drop(name);
    const tasks = scheduler?.takeTasks() ?? [];
    // The worker each state partition's last reduce task ran on: a task that runs elsewhere
    // reopens the partition there (the query compiled again, its state loaded from the checkpoint).
    const lastWorker = new Map<string, string>();
    for (const t of tasks) {
      if (t.kind === 'map') {
        costs.mapTaskMs += t.durationMs;
        costs.mapTasks++;
      } else {
        costs.taskMs += t.durationMs;
        costs.tasks++;
        const key = `${t.stageId}/${t.partitionId}`;
        const last = lastWorker.get(key);
        if (last !== undefined && last !== t.workerId) costs.movedTasks++;
        lastWorker.set(key, t.workerId);
      }
    }
    const shuffleBytes = tasks.reduce((n, t) => n + t.shuffleBytes, 0);
    return { ms, shuffleBytes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** ROUNDS of parallelism 1 and 2 over `data`, interleaved (which goes first alternates). */
async function rounds(data: Row[], batches: number, dispatcher: TaskDispatcher, onRound?: (p: number) => void) {
  const p1: number[] = [];
  const p2: number[] = [];
  let bytes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [2, 1] : [1, 2];
    for (const p of order) {
      onRound?.(p);
      const res = await engine(data, batches, p, p === 2 ? dispatcher : undefined);
      (p === 1 ? p1 : p2).push(res.ms);
      if (p === 2) bytes = res.shuffleBytes;
    }
  }
  return { p1, p2, p1Ms: median(p1), p2Ms: median(p2), bytes };
}

export async function main(): Promise<Record<string, number | boolean | Record<string, number | Record<string, number>>>> {
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'weir-bench-parallel-workers-'));
  const workers = await Promise.all([spawnTaskWorker(dataDir), spawnTaskWorker(dataDir)]);
  const dispatcher = new TaskDispatcher(queueConfigFrom({ REDIS_URL }));
  try {
    const data = events(EVENTS);
    await engine(data, BATCHES, 1);
    await engine(data, BATCHES, 2, dispatcher);
    const { p1, p2, p1Ms, p2Ms, bytes } = await rounds(data, BATCHES, dispatcher, (p) => {
      if (p === 2) Object.assign(costs, { mapDispatchMs: 0, reduceDispatchMs: 0, taskMs: 0, tasks: 0, mapTaskMs: 0, mapTasks: 0, movedTasks: 0 });
    });
    const speedup2 = p1Ms / p2Ms;
    const shuffleBytesPerEvent = bytes / EVENTS;
    console.log(`YSB-shaped, ${EVENTS.toLocaleString('en')} events in ${BATCHES} batches, ${CAMPAIGNS} campaigns (median of ${ROUNDS}, wall-clock):`);
    console.log(`  parallelism 1, one process: ${p1Ms.toFixed(0)} ms (rounds ${p1.map((x) => x.toFixed(0)).join(', ')})`);
    console.log(`  parallelism 2, two workers: ${p2Ms.toFixed(0)} ms (rounds ${p2.map((x) => x.toFixed(0)).join(', ')}); shuffle ${shuffleBytesPerEvent.toFixed(1)} bytes/event`);
    const mapStageMs = costs.mapDispatchMs / BATCHES;
    const reduceStageMs = costs.reduceDispatchMs / BATCHES;
    const stageMs = mapStageMs + reduceStageMs;
    const taskMs = costs.taskMs / costs.tasks;
    const mapTaskMs = costs.mapTaskMs / costs.mapTasks;
    // The driver's own time: the last round's batch less its stages' round trips.
    const driverMs = p2.at(-1)! / BATCHES - stageMs;
    console.log(
      `  per batch at parallelism 2 (last round): driver ${driverMs.toFixed(1)} ms, map tasks' round trip ${mapStageMs.toFixed(1)} ms (a map task ${mapTaskMs.toFixed(1)} ms on its worker), ` +
        `reduce tasks' round trip ${reduceStageMs.toFixed(1)} ms (a reduce task ${taskMs.toFixed(1)} ms; ${costs.movedTasks} of ${costs.tasks} ran on another worker than their partition's last task and reopened it)`,
    );
    const goalMet = speedup2 >= 1.7;
    console.log(`goal: speedup2 >= 1.7: ${goalMet ? 'met' : 'NOT met'} (${speedup2.toFixed(2)})`);
    // The scaling model (scaling-model.ts) fed with this run's costs: W workers, a core each, a
    // split and a state partition per worker; a batch of the headline's size, and one that grows
    // with the workers (a topic with a partition per worker, each as busy as a file here).
    const perMapTask = EVENTS / BATCHES / FILES_PER_BATCH;
    const measured: MeasuredCosts = {
      driverMs,
      mapTaskMsPerEvent: mapTaskMs / perMapTask,
      mapStageLatencyMs: Math.max(0, mapStageMs - mapTaskMs),
      reduceTaskMs: taskMs,
      reduceStageLatencyMs: Math.max(0, reduceStageMs - taskMs),
      localMsPerEvent: p1Ms / EVENTS,
    };
    const simulated: Record<string, number> = {};
    console.log('scaling model from these costs (a core per worker), speedup over parallelism 1 in one process:');
    for (const w of [1, 2, 4, 8, 16]) {
      const fixed = simulateBatch(measured, { workers: w, eventsPerBatch: EVENTS / BATCHES });
      const grown = simulateBatch(measured, { workers: w, eventsPerBatch: w * perMapTask });
      simulated[`fixed${w}`] = fixed.speedup;
      simulated[`grown${w}`] = grown.speedup;
      console.log(
        `  ${String(w).padStart(2)} workers: ${(EVENTS / BATCHES).toLocaleString('en')} events a batch ${fixed.batchMs.toFixed(0)} ms (${fixed.speedup.toFixed(2)}x); ` +
          `${grown.eventsPerBatch.toLocaleString('en')} events a batch ${grown.batchMs.toFixed(0)} ms (${grown.speedup.toFixed(2)}x, ${Math.round(grown.eventsPerSecond).toLocaleString('en')} events/s)`,
      );
    }
    const sweep: Record<string, { p1Ms: number; p2Ms: number; speedup2: number }> = {};
    const sweepData = events(SWEEP_EVENTS);
    console.log(`sweep over batch size, ${SWEEP_EVENTS.toLocaleString('en')} events (median of ${ROUNDS}, wall-clock):`);
    for (const perBatch of SWEEP_BATCH_EVENTS) {
      const r = await rounds(sweepData, SWEEP_EVENTS / perBatch, dispatcher);
      sweep[`batch${perBatch}`] = { p1Ms: r.p1Ms, p2Ms: r.p2Ms, speedup2: r.p1Ms / r.p2Ms };
      console.log(`  ${perBatch.toLocaleString('en')} events a batch: parallelism 1 ${r.p1Ms.toFixed(0)} ms (rounds ${r.p1.map((x) => x.toFixed(0)).join(', ')}), parallelism 2 ${r.p2Ms.toFixed(0)} ms (rounds ${r.p2.map((x) => x.toFixed(0)).join(', ')}): speedup2 ${(r.p1Ms / r.p2Ms).toFixed(2)}`);
    }
    return { speedup2, shuffleBytesPerEvent, p1Ms, p2Ms, driverMsPerBatch: driverMs, mapDispatchMsPerBatch: mapStageMs, reduceDispatchMsPerBatch: reduceStageMs, mapTaskMs, taskMs, movedReduceTasks: costs.movedTasks, goalMet, sweep, simulated };
  } finally {
    await dispatcher.close();
    for (const w of workers) w.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(() => process.exit(0), (e) => {
    console.error(e);
    process.exit(1);
  });
}
