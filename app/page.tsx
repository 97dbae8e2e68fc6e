import { prisma } from '@/lib/server/db';
import { jobOverviews, type JobOverview } from '@/lib/server/presenters/job-overview-presenter';
import { JobsTable } from '@/components/jobs-table';
import { requirePagePrincipal } from '@/lib/server/http/page-auth';

// Reads the database on every request; nothing here is built ahead of time.
export const dynamic = 'force-dynamic';

export default async function JobsPage() {
  await requirePagePrincipal('/');
  let jobs: JobOverview[] = [];
  let error: string | null = null;
  try {
    jobs = await jobOverviews(prisma());
  } catch (e) {
    error = (e as Error).message;
  }
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
      {error ? (
        <div className="error-box" role="alert">
          Could not load jobs from the database: {error}. Check <a href="/api/health">/api/health</a>.
        </div>
      ) : jobs.length === 0 ? (
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
        <JobsTable initial={jobs} now={Date.now()} />
      )}
    </>
  );
}
