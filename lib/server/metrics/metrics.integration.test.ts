/**
 * GET /metrics against a real run: a real worker process drives a files → files job while the
 * test scrapes, and every scrape must parse as OpenMetrics 1.0 (a strict parser, see
 * testing/openmetrics-parser.ts, itself checked first to refuse what Prometheus refuses). The
 * job's series carry its rows, batches and status; the worker's its heartbeat and heap; the
 * queue's its counts. Once the job is deleted, its series are gone. Only WEIR_METRICS_TOKEN or a
 * viewer credential may scrape.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupApiTestKit, type ApiTestKit } from '../testing/api-test-kit';
import { parseOpenMetrics, type MetricFamily } from '../testing/openmetrics-parser';
import { waitFor } from '@/lib/testing/wait-for';
import { killWorkers, spawnWorkerProcess, workersHeartbeating, type SpawnedWorker } from '@/worker/testing/harness';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const METRICS_TOKEN = 'metrics-scrape-token-0123456789';
const ROWS_PER_FILE = 4;
const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-metrics-'));

let kit: ApiTestKit;
let metrics: typeof import('@/app/metrics/route');
let jobsRoute: typeof import('@/app/api/jobs/route');
let jobRoute: typeof import('@/app/api/jobs/[id]/route');
let startRoute: typeof import('@/app/api/jobs/[id]/start/route');
let stopRoute: typeof import('@/app/api/jobs/[id]/stop/route');
let worker: SpawnedWorker | undefined;

/** Generous: a worker process and its engine start slowly on a loaded 2-core machine. */
const SLOW = 120_000;

beforeAll(async () => {
  process.env.WEIR_METRICS_TOKEN = METRICS_TOKEN;
  kit = await setupApiTestKit({ checkpointRoot: dir });
  metrics = await import('@/app/metrics/route');
  jobsRoute = await import('@/app/api/jobs/route');
  jobRoute = await import('@/app/api/jobs/[id]/route');
  startRoute = await import('@/app/api/jobs/[id]/start/route');
  stopRoute = await import('@/app/api/jobs/[id]/stop/route');
  worker = spawnWorkerProcess({ DATABASE_URL: kit.database.url, REDIS_URL: '', WEIR_WORKER_HEARTBEAT_MS: '500', WEIR_ALERT_INTERVAL_MS: '500', LOG_LEVEL: 'warn' });
  await workersHeartbeating(kit.db, 1);
}, 180_000);

