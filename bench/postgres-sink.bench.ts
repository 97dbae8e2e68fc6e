/**
 * Postgres sink benchmark: rows per second into the transactional `postgres` sink
 * (rows and batch id in one transaction, the exactly-once path) against hand-written batched
 * inserts of the same rows into the same kind of table, in the same run, on this machine's
 * PostgreSQL.
 *
 * Baselines, both hand-written with `pg`, one transaction per batch like the sink:
 * - `values`: multi-row INSERT … VALUES ($1,$2,…),(…) in statements of 1,000 rows (what most
 *   code does);
 * - `unnest`: one INSERT … SELECT FROM unnest($1::bigint[], …) per batch (the fastest plain
 *   INSERT we know; COPY needs a package this project does not have).
 * The ratio is taken against the faster baseline. A fourth figure runs the same rows through
 * the whole engine (memory source, checkpoint on local disk) for the end-to-end cost. Each variant runs ROUNDS times, interleaved,
 * into a fresh table; the median is reported. Goal: the sink at 70% or more of the baseline.
 *
 * Run: npx tsx bench/postgres-sink.bench.ts   (also run by `npm run bench`)
 */
import pg from 'pg';
import '../lib/connectors/index'; // registers the postgres sink type for parseJobSpec
import { PostgresSink } from '../lib/connectors/postgres/postgres-sink';
import { createTestDatabase } from '../lib/testing/pg-test-database';
import type { Row, Schema } from '../lib/engine/types';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MicroBatchExecution } from '../lib/engine/execution/micro-batch-execution';
import { parseJobSpec } from '../lib/engine/spec/job-spec';
import { MemoryStream } from '../lib/engine/sources/memory-source';
import '../lib/engine/sources/index';
import '../lib/engine/sinks/index';

const ROWS = 200_000;
const BATCH = 10_000;
const ROUNDS = 5;

const schema: Schema = [
  { name: 'id', type: 'long' },
  { name: 'name', type: 'string' },
  { name: 'amount', type: 'double' },
  { name: 'ts', type: 'timestamp' },
];
const DDL = (t: string) => `CREATE TABLE ${t} (id bigint, name text, amount double precision, ts timestamptz)`;

