/**
 * API latency under concurrent load: p95 of `GET /api/jobs?limit=50` (the first page, a later
 * keyset page, and a name search) and of one job's batch history
 * (`GET /api/jobs/:id/batches?limit=50`, first page and a deep keyset page) with 1,000 jobs and
 * 1,000 batches of history each (a tenth of them with a firing alert), measured with autocannon against the production server
 * (`next start`, which needs a build: `npx next build`) on a fresh database of this machine's
 * PostgreSQL, authenticated with a bearer token as automation would be.
 *
 *   npm run bench -- api
 *
 * With the build, the jobs page itself is then measured in Debian's Chromium (the "usable
 * within 1 s"): navigation to the first page's 50 rows shown with the totals per status, and
 * "Next page" to the second page's rows, median of BROWSER_RUNS loads, with the page's DOM size
 * and its main-thread task time (which, unlike wall time, does not count waiting for a core).
 *
 * Sizes: JOBS × BATCHES_PER_JOB rows are generated in SQL (generate_series), with a compact
 * progress JSON; the history query never reads `progress` (the presenter omits it).
 *
 * Without a production build (or with BENCH_API_HTTP=0) only the in-process part runs: the
 * exported route handler of `GET /api/jobs` called with real Requests in this process, as Next
 * calls it, at 1 and at CONNECTIONS concurrent requests. It reports the CPU this process spends
 * per request (process.cpuUsage over the requests answered) beside the latencies: the figure to
 * cut when 20 connections queue on 2 cores. PostgreSQL's own CPU is not in it. Seeding takes
 * minutes on a loaded machine: BENCH_API_KEEP=1 keeps the seeded database (its URL is printed)
 * and BENCH_API_DATABASE_URL=<that URL> measures on it again, so a before/after pair of the
 * in-process part measures the same rows.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { hashToken } from '../lib/server/credentials';
import { createTestDatabase } from '../lib/server/testing/database';
import { waitFor } from '../lib/testing/wait-for';
import { launchChromium, median, taskSecondsOf } from './browser';

const JOBS = 1000;
const BATCHES_PER_JOB = 1000;
const CONNECTIONS = 20;
const DURATION_S = 10;
const BROWSER_RUNS = 5;
/** BENCH_PORT: another port when several checkouts bench on one machine. */
const PORT = Number(process.env.BENCH_PORT ?? 3197);
const TOKEN = 'bench-viewer-token-0123456789abcdef';
const ROOT = path.resolve(import.meta.dirname, '..');

async function seed(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`INSERT INTO "ApiToken" (id, name, "tokenHash", role) VALUES ('bench', 'bench', $1, 'viewer')`, [hashToken(TOKEN)]);
    await c.query(
      `INSERT INTO "Job" (id, name, spec, sql, "sourceType", "sinkType", "outputMode", trigger, "checkpointLocation", guarantee, status, "desiredState", "lastBatchId", "updatedAt")
       SELECT 'job-' || g, 'bench-job-' || lpad(g::text, 4, '0'),
              '{"name":"bench","sink":{"type":"postgres","options":{"connectionString":"postgres://u:secret@h/d","table":"t"}}}'::jsonb,
              'SELECT a FROM s', 'files', 'postgres', 'append', '{"type":"processing-time","interval":"1 second"}'::jsonb,
              '/tmp/bench-cp/' || g, 'exactly-once', 'RUNNING', 'RUNNING', $1 - 1, now()
       FROM generate_series(1, $2) g`,
      [BATCHES_PER_JOB, JOBS],
    );
    await c.query(
      `INSERT INTO "BatchProgress" (id, "jobId", "batchId", timestamp, "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "batchDurationMs", "durationMs", progress)
       SELECT gen_random_uuid()::text, 'job-' || j, b, now() - ((${BATCHES_PER_JOB} - b) || ' seconds')::interval, 100, 100, 1000, 100,
              '{"triggerExecution":100,"addBatch":60}'::jsonb, jsonb_build_object('batchId', b, 'numInputRows', 100)
       FROM generate_series(1, $1) j, generate_series(0, $2 - 1) b`,
      [JOBS, BATCHES_PER_JOB],
    );
    await c.query(
      `INSERT INTO "Alert" (id, "jobId", kind, state, "dedupKey", message, "updatedAt")
       SELECT gen_random_uuid()::text, 'job-' || j, 'commit-lag', 'FIRING', 'bench-' || j, 'lag', now() FROM generate_series(1, $1, 10) j`,
      [JOBS],
    );
    await c.query('ANALYZE');
  } finally {
    await c.end();
  }
  return 'job-500';
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** autocannon's summary has p90 and p97.5 but no p95: collect every response time and compute it. */
async function load(url: string, connections = CONNECTIONS): Promise<{ p50: number; p95: number; p99: number; rps: number; errors: number; n: number }> {
  const times: number[] = [];
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const inst = autocannon({ url, connections, duration: DURATION_S, headers: { authorization: `Bearer ${TOKEN}` } }, (err, res) => (err ? reject(err) : resolve(res)));
    inst.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => times.push(responseTime));
  });
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), rps: r.requests.average, errors: r.errors + r.non2xx, n: times.length };
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** `connections` callers each sending the next request when the previous answer is read. */
async function loadHandler(handler: Handler, url: string, connections: number): Promise<{ p50: number; p95: number; rps: number; cpuMsPerRequest: number; errors: number }> {
  const times: number[] = [];
  let errors = 0;
  const until = performance.now() + DURATION_S * 1000;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const start = performance.now();
        const res = await handler(new Request(url, { headers: { authorization: `Bearer ${TOKEN}` } }), { params: Promise.resolve({}) });
        await res.text();
        times.push(performance.now() - start);
        if (res.status !== 200) errors++;
      }
    }),
  );
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), rps: times.length / wallS, cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / times.length, errors };
}

