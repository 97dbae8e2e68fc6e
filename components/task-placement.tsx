'use client';
/**
 * The job's parallelism and where its recent reduce tasks ran: per worker, tasks, batches, rows
 * and time over the newest batches (GET /api/jobs/:id/tasks). Each batch's own tasks are on its
 * page in the batch table.
 */
import { useQuery } from '@tanstack/react-query';
import type { TaskPlacement } from '@/lib/server/presenters/task-placement-presenter';
import { apiFetch, errorMessage } from './api-client';
import { formatDuration, formatNumber } from './format';
import { queryKeys } from './query-keys';
import { TableScroll } from './table-scroll';

export function TaskPlacementPanel({ jobId, live }: { jobId: string; live: boolean }) {
  const q = useQuery({
    queryKey: queryKeys.tasks(jobId),
    queryFn: ({ signal }) => apiFetch<TaskPlacement>(`/api/jobs/${jobId}/tasks`, { signal }),
    refetchInterval: live ? 5000 : false,
  });
  const p = q.data;
  return (
    <section className="panel" aria-label="Where tasks ran">
      <h2>Where tasks ran</h2>
      {q.isError && <div className="error-box" role="alert">Could not load the tasks: {errorMessage(q.error)}</div>}
      {p && (
        <>
          <p className="small" data-testid="task-placement-summary">
            Parallelism {p.parallelism}: each stateful operator keeps its state in {p.parallelism} partition{p.parallelism === 1 ? '' : 's'}, one reduce task each per batch.{' '}
            {p.batches === 0
              ? 'No batch is committed yet.'
              : `Over the last ${p.batches} batch${p.batches === 1 ? '' : 'es'} (${p.fromBatchId}–${p.toBatchId}), ${p.batchesWithTasks} ran reduce tasks on workers.`}
            {p.batches > 0 && p.batchesWithTasks < p.batches && ' The others ran whole in their run\u2019s own process (parallelism 1, or WEIR_TASK_SCHEDULER=local).'}
          </p>
          {p.workers.length > 0 && (
            <TableScroll label="Tasks per worker">
              <table className="data compact" aria-label="Tasks per worker">
                <thead>
                  <tr>
                    <th>Worker</th>
                    <th className="num">Tasks</th>
                    <th className="num">Batches</th>
                    <th className="num">Input rows</th>
                    <th className="num">Output rows</th>
                    <th className="num">Task time</th>
                    <th className="num">Retries</th>
                  </tr>
                </thead>
                <tbody>
                  {p.workers.map((w) => (
                    <tr key={w.workerId}>
                      <td>{w.workerId}</td>
                      <td className="num">{formatNumber(w.tasks, 0)}</td>
                      <td className="num">{formatNumber(w.batches, 0)}</td>
                      <td className="num">{formatNumber(w.inputRows, 0)}</td>
                      <td className="num">{formatNumber(w.rows, 0)}</td>
                      <td className="num">{formatDuration(w.durationMs)}</td>
                      <td className="num">{formatNumber(w.retries, 0)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )}
        </>
      )}
    </section>
  );
}
