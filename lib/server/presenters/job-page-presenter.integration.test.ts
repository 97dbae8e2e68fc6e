/**
 * The jobs list at platform scale, on a real PostgreSQL database of this test's own: 1,000 jobs,
 * some with batches, some with firing alerts. Paging through every page of any filter and sort
 * yields exactly what a plain in-memory filter and sort of the same rows yields (a differential
 * property test), and a page is one statement whatever its size: the figures are read inside
 * the page's own query, never with a statement per job.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { GUARANTEES, JOB_SORT_KEYS, jobsQuerySchema, type JobsQuery } from '../http/api-schemas';
import { JOB_STATUSES, type JobStatus } from '../job-lifecycle';
import { createTestDatabase, type TestDatabase } from '../testing/database';
import { listJobPage } from './job-page-presenter';

const N = 1000;
const BATCHES_PER_JOB = 3;

let database: TestDatabase;
let db: PrismaClient;
/** SQL statements the client sent since the last reset (Prisma's query events). */
let statements: string[] = [];

interface RefJob {
  id: string;
  name: string;
  description: string | null;
  status: JobStatus;
  guarantee: string | null;
  lastCommittedAt: Date | null;
  updatedAt: Date;
  createdAt: Date;
  firing: boolean;
}
let ref: RefJob[] = [];

beforeAll(async () => {
  database = await createTestDatabase('weir_job_page');
  const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }), log: [{ emit: 'event' as const, level: 'query' as const }] });
  client.$on('query', (e) => statements.push(e.query));
  db = client as unknown as PrismaClient;
  const t0 = Date.UTC(2026, 11, 1, 9, 0, 0);
  // Seeded variety: statuses, guarantees, descriptions and commit times repeat, so ties and nulls
  // are common and the id tiebreaker is exercised.
  const data = Array.from({ length: N }, (_, i) => ({
    name: `job${String((i * 7919) % N).padStart(4, '0')}${['', '_x', '%y'][i % 3]}`,
    description: i % 4 === 0 ? null : `team ${['ads', 'billing', 'search'][i % 3]} ${i % 5 === 0 ? '100%_sure' : ''}`,
    status: JOB_STATUSES[i % JOB_STATUSES.length],
    guarantee: i % 6 === 0 ? null : GUARANTEES[i % 3],
    lastCommittedAt: i % 5 === 0 ? null : new Date(t0 + (i % 40) * 1000),
    createdAt: new Date(t0 - (i % 17) * 60_000),
    spec: {},
    sql: 'SELECT 1',
    sourceType: 'files',
    sinkType: 'files',
    outputMode: 'append',
    trigger: {},
    checkpointLocation: `/tmp/cp-${i}`,
  }));
  await db.job.createMany({ data });
  const jobs = await db.job.findMany();
  const firingIds = new Set(jobs.filter((_, k) => k % 9 === 0).map((j) => j.id));
  await db.alert.createMany({
    data: [
      ...[...firingIds].map((jobId) => ({ jobId, kind: 'commit-lag', state: 'FIRING' as const, dedupKey: `f-${jobId}`, message: 'lag' })),
      // Resolved alerts do not count as firing.
      ...jobs.filter((_, k) => k % 10 === 1).map((j) => ({ jobId: j.id, kind: 'commit-lag', state: 'RESOLVED' as const, dedupKey: `r-${j.id}`, message: 'was' })),
    ],
  });
  await db.batchProgress.createMany({
    data: jobs.flatMap((j, k) =>
      k % 2 === 0
        ? Array.from({ length: BATCHES_PER_JOB }, (_, b) => ({
            jobId: j.id,
            batchId: b,
            timestamp: new Date(t0 + b * 1000),
            numInputRows: 10,
            inputRowsPerSecond: 1,
            processedRowsPerSecond: 1,
            batchDurationMs: 5,
            durationMs: {},
            stateRowsTotal: BigInt(k + b),
            progress: {},
          }))
        : [],
    ),
  });
  ref = jobs.map((j) => ({
    id: j.id,
    name: j.name,
    description: j.description,
    status: j.status as JobStatus,
    guarantee: j.guarantee,
    lastCommittedAt: j.lastCommittedAt,
    updatedAt: j.updatedAt,
    createdAt: j.createdAt,
    firing: firingIds.has(j.id),
  }));
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

/** The same filter and sort, over plain objects: what every page together must equal. */
function reference(q: JobsQuery): string[] {
  const needle = q.q?.trim().toLowerCase();
  const rows = ref.filter(
    (j) =>
      (!needle || j.name.toLowerCase().includes(needle) || (j.description ?? '').toLowerCase().includes(needle)) &&
      (!q.status || j.status === q.status) &&
      (!q.guarantee || j.guarantee === q.guarantee) &&
      (q.firing === undefined || j.firing === q.firing),
  );
  const key = (j: RefJob): string | number | null => {
    const v = j[q.sort];
    return v instanceof Date ? v.getTime() : v;
  };
  const sign = q.dir === 'asc' ? 1 : -1;
  return rows
    .sort((a, b) => {
      const va = key(a);
      const vb = key(b);
      if (va === null || vb === null) {
        if (va !== vb) return va === null ? 1 : -1;
      } else if (va !== vb) return sign * (va < vb ? -1 : 1);
      return sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    })
    .map((j) => j.id);
}

