'use client';
/**
 * The job page's duplicate diagnosis: what the sink holds twice, and which incident put it there
 * (a replay window, a savepoint restore's announced re-emission, a checkpoint loss, or none of
 * them), with the span, the batches, the rows, the
 * recorded event that matches, and the fix each kind needs.
 */
import { useQuery } from '@tanstack/react-query';
import type { DuplicateDiagnosis } from '@/lib/server/contracts/duplicate-diagnosis';
import { apiFetch, errorMessage } from './api-client';
import { queryKeys } from './query-keys';
import { formatDateTime } from './format';
import { SinkCounts } from './sink-counts';

const VERDICT: Record<DuplicateDiagnosis['verdict'], { label: string; tone: string }> = {
  none: { label: 'no duplicates', tone: 'ok' },
  'replay-window': { label: 'replay window', tone: 'warn' },
  'savepoint-restore': { label: 'savepoint restore', tone: 'warn' },
  'checkpoint-loss': { label: 'checkpoint loss', tone: 'bad' },
  unexplained: { label: 'unexplained', tone: 'bad' },
  'not-auditable': { label: 'cannot audit per batch', tone: 'muted' },
};

const KIND_LABEL = { 'replay-window': 'Replay window', 'savepoint-restore': 'Savepoint restore', 'checkpoint-loss': 'Checkpoint loss', unexplained: 'Unexplained' } as const;


function batchList(ids: number[]): string {
  return ids.length <= 8 ? ids.join(', ') : `${ids[0]}–${ids[ids.length - 1]} (${ids.length} batches)`;
}

export function DuplicateDiagnosisView({ d }: { d: DuplicateDiagnosis }) {
  const v = VERDICT[d.verdict];
  return (
    <div data-testid="duplicate-diagnosis" data-verdict={d.verdict}>
      <p>
        Verdict: <span className={`badge ${v.tone}`}>{v.label}</span> <span data-testid="diagnosis-summary">{d.summary}</span>
      </p>
      {d.audit && (
        <p className="small muted-text">
          <SinkCounts audit={d.audit} /> {d.note}
        </p>
      )}
      {d.findings.map((f, i) => (
        <article key={i} className="panel kv-box" aria-label={`${KIND_LABEL[f.kind]} finding`}>
          <h3 style={{ marginTop: 0, fontSize: 15 }}>{KIND_LABEL[f.kind]}</h3>
          <dl className="kv">
            <dt>Batches</dt>
            <dd>{batchList(f.batches)}</dd>
            <dt>Duplicate rows</dt>
            <dd>{f.rows}</dd>
            <dt>Span (commit times)</dt>
            <dd>
              {formatDateTime(f.span.from)} → {formatDateTime(f.span.to)}
            </dd>
            {f.kind === 'checkpoint-loss' && (
              <>
                <dt>Reaches back to</dt>
                <dd>{f.reachesBackTo ? `${formatDateTime(f.reachesBackTo)} (the lost query's first run): all of its history` : 'the source’s beginning'}</dd>
              </>
            )}
            <dt>Matching event</dt>
            <dd>{f.event ? f.event.description : 'none recorded'}</dd>
            <dt>Fix</dt>
            <dd>
              {f.fix.split('`').map((part, k) => (k % 2 === 1 ? <code key={k}>{part}</code> : <span key={k}>{part}</span>))}
            </dd>
          </dl>
        </article>
      ))}
    </div>
  );
}

export function DuplicateDiagnosisPanel({ jobId }: { jobId: string }) {
  const q = useQuery({
    queryKey: queryKeys.duplicateDiagnosis(jobId),
    queryFn: ({ signal }) => apiFetch<DuplicateDiagnosis>(`/api/jobs/${jobId}/duplicate-diagnosis`, { signal }),
    refetchInterval: 10_000,
  });
  return (
    <section className="panel" aria-label="Duplicate diagnosis">
      <h2 style={{ marginTop: 0, fontSize: 16 }}>Duplicate diagnosis</h2>
      <p className="subtitle">
        Duplicates have two causes with the same symptom: a replayed batch (one batch id, minutes around a crash; fix the sink) or a lost checkpoint (every batch the source still held; fix the
        deploy process). The sink is read back and matched against recoveries, the audit log and the query ids.
      </p>
      <button type="button" onClick={() => void q.refetch()} disabled={q.isFetching}>
        {q.isFetching ? 'Reading the sink…' : 'Diagnose again'}
      </button>
      {q.isLoading && <p role="status">Reading the sink…</p>}
      {q.error && (
        <p className="error-box" role="alert">
          {errorMessage(q.error)}
        </p>
      )}
      {q.data && <DuplicateDiagnosisView d={q.data} />}
    </section>
  );
}
