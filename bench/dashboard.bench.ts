/**
 * Dashboard: a job page with 10,000 batches of history must be usable within 1 s of
 * the data arriving. Measured three ways in one run, on a fresh database of this machine's
 * PostgreSQL and the production server (`next start`; needs `npx next build` first):
 *
 * 1. Presenter, in process: the downsampled chart series (batchCharts: buckets in SQL, the
 *    UI's CHART_POINTS) against the raw history (rawBatchSeries: every batch, what a client-side
 *    downsampler would have to fetch), time and JSON size, median of RUNS.
 * 2. HTTP: GET /api/jobs/:id/charts (downsampled) and GET /api/jobs/:id/batches?limit=20 (the
 *    table's first page), request to parsed JSON, median of RUNS; and the page itself
 *    (GET /jobs/:id, server-rendered with both prefetched).
 * 3. Browser (Debian's Chromium): navigation start to the charts drawn with data (a recharts
 *    line on screen and "10000 batches" shown), and to the batch table's rows after clicking
 *    its tab. Median of BROWSER_RUNS page loads. This is the "usable" figure the goal is about.
 *
 *   npm run bench -- dashboard
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../lib/generated/prisma/client';
import { CHART_POINTS } from '../components/query-keys';
import { hashToken } from '../lib/server/credentials';
import { batchCharts, rawBatchSeries } from '../lib/server/presenters/batch-chart-presenter';
import { createTestDatabase } from '../lib/server/testing/database';
import { waitFor } from '../lib/testing/wait-for';
import { launchChromium, median, taskSecondsOf } from './browser';

const BATCHES = 10_000;
const RUNS = 7;
const BROWSER_RUNS = 5;
const PORT = 3198;
const TOKEN = 'bench-dashboard-viewer-0123456789abcdef';
const JOB_ID = 'bench-dashboard-job';
const ROOT = path.resolve(import.meta.dirname, '..');

export async function seed(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`INSERT INTO "ApiToken" (id, name, "tokenHash", role) VALUES ('bench', 'bench', $1, 'viewer')`, [hashToken(TOKEN)]);
    await c.query(
      `INSERT INTO "Job" (id, name, spec, sql, "sourceType", "sinkType", "outputMode", trigger, "checkpointLocation", guarantee, status, "desiredState", "lastBatchId", "lastCommittedAt", "updatedAt")
       VALUES ($1, 'bench-dashboard', '{"name":"bench-dashboard"}'::jsonb, 'SELECT user, count(*) FROM clicks GROUP BY user', 'files', 'files', 'update',
               '{"type":"processing-time","interval":"1 second"}'::jsonb, '/tmp/weir-bench-dashboard-cp', 'exactly-once', 'STOPPED', 'STOPPED', $2, now(), now())`,
      [JOB_ID, BATCHES - 1],
    );
    // A progress JSON of realistic size (~1 KB): the raw path pays for it only if it reads it.
    await c.query(
      `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs",
                                   "durationMs", "stateRowsTotal", "stateRowsUpdated", "stateRowsDroppedByWatermark", "stateMemoryBytes", "stateDiskBytes",
                                   "commitLag", "watermarkMs", progress)
       SELECT gen_random_uuid()::text, $1, b, now() - (($2 - b) || ' seconds')::interval, 100 + (b % 50), 100 + (b % 13), 900 + (b % 97), 80 + (b % 40),
              jsonb_build_object('triggerExecution', 80 + (b % 40), 'latestOffset', 3, 'walCommit', 9, 'getBatch', 12, 'queryPlanning', 2, 'addBatch', 45 + (b % 30), 'commitOffsets', 8),
              1000 + b, 40 + (b % 9), b % 3, 4096 + b * 10, 8192 + b * 20, b % 17, (extract(epoch FROM now()) * 1000)::bigint - 10000,
              jsonb_build_object('id', 'q', 'runId', 'r', 'name', 'bench-dashboard', 'batchId', b, 'numInputRows', 100,
                                 'durationMs', jsonb_build_object('addBatch', 45), 'stateOperators', jsonb_build_array(jsonb_build_object('operatorName', 'stateStoreSave', 'numRowsTotal', 1000 + b)),
                                 'sources', jsonb_build_array(jsonb_build_object('description', 'FileStreamSource[/data/in]', 'startOffset', jsonb_build_object('logOffset', b), 'endOffset', jsonb_build_object('logOffset', b + 1))),
                                 'sink', jsonb_build_object('description', 'FileSink[/data/out]', 'numOutputRows', 100), 'padding', repeat('x', 600))
       FROM generate_series(0, $2 - 1) b`,
      [JOB_ID, BATCHES],
    );
    await c.query('ANALYZE');
  } finally {
    await c.end();
  }
}

async function timed<T>(fn: () => Promise<T>, runs: number): Promise<{ ms: number; last: T }> {
  const times: number[] = [];
  let last!: T;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    last = await fn();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), last };
}

async function getJson(url: string): Promise<{ bytes: number; body: unknown }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const text = await res.text();
  return { bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}

interface BrowserTimings {
  charts: number;
  allCharts: number;
  mainThread: number;
  table: number;
  /** From the page's data fully received (navigation responseEnd) to the first chart drawn. */
  dataToChart: number;
  dataToAllCharts: number;
}

