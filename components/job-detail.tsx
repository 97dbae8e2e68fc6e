'use client';
/**
 * The job page: status and actions on top, then tabs for charts, the plan graph, batch history, runs, the
 * checkpoint inspector and the definition. While the job is active the page follows the
 * progress stream (server-sent events: each committed batch invalidates the charts and the
 * first batch page) and polls the job's status every two seconds as a fallback.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { BatchCharts as BatchChartsData } from '@/lib/server/presenters/batch-chart-presenter';
import type { JobDetail as JobDetailData } from '@/lib/server/job-view';
import { apiFetch, errorMessage } from './api-client';
import { BatchCharts } from './batch-charts';
import { BatchTable, type BatchPage } from './batch-table';
import { CheckpointInspector } from './checkpoint-inspector';
import { SavepointsPanel } from './savepoints-panel';
import { TaskPlacementPanel } from './task-placement';
import { DrillsPanel } from './drills-panel';
import { DuplicateDiagnosisPanel } from './duplicate-diagnosis-panel';
import { ContractAudit } from './contract-audit';
import { formatAgo, formatDuration } from './format';
import { JobActions } from './job-actions';
import { JobPlanPanel } from './job-plan-panel';
import { queryKeys } from './query-keys';
import { RunsTable, type RunPage } from './runs-table';
import { GuaranteeBadge, StatusBadge } from './status-badge';
import { useNow } from './use-now';
import { LIVE_STATUSES } from '@/lib/server/job-lifecycle';
import { rawSourcesOf } from '@/lib/engine/spec/spec-sources';

const TABS = ['Charts', 'Plan', 'Batches', 'Runs', 'Checkpoint', 'Drills', 'Definition'] as const;
type Tab = (typeof TABS)[number];

function describeRestartPolicy(p: unknown): string {
  const rp = p as { maxRestarts?: number; backoffMs?: number } | null;
  if (!rp?.maxRestarts) return 'None: a failed run stays FAILED until someone starts the job again.';
  return `Up to ${rp.maxRestarts} restart${rp.maxRestarts === 1 ? '' : 's'} after a failure, the first ${formatDuration(rp.backoffMs ?? 5000)} later, each next one twice as late.`;
}

function LastError({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as { code?: string; message?: string; batchId?: number };
  return (
    <div className="error-box" role="alert" style={{ marginBottom: 16 }}>
      <strong>The last run failed{e.batchId !== undefined ? ` in batch ${e.batchId}` : ''}: </strong>
      {e.code ? <code>{e.code}</code> : null} {e.message ?? JSON.stringify(error)}
    </div>
  );
}

export function JobDetail({
  initialJob,
  initialCharts,
  initialBatches,
  initialRuns,
  sourceWarnings = [],
  now,
}: {
  initialJob: JobDetailData;
  initialCharts?: BatchChartsData;
  initialBatches?: BatchPage;
  initialRuns?: RunPage;
  /** What the server found wrong with the source as the page loaded (a files source's folder missing). */
  sourceWarnings?: string[];
  now: number;
}) {
  const id = initialJob.id;
  const qc = useQueryClient();
  const [tab, setTab] = useState<Tab>('Charts');
  const clock = useNow(now);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  // Tabs as the ARIA pattern has them: one tab stop (the selected tab), arrows move between tabs,
  // Home and End go to the first and last; moving selects (automatic activation).
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>, i: number) => {
    const next = e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i - 1 + TABS.length) % TABS.length : e.key === 'Home' ? 0 : e.key === 'End' ? TABS.length - 1 : -1;
    if (next < 0) return;
    e.preventDefault();
    setTab(TABS[next]);
    tabRefs.current[next]?.focus();
  };
  const job = useQuery({
    queryKey: queryKeys.job(id),
    queryFn: ({ signal }) => apiFetch<JobDetailData>(`/api/jobs/${id}`, { signal }),
    initialData: initialJob,
    refetchInterval: (q) => (LIVE_STATUSES.includes(q.state.data?.status ?? '') ? 2000 : 10_000),
  });
  const j = job.data ?? initialJob;
  const jobSources = rawSourcesOf(j.spec).map(({ source }) => {
    const o = (source ?? {}) as { name?: unknown; type?: unknown; eventTime?: unknown; watermarkDelay?: unknown };
    // Its watermark as the spec declares it (each source's own watermark; the policy picks the global one).
    const watermark = typeof o.eventTime === 'string' ? `, watermark ${o.eventTime} − ${typeof o.watermarkDelay === 'string' ? o.watermarkDelay : '0 seconds'}` : '';
    return { name: String(o.name ?? '?'), type: String(o.type ?? '?'), watermark };
  });
  // The state partitions each keyed stateful operator runs as (Spark's spark.sql.shuffle.partitions).
  const parallelism = Number((j.spec as { parallelism?: unknown } | null)?.parallelism ?? 1);
  const live = LIVE_STATUSES.includes(j.status);

  // A run begins or ends with a change of the job's status (a restart: STOPPING, PENDING,
  // STARTING): the runs table reads it then rather than at its own next poll.
  useEffect(() => {
    void qc.invalidateQueries({ queryKey: ['jobs', id, 'runs'] });
  }, [id, j.status, qc]);

  useEffect(() => {
    if (!live || typeof EventSource === 'undefined') return;
    const es = new EventSource(`/api/jobs/${id}/progress/stream`);
    es.addEventListener('progress', () => {
      void qc.invalidateQueries({ queryKey: ['jobs', id, 'charts'] });
      void qc.invalidateQueries({ queryKey: ['jobs', id, 'batches', null] });
      void qc.invalidateQueries({ queryKey: queryKeys.tasks(id) });
    });
    // On error the browser retries by itself; polling covers the gap.
    return () => es.close();
  }, [id, live, qc]);

  return (
    <>
      <p className="small">
        <a href="/">Jobs</a> /
      </p>
      <div className="page-head">
        <div>
          <h1>{j.name}</h1>
          <p className="subtitle">
            <StatusBadge status={j.status} /> <GuaranteeBadge guarantee={j.guarantee} /> {j.sourceType} → {j.sinkType}, {j.outputMode} mode{parallelism > 1 ? ` · parallelism ${parallelism}` : ''} · desired{' '}
            {j.desiredState.toLowerCase()} · last batch {j.lastBatchId ?? '–'} committed <span data-testid="last-commit-ago">{formatAgo(j.lastCommittedAt, clock)}</span>
          </p>
          {jobSources.length > 1 && (
            <p className="small" aria-label="Sources">
              Sources, in checkpoint order:{' '}
              {jobSources.map((s, i) => (
                <span key={i}>
                  {i > 0 && ', '}
                  <code>{s.name}</code> ({s.type}
                  {s.watermark})
                </span>
              ))}
            </p>
          )}
          {j.description && <p>{j.description}</p>}
        </div>
        <JobActions job={j} detail checkpointLocation={j.checkpointLocation} />
      </div>
      {job.isError && (
        <div className="error-box" role="alert">
          Could not refresh the job: {errorMessage(job.error)}
        </div>
      )}
      {j.status === 'FAILED' && <LastError error={j.lastError} />}
      {/* A run that failed on it already says it in the error above. */}
      {sourceWarnings.length > 0 && (j.lastError as { code?: string } | null)?.code !== 'PATH_NOT_FOUND' && (
        <div className="warn-box" role="status" style={{ marginBottom: 16 }}>
          {sourceWarnings.map((w) => (
            <p key={w} style={{ margin: 0 }}>
              <strong>Input directory: </strong>
              {w}
            </p>
          ))}
        </div>
      )}
      <div className="tabs" role="tablist" aria-label="Job views">
        {TABS.map((t, i) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`tab-${t.toLowerCase()}`}
            aria-controls="job-tabpanel"
            aria-selected={tab === t}
            tabIndex={tab === t ? 0 : -1}
            ref={(el) => {
              tabRefs.current[i] = el;
            }}
            onClick={() => setTab(t)}
            onKeyDown={(e) => onTabKey(e, i)}
          >
            {t}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="job-tabpanel" aria-labelledby={`tab-${tab.toLowerCase()}`} tabIndex={0}>
        {tab === 'Charts' && <BatchCharts jobId={id} live={live} initial={initialCharts} />}
        {tab === 'Plan' && <JobPlanPanel jobId={id} live={live} sinkType={j.sinkType} sourceNames={jobSources.map((s) => s.name)} />}
        {tab === 'Batches' && (
          <>
            <TaskPlacementPanel jobId={id} live={live} />
            <BatchTable jobId={id} live={live} initial={initialBatches} sourceNames={jobSources.map((s) => s.name)} />
          </>
        )}
        {tab === 'Runs' && <RunsTable jobId={id} live={live} initial={initialRuns} />}
        {tab === 'Checkpoint' && (
          <>
            <CheckpointInspector jobId={id} lastBatchId={j.lastBatchId} />
            <SavepointsPanel job={{ id, name: j.name, status: j.status, allowedActions: j.allowedActions, stateStoreProvider: (j.spec as { stateStore?: { provider?: 'hdfs' | 'lmdb' } } | null)?.stateStore?.provider ?? 'hdfs' }} />
          </>
        )}
        {tab === 'Drills' && (
          <>
            <DrillsPanel jobId={id} status={job.data.status} />
            <DuplicateDiagnosisPanel jobId={id} />
          </>
        )}
        {tab === 'Definition' && (
          <div className="grid2">
            <section className="panel" aria-label="Definition">
              <h2>Query</h2>
              <pre className="wrap">{j.sql}</pre>
              <h2>Spec</h2>
              <p className="small muted-text">Secret options are masked.</p>
              <pre className="wrap">{JSON.stringify(j.spec, null, 2)}</pre>
              <h2>Restart policy</h2>
              <p>{describeRestartPolicy(j.restartPolicy)}</p>
            </section>
            <ContractAudit contract={j.contract} />
          </div>
        )}
      </div>
    </>
  );
}
