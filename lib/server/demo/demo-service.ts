/**
 * The demo: the lesson's incident, on this machine. Two jobs read the same replayable orders
 * source (a directory of JSON-lines files) and write every order to PostgreSQL: one with the
 * `bare-append` sink (plain INSERTs: the warehouse append of the incident), one with the
 * `transactional` sink (rows and batch id in one transaction). Revenue per region is summed from
 * each table. A drill that crashes a run after the sink write and before the commit makes the
 * re-run insert that batch again into the bare-append table, and its revenue comes out doubled
 * for those orders; the transactional table recognizes the replayed batch id and stays right.
 *
 * The second step shows the other incident with the same symptom: "Lose the checkpoint" stops the
 * bare-append job, resets its checkpoint (acknowledging the reprocessing, as the API demands) and
 * starts it again. The new query reads every order file from the beginning into the table that
 * already holds them: duplicates in every batch id, beside the replay's one batch, and the
 * duplicate diagnosis tells the two apart.
 */
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { createJob, resetCheckpoint, startJob, stopJob, type JobServiceContext } from '../services/job-service';
import { jobSinkAudit } from '../drills/drill-service';
import { diagnoseDuplicates, type DuplicateDiagnosis } from '../contracts/duplicate-diagnosis';
import type { SinkAudit } from '../drills/sink-audit';
import { ConflictError } from '../errors';
import { DEMO_DATABASE } from '../outbound';

const DEMO_SCHEMA = 'weir_demo';
const DEMO_JOBS = [
  { name: 'demo-revenue-bare-append', mode: 'bare-append', table: 'orders_bare_append' },
  { name: 'demo-revenue-transactional', mode: 'transactional', table: 'orders_transactional' },
] as const;
const REGIONS = ['north', 'south', 'east', 'west'] as const;
const ORDERS_PER_FILE = 8;

export interface DemoConfig {
  /** The first of WEIR_FILES_ROOTS: the demo's orders live in `<filesRoot>/demo/orders`. */
  filesRoot: string;
  databaseUrl: string;
  /** WEIR_CHECKPOINT_ROOT: the diagnosis reads each demo job's checkpoint metadata. */
  checkpointRoot?: string;
}

const ordersDir = (c: DemoConfig) => path.join(c.filesRoot, 'demo', 'orders');

/**
 * The demo's warehouse: the database DEMO_DATABASE on the metadata database's server, the one
 * database there the outbound policy lets jobs use (never the metadata database itself).
 */
export function demoWarehouseUrl(c: DemoConfig): string {
  const u = new URL(c.databaseUrl);
  u.pathname = `/${DEMO_DATABASE}`;
  return u.toString();
}

