/**
 * One page of the jobs list, for the API and the jobs page alike: filtered in the database (name
 * or description substring, status, guarantee, has firing alerts), sorted by a Job column, paged
 * with a keyset cursor, with the totals per status of the filter (the status filter aside, so
 * the status tabs can show every count) and each row's figures (jobOverviewFieldsSql).
 *
 * Whatever the number of jobs, a page is one query (one round trip): the page's items as the
 * API's JSON text, built by PostgreSQL with each row's figures, and the totals. At 20 concurrent requests on 2 cores
 * the latency is mostly queueing behind other requests' CPU, so the server's CPU per request is
 * what to cut: five round trips and up to 30 batch rows per job mapped through Prisma cost about
 * 2.5-3x what this does (docs/api.md, Figures). A keyset cursor (the last row's sort value and
 * id) makes page 20 cost what page 1 does, and a job created or deleted meanwhile shifts no row
 * between pages, as an OFFSET would.
 *
 * Nulls (a job with no batch yet has no lastCommittedAt) sort last in both directions, as the
 * list always showed them: a job that never ran is not the "most recent".
 */
import { Prisma } from '@/lib/generated/prisma/client';
import { MAX_JOBS_PAGE, type JobSortColumn, type JobsQuery } from '../http/api-schemas';
import { BadRequestError } from '../errors';
import { allowedActions, JOB_STATUSES, type JobStatus } from '../job-lifecycle';
import { queryPrepared, type ReadDb } from '../prepared-query';
import { jobOverviewFieldsSql, windowRowsSql, type JobOverview } from './job-overview-presenter';

export interface JobPage {
  items: JobOverview[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
  /** Jobs matching the filter, per status (the status filter itself left out), and their sum. */
  totals: { all: number; byStatus: Record<JobStatus, number> };
  /** Jobs matching the whole filter, status included. */
  matching: number;
}

/** What a cursor holds: the sort it belongs to, and the last row's sort value and id. */
interface Cursor {
  sort: JobSortColumn;
  dir: 'asc' | 'desc';
  value: string | null;
  id: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.dir, c.value, c.id])).toString('base64url');
}

function decodeCursor(text: string, sort: JobSortColumn, dir: 'asc' | 'desc'): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    typeof parsed[0] !== 'string' ||
    typeof parsed[1] !== 'string' ||
    (parsed[2] !== null && typeof parsed[2] !== 'string') ||
    typeof parsed[3] !== 'string'
  ) {
    throw new BadRequestError('The cursor is not one this API gave out; pass the nextCursor of the previous page unchanged, or leave cursor out for the first page.', { field: 'cursor' });
  }
  const [cSort, cDir, value, id] = parsed as [string, string, string | null, string];
  if (cSort !== sort || cDir !== dir) {
    throw new BadRequestError(`The cursor belongs to sort=${cSort}&dir=${cDir}, not sort=${sort}&dir=${dir}; leave cursor out to start the new sort from its first page.`, { field: 'cursor' });
  }
  if (isTimeSort(sort) && value !== null && Number.isNaN(Date.parse(value))) {
    throw new BadRequestError('The cursor is not one this API gave out; leave cursor out for the first page.', { field: 'cursor' });
  }
  return { sort, dir, value, id };
}

function isTimeSort(sort: JobSortColumn): boolean {
  return sort === 'lastCommittedAt' || sort === 'updatedAt' || sort === 'createdAt';
}

/** The SQL of a sort column; status compares as text, so its cursor value is plain text. */
function sortExpression(sort: JobSortColumn): Prisma.Sql {
  switch (sort) {
    case 'name':
      return Prisma.sql`j."name"`;
    case 'status':
      return Prisma.sql`j."status"::text`;
    case 'lastCommittedAt':
      return Prisma.sql`j."lastCommittedAt"`;
    case 'updatedAt':
      return Prisma.sql`j."updatedAt"`;
    case 'createdAt':
      return Prisma.sql`j."createdAt"`;
  }
}

function sortValue(sort: JobSortColumn, row: LastRow): string | null {
  switch (sort) {
    case 'name':
      return row.name;
    case 'status':
      return row.status;
    case 'lastCommittedAt':
      return row.lastCommittedAt === null ? null : new Date(row.lastCommittedAt).toISOString();
    case 'updatedAt':
      return new Date(row.updatedAt).toISOString();
    case 'createdAt':
      return new Date(row.createdAt).toISOString();
  }
}