/** The route handler in this process: its CPU per request, without Next's HTTP server around it. */
async function inProcess(dbUrl: string) {
  process.env.DATABASE_URL = dbUrl;
  delete process.env.REDIS_URL;
  const { GET } = await import('../app/api/jobs/route');
  const url = 'http://127.0.0.1/api/jobs?limit=50';
  const check = (await (await GET(new Request(url, { headers: { authorization: `Bearer ${TOKEN}` } }), { params: Promise.resolve({}) })).json()) as { items: unknown[] };
  if (check.items.length !== 50) throw new Error('the in-process GET /api/jobs?limit=50 did not return a full page');
  for (let i = 0; i < 200; i++) await (await GET(new Request(url, { headers: { authorization: `Bearer ${TOKEN}` } }), { params: Promise.resolve({}) })).text();
  const loadBefore = os.loadavg()[0];
  const one = await loadHandler(GET, url, 1);
  const many = await loadHandler(GET, url, CONNECTIONS);
  const note = `route handler in process, ${JOBS} jobs × ${BATCHES_PER_JOB} batches, ${DURATION_S} s each`;
  return [
    { name: 'in-process: machine load average (1 min) before', value: loadBefore, unit: 'procs', note: `${os.cpus().length} cores, shared with other processes` },
    { name: 'in-process GET /api/jobs?limit=50, 1 caller: CPU per request', value: one.cpuMsPerRequest, unit: 'ms', note },
    { name: 'in-process GET /api/jobs?limit=50, 1 caller: p50', value: one.p50, unit: 'ms' },
    { name: 'in-process GET /api/jobs?limit=50, 1 caller: p95', value: one.p95, unit: 'ms' },
    { name: `in-process GET /api/jobs?limit=50, ${CONNECTIONS} callers: CPU per request`, value: many.cpuMsPerRequest, unit: 'ms' },
    { name: `in-process GET /api/jobs?limit=50, ${CONNECTIONS} callers: p95`, value: many.p95, unit: 'ms' },
    { name: `in-process GET /api/jobs?limit=50, ${CONNECTIONS} callers: req/s`, value: many.rps, unit: 'req/s' },
    { name: 'in-process: machine load average (1 min) after', value: os.loadavg()[0], unit: 'procs' },
    { name: 'in-process: errors or non-2xx', value: one.errors + many.errors, unit: 'responses', goal: '0', ok: one.errors + many.errors === 0 },
  ];
}

async function disconnectInProcess(): Promise<void> {
  const { prisma } = await import('../lib/server/db');
  await prisma().$disconnect();
}

