'use client';
/**
 * The job page's Plan tab: the job's plan as a graph (plan-graph.tsx), as Spark's SQL tab shows a
 * running query's plan, each stateful box with its state after the newest committed batch, each
 * source with its input rows and the sink with its output rows. The plan comes from
 * GET /api/jobs/:id/plan; the figures from the newest batch's progress (the first batch page,
 * which the progress stream refreshes, then that batch's detail).
 */
import { useQuery } from '@tanstack/react-query';
import type { BatchDetail } from '@/lib/server/presenters/batches-presenter';
import type { JobPlan } from '@/lib/server/presenters/job-plan-presenter';
import { apiFetch, errorMessage } from './api-client';
import type { BatchPage } from './batch-table';
import { PlanGraph } from './plan-graph';
import type { BatchFigures } from './plan-graph-figures';
import { queryKeys } from './query-keys';

export function JobPlanPanel({ jobId, live, sinkType, sourceNames }: { jobId: string; live: boolean; sinkType: string; sourceNames: readonly string[] }) {
  const plan = useQuery({ queryKey: queryKeys.plan(jobId), queryFn: ({ signal }) => apiFetch<JobPlan>(`/api/jobs/${jobId}/plan`, { signal }) });
  const newest = useQuery({
    queryKey: queryKeys.batches(jobId, null, 1),
    queryFn: ({ signal }) => apiFetch<BatchPage>(`/api/jobs/${jobId}/batches?limit=1`, { signal }),
    refetchInterval: live ? 2000 : false,
  });
  const batchId = newest.data?.items[0]?.batchId;
  const batch = useQuery({
    queryKey: queryKeys.batch(jobId, batchId ?? -1),
    queryFn: ({ signal }) => apiFetch<BatchDetail>(`/api/jobs/${jobId}/batches/${batchId}`, { signal }),
    enabled: batchId !== undefined,
  });
  const progress = batch.data?.progress as BatchFigures | undefined;
  const operators = plan.data?.operators ?? [];
  return (
    <section className="panel" aria-label="Plan">
      <h2>Plan</h2>
      {plan.isError || newest.isError || batch.isError ? (
        <div className="error-box" role="alert">
          Could not load the plan: {errorMessage(plan.error ?? newest.error ?? batch.error)}
        </div>
      ) : null}
      {plan.isLoading ? (
        <p role="status">Loading the plan…</p>
      ) : operators.length === 0 ? (
        <p className="muted-text">{plan.data?.problem ?? 'No plan to show.'}</p>
      ) : (
        <>
          <p className="small muted-text" role="status">
            {batchId === undefined
              ? 'No batch has committed yet: the figures appear on the boxes after the first.'
              : progress
                ? `Figures of batch ${batchId}, the newest committed: each stateful operator's state, each source's input rows, the sink's output rows.`
                : `Loading the figures of batch ${batchId}…`}
          </p>
          <PlanGraph operators={operators} sink={sinkType} progress={progress} sourceNames={sourceNames} />
        </>
      )}
    </section>
  );
}