/** The cursor's value as a parameter of its column's type (timestamps are stored as UTC). */
function cursorParam(sort: JobSortColumn, value: string): Prisma.Sql {
  return isTimeSort(sort) ? Prisma.sql`${value}::timestamp` : Prisma.sql`${value}`;
}

/** Rows strictly after the cursor in (sort value, id) order, nulls last. */
function afterCursor(c: Cursor): Prisma.Sql {
  const col = sortExpression(c.sort);
  const cmp = Prisma.raw(c.dir === 'asc' ? '>' : '<');
  if (c.value === null) return Prisma.sql`(${col} IS NULL AND j.id ${cmp} ${c.id})`;
  const v = cursorParam(c.sort, c.value);
  return Prisma.sql`(${col} ${cmp} ${v} OR (${col} = ${v} AND j.id ${cmp} ${c.id}) OR ${col} IS NULL)`;
}

/** LIKE's wildcards in a user's text match themselves. */
function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function filterConditions(query: JobsQuery, withStatus: boolean): Prisma.Sql[] {
  const where: Prisma.Sql[] = [];
  const q = query.q?.trim();
  if (q) {
    const p = likePattern(q);
    where.push(Prisma.sql`(j."name" ILIKE ${p} OR j."description" ILIKE ${p})`);
  }
  if (withStatus && query.status) where.push(Prisma.sql`j."status"::text = ${query.status}`);
  if (query.guarantee) where.push(Prisma.sql`j."guarantee" = ${query.guarantee}`);
  if (query.firing !== undefined) {
    const firing = Prisma.sql`EXISTS (SELECT 1 FROM "Alert" a WHERE a."jobId" = j.id AND a."state" = 'FIRING')`;
    where.push(query.firing ? firing : Prisma.sql`NOT ${firing}`);
  }
  return where;
}

function whereClause(conditions: Prisma.Sql[]): Prisma.Sql {
  return conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
}

/** The page's last row as the query gives it, for the next cursor: times as epoch ms. */
interface LastRow {
  id: string;
  name: string;
  status: string;
  lastCommittedAt: number | null;
  updatedAt: number;
  createdAt: number;
}

/**
 * A job's allowedActions (jobs-presenter.ts) in SQL: one CASE over the statuses, written from the
 * lifecycle table (constants only, no input).
 */
const ALLOWED_ACTIONS_SQL = Prisma.raw(
  `CASE p."status" ${JOB_STATUSES.map((s) => `WHEN '${s}' THEN '${JSON.stringify(allowedActions(s))}'::json`).join(' ')} END`,
);