function rows(): Row[] {
  // Deterministic data: no randomness needed for a throughput figure.
  return Array.from({ length: ROWS }, (_, i) => ({ id: i, name: `customer-${i % 977}`, amount: (i % 10_000) / 100, ts: 1_700_000_000_000 + i * 1000 }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeIt(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function inTx(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<void>) {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await fn(c);
    await c.query('COMMIT');
  } finally {
    c.release();
  }
}

async function handValues(pool: pg.Pool, table: string, data: Row[]) {
  for (let b = 0; b < data.length; b += BATCH) {
    await inTx(pool, async (c) => {
      for (let s = b; s < Math.min(b + BATCH, data.length); s += 1000) {
        const part = data.slice(s, Math.min(s + 1000, b + BATCH));
        const params: unknown[] = [];
        const tuples = part.map((r) => {
          params.push(r.id, r.name, r.amount, new Date(r.ts as number).toISOString());
          const k = params.length;
          return `($${k - 3},$${k - 2},$${k - 1},$${k})`;
        });
        await c.query(`INSERT INTO ${table} (id, name, amount, ts) VALUES ${tuples.join(',')}`, params);
      }
    });
  }
}

async function handUnnest(pool: pg.Pool, table: string, data: Row[]) {
  for (let b = 0; b < data.length; b += BATCH) {
    const part = data.slice(b, b + BATCH);
    await inTx(pool, async (c) => {
      await c.query(`INSERT INTO ${table} (id, name, amount, ts) SELECT * FROM unnest($1::bigint[], $2::text[], $3::float8[], $4::timestamptz[])`, [
        part.map((r) => r.id), part.map((r) => r.name), part.map((r) => r.amount), part.map((r) => new Date(r.ts as number).toISOString()),
      ]);
    });
  }
}

async function weirSink(url: string, table: string, data: Row[]) {
  const sink = new PostgresSink({ connectionString: url, table, schema: 'public', mode: 'transactional', createTable: false });
  try {
    for (let b = 0, batchId = 0; b < data.length; b += BATCH, batchId++) {
      await sink.addBatch(batchId, data.slice(b, b + BATCH), { outputMode: 'append', schema, queryId: `bench-${table}` });
    }
  } finally {
    await sink.close();
  }
}

/**
 * The same rows through the whole engine (memory source → SELECT * → postgres sink, one batch of
 * BATCH rows per trigger, checkpoint on local disk with fsync): what a job sees end to end.
 */
async function weirEngine(url: string, table: string, data: Row[]) {
  const cp = await mkdtemp(path.join(tmpdir(), 'weir-bench-pg-'));
  const stream = `bench-${table}`;
  const r = parseJobSpec({
    name: table,
    source: { name: 'orders', type: 'memory', options: { stream }, schema },
    sql: 'SELECT id, name, amount, ts FROM orders',
    sink: { type: 'postgres', options: { connectionString: url, table, createTable: false } },
    trigger: { type: 'available-now' },
    checkpointLocation: cp,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  const q = new MicroBatchExecution({ spec: r.spec });
  try {
    await q.start();
    for (let b = 0; b < data.length; b += BATCH) {
      MemoryStream.named(stream).addRows(data.slice(b, b + BATCH));
      await q.processAllAvailable();
    }
  } finally {
    await q.stop();
    await rm(cp, { recursive: true, force: true });
  }
}

/** A table's row count and a digest of its rows in id order: equal digests, equal content. */
async function contentOf(pool: pg.Pool, table: string): Promise<{ n: number; digest: string }> {
  const r = await pool.query<{ n: number; digest: string }>(
    `SELECT count(*)::int AS n, md5(string_agg(concat_ws('|', id, name, amount, (extract(epoch FROM ts) * 1000)::bigint), ',' ORDER BY id, name, amount, ts)) AS digest FROM ${table}`,
  );
  return r.rows[0];
}

export interface PostgresSinkBenchResult {
  rows: number;
  batchRows: number;
  weirRowsPerSec: number;
  valuesRowsPerSec: number;
  unnestRowsPerSec: number;
  engineRowsPerSec: number;
  ratio: number;
  goalMet: boolean;
}

export async function main(): Promise<PostgresSinkBenchResult> {
  const db = await createTestDatabase('bench_pgsink');
  const data = rows();
  const times = { weir: [] as number[], values: [] as number[], unnest: [] as number[], engine: [] as number[] };
  let t = 0;
  const digests: Record<string, string> = {};
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of ['weir', 'values', 'unnest', 'engine'] as const) {
        const table = `${variant}_${round}_${t++}`;
        await db.pool.query(DDL(table));
        const ms = await timeIt(() =>
          variant === 'weir' ? weirSink(db.url, table, data)
            : variant === 'values' ? handValues(db.pool, table, data)
              : variant === 'unnest' ? handUnnest(db.pool, table, data)
                : weirEngine(db.url, table, data),
        );
        const { n, digest } = await contentOf(db.pool, table);
        if (n !== ROWS) throw new Error(`${variant} wrote ${n} rows, expected ${ROWS}`);
        digests[variant] = digest;
        times[variant].push(ms);
        await db.pool.query(`DROP TABLE ${table}`);
      }
      // The same count is not the same rows: every variant must hold what the baseline holds.
      for (const variant of ['weir', 'unnest', 'engine'] as const) {
        if (digests[variant] !== digests.values) throw new Error(`round ${round}: ${variant} wrote other rows than the hand-written VALUES inserts (content digest ${digests[variant]} ≠ ${digests.values})`);
      }
    }
  } finally {
    await db.drop();
  }
  const rps = (ms: number[]) => ROWS / (median(ms) / 1000);
  const result = {
    rows: ROWS,
    batchRows: BATCH,
    weirRowsPerSec: rps(times.weir),
    valuesRowsPerSec: rps(times.values),
    unnestRowsPerSec: rps(times.unnest),
    engineRowsPerSec: rps(times.engine),
    ratio: 0,
    goalMet: false,
  };
  result.ratio = result.weirRowsPerSec / Math.max(result.valuesRowsPerSec, result.unnestRowsPerSec);
  result.goalMet = result.ratio >= 0.7;
  const f = (n: number) => Math.round(n).toLocaleString('en');
  console.log(`postgres-sink ${f(ROWS)} rows in batches of ${f(BATCH)} (median of ${ROUNDS}):`);
  console.log(`  weir transactional sink  ${f(result.weirRowsPerSec)} rows/s`);
  console.log(`  hand-written VALUES      ${f(result.valuesRowsPerSec)} rows/s`);
  console.log(`  hand-written unnest      ${f(result.unnestRowsPerSec)} rows/s`);
  console.log(`  weir engine end to end   ${f(result.engineRowsPerSec)} rows/s (memory source → postgres sink, checkpoint fsync per batch)`);
  console.log(`  ratio vs the faster hand-written: ${(result.ratio * 100).toFixed(0)}% (goal ≥ 70%: ${result.goalMet ? 'met' : 'NOT met'})`);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
