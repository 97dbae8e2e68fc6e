/**
 * End-to-end latency benchmark: a postgres source table read by the whole engine into the
 * transactional postgres sink, trigger interval 0, checkpoint on local disk (fsync per write).
 * A writer inserts RATE rows per second for SECONDS; each row's latency is the time from just
 * before its INSERT is sent to the moment its sink transaction commits, as seen by a LISTENer:
 * an AFTER INSERT trigger on the sink table NOTIFYs the row's id, and PostgreSQL delivers a
 * notification only when the inserting transaction commits, i.e. exactly when the row becomes
 * visible to readers. No polling in the measurement itself.
 *
 * Writer, listener and engine share one process (as a job's runner shares its event loop); the
 * writer uses its own connection so that its inserts never queue behind the engine's queries.
 * Besides p50/p95/p99 it reports the median per-phase cost of the batches (progress durationMs),
 * which says where a batch of ~1-2 rows spends its time.
 *
 *   npm run bench -- latency                    # 60 s at 50 rows/s
 *   LATENCY_SECONDS=15 npx tsx bench/latency.bench.ts
 *
 * Goals (quiet machine): p50 <= 15 ms, p99 <= 60 ms. The load average is recorded with the
 * figures because on a shared machine it, not the engine, often sets the tail.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { MicroBatchExecution } from '../lib/engine/execution/micro-batch-execution';
import type { StreamingQueryProgress } from '../lib/engine/progress';
import { createTestDatabase } from '../lib/testing/pg-test-database';
import { parseJobSpec } from '../lib/engine/spec/job-spec';
import '../lib/engine/sources/index';
import '../lib/engine/sinks/index';
// The postgres source and the transactional sink are connectors.
import '../lib/connectors/index';

const SECONDS = Number(process.env.LATENCY_SECONDS ?? 60);
const RATE = Number(process.env.LATENCY_RATE ?? 50);
/** After the last insert, how long the bench waits for the last rows to reach the sink. */
const DRAIN_TIMEOUT_MS = 120_000;

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

export interface LatencyBenchResult {
  latency: {
    rows: number;
    ratePerSec: number;
    seconds: number;
    p50Ms: number;
    p95Ms: number;
    p99Ms: number;
    maxMs: number;
    batches: number;
    /** Median per-phase cost of the batches that ran (progress durationMs). */
    batchMedianMs: Record<string, number>;
    loadAvg1m: number;
    p50GoalMet: boolean;
    p99GoalMet: boolean;
  };
}

export async function main(): Promise<LatencyBenchResult> {
  const db = await createTestDatabase('bench_latency');
  const cp = await mkdtemp(path.join(tmpdir(), 'weir-bench-latency-'));
  const listener = new pg.Client({ connectionString: db.url });
  const writer = new pg.Client({ connectionString: db.url });
  const progress: StreamingQueryProgress[] = [];
  let q: MicroBatchExecution | undefined;
  let run: Promise<void> | undefined;
  try {
    await db.pool.query('CREATE TABLE events (id bigserial PRIMARY KEY, payload text NOT NULL)');
    await db.pool.query('CREATE TABLE events_out (id bigint NOT NULL, payload text NOT NULL)');
    await db.pool.query(`CREATE FUNCTION events_out_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('events_out', NEW.payload); RETURN NULL; END $$`);
    await db.pool.query('CREATE TRIGGER events_out_notify AFTER INSERT ON events_out FOR EACH ROW EXECUTE FUNCTION events_out_notify()');
    await listener.connect();
    await writer.connect();
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    let drained: (() => void) | undefined;
    let expected = Infinity;
    listener.on('notification', (n) => {
      const at = performance.now();
      const t0 = sentAt.get(n.payload ?? '');
      if (t0 === undefined) return;
      sentAt.delete(n.payload ?? '');
      latencies.push(at - t0);
      if (latencies.length >= expected) drained?.();
    });
    await listener.query('LISTEN events_out');

    const r = parseJobSpec({
      name: 'latency',
      source: {
        name: 'events',
        type: 'postgres',
        options: { connectionString: db.url, table: 'events', offsetColumn: 'id', createNotifyTrigger: true },
        schema: [{ name: 'id', type: 'long' }, { name: 'payload', type: 'string' }],
      },
      sql: 'SELECT id, payload FROM events',
      sink: { type: 'postgres', options: { connectionString: db.url, table: 'events_out', mode: 'transactional', createTable: false } },
      trigger: { type: 'processing-time', interval: '0 seconds' },
      checkpointLocation: cp,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    q = new MicroBatchExecution({ spec: r.spec, onProgress: (p) => void progress.push(p) });
    await q.start();
    run = q.run();

    // Paced by absolute deadlines so a slow insert does not lower the rate.
    const total = Math.round(SECONDS * RATE);
    const interval = 1000 / RATE;
    const begin = performance.now();
    for (let i = 0; i < total; i++) {
      const due = begin + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      // Keyed by payload and set before the INSERT is sent: the row can reach the sink before
      // the INSERT's own reply reaches this process.
      const payload = `row-${i}`;
      sentAt.set(payload, performance.now());
      await writer.query('INSERT INTO events (payload) VALUES ($1)', [payload]);
    }
    expected = total;
    if (latencies.length < total) {
      await new Promise<void>((resolve, reject) => {
        drained = resolve;
        setTimeout(() => reject(new Error(`only ${latencies.length} of ${total} rows reached the sink within ${DRAIN_TIMEOUT_MS} ms`)), DRAIN_TIMEOUT_MS).unref();
      });
    }
    const loadAvg1m = os.loadavg()[0];
    const n = Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM events_out')).rows[0].n);
    if (n !== total) throw new Error(`the sink holds ${n} rows, expected ${total}`);

    const sorted = [...latencies].sort((a, b) => a - b);
    const phases = new Set(progress.flatMap((p) => Object.keys(p.durationMs)));
    const batchMedianMs: Record<string, number> = {};
    for (const k of phases) batchMedianMs[k] = median(progress.map((p) => p.durationMs[k] ?? 0));
    const round = (x: number) => Math.round(x * 10) / 10;
    const result: LatencyBenchResult = {
      latency: {
        rows: total,
        ratePerSec: RATE,
        seconds: SECONDS,
        p50Ms: round(quantile(sorted, 0.5)),
        p95Ms: round(quantile(sorted, 0.95)),
        p99Ms: round(quantile(sorted, 0.99)),
        maxMs: round(sorted[sorted.length - 1]),
        batches: progress.length,
        batchMedianMs,
        loadAvg1m,
        p50GoalMet: quantile(sorted, 0.5) <= 15,
        p99GoalMet: quantile(sorted, 0.99) <= 60,
      },
    };
    const l = result.latency;
    console.log(`latency: ${total} rows at ${RATE}/s over ${SECONDS} s, ${l.batches} batches, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log(`  p50 ${l.p50Ms} ms  p95 ${l.p95Ms} ms  p99 ${l.p99Ms} ms  max ${l.maxMs} ms`);
    console.log(`  batch median ms: ${Object.entries(batchMedianMs).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    return result;
  } finally {
    await q?.stop();
    await run?.catch(() => undefined);
    await listener.end().catch(() => undefined);
    await writer.end().catch(() => undefined);
    await db.drop();
    await rm(cp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