async function ensureWarehouse(c: DemoConfig): Promise<void> {
  const admin = new pg.Client({ connectionString: c.databaseUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DEMO_DATABASE]);
    if (exists.rowCount === 0) {
      // 42P04: created meanwhile by another process.
      await admin.query(`CREATE DATABASE ${DEMO_DATABASE}`).catch((e: { code?: string }) => {
        if (e.code !== '42P04') throw e;
      });
    }
  } finally {
    await admin.end();
  }
  const client = new pg.Client({ connectionString: demoWarehouseUrl(c) });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${DEMO_SCHEMA}`);
  } finally {
    await client.end();
  }
}

/** Deterministic orders: order i has region i mod 4 and amount 10 + (i * 37) mod 90. */
function demoOrder(i: number) {
  return { order_id: i, region: REGIONS[i % REGIONS.length], amount: 10 + ((i * 37) % 90) };
}

/** Appends `files` more order files to the demo source (each file appears atomically). */
export function addDemoOrders(c: DemoConfig, files: number): number {
  const dir = ordersDir(c);
  mkdirSync(dir, { recursive: true });
  let next = readdirSync(dir).filter((f) => f.endsWith('.json')).length;
  for (let f = 0; f < files; f++, next++) {
    const lines = Array.from({ length: ORDERS_PER_FILE }, (_, k) => JSON.stringify(demoOrder(next * ORDERS_PER_FILE + k)));
    const name = `orders-${String(next).padStart(5, '0')}.json`;
    writeFileSync(path.join(dir, `.${name}`), `${lines.join('\n')}\n`);
    renameSync(path.join(dir, `.${name}`), path.join(dir, name));
  }
  return next * ORDERS_PER_FILE;
}

function demoSpec(c: DemoConfig, job: (typeof DEMO_JOBS)[number]) {
  return {
    name: job.name,
    source: {
      name: 'orders',
      type: 'files',
      options: { path: ordersDir(c), format: 'json', maxFilesPerTrigger: 1 },
      schema: [
        { name: 'order_id', type: 'long' },
        { name: 'region', type: 'string' },
        { name: 'amount', type: 'double' },
      ],
    },
    sql: 'SELECT order_id, region, amount FROM orders',
    sink: {
      type: 'postgres',
      options: { connectionString: demoWarehouseUrl(c), schema: DEMO_SCHEMA, table: job.table, mode: job.mode, batchIdColumn: 'weir_batch_id' },
    },
    outputMode: 'append',
    trigger: { type: 'processing-time', interval: '2 seconds' },
  };
}

/** Creates (once) and starts the two demo jobs over 60 files of orders (two minutes of batches). */
export async function setupDemo(ctx: JobServiceContext, c: DemoConfig): Promise<{ jobIds: string[]; created: boolean }> {
  const existing = await ctx.db.job.findMany({ where: { name: { in: DEMO_JOBS.map((j) => j.name) } } });
  await ensureWarehouse(c);
  if (existing.length === 0) addDemoOrders(c, 60);
  const ids: string[] = [];
  for (const j of DEMO_JOBS) {
    let job = existing.find((e) => e.name === j.name);
    if (!job) {
      const created = await createJob(ctx, { spec: demoSpec(c, j), description: 'Weir demo: a crash between the sink write and the commit, replayed on demand.' });
      job = (await ctx.db.job.findUniqueOrThrow({ where: { id: created.job.id } }));
    }
    if (job.status === 'STOPPED' || job.status === 'FAILED') await startJob(ctx, job.id);
    ids.push(job.id);
  }
  return { jobIds: ids, created: existing.length === 0 };
}

interface RegionRevenue {
  region: string;
  /** Revenue as the sink table sums it (duplicates included). */
  revenue: number;
  /** Revenue counting each order once: what the exactly-once contract promises. */
  correct: number;
  orders: number;
}

export interface DemoJobStatus {
  id: string;
  name: string;
  mode: string;
  status: string;
  guarantee: string | null;
  lastBatchId: number | null;
  revenue: RegionRevenue[];
  total: number;
  rows: number;
  distinctOrders: number;
  /**
   * Copies of an order in the sink (rows - distinctOrders, the revenue table's unit), in parts that
   * add up to it: per batch id from the sink audit (the diagnosis's figures), and the rest, under
   * batch ids the current query has not committed yet (a lost query's, not re-run yet). `byBatch`
   * is null when the sink could not be audited per batch.
   */
  duplicates: { total: number; byBatch: { batchId: number; rows: number }[] | null; notCommitted: number };
  audit: Awaited<ReturnType<typeof jobSinkAudit>> | null;
  /** The duplicate diagnosis: replay window, checkpoint loss, or none. */
  diagnosis: DuplicateDiagnosis | null;
  /** The drill's own audit, recorded at its recovery: the replay's signature, kept through a later reset. */
  replaySignature: { drillId: string; batchId: number | null; duplicateRows: number; doubledBatches: number[] } | null;
  drills: { id: string; point: string; status: string; batchId: number | null; requestedAt: string; recoveredAt: string | null }[];
  contract: unknown;
}

async function revenueOf(client: pg.Client, table: string): Promise<{ revenue: RegionRevenue[]; rows: number; distinctOrders: number }> {
  const exists = await client.query('SELECT to_regclass($1) AS t', [`${DEMO_SCHEMA}.${table}`]);
  if (!exists.rows[0].t) return { revenue: REGIONS.map((region) => ({ region, revenue: 0, correct: 0, orders: 0 })), rows: 0, distinctOrders: 0 };
  const byRegion = await client.query(
    `SELECT t.region, sum(t.amount)::float8 AS revenue, count(*)::int AS orders, max(c.correct)::float8 AS correct
       FROM ${DEMO_SCHEMA}.${table} t
       JOIN (SELECT region, sum(amount) AS correct FROM (SELECT DISTINCT ON (order_id) order_id, region, amount FROM ${DEMO_SCHEMA}.${table}) d GROUP BY region) c
         ON c.region = t.region
      GROUP BY t.region`,
  );
  const counts = await client.query(`SELECT count(*)::int AS rows, count(DISTINCT order_id)::int AS distinct_orders FROM ${DEMO_SCHEMA}.${table}`);
  const m = new Map(byRegion.rows.map((r) => [r.region as string, r]));
  return {
    revenue: REGIONS.map((region) => ({
      region,
      revenue: Number(m.get(region)?.revenue ?? 0),
      correct: Number(m.get(region)?.correct ?? 0),
      orders: Number(m.get(region)?.orders ?? 0),
    })),
    rows: counts.rows[0].rows,
    distinctOrders: counts.rows[0].distinct_orders,
  };
}

function duplicatesOf(total: number, audit: Pick<SinkAudit, 'batches'> | null): DemoJobStatus['duplicates'] {
  if (!audit) return { total, byBatch: null, notCommitted: 0 };
  const byBatch = audit.batches.filter((b) => b.duplicates > 0).map((b) => ({ batchId: b.batchId, rows: b.duplicates }));
  return { total, byBatch, notCommitted: total - byBatch.reduce((n, b) => n + b.rows, 0) };
}

/** What the demo page shows: each job's revenue per region, its audit and drills. */
export async function demoStatus(db: PrismaClient, c: DemoConfig): Promise<{ ready: boolean; jobs: DemoJobStatus[] }> {
  const jobs = await db.job.findMany({ where: { name: { in: DEMO_JOBS.map((j) => j.name) } } });
  if (jobs.length === 0) return { ready: false, jobs: [] };
  const client = new pg.Client({ connectionString: demoWarehouseUrl(c) });
  await client.connect();
  try {
    const out: DemoJobStatus[] = [];
    for (const def of DEMO_JOBS) {
      const job = jobs.find((j) => j.name === def.name);
      if (!job) continue;
      const r = await revenueOf(client, def.table);
      const drills = await db.drill.findMany({ where: { jobId: job.id }, orderBy: { requestedAt: 'desc' }, take: 10 });
      let audit = null;
      let diagnosis: DuplicateDiagnosis | null = null;
      try {
        diagnosis = await diagnoseDuplicates(db, job.id, c.checkpointRoot ?? '');
        audit = diagnosis.audit ? { sinkType: diagnosis.sinkType, readable: diagnosis.readable, perBatch: diagnosis.perBatch, note: diagnosis.note, guarantee: job.guarantee, ...diagnosis.audit } : null;
      } catch {
        audit = null;
      }
      const recovered = drills.find((d) => d.status === 'RECOVERED' && d.audit);
      const drillAudit = recovered?.audit as { duplicateRows?: number; batches?: { batchId: number; duplicates: number }[] } | undefined;
      out.push({
        id: job.id,
        name: job.name,
        mode: def.mode,
        status: job.status,
        guarantee: job.guarantee,
        lastBatchId: job.lastBatchId,
        revenue: r.revenue,
        total: r.revenue.reduce((n, x) => n + x.revenue, 0),
        rows: r.rows,
        distinctOrders: r.distinctOrders,
        duplicates: duplicatesOf(r.rows - r.distinctOrders, diagnosis?.perBatch ? diagnosis.audit : null),
        audit,
        diagnosis,
        replaySignature: recovered
          ? { drillId: recovered.id, batchId: recovered.batchId, duplicateRows: drillAudit?.duplicateRows ?? 0, doubledBatches: (drillAudit?.batches ?? []).filter((b) => b.duplicates > 0).map((b) => b.batchId) }
          : null,
        drills: drills.map((d) => ({ id: d.id, point: d.point, status: d.status, batchId: d.batchId, requestedAt: d.requestedAt.toISOString(), recoveredAt: d.recoveredAt?.toISOString() ?? null })),
        contract: job.contract,
      });
    }
    return { ready: true, jobs: out };
  } finally {
    await client.end();
  }
}

/** How long "Lose the checkpoint" waits for the running batch to commit and the job to stop. */
const STOP_WAIT_MS = 120_000;

/**
 * The demo's second incident: stop the bare-append job, reset its checkpoint (acknowledged: the
 * point is to show what that does), start it again. The new query reprocesses every order file.
 */
export async function loseDemoCheckpoint(ctx: JobServiceContext): Promise<{ jobId: string; deletedFiles: number }> {
  const def = DEMO_JOBS.find((j) => j.mode === 'bare-append')!;
  const job = await ctx.db.job.findUnique({ where: { name: def.name } });
  if (!job) throw new ConflictError('The demo is not set up; set it up first (POST /api/demo).');
  await stopJob(ctx, job.id);
  const until = Date.now() + STOP_WAIT_MS;
  for (;;) {
    const now = await ctx.db.job.findUniqueOrThrow({ where: { id: job.id } });
    if (now.status === 'STOPPED' || now.status === 'FAILED') break;
    if (Date.now() > until) {
      throw new ConflictError(`${def.name} is still ${now.status} after ${STOP_WAIT_MS / 1000} s; is a worker running (GET /api/health)? Try again once it has stopped.`, { status: now.status });
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const reset = await resetCheckpoint(ctx, job.id, def.name, { acknowledgeReprocessing: true });
  await startJob(ctx, job.id);
  return { jobId: job.id, deletedFiles: reset.deletedFiles };
}

