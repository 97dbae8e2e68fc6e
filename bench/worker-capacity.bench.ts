/**
 * How many jobs with a 1-second trigger one worker process runs before batches fall behind.
 *
 * One real worker (spawned as `npm run worker` runs it) on a fresh database; N jobs, each a rate
 * source (10 rows/s) → filter + projection → files sink, checkpointed on local disk, trigger
 * `processing-time 1 second`. After a warm-up, over a measurement window, each job should commit
 * one batch per second: the baseline is that ideal rate (N batches/s). A level keeps up when the
 * achieved batch rate is at least 90% of it and the median batch duration is under the interval.
 * Levels: 10, 25, 50, 100 jobs, stopping at the first that falls behind.
 */
import path from 'node:path';
import { waitFor } from '../lib/testing/wait-for';
import { WorkerHarness } from '../worker/testing/harness';

const LEVELS = (process.env.WEIR_BENCH_WORKER_LEVELS ?? '10,25,50,100').split(',').map(Number);
const WINDOW_MS = Number(process.env.WEIR_BENCH_WORKER_WINDOW_MS ?? 15_000);

async function level(n: number) {
  const h = new WorkerHarness('postgres');
  await h.setup();
  try {
    h.spawnWorker({ LOG_LEVEL: 'warn', WEIR_WORKER_CONCURRENCY: String(Math.max(50, n)), WEIR_LEASE_RENEW_MS: '1000', WEIR_LEASE_TTL_MS: '10000', WEIR_FAILOVER_MS: '15000' });
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const name = `cap-${i}`;
      const spec = {
        name,
        source: { name: 'ticks', type: 'rate', options: { rowsPerSecond: 10 }, schema: [{ name: 'timestamp', type: 'timestamp' }, { name: 'value', type: 'long' }] },
        sql: 'SELECT value, value * 2 AS doubled FROM ticks WHERE value % 2 = 0',
        sink: { type: 'files', options: { path: path.join(h.dir, name, 'out'), format: 'json' } },
        outputMode: 'append',
        trigger: { type: 'processing-time', interval: '1 second' },
        checkpointLocation: path.join(h.dir, name, 'cp'),
      };
      const job = await h.db.job.create({
        data: { name, spec, sql: spec.sql, sourceType: 'rate', sinkType: 'files', outputMode: 'append', trigger: spec.trigger, checkpointLocation: spec.checkpointLocation },
      });
      ids.push(job.id);
      await h.start(job.id);
    }
    await waitFor('all RUNNING', async () => (await h.db.job.count({ where: { status: 'RUNNING' } })) === n, 120_000);
    await new Promise((r) => setTimeout(r, 3000)); // warm-up
    const from = new Date();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const to = new Date();
    const batches = await h.db.batchProgress.findMany({ where: { timestamp: { gte: from, lt: to } }, select: { batchDurationMs: true } });
    const durations = batches.map((b) => b.batchDurationMs).sort((a, b) => a - b);
    const median = durations[Math.floor(durations.length / 2)] ?? 0;
    const p95 = durations[Math.floor(durations.length * 0.95)] ?? 0;
    const ideal = (n * WINDOW_MS) / 1000;
    const ratio = batches.length / ideal;
    return { n, batches: batches.length, ideal, ratio, median, p95, keepsUp: ratio >= 0.9 && median < 1000 };
  } finally {
    await h.teardown();
  }
}

export async function run() {
  const out = [];
  let best = 0;
  for (const n of LEVELS) {
    const r = await level(n);
    process.stderr.write(`  ${n} jobs: ${r.batches}/${r.ideal} batches (${(r.ratio * 100).toFixed(0)}%), median ${r.median} ms, p95 ${r.p95} ms\n`);
    out.push(
      { name: `${n} jobs: batches committed / ideal (1 per job per second)`, value: r.ratio, unit: 'ratio', goal: '>= 0.9', ok: r.ratio >= 0.9 },
      { name: `${n} jobs: median batch duration`, value: r.median, unit: 'ms', goal: '< 1000', ok: r.median < 1000 },
      { name: `${n} jobs: p95 batch duration`, value: r.p95, unit: 'ms' },
    );
    if (!r.keepsUp) break;
    best = n;
  }
  out.push({ name: 'largest level one worker keeps up with (1-second triggers)', value: best, unit: 'jobs' });
  return out;
}