afterAll(async () => {
  if (worker) await killWorkers([worker]);
  await kit?.teardown();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function scrape(headers: Record<string, string> = { authorization: `Bearer ${METRICS_TOKEN}` }) {
  const res = await metrics.GET(new Request('http://localhost:3000/metrics', { headers }));
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

function family(f: Map<string, MetricFamily>, name: string): MetricFamily {
  const fam = f.get(name);
  if (!fam) throw new Error(`no family ${name}; families: ${[...f.keys()].join(', ')}`);
  return fam;
}

const valueOf = (fam: MetricFamily, sample: string, labels: Record<string, string>) =>
  fam.samples.find((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe('the OpenMetrics parser the test relies on', () => {
  const ok = '# HELP a_seconds A.\n# TYPE a_seconds gauge\na_seconds{x="1"} 2.5\n# TYPE c counter\nc_total 3\n# EOF\n';
  it('accepts a well-formed exposition', () => {
    expect(family(parseOpenMetrics(ok), 'c').samples[0]).toEqual({ name: 'c_total', labels: {}, value: 3 });
  });
  it.each([
    ['no # EOF', ok.replace('# EOF\n', '')],
    ['a counter sample without _total', ok.replace('c_total 3', 'c 3')],
    ['a counter family named _total', ok.replace('# TYPE c counter', '# TYPE c_total counter').replace('c_total 3', 'c_total_total 3')],
    ['interleaved families', `${ok.replace('# EOF\n', '')}a_seconds{x="2"} 1\n# EOF\n`],
    ['a bad escape', ok.replace('x="1"', 'x="\\t"')],
    ['a blank line', ok.replace('# TYPE c', '\n# TYPE c')],
    ['a value that is not a float', ok.replace('2.5', '2,5')],
    ['a repeated series', ok.replace('a_seconds{x="1"} 2.5', 'a_seconds{x="1"} 2.5\na_seconds{x="1"} 3')],
    ['buckets that are not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum 1\n# EOF\n'],
    ['a histogram without +Inf', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_count 2\nh_sum 1\n# EOF\n'],
  ])('refuses %s', (_, text) => {
    expect(() => parseOpenMetrics(text)).toThrow();
  });
});

describe('GET /metrics', () => {
  it('asks for the metrics token or a viewer credential', async () => {
    expect((await scrape({})).status).toBe(401);
    expect((await scrape({ authorization: 'Bearer not-the-metrics-token-at-all' })).status).toBe(401);
    expect((await scrape({ authorization: `Bearer ${kit.tokens.viewer}` })).status).toBe(200);
    expect((await scrape()).status).toBe(200);
  });

  it('exports a running job’s figures, the worker and the queue, and drops a deleted job’s series', async () => {
    const base = path.join(dir, 'job');
    mkdirSync(path.join(base, 'in'), { recursive: true });
    let files = 0;
    const addFile = () => {
      const lines = Array.from({ length: ROWS_PER_FILE }, (_, i) => JSON.stringify({ user: `u${i}`, n: files * 10 + i + 1 }));
      const name = `part-${String(files++).padStart(3, '0')}.json`;
      writeFileSync(path.join(base, 'in', `.${name}`), `${lines.join('\n')}\n`);
      renameSync(path.join(base, 'in', `.${name}`), path.join(base, 'in', name));
    };
    const spec = {
      name: 'metrics-job "quoted"',
      source: { name: 'clicks', type: 'files', options: { path: path.join(base, 'in'), format: 'json', maxFilesPerTrigger: 1 }, schema: [{ name: 'user', type: 'string' }, { name: 'n', type: 'long' }] },
      sql: 'SELECT user, n FROM clicks',
      sink: { type: 'files', options: { path: path.join(base, 'out'), format: 'json' } },
      outputMode: 'append',
      trigger: { type: 'processing-time', interval: '200 milliseconds' },
      checkpointLocation: path.join(base, 'cp'),
    };
    const created = await kit.call(jobsRoute.POST, '/api/jobs', { method: 'POST', token: kit.tokens.admin, body: spec });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.job.id;
    addFile();
    addFile();
    expect((await kit.call(startRoute.POST, `/api/jobs/${id}/start`, { method: 'POST', token: kit.tokens.operator, params: { id } })).status).toBe(200);
    const labels = { job_id: id, job_name: 'metrics-job "quoted"' };

    // Scrape while it runs, until two batches are in; every scrape must parse.
    const during = await waitFor('two committed batches in /metrics', async () => {
      const s = await scrape();
      expect(s.status).toBe(200);
      expect(s.type).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
      const f = parseOpenMetrics(s.text);
      const count = valueOf(family(f, 'weir_job_batch_duration_seconds'), 'weir_job_batch_duration_seconds_count', labels);
      return count !== undefined && count >= 2 ? f : undefined;
    }, SLOW);
    expect(family(during, 'weir_job_input_rows').type).toBe('counter');
    expect(valueOf(family(during, 'weir_job_input_rows'), 'weir_job_input_rows_total', labels)).toBe(2 * ROWS_PER_FILE);
    expect(family(during, 'weir_job_batch_duration_seconds').type).toBe('histogram');
    expect(valueOf(family(during, 'weir_job_status'), 'weir_job_status', { ...labels, status: 'RUNNING' })).toBe(1);
    expect(family(during, 'weir_job_status').samples.filter((s) => s.labels.job_id === id && s.value === 1)).toHaveLength(1);
    expect(valueOf(family(during, 'weir_job_processed_rows_per_second'), 'weir_job_processed_rows_per_second', labels)).toBeGreaterThanOrEqual(0);
    expect(valueOf(family(during, 'weir_job_state_rows'), 'weir_job_state_rows', labels)).toBe(0);
    expect(valueOf(family(during, 'weir_job_last_commit_timestamp_seconds'), 'weir_job_last_commit_timestamp_seconds', labels)).toBeGreaterThan(Date.UTC(2026, 0, 1) / 1000);
    expect(valueOf(family(during, 'weir_job_failed_runs'), 'weir_job_failed_runs_total', labels)).toBe(0);
    expect(valueOf(family(during, 'weir_job_firing_alerts'), 'weir_job_firing_alerts', labels)).toBe(0);
    const workers = family(during, 'weir_worker_runs_held').samples;
    expect(workers).toHaveLength(1);
    expect(workers[0].value).toBe(1);
    expect(family(during, 'weir_worker_heap_used_bytes').samples[0].value).toBeGreaterThan(1_000_000);
    expect(family(during, 'weir_worker_heartbeat_age_seconds').samples[0].value).toBeGreaterThanOrEqual(0);
    expect(valueOf(family(during, 'weir_queue_up'), 'weir_queue_up', {})).toBe(1);
    expect(valueOf(family(during, 'weir_queue_runs'), 'weir_queue_runs', { state: 'active' })).toBe(1);

    // The docs' alert rules and the Grafana dashboard name only what this endpoint exports.
    const exported = new Set([...during.values()].flatMap((f) => [f.name, ...f.samples.map((x) => x.name)]));
    for (const doc of ['docs/observability.md', 'docs/grafana/weir-dashboard.json']) {
      const named = new Set(readFileSync(path.join(ROOT, doc), 'utf8').match(/\bweir_[a-z_]+/g) ?? []);
      expect(named.size, doc).toBeGreaterThan(5);
      expect([...named].filter((n) => !exported.has(n)), doc).toEqual([]);
    }

    // The source is quiet once both files are read: the run reports idle polls, so a no-progress
    // rule stays quiet and the opt-in source-idle rule fires, saying so (the worker's scheduled
    // alert pass evaluates them).
    await kit.db.alertRule.createMany({
      data: [
        { name: 'stuck?', jobId: id, kind: 'no-progress', params: { afterMs: 1000 } },
        { name: 'quiet?', jobId: id, kind: 'source-idle', params: { afterMs: 1000 } },
      ],
    });
    const quiet = await waitFor('a source-idle alert', async () => kit.db.alert.findFirst({ where: { jobId: id, kind: 'source-idle', state: 'FIRING' } }), SLOW);
    expect(quiet.message).toMatch(/^Source quiet: no new data for \d+ ms/);
    expect(await kit.db.alert.count({ where: { jobId: id, kind: 'no-progress' } })).toBe(0);
    const idleScrape = parseOpenMetrics((await scrape()).text);
    const idleAt = valueOf(family(idleScrape, 'weir_job_source_idle_timestamp_seconds'), 'weir_job_source_idle_timestamp_seconds', labels)!;
    expect(idleAt).toBeGreaterThanOrEqual(valueOf(family(idleScrape, 'weir_job_last_commit_timestamp_seconds'), 'weir_job_last_commit_timestamp_seconds', labels)!);

    // Stopped, then deleted: no series names the job any more.
    expect((await kit.call(stopRoute.POST, `/api/jobs/${id}/stop`, { method: 'POST', token: kit.tokens.operator, params: { id } })).status).toBe(200);
    await waitFor('the job STOPPED', async () => (await kit.db.job.findUnique({ where: { id } }))?.status === 'STOPPED', SLOW);
    const stopped = parseOpenMetrics((await scrape()).text);
    expect(valueOf(family(stopped, 'weir_job_status'), 'weir_job_status', { ...labels, status: 'STOPPED' })).toBe(1);
    const del = await kit.call(jobRoute.DELETE, `/api/jobs/${id}`, { method: 'DELETE', token: kit.tokens.admin, params: { id } });
    expect(del.status, JSON.stringify(del.body)).toBe(204);
    const after = await scrape();
    parseOpenMetrics(after.text);
    expect(after.text).not.toContain(id);
  }, 240_000);
});