async function browserTimings(base: string): Promise<BrowserTimings> {
  const browser = await launchChromium();
  try {
    const ctx = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` }, viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    // Records, inside the page, the moment the first chart line and the sixth chart appear
    // (a MutationObserver, so no polling delay is added to the figure).
    await page.addInitScript(() => {
      const w = window as unknown as { __firstChart?: number; __allCharts?: number };
      new MutationObserver(() => {
        if (w.__firstChart === undefined && document.querySelector('.recharts-line-curve')) w.__firstChart = performance.now();
        if (w.__allCharts === undefined && document.querySelectorAll('.recharts-surface').length >= 6) w.__allCharts = performance.now();
      }).observe(document, { subtree: true, childList: true });
    });
    await page.goto(`${base}/jobs/${JOB_ID}`); // warm-up: compiles nothing in production, but fills caches and the pool
    const charts: number[] = [];
    const allCharts: number[] = [];
    const mainThread: number[] = [];
    const table: number[] = [];
    const dataToChart: number[] = [];
    const dataToAllCharts: number[] = [];
    const taskSeconds = await taskSecondsOf(ctx, page);
    for (let i = 0; i < BROWSER_RUNS; i++) {
      await page.goto('about:blank');
      const task0 = await taskSeconds();
      const t0 = Date.now();
      await page.goto(`${base}/jobs/${JOB_ID}`, { waitUntil: 'commit' });
      await page.getByText(`${BATCHES} batches`).waitFor();
      await page.locator('.recharts-line-curve').first().waitFor();
      charts.push(Date.now() - t0);
      await page.waitForFunction(() => document.querySelectorAll('.recharts-surface').length >= 6);
      allCharts.push(Date.now() - t0);
      mainThread.push((await taskSeconds() - task0) * 1000);
      const marks = await page.evaluate(() => {
        const w = window as unknown as { __firstChart: number; __allCharts: number };
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        return { first: w.__firstChart - nav.responseEnd, all: w.__allCharts - nav.responseEnd };
      });
      dataToChart.push(marks.first);
      dataToAllCharts.push(marks.all);
      const t1 = Date.now();
      await page.getByRole('tab', { name: 'Batches' }).click();
      await page.getByRole('table', { name: 'Batches' }).getByRole('cell', { name: String(BATCHES - 1), exact: true }).waitFor();
      table.push(Date.now() - t1);
    }
    return {
      charts: median(charts),
      allCharts: median(allCharts),
      mainThread: median(mainThread),
      table: median(table),
      dataToChart: median(dataToChart),
      dataToAllCharts: median(dataToAllCharts),
    };
  } finally {
    await browser.close();
  }
}

export async function run() {
  if (!existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) throw new Error('dashboard.bench needs a production build: run `npx next build` first.');
  const db = await createTestDatabase('weir_bench_dashboard');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url }) });
  const server = spawn(path.join(ROOT, 'node_modules/.bin/next'), ['start', '-p', String(PORT), '-H', '127.0.0.1'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, REDIS_URL: '', NODE_ENV: 'production' },
    stdio: 'ignore',
  });
  try {
    await seed(db.url);
    const note = `1 job, ${BATCHES} batches, median of ${RUNS}`;

    // 1. In process: downsampled in SQL vs every batch.
    await batchCharts(prisma, JOB_ID, { maxPoints: CHART_POINTS }); // warm the pool and the plan cache
    const down = await timed(async () => JSON.stringify(await batchCharts(prisma, JOB_ID, { maxPoints: CHART_POINTS })), RUNS);
    const raw = await timed(async () => JSON.stringify(await rawBatchSeries(prisma, JOB_ID)), RUNS);

    // 2. Over HTTP, as the page's client components fetch.
    const base = `http://127.0.0.1:${PORT}`;
    await waitFor(`${base}/api/jobs/${JOB_ID} to answer 200`, async () => (await fetch(`${base}/api/jobs/${JOB_ID}`, { headers: { authorization: `Bearer ${TOKEN}` } })).status === 200, 60_000, 300);
    await getJson(`${base}/api/jobs/${JOB_ID}/charts?points=${CHART_POINTS}`);
    const chartsHttp = await timed(() => getJson(`${base}/api/jobs/${JOB_ID}/charts?points=${CHART_POINTS}`), RUNS);
    const tableHttp = await timed(() => getJson(`${base}/api/jobs/${JOB_ID}/batches?limit=20`), RUNS);
    const pageHttp = await timed(async () => (await fetch(`${base}/jobs/${JOB_ID}`, { headers: { authorization: `Bearer ${TOKEN}` } })).text(), RUNS);
    const points = (chartsHttp.last.body as { points: unknown[] }).points.length;

    // 3. In the browser: until the charts are drawn with the data, and the table shows its rows.
    const browser = await browserTimings(base);
    const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');

    return [
      { name: 'charts presenter, downsampled (SQL buckets)', value: down.ms, unit: 'ms', note: `${points} points, ${(Buffer.byteLength(down.last) / 1024).toFixed(0)} KiB JSON; ${note}` },
      { name: 'charts presenter, raw (every batch)', value: raw.ms, unit: 'ms', note: `${BATCHES} rows, ${(Buffer.byteLength(raw.last) / 1024).toFixed(0)} KiB JSON; ${note}` },
      { name: 'raw / downsampled time', value: raw.ms / down.ms, unit: 'x' },
      { name: 'raw / downsampled bytes', value: Buffer.byteLength(raw.last) / Buffer.byteLength(down.last), unit: 'x' },
      { name: 'GET /api/jobs/:id/charts (to parsed JSON)', value: chartsHttp.ms, unit: 'ms', goal: '<= 1000', ok: chartsHttp.ms <= 1000, note: `${(chartsHttp.last.bytes / 1024).toFixed(0)} KiB` },
      { name: 'GET /api/jobs/:id/batches?limit=20', value: tableHttp.ms, unit: 'ms', goal: '<= 1000', ok: tableHttp.ms <= 1000 },
      { name: 'GET /jobs/:id (server-rendered page)', value: pageHttp.ms, unit: 'ms', goal: '<= 1000', ok: pageHttp.ms <= 1000 },
      { name: 'browser: data received to first chart drawn', value: browser.dataToChart, unit: 'ms', goal: '<= 1000', ok: browser.dataToChart <= 1000, note: `responseEnd of the page (its HTML carries the prefetched series) to the first recharts line; Chromium headless, median of ${BROWSER_RUNS}; load average ${load}` },
      { name: 'browser: data received to all six charts drawn', value: browser.dataToAllCharts, unit: 'ms', goal: '<= 1000', ok: browser.dataToAllCharts <= 1000 },
      { name: 'browser: navigation to first chart drawn', value: browser.charts, unit: 'ms', note: `load average ${load}` },
      { name: 'browser: navigation to all six charts drawn', value: browser.allCharts, unit: 'ms', note: `load average ${load}` },
      { name: 'browser: main-thread task time to all charts', value: browser.mainThread, unit: 'ms', note: 'CDP TaskDuration from navigation to all charts: parse, hydration, layout and six charts; not counting waits for a core' },
      { name: 'browser: Batches tab to rows shown', value: browser.table, unit: 'ms', goal: '<= 1000', ok: browser.table <= 1000 },
    ];
  } finally {
    server.kill('SIGTERM');
    await prisma.$disconnect();
    await new Promise((r) => setTimeout(r, 500));
    await db.drop();
  }
}