interface PageTimings {
  rows: number;
  nextPage: number;
  mainThread: number;
  domNodes: number;
}

/** The jobs page in Chromium: until its rows are shown, and after "Next page" the next rows. */
async function jobsPageTimings(base: string): Promise<PageTimings> {
  const browser = await launchChromium();
  try {
    const ctx = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` }, viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    const taskSeconds = await taskSecondsOf(ctx, page);
    const rowsOf = (n: number) => page.getByRole('table', { name: 'Jobs' }).getByRole('link', { name: `bench-job-${String(n).padStart(4, '0')}`, exact: true });
    await page.goto(`${base}/`); // warm-up: fills the server's caches and the pool
    const rows: number[] = [];
    const next: number[] = [];
    const mainThread: number[] = [];
    let domNodes = 0;
    for (let i = 0; i < BROWSER_RUNS; i++) {
      await page.goto('about:blank');
      const task0 = await taskSeconds();
      const t0 = Date.now();
      await page.goto(`${base}/`, { waitUntil: 'commit' });
      await rowsOf(50).waitFor();
      await page.getByLabel('Jobs per status').getByText(`${JOBS} RUNNING`).waitFor();
      rows.push(Date.now() - t0);
      mainThread.push(((await taskSeconds()) - task0) * 1000);
      const shown = await page.getByRole('table', { name: 'Jobs' }).locator('tbody tr').count();
      if (shown !== 50) throw new Error(`the jobs page showed ${shown} rows, not 50`);
      domNodes = await page.evaluate(() => document.querySelectorAll('*').length);
      const t1 = Date.now();
      await page.getByRole('link', { name: 'Next page' }).click();
      await rowsOf(100).waitFor();
      next.push(Date.now() - t1);
    }
    return { rows: median(rows), nextPage: median(next), mainThread: median(mainThread), domNodes };
  } finally {
    await browser.close();
  }
}

export async function run() {
  const http = process.env.BENCH_API_HTTP !== '0' && existsSync(path.join(ROOT, '.next', 'BUILD_ID'));
  if (!http) {
    const reuse = process.env.BENCH_API_DATABASE_URL;
    const db = reuse ? undefined : await createTestDatabase('weir_bench_api');
    try {
      const t0 = performance.now();
      if (db) await seed(db.url);
      const seedS = (performance.now() - t0) / 1000;
      return [{ name: `seed ${(JOBS * BATCHES_PER_JOB).toLocaleString('en')} BatchProgress rows`, value: seedS, unit: 's' }, ...(await inProcess(reuse ?? db!.url))];
    } finally {
      await disconnectInProcess();
      if (db && process.env.BENCH_API_KEEP === '1') process.stderr.write(`kept the seeded database: BENCH_API_DATABASE_URL=${db.url}\n`);
      else if (db) await db.drop();
    }
  }
  const db = await createTestDatabase('weir_bench_api');
  const server = spawn(path.join(ROOT, 'node_modules/.bin/next'), ['start', '-p', String(PORT), '-H', '127.0.0.1'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, REDIS_URL: '', NODE_ENV: 'production' },
    stdio: 'ignore',
  });
  try {
    const t0 = performance.now();
    const jobId = await seed(db.url);
    const seedS = (performance.now() - t0) / 1000;
    const base = `http://127.0.0.1:${PORT}`;
    await waitFor(`${base}/api/jobs to answer 200`, async () => (await fetch(`${base}/api/jobs`, { headers: { authorization: `Bearer ${TOKEN}` } })).status === 200, 60_000, 300);
    // Warm up the route modules and the connection pool before measuring.
    await autocannon({ url: `${base}/api/jobs`, connections: 4, amount: 200, headers: { authorization: `Bearer ${TOKEN}` } });
    const loadBefore = os.loadavg()[0];
    // One connection: the service time of a request without queueing behind others.
    const single = await load(`${base}/api/jobs/${jobId}/batches?limit=50`, 1);
    const listSingle = await load(`${base}/api/jobs?limit=50`, 1);
    const list = await load(`${base}/api/jobs?limit=50`);
    const first = (await (await fetch(`${base}/api/jobs?limit=50`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { nextCursor: string | null; items: unknown[] };
    if (first.items.length !== 50 || !first.nextCursor) throw new Error('GET /api/jobs?limit=50 did not return a full page with a next cursor');
    const later = await load(`${base}/api/jobs?limit=50&cursor=${first.nextCursor}`);
    const search = await load(`${base}/api/jobs?limit=50&q=job-09&sort=lastCommittedAt&dir=desc`);
    const history = await load(`${base}/api/jobs/${jobId}/batches?limit=50`);
    const deepBefore = BATCHES_PER_JOB / 2;
    const deep = await load(`${base}/api/jobs/${jobId}/batches?limit=50&before=${deepBefore}`);
    const note = `${JOBS} jobs × ${BATCHES_PER_JOB} batches, ${CONNECTIONS} connections, ${DURATION_S} s, next start, bearer token`;
    const loadAfter = os.loadavg()[0];
    const browser = await jobsPageTimings(base);
    const errors = list.errors + later.errors + search.errors + history.errors + deep.errors;
    return [
      { name: `seed ${(JOBS * BATCHES_PER_JOB).toLocaleString('en')} BatchProgress rows`, value: seedS, unit: 's', note },
      { name: 'machine load average (1 min) before', value: loadBefore, unit: 'procs', note: `${os.cpus().length} cores, shared with other processes` },
      { name: 'GET batches, 1 connection, p50', value: single.p50, unit: 'ms' },
      { name: 'GET batches, 1 connection, p95', value: single.p95, unit: 'ms' },
      // The goal holds on a quiet machine; on a shared one, read it beside the load averages.
      { name: 'GET /api/jobs?limit=50 p95', value: list.p95, unit: 'ms', goal: '<= 100 (quiet machine)', ok: list.p95 <= 100 && list.errors === 0, note },
      { name: 'GET /api/jobs?limit=50 p50', value: list.p50, unit: 'ms' },
      { name: 'GET /api/jobs?limit=50, 1 connection, p50', value: listSingle.p50, unit: 'ms' },
      { name: 'GET /api/jobs?limit=50, 1 connection, p95', value: listSingle.p95, unit: 'ms' },
      { name: 'GET /api/jobs?limit=50 req/s', value: list.rps, unit: 'req/s' },
      { name: 'GET /api/jobs?limit=50 (second page, cursor) p95', value: later.p95, unit: 'ms', goal: '<= 100 (quiet machine)', ok: later.p95 <= 100 && later.errors === 0 },
      { name: 'GET /api/jobs?limit=50&q=… sorted by last batch p95', value: search.p95, unit: 'ms', goal: '<= 100 (quiet machine)', ok: search.p95 <= 100 && search.errors === 0 },
      { name: 'GET batches (newest page) p95', value: history.p95, unit: 'ms', goal: '<= 200', ok: history.p95 <= 200 && history.errors === 0, note },
      { name: 'GET batches (newest page) req/s', value: history.rps, unit: 'req/s' },
      { name: `GET batches (keyset page before batch ${deepBefore}) p95`, value: deep.p95, unit: 'ms', goal: '<= 200', ok: deep.p95 <= 200 && deep.errors === 0, note },
      { name: 'machine load average (1 min) after', value: loadAfter, unit: 'procs' },
      {
        name: 'browser: jobs page, navigation to 50 rows and the totals shown',
        value: browser.rows,
        unit: 'ms',
        goal: '<= 1000',
        ok: browser.rows <= 1000,
        note: `Chromium headless, median of ${BROWSER_RUNS}; ${browser.domNodes} DOM nodes; load average ${os.loadavg()[0].toFixed(2)}`,
      },
      { name: 'browser: jobs page, main-thread task time to the rows', value: browser.mainThread, unit: 'ms', note: 'CDP TaskDuration: parse, hydration, layout; not counting waits for a core' },
      { name: 'browser: jobs page, Next page to its rows', value: browser.nextPage, unit: 'ms', goal: '<= 1000', ok: browser.nextPage <= 1000 },
      { name: 'errors or non-2xx', value: errors, unit: 'responses', goal: '0', ok: errors === 0 },
    ];
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await db.drop();
  }
}
