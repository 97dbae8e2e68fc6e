import { pgPool } from '@/lib/server/db';
import { jobsQuerySchema } from '@/lib/server/http/api-schemas';
import { listJobPage, type JobPage } from '@/lib/server/presenters/job-page-presenter';
import { JobsTable } from '@/components/jobs-table';
import type { JobsListParams } from '@/components/jobs-list-url';
import { requirePagePrincipal } from '@/lib/server/http/page-auth';

// Reads the database on every request; nothing here is built ahead of time.
export const dynamic = 'force-dynamic';

/** Rows per page of the jobs list: a page renders at once, a thousand jobs would not. */
const PAGE_SIZE = 50;

export default async function JobsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requirePagePrincipal('/');
  const raw = Object.fromEntries(Object.entries(await searchParams).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])));
  // A hand-edited URL with a bad value shows the first page of everything, saying why.
  const parsed = jobsQuerySchema.safeParse({ ...raw, limit: String(PAGE_SIZE) });
  const query = parsed.success ? parsed.data : jobsQuerySchema.parse({ limit: String(PAGE_SIZE) });
  const params: JobsListParams = parsed.success
    ? { q: query.q, status: query.status, guarantee: query.guarantee, firing: query.firing === undefined ? undefined : query.firing ? 'true' : 'false', sort: query.sort, dir: query.dir, cursor: query.cursor }
    : {};
  let page: JobPage | null = null;
  let error: string | null = null;
  try {
    page = await listJobPage(pgPool(), query);
  } catch (e) {
    error = (e as Error).message;
  }
  const filtered = Boolean(params.q || params.status || params.guarantee || params.firing || params.cursor);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Jobs</h1>
          <p className="subtitle">Streaming queries, their status, and the guarantee each one actually has.</p>
        </div>
        <a className="button primary" href="/jobs/new">
          New job
        </a>
      </div>
      {!parsed.success ? (
        <div className="error-box" role="alert">
          The address has a filter this page does not know ({parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}); showing all jobs.
        </div>
      ) : null}
      {error || !page ? (
        <div className="error-box" role="alert">
          Could not load jobs from the database: {error}. Check <a href="/api/health">/api/health</a>.
        </div>
      ) : page.totals.all === 0 && !filtered ? (
        <div className="panel empty">
          <h2>No jobs yet</h2>
          <p>A job is a SQL query over a replayable source, written to a sink, with an output mode and a trigger.</p>
          <p>
            Write one in the <a href="/jobs/new">job editor</a>, create one with the API (<code>POST /api/jobs</code> with a job spec), or try a spec
            locally first with <code>npm run weir -- validate job.json</code> and <code>npm run weir -- run job.json</code>.
          </p>
          <p>
            Or see what Weir is for: <a className="button primary" href="/demo">Try the demo</a> — two jobs over one orders source, one
            writing with a bare append and one transactionally, and a drill that crashes each between the sink write and the commit.
          </p>
        </div>
      ) : (
        <JobsTable page={page} params={params} now={Date.now()} />
      )}
    </>
  );
}
