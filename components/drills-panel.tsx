'use client';
/**
 * The job page's Drills tab: run an incident drill (operators) and read each drill's timeline:
 * requested → armed → crashed in batch N (the pending batch) → recovered by a new run that
 * re-ran it → the sink's duplicate audit, next to the job's computed guarantee.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SinkAudit } from '@/lib/server/drills/sink-audit';
import { apiFetch, errorMessage } from './api-client';
import { roleAllows, useMe } from './use-me';
import { actorName } from '@/lib/server/actor';
import { formatClock } from './format';
import { SinkCounts } from './sink-counts';

interface DrillView {
  id: string;
  point: string;
  status: string;
  requestedBy: string;
  batchId: number | null;
  crashedRunId: string | null;
  recoveryRunId: string | null;
  audit: (SinkAudit & { guarantee: string | null }) | null;
  error: string | null;
  requestedAt: string;
  crashedAt: string | null;
  recoveredAt: string | null;
}

const POINTS = [
  { value: 'after-sink', label: 'after the sink write, before the commit (the duplicate window)' },
  { value: 'after-offsets', label: 'after offsets/N is written' },
  { value: 'after-commit', label: 'after commits/N is written' },
  { value: 'kill-worker', label: 'kill the whole worker process (SIGKILL)' },
];

const time = (iso: string | null) => (iso ? formatClock(iso) : null);

function Timeline({ d }: { d: DrillView }) {
  const steps = [
    { label: `requested by ${actorName(d.requestedBy)}`, at: time(d.requestedAt), done: true },
    { label: d.point === 'kill-worker' ? 'worker killed' : `crashed at ${d.point}${d.batchId !== null ? `: batch ${d.batchId} pending` : ''}`, at: time(d.crashedAt), done: !!d.crashedAt },
    {
      label: d.point === 'after-offsets' || d.point === 'after-sink' ? `recovered: batch ${d.batchId ?? '?'} re-ran from the checkpoint` : 'recovered: a new run resumed from the checkpoint',
      at: time(d.recoveredAt),
      done: d.status === 'RECOVERED',
    },
  ];
  return (
    <ol aria-label={`Drill ${d.point} timeline`} style={{ margin: '8px 0', paddingLeft: 20 }}>
      {steps.map((s) => (
        <li key={s.label} style={{ color: s.done ? undefined : 'var(--muted)' }}>
          {s.label}
          {s.at ? ` — ${s.at}` : s.done ? '' : ' (waiting)'}
        </li>
      ))}
    </ol>
  );
}

function AuditView({ audit }: { audit: DrillView['audit'] }) {
  if (!audit) return null;
  const doubled = audit.batches.filter((b) => b.duplicates > 0);
  return (
    <div data-testid="drill-audit">
      <p>
        Duplicate audit ({audit.sinkType}, guarantee <strong>{audit.guarantee ?? 'unknown'}</strong>): <SinkCounts audit={audit} />
        {doubled.length > 0 && <> The duplicates are from the replay of batch {doubled.map((b) => `${b.batchId} (+${b.duplicates})`).join(', ')}.</>}
      </p>
      <p className="subtitle">{audit.note}</p>
    </div>
  );
}

export function DrillsPanel({ jobId, status }: { jobId: string; status: string }) {
  const { data: me } = useMe();
  const qc = useQueryClient();
  const [point, setPoint] = useState('after-sink');
  const key = ['jobs', jobId, 'drills'] as const;
  const drills = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => apiFetch<{ items: DrillView[] }>(`/api/jobs/${jobId}/drills`, { signal }),
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status !== 'RECOVERED' && d.status !== 'FAILED') ? 1000 : 5000),
  });
  const start = useMutation({
    mutationFn: () => apiFetch(`/api/jobs/${jobId}/drills`, { method: 'POST', body: { point } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['jobs', jobId] }),
  });
  const active = drills.data?.items.some((d) => d.status !== 'RECOVERED' && d.status !== 'FAILED');
  return (
    <section className="panel" aria-label="Drills">
      <h2 style={{ marginTop: 0, fontSize: 16 }}>Incident drills</h2>
      <p className="subtitle">Crash this job&apos;s run on purpose at a chosen point of the next batch (before or after the sink write), let the recovery run replay it, and see whether the sink still holds each row once.</p>
      {roleAllows(me?.role, 'operator') ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            start.mutate();
          }}
          style={{ display: 'flex', gap: 8, alignItems: 'center', flexWrap: 'wrap' }}
        >
          <label htmlFor="drill-point">Crash point</label>
          <select id="drill-point" value={point} onChange={(e) => setPoint(e.target.value)}>
            {POINTS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
          <button type="submit" className="primary" disabled={status !== 'RUNNING' || !!active || start.isPending}>
            Run drill
          </button>
          {status !== 'RUNNING' && <span className="subtitle">The job must be RUNNING.</span>}
        </form>
      ) : (
        <p className="subtitle">Operators and admins can run drills.</p>
      )}
      {start.error && (
        <p className="error-box" role="alert">
          {errorMessage(start.error)}
        </p>
      )}
      {drills.isLoading && <p role="status">Loading drills…</p>}
      {drills.error && <p className="error-box" role="alert">{errorMessage(drills.error)}</p>}
      {drills.data?.items.length === 0 && <p className="empty">No drills yet.</p>}
      {drills.data?.items.map((d) => (
        <article key={d.id} className="panel" aria-label={`Drill ${d.point}`} data-testid="drill">
          <strong>{d.point}</strong> <span className={`badge ${d.status === 'RECOVERED' ? 'ok' : d.status === 'FAILED' ? 'bad' : 'warn'}`}>{d.status}</span>
          <Timeline d={d} />
          <AuditView audit={d.audit} />
          {d.error && <p className="error-box">{d.error}</p>}
        </article>
      ))}
    </section>
  );
}
