import { prisma } from '@/lib/server/db';
import { listJobs, type JobListItem } from '@/lib/server/presenters/jobs-presenter';
import { GuaranteeBadge, StatusBadge } from '@/components/status-badge';

// Reads the database on every request; nothing here is built ahead of time.
export const dynamic = 'force-dynamic';

export default async function JobsPage() {
  let jobs: JobListItem[] = [];
  let error: string | null = null;
  try {
    jobs = await listJobs(prisma());
  } catch (e) {
    error = (e as Error).message;
  }
  return (
    <>
      <h1>Jobs</h1>
      <p className="subtitle">Streaming queries, their status, and the guarantee each one actually has.</p>
      {error ? (
        <div className="error-box" role="alert">
          Could not load jobs from the database: {error}. Check <a href="/api/health">/api/health</a>.
        </div>
      ) : jobs.length === 0 ? (
        <div className="panel empty">
          <h2>No jobs yet</h2>
          <p>A job is a SQL query over a replayable source, written to a sink, with an output mode and a trigger.</p>
          <p>
            Create one with the API (<code>POST /api/jobs</code> with a job spec), or try a spec locally first with{' '}
            <code>npx weir validate job.json</code> and <code>npx weir run job.json</code>.
          </p>
        </div>
      ) : (
        <table className="data" aria-label="Jobs">
          <thead>
            <tr>
              <th>Name</th>
              <th>Status</th>
              <th>Guarantee</th>
              <th>Source → sink</th>
              <th>Mode</th>
              <th className="num">Last batch</th>
              <th>Committed</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.id}>
                <td>
                  <a href={`/jobs/${j.id}`}>{j.name}</a>
                </td>
                <td>
                  <StatusBadge status={j.status} />
                </td>
                <td>
                  <GuaranteeBadge guarantee={j.guarantee} />
                </td>
                <td>
                  {j.sourceType} → {j.sinkType}
                </td>
                <td>{j.outputMode}</td>
                <td className="num">{j.lastBatchId ?? '–'}</td>
                <td>{j.lastCommittedAt ? new Date(j.lastCommittedAt).toLocaleString() : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
