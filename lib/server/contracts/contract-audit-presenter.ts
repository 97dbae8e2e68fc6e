/**
 * The fleet's contract audit (/audit/contracts, GET /api/contracts): every job with its
 * guarantee, the signatures it is missing and why, its sink's mode, how many rows its next
 * replay would write twice, when it last restarted, and the fix.
 *
 * "Rows a replay would double" is what one batch writes: a replay re-runs exactly one batch (the
 * pending one), so the median and the largest output of the recent batches bound it. They come
 * from the batch history in one set-based query (a LATERAL over each job's newest batches, on the
 * (jobId, batchId DESC) index), never one query per job.
 */
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import type { CONTRACT_SORT_KEYS } from '../http/api-schemas';
import { contractOf, missingSignatures, primaryFix, sinkModeOf, type MissingSignature } from './contract-fixes';

/** How many of a job's newest batches the replay figures are taken over. */
const RECENT_BATCHES = 100;

export type ContractSortKey = (typeof CONTRACT_SORT_KEYS)[number];

export interface ContractRow {
  jobId: string;
  name: string;
  status: string;
  guarantee: string;
  sourceType: string;
  sinkType: string;
  sinkMode: string;
  /** Whether the checkpoint outlives the machine (shared volume or s3://). */
  survivesMachineLoss: boolean;
  missing: MissingSignature[];
  /** Batches the replay figures are over (at most RECENT_BATCHES). */
  recentBatches: number;
  /** Median output rows of the recent batches: what a typical replay writes twice on an at-least-once sink. */
  medianRows: number | null;
  maxRows: number | null;
  /** Rows a replay would write twice: the largest recent batch on an at-least-once sink, else 0. */
  replayWouldDouble: number;
  /** The newest run that was not the job's first: a start from its checkpoint. */
  lastRestartAt: string | null;
  /**
   * restart (a start or restart someone asked for), recovery (after a crash or a lost worker) or
   * retry (the restart policy). Never the job's first start: that is no restart.
   */
  lastRestartKind: 'restart' | 'recovery' | 'retry' | null;
  fix: string;
}

export interface ContractQuery {
  sort?: ContractSortKey;
  dir?: 'asc' | 'desc';
  guarantee?: string;
  sinkType?: string;
  /** Part of the job's name. */
  q?: string;
}

interface StatsRow {
  jobId: string;
  batches: bigint | number;
  median: number | null;
  max: bigint | number | null;
  runs: bigint | number;
  lastStart: Date | null;
  lastRecovered: boolean | null;
  lastAttempt: number | null;
}

/** Replay figures and the last restart of every job, in one query. */
async function fleetStats(db: PrismaClient): Promise<Map<string, StatsRow>> {
  const rows = await db.$queryRaw<StatsRow[]>(Prisma.sql`
    SELECT j.id AS "jobId", b.batches, b.median, b.max, r.runs, r.last_start AS "lastStart", r.last_recovered AS "lastRecovered", r.last_attempt AS "lastAttempt"
      FROM "Job" j
      CROSS JOIN LATERAL (
        SELECT count(*) AS batches,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY n) AS median,
               max(n) AS max
          FROM (SELECT GREATEST(0, COALESCE((bp.progress->'sink'->>'numOutputRows')::bigint, 0)) AS n
                  FROM "BatchProgress" bp WHERE bp."jobId" = j.id AND NOT bp.progress ? 'reconstructed'
                 ORDER BY bp."batchId" DESC LIMIT ${RECENT_BATCHES}) recent
      ) b
      CROSS JOIN LATERAL (
        SELECT (SELECT count(*) FROM "Run" x WHERE x."jobId" = j.id) AS runs,
               lr."startedAt" AS last_start,
               (lr."recoveredFromRunId" IS NOT NULL OR lr.status = 'RECOVERING') AS last_recovered,
               lr.attempt AS last_attempt
          FROM (SELECT 1) one
          LEFT JOIN LATERAL (SELECT * FROM "Run" x WHERE x."jobId" = j.id ORDER BY x."startedAt" DESC LIMIT 1) lr ON true
      ) r`);
  return new Map(rows.map((r) => [r.jobId, r]));
}

const num = (v: bigint | number | null | undefined) => (v === null || v === undefined ? null : Number(v));

function compare(a: ContractRow, b: ContractRow, key: ContractSortKey): number {
  const x = a[key];
  const y = b[key];
  // An unknown figure (no batch yet, never restarted) sorts as the smallest.
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
}

/** Most at risk first by default: guarantee (at-least-once, at-most-once, exactly-once), then rows a replay doubles. */
const GUARANTEE_RISK: Record<string, number> = { 'at-least-once': 0, 'at-most-once': 1, 'exactly-once': 2, unknown: 3 };

