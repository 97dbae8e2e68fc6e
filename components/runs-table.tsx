'use client';
/** A job's runs (one per start, Spark's runId), newest first, each failed one with its error. */
import { useQuery } from '@tanstack/react-query';
import type { RunView } from '@/lib/server/presenters/runs-presenter';
import { apiFetch, errorMessage } from './api-client';
import { formatDateTime, formatDuration } from './format';
import { PagerButtons, useKeysetPages } from './keyset-pager';
import { queryKeys, RUN_PAGE_SIZE } from './query-keys';
import { StatusBadge } from './status-badge';
import { TableScroll } from './table-scroll';

function RunError({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as { code?: string; message?: string; batchId?: number; details?: unknown };
  return (
    <div className="error-box" role="alert">
      <strong>{e.code ?? 'ERROR'}</strong>
      {e.batchId !== undefined ? ` in batch ${e.batchId}` : ''}: {e.message ?? JSON.stringify(error)}
      {e.details ? <pre>{JSON.stringify(e.details, null, 2)}</pre> : null}
    </div>
  );
}

export interface RunPage {
  items: RunView[];
  nextBefore: string | null;
}

/**
 * What a recovery run recovered from, naming that run by the run id the table shows (and exit
 * reasons quote): a drill's crash, or a run whose worker stopped renewing its lease. `byRunId`
 * holds this page's runs by runId.
 */
export function recoveryNote(r: Pick<RunView, 'recoveredFromRunId'>, byRunId: Map<string, Pick<RunView, 'runId' | 'exitReason'>>): string {
  if (!r.recoveredFromRunId) return '';
  const name = r.recoveredFromRunId.slice(0, 8);
  const prev = byRunId.get(r.recoveredFromRunId);
  if (!prev) return `recovers run ${name} (on an older page)`;
  const drill = /^drill: crashed at ([\w-]+) of batch (\d+)/.exec(prev.exitReason ?? '');
  if (drill) {
    const [, point, batch] = drill;
    // Before the commit the batch is pending and re-runs; after it, the next batch simply follows.
    const then = point === 'after-commit' ? `batch ${batch} had committed, so the next batch follows it` : `batch ${batch} re-runs from the checkpoint`;
    return `recovers run ${name}, which a drill crashed on purpose at ${point} of batch ${batch}: ${then}`;
  }
  if (/lost \(lease expired\)/.test(prev.exitReason ?? '')) return `took over run ${name}: its worker stopped renewing the lease`;
  return `recovers run ${name}`;
}

export function RunsTable({ jobId, live, initial }: { jobId: string; live: boolean; initial?: RunPage }) {
  const pages = useKeysetPages<string>();
  const before = pages.cursor;
  const q = useQuery({
    queryKey: queryKeys.runs(jobId, before, RUN_PAGE_SIZE),
    queryFn: ({ signal }) => apiFetch<RunPage>(`/api/jobs/${jobId}/runs?limit=${RUN_PAGE_SIZE}${before === null ? '' : `&before=${encodeURIComponent(before)}`}`, { signal }),
    initialData: before === null ? initial : undefined,
    // Only the newest page changes while the job runs.
    refetchInterval: live && before === null ? 3000 : false,
    placeholderData: (prev) => prev,
  });
  if (q.isLoading) return <p role="status">Loading runs…</p>;
  if (q.isError)
    return (
      <div className="error-box" role="alert">
        Could not load runs: {errorMessage(q.error)}
      </div>
    );
  const runs = q.data?.items ?? [];
  if (runs.length === 0)
    return (
      <div className="panel empty">
        <h2>No runs yet</h2>
        <p>Every start of the job is a run with its own run id; the checkpoint (and the query id) carries over.</p>
      </div>
    );
  const byRunId = new Map(runs.map((x) => [x.runId, x]));
  return (
    <TableScroll label="Runs">
      {/* Headers wrap, the start time wraps after its date and rows align at the top, so that a
          failed run's error gets a readable column at 1280 px instead of a sliver. */}
      <table className="data wrap-head align-top" aria-label="Runs">
        <thead>
          <tr>
            <th>Run id</th>
            <th>Status</th>
            <th>Started</th>
            <th className="num">Duration</th>
            <th>Worker</th>
            <th>Attempt</th>
            <th className="num" title="The memory its worker gives the run's engine (WEIR_RUN_MEMORY_MB): a run that needs more ends FAILED with RESOURCE_EXHAUSTED">
              Memory limit
            </th>
            <th>Exit</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id}>
              <td>
                <code>{r.runId.slice(0, 8)}</code>
                {/* Wraps: a sentence, not a column to widen the table by. */}
                {r.recoveredFromRunId && (
                  <div className="small muted-text" style={{ whiteSpace: 'normal', minWidth: '16em', maxWidth: '24em' }}>
                    {recoveryNote(r, byRunId)}
                  </div>
                )}
              </td>
              <td>
                <StatusBadge status={r.status} />
              </td>
              <td className="wrap-time">{formatDateTime(r.startedAt)}</td>
              <td className="num">{formatDuration((r.endedAt ? Date.parse(r.endedAt) : Date.now()) - Date.parse(r.startedAt))}</td>
              <td>{r.workerId ?? '–'}</td>
              <td>{r.attempt}</td>
              <td className="num">{r.memoryLimitMb === null ? '–' : `${r.memoryLimitMb} MB`}</td>
              <td style={{ whiteSpace: 'normal', minWidth: '20em', maxWidth: 520 }}>
                {/* A failed run's exit reason is its error's message: say it once, in the error box. */}
                {r.exitReason && r.exitReason === (r.error as { message?: string } | null)?.message ? null : (r.exitReason ?? (r.endedAt ? '' : 'running'))}
                <RunError error={r.error} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <PagerButtons pages={pages} next={q.data?.nextBefore} />
    </TableScroll>
  );
}