/** Every page in turn, through the pg pool as the API reads them (prepared statements, no Prisma). */
async function allPages(raw: Record<string, string>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await listJobPage(database.pool, jobsQuerySchema.parse({ ...raw, ...(cursor ? { cursor } : {}) }));
    ids.push(...page.items.map((j) => j.id));
    cursor = page.nextCursor;
    pages++;
    expect(pages).toBeLessThanOrEqual(N + 1);
  } while (cursor);
  return { ids, pages };
}

describe('listJobPage over 1,000 jobs', () => {
  it('pages through any filter and sort exactly as a plain filter and sort of the same rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          sort: fc.constantFrom(...JOB_SORT_KEYS),
          dir: fc.constantFrom('asc' as const, 'desc' as const),
          limit: fc.constantFrom('97', '250', '500'),
          q: fc.option(fc.constantFrom('job01', 'BILLING', '%', '_', '100%_', 'x', 'nothing-matches'), { nil: undefined }),
          status: fc.option(fc.constantFrom(...JOB_STATUSES), { nil: undefined }),
          guarantee: fc.option(fc.constantFrom(...GUARANTEES), { nil: undefined }),
          firing: fc.option(fc.constantFrom('true', 'false'), { nil: undefined }),
        }),
        async (r) => {
          const raw = Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as Record<string, string>;
          const query = jobsQuerySchema.parse(raw);
          const { ids } = await allPages(raw);
          expect(ids).toEqual(reference(query));
          // Through Prisma, the same first page.
          const now = Date.now();
          const first = await listJobPage(db, query, now);
          expect(first.matching).toBe(ids.length);
          expect(first).toEqual(await listJobPage(database.pool, query, now));
        },
      ),
      { numRuns: 25, seed: 1401 },
    );
  }, 300_000);

  it('totals per status count the whole filter but the status, so every status tab shows its number', async () => {
    const page = await listJobPage(db, jobsQuerySchema.parse({ limit: '10', status: 'FAILED', guarantee: 'exactly-once' }));
    const expected = Object.fromEntries(JOB_STATUSES.map((s) => [s, ref.filter((j) => j.status === s && j.guarantee === 'exactly-once').length]));
    expect(page.totals.byStatus).toEqual(expected);
    expect(page.totals.all).toBe(ref.filter((j) => j.guarantee === 'exactly-once').length);
    expect(page.matching).toBe(expected.FAILED);
    expect(page.items.every((j) => j.status === 'FAILED' && j.guarantee === 'exactly-once')).toBe(true);
  }, 60_000);

  it('a page is one statement whatever its size, none per job', async () => {
    for (const limit of ['10', '50', '500']) {
      statements = [];
      const page = await listJobPage(db, jobsQuerySchema.parse({ limit }));
      expect(page.items).toHaveLength(Number(limit));
      const sent = statements.filter((s) => !/^(BEGIN|COMMIT|ROLLBACK|DEALLOCATE)/i.test(s.trim()));
      // The page's rows with their figures (latest batches, input-rate window, firing alerts) and the totals per status.
      expect(sent, sent.join('\n---\n')).toHaveLength(1);
    }
    // Figures on the rows: jobs with batches show the latest; the firing alerts are there.
    const page = await listJobPage(db, jobsQuerySchema.parse({ limit: '500', firing: 'true' }));
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((j) => j.firingAlerts.length === 1)).toBe(true);
    // Half the jobs have batches: their sparkline holds all of them, the others' is empty.
    const all = (await listJobPage(db, jobsQuerySchema.parse({ limit: '500' }))).items;
    expect(all.filter((j) => j.stateRowsSparkline.length === BATCHES_PER_JOB).length + all.filter((j) => j.stateRowsSparkline.length === 0).length).toBe(500);
    expect(all.filter((j) => j.stateRowsSparkline.length === BATCHES_PER_JOB).length).toBeGreaterThan(100);
  }, 60_000);

  it('a connection plans the page once and reuses the plan, whatever the time of the request', async () => {
    // One connection, so every execution meets the same prepared statement.
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      // Statistics as autovacuum keeps them: the planner's estimates are what it weighs.
      await pool.query('ANALYZE');
      for (const limit of ['50', '7']) {
        const query = jobsQuerySchema.parse({ limit });
        for (let i = 0; i < 8; i++) expect((await listJobPage(pool, query, Date.now() + i)).items).toHaveLength(Number(limit));
      }
      const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>(
        `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%WITH top AS MATERIALIZED%' ORDER BY prepare_time`,
      );
      // A statement per page size; PostgreSQL tries five custom plans, then keeps the generic one.
      expect(rows).toHaveLength(2);
      for (const r of rows) expect({ generic: Number(r.generic_plans), custom: Number(r.custom_plans) }).toEqual({ generic: 3, custom: 5 });
    } finally {
      await pool.end();
    }
  }, 60_000);

  it('refuses a cursor of another sort, or one it never gave out, with a 400 that says what to do', async () => {
    const first = await listJobPage(db, jobsQuerySchema.parse({ limit: '5', sort: 'name' }));
    expect(first.nextCursor).not.toBeNull();
    await expect(listJobPage(db, jobsQuerySchema.parse({ limit: '5', sort: 'createdAt', cursor: first.nextCursor! }))).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('leave cursor out') });
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const [sort, cursor] of [
      ['name', 'garbage'],
      ['name', b64(['name', 'asc', 1, 'x'])],
      ['createdAt', b64(['createdAt', 'asc', 'not a date', 'x'])],
    ]) {
      await expect(listJobPage(db, jobsQuerySchema.parse({ limit: '5', sort, cursor }))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    }
  }, 60_000);
});