export async function listContracts(db: PrismaClient, query: ContractQuery = {}): Promise<{ items: ContractRow[]; counts: Record<string, number>; recentBatches: number }> {
  const [jobs, stats] = await Promise.all([
    db.job.findMany({ select: { id: true, name: true, status: true, guarantee: true, sourceType: true, sinkType: true, spec: true, contract: true } }),
    fleetStats(db),
  ]);
  const all: ContractRow[] = jobs.map((j) => {
    const spec = (j.spec ?? {}) as Record<string, unknown>;
    const contract = contractOf(j.contract);
    const s = stats.get(j.id);
    const missing = missingSignatures(contract, j.sinkType, spec);
    const guarantee = contract?.guarantee ?? j.guarantee ?? 'unknown';
    const maxRows = num(s?.max);
    const runs = num(s?.runs) ?? 0;
    return {
      jobId: j.id,
      name: j.name,
      status: j.status,
      guarantee,
      sourceType: j.sourceType,
      sinkType: j.sinkType,
      sinkMode: sinkModeOf(spec, contract),
      survivesMachineLoss: contract?.survivesMachineLoss ?? false,
      missing,
      recentBatches: num(s?.batches) ?? 0,
      medianRows: s?.median === null || s?.median === undefined ? null : Number(s.median),
      maxRows,
      replayWouldDouble: contract && !contract.sink.ok ? (maxRows ?? 0) : 0,
      lastRestartAt: runs > 1 && s?.lastStart ? s.lastStart.toISOString() : null,
      lastRestartKind: runs > 1 && s?.lastStart ? (s.lastRecovered ? 'recovery' : (s.lastAttempt ?? 0) > 0 ? 'retry' : 'restart') : null,
      fix: primaryFix(missing),
    };
  });
  const counts: Record<string, number> = { total: all.length, 'exactly-once': 0, 'at-least-once': 0, 'at-most-once': 0 };
  for (const r of all) counts[r.guarantee] = (counts[r.guarantee] ?? 0) + 1;
  const q = query.q?.toLowerCase();
  const items = all.filter(
    (r) => (!query.guarantee || r.guarantee === query.guarantee) && (!query.sinkType || r.sinkType === query.sinkType) && (!q || r.name.toLowerCase().includes(q)),
  );
  if (query.sort) {
    const sign = query.dir === 'desc' ? -1 : 1;
    items.sort((a, b) => sign * compare(a, b, query.sort!) || a.name.localeCompare(b.name));
  } else {
    items.sort((a, b) => (GUARANTEE_RISK[a.guarantee] ?? 3) - (GUARANTEE_RISK[b.guarantee] ?? 3) || b.replayWouldDouble - a.replayWouldDouble || a.name.localeCompare(b.name));
  }
  return { items, counts, recentBatches: RECENT_BATCHES };
}

/** How many jobs are at-least-once (the navigation's count), without reading specs. */
export async function countAtLeastOnce(db: PrismaClient): Promise<number> {
  return db.job.count({ where: { guarantee: 'at-least-once' } });
}

const CSV_COLUMNS: [string, (r: ContractRow) => string | number | null][] = [
  ['job', (r) => r.name],
  ['job_id', (r) => r.jobId],
  ['status', (r) => r.status],
  ['guarantee', (r) => r.guarantee],
  ['source', (r) => r.sourceType],
  ['sink', (r) => r.sinkType],
  ['sink_mode', (r) => r.sinkMode],
  ['missing_signatures', (r) => r.missing.map((m) => `${m.signature}: ${m.label}`).join('; ')],
  ['reasons', (r) => r.missing.map((m) => m.reason).join(' | ')],
  ['recent_batches', (r) => r.recentBatches],
  ['median_rows_per_batch', (r) => r.medianRows],
  ['max_rows_per_batch', (r) => r.maxRows],
  ['replay_would_double', (r) => r.replayWouldDouble],
  ['last_restart_at', (r) => r.lastRestartAt],
  ['last_restart_kind', (r) => r.lastRestartKind],
  ['fix', (r) => r.fix],
];

/**
 * RFC 4180: every field quoted, quotes doubled. A field that a spreadsheet would run as a
 * formula (starting with =, +, -, @, tab or CR) gets a leading apostrophe: job names are
 * user input, and a CSV export is opened in spreadsheets.
 */
export function csvField(v: string | number | null): string {
  let s = v === null ? '' : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
}

export function contractsCsv(rows: ContractRow[]): string {
  const lines = [CSV_COLUMNS.map(([h]) => h).join(','), ...rows.map((r) => CSV_COLUMNS.map(([, f]) => csvField(f(r))).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