const epochMs = (column: string) => Prisma.raw(`(extract(epoch FROM p."${column}") * 1000)::float8`);
/** A timestamp (stored as UTC) as Date.prototype.toISOString writes it. */
const isoTime = (column: string) => Prisma.raw(`to_char(p."${column}", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * The page size, written into the statement's text rather than sent as a parameter: with
 * `LIMIT $1` PostgreSQL's generic plan assumes a tenth of the jobs are fetched, costs itself
 * above every custom plan and is never chosen, so each execution of the prepared statement was
 * planned again (about a fifth of the statement's time; docs/api.md, Figures). A literal lets
 * the plan be cached after the first executions. Only a whole number in the schema's range is
 * ever written into SQL text; the few page sizes clients use give a few texts per filter
 * (prepared-query.ts bounds how many are kept prepared).
 */
function pageLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_JOBS_PAGE) throw new BadRequestError(`limit must be a whole number from 1 to ${MAX_JOBS_PAGE}.`, { field: 'limit' });
  return limit;
}

/**
 * The page as the API's JSON text: PostgreSQL builds the items as the API shows them, so the
 * server neither parses them nor writes them again, and the statement goes to PostgreSQL without
 * Prisma, prepared (prepared-query.ts): at 20 concurrent requests on 2 cores the server's CPU
 * per request is what queues them.
 */
export async function jobPageJson(db: ReadDb, query: JobsQuery, now = Date.now()): Promise<string> {
  const cursor = query.cursor ? decodeCursor(query.cursor, query.sort, query.dir) : undefined;
  const pageWhere = filterConditions(query, true);
  if (cursor) pageWhere.push(afterCursor(cursor));
  const col = sortExpression(query.sort);
  const dir = Prisma.raw(query.dir === 'asc' ? 'ASC' : 'DESC');
  const limit = Prisma.raw(String(pageLimit(query.limit)));
  const limitPlusOne = Prisma.raw(String(pageLimit(query.limit) + 1));
  const [result] = await queryPrepared<{ items: string; last: string | null; more: boolean; totals: string }>(db, Prisma.sql`
    WITH top AS MATERIALIZED (
      SELECT j.id, j."name", j."status"::text AS "status", j."desiredState"::text AS "desiredState", j."guarantee",
             j."sourceType", j."sinkType", j."outputMode", j."lastBatchId", j."lastCommittedAt", j."updatedAt", j."createdAt"
      FROM "Job" j ${whereClause(pageWhere)}
      ORDER BY ${col} ${dir} NULLS LAST, j.id ${dir}
      LIMIT ${limitPlusOne}
    ), page AS MATERIALIZED (
      -- Numbered after the LIMIT: a window function over every matching job would sort them all,
      -- where ORDER BY … LIMIT keeps only the page's rows in a heap (half the statement's time
      -- at 1,000 jobs).
      SELECT j.*, row_number() OVER (ORDER BY ${col} ${dir} NULLS LAST, j.id ${dir}) AS ord FROM top j
    )
    SELECT
      (SELECT COALESCE(json_agg(json_build_object(
                'id', p.id, 'name', p."name", 'status', p."status", 'desiredState', p."desiredState", 'guarantee', p."guarantee",
                'sourceType', p."sourceType", 'sinkType', p."sinkType", 'outputMode', p."outputMode", 'lastBatchId', p."lastBatchId",
                'lastCommittedAt', ${isoTime('lastCommittedAt')}, 'updatedAt', ${isoTime('updatedAt')}, 'allowedActions', ${ALLOWED_ACTIONS_SQL},
                ${jobOverviewFieldsSql(Prisma.sql`p.id`, Prisma.sql`c`, Prisma.sql`w.n`, now)}
              ) ORDER BY p.ord), '[]')::text
       FROM page p LEFT JOIN "JobCounters" c ON c."jobId" = p.id LEFT JOIN LATERAL (SELECT ${windowRowsSql(Prisma.sql`c`, now)} AS n) w ON true
       WHERE p.ord <= ${limit}) AS items,
      (SELECT json_build_object('id', p.id, 'name', p."name", 'status', p."status", 'lastCommittedAt', ${epochMs('lastCommittedAt')},
                                'updatedAt', ${epochMs('updatedAt')}, 'createdAt', ${epochMs('createdAt')})
       FROM page p WHERE p.ord = ${limit})::text AS last,
      EXISTS (SELECT 1 FROM page p WHERE p.ord > ${limit}) AS more,
      -- Grouped by the enum itself, cast once per status rather than once per job (0.4 -> 0.2 ms at 1,000 jobs).
      (SELECT COALESCE(json_object_agg(t."status"::text, t.n), '{}')::text
       FROM (SELECT j."status", count(*)::int AS n FROM "Job" j ${whereClause(filterConditions(query, false))} GROUP BY 1) t) AS totals`);
  const last = result.more && result.last ? (JSON.parse(result.last) as LastRow) : undefined;
  const nextCursor = last ? encodeCursor({ sort: query.sort, dir: query.dir, value: sortValue(query.sort, last), id: last.id }) : null;
  const byStatus = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
  for (const [status, n] of Object.entries(JSON.parse(result.totals) as Record<string, number>)) byStatus[status as JobStatus] = n;
  const all = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const totals: JobPage['totals'] = { all, byStatus };
  // The key order of JobPage, as JSON.stringify of one would write it.
  return `{"items":${result.items},"nextCursor":${JSON.stringify(nextCursor)},"totals":${JSON.stringify(totals)},"matching":${query.status ? byStatus[query.status] : all}}`;
}

/** The page as an object, for the jobs page's server component. */
export async function listJobPage(db: ReadDb, query: JobsQuery, now = Date.now()): Promise<JobPage> {
  return JSON.parse(await jobPageJson(db, query, now)) as JobPage;
}
