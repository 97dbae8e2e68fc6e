'use client';
/**
 * The demo page's live panel: for each demo job, revenue per region from its sink table, the
 * duplicate audit next to the computed guarantee, and the drill that reproduces the incident.
 * The bare-append job also offers the second incident, "Lose the checkpoint", and shows the two
 * signatures side by side: the replay's one batch (kept on the drill) and the diagnosis now.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiFetch, ApiError } from './api-client';
import { roleAllows, useMe } from './use-me';
import { GuaranteeBadge, StatusBadge } from './status-badge';
import type { DemoJobStatus } from '@/lib/server/demo/demo-service';
import { DuplicateDiagnosisView } from './duplicate-diagnosis-panel';
import { formatClock } from './format';

const demoKey = ['demo'] as const;
const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: 2 });

/** Batch ids with their duplicate rows, consecutive ids with the same count as one run: "0–5 (+8 each), 20 (+8)". */
function batchRuns(items: { batchId: number; rows: number }[]): string {
  const runs: { from: number; to: number; rows: number }[] = [];
  for (const b of items) {
    const last = runs[runs.length - 1];
    if (last && last.to + 1 === b.batchId && last.rows === b.rows) last.to = b.batchId;
    else runs.push({ from: b.batchId, to: b.batchId, rows: b.rows });
  }
  return runs.map((r) => (r.from === r.to ? `${r.from} (+${r.rows})` : `${r.from}–${r.to} (+${r.rows} each)`)).join(', ');
}

function DrillButton({ job }: { job: DemoJobStatus }) {
  const qc = useQueryClient();
  const active = job.drills.find((d) => d.status !== 'RECOVERED' && d.status !== 'FAILED');
  const drill = useMutation({
    mutationFn: () => apiFetch(`/api/jobs/${job.id}/drills`, { method: 'POST', body: { point: 'after-sink' } }),
    onSettled: () => qc.invalidateQueries({ queryKey: demoKey }),
  });
  return (
    <div>
      <button
        type="button"
        className="primary"
        disabled={!!active || job.status !== 'RUNNING' || drill.isPending}
        onClick={() => drill.mutate()}
        aria-label={`Drill ${job.name}: crash after the sink write, before the commit`}
      >
        Crash after the sink write
      </button>
      {active && (
        <span className="badge warn" style={{ marginLeft: 8 }} role="status">
          drill {active.status.toLowerCase()}
          {active.batchId !== null ? ` (batch ${active.batchId})` : ''}
        </span>
      )}
      {drill.error && (
        <p className="error-box" role="alert">
          {(drill.error as ApiError).message}
        </p>
      )}
    </div>
  );
}

function LoseCheckpointButton({ job }: { job: DemoJobStatus }) {
  const qc = useQueryClient();
  const lose = useMutation({
    mutationFn: () => apiFetch<{ jobId: string; deletedFiles: number }>('/api/demo', { method: 'POST', body: { loseCheckpoint: true } }),
    onSettled: () => qc.invalidateQueries({ queryKey: demoKey }),
  });
  return (
    <div style={{ marginTop: 8 }}>
      <button type="button" className="danger" disabled={lose.isPending || job.status === 'STOPPING'} onClick={() => lose.mutate()} aria-label={`Lose the checkpoint of ${job.name}: reset it and start again`}>
        {lose.isPending ? 'Stopping, resetting, starting…' : 'Lose the checkpoint'}
      </button>{' '}
      <span className="subtitle">Stops the job, resets its checkpoint and starts it again: a new query reads every order file into the same table.</span>
      {lose.isSuccess && (
        <p role="status" className="small">
          Checkpoint lost ({lose.data.deletedFiles} files deleted); the job reprocesses the source from its beginning.
        </p>
      )}
      {lose.error && (
        <p className="error-box" role="alert">
          {(lose.error as ApiError).message}
        </p>
      )}
    </div>
  );
}

/** The two incidents' signatures: the replay's one batch (from the drill) beside what the sink shows now. */
function Signatures({ job }: { job: DemoJobStatus }) {
  const r = job.replaySignature;
  const d = job.diagnosis;
  if (!r && (!d || d.verdict === 'none')) return null;
  return (
    // One above the other, each the card's width: the diagnosis's findings are label-value lists,
    // unreadable in half a card.
    <div>
      <section className="panel" aria-label={`The replay's signature, ${job.name}`} data-testid={`replay-signature-${job.mode}`}>
        <h3 style={{ marginTop: 0, fontSize: 15 }}>The replay&apos;s signature</h3>
        {r ? (
          <p>
            Drill after the sink write: <strong>{r.duplicateRows} duplicate rows</strong>, {r.doubledBatches.length === 0 ? 'no batch doubled' : `confined to batch ${r.doubledBatches.join(', ')}`}.
          </p>
        ) : (
          <p className="subtitle">Run “Crash after the sink write” to see it.</p>
        )}
      </section>
      <section className="panel" aria-label={`Diagnosis now, ${job.name}`} data-testid={`diagnosis-${job.mode}`}>
        <h3 style={{ marginTop: 0, fontSize: 15 }}>Diagnosis now</h3>
        {d ? <DuplicateDiagnosisView d={d} /> : <p className="subtitle">The sink cannot be read yet.</p>}
      </section>
    </div>
  );
}

function JobCard({ job, canDrill, canReset }: { job: DemoJobStatus; canDrill: boolean; canReset: boolean }) {
  const lastDrill = job.drills[0];
  return (
    <section className="panel" aria-label={job.name} data-testid={`demo-${job.mode}`}>
      <h2 style={{ marginTop: 0, fontSize: 17 }}>
        {job.mode === 'bare-append' ? 'Bare append' : 'Transactional'} <StatusBadge status={job.status} /> <GuaranteeBadge guarantee={job.guarantee} />
      </h2>
      <p className="subtitle" style={{ marginBottom: 8 }}>
        <code>{job.name}</code> · last batch {job.lastBatchId ?? '–'} · {job.rows} rows for {job.distinctOrders} orders
      </p>
      <table className="data" aria-label={`Revenue per region, ${job.mode}`}>
        <thead>
          <tr>
            <th>Region</th>
            <th className="num">Revenue in the sink</th>
            <th className="num">Each order once</th>
            <th className="num">Difference</th>
          </tr>
        </thead>
        <tbody>
          {job.revenue.map((r) => {
            const correct = r.correct;
            const diff = r.revenue - correct;
            return (
              <tr key={r.region} data-region={r.region}>
                <td>{r.region}</td>
                <td className="num" data-testid={`revenue-${job.mode}-${r.region}`}>{money(r.revenue)}</td>
                <td className="num">{money(correct)}</td>
                <td className="num" style={{ color: diff > 0 ? 'var(--bad)' : undefined }} data-testid={`diff-${job.mode}-${r.region}`}>
                  {diff > 0 ? `+${money(diff)}` : money(diff)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p data-testid={`duplicates-${job.mode}`}>
        Duplicate rows in the sink: <strong>{job.duplicates.total}</strong>
        {job.duplicates.byBatch && job.duplicates.byBatch.length > 0 && <> — by batch id: {batchRuns(job.duplicates.byBatch)}</>}
        {job.duplicates.byBatch && job.duplicates.notCommitted !== 0 && <>; under batch ids the current query has not committed yet: {job.duplicates.notCommitted}</>}
      </p>
      <p className="subtitle">{(job.contract as { summary?: string } | null)?.summary ?? ''}</p>
      <p className="subtitle">Sink: {(job.contract as { sink?: { reason?: string } } | null)?.sink?.reason ?? ''}</p>
      {canDrill ? <DrillButton job={job} /> : <p className="subtitle">Sign in as an operator to run drills.</p>}
      {job.mode === 'bare-append' && canReset && <LoseCheckpointButton job={job} />}
      {lastDrill && (
        <p className="subtitle" data-testid={`drill-${job.mode}`}>
          Last drill: {lastDrill.point}, {lastDrill.status}
          {lastDrill.batchId !== null ? `, batch ${lastDrill.batchId}` : ''}
          {lastDrill.recoveredAt ? `, recovered ${formatClock(lastDrill.recoveredAt)}` : ''}
        </p>
      )}
      <Signatures job={job} />
    </section>
  );
}

export function DemoPanel() {
  const { data: me } = useMe();
  const qc = useQueryClient();
  const status = useQuery({
    queryKey: demoKey,
    queryFn: () => apiFetch<{ ready: boolean; jobs: DemoJobStatus[] }>('/api/demo'),
    refetchInterval: 2000,
    enabled: !!me,
  });
  const setup = useMutation({
    mutationFn: (body: object) => apiFetch('/api/demo', { method: 'POST', body }),
    onSettled: () => qc.invalidateQueries({ queryKey: demoKey }),
  });
  if (me === null) {
    return (
      <p className="panel">
        <a href="/signin?next=/demo">Sign in</a> to see the demo.
      </p>
    );
  }
  if (status.isLoading || me === undefined) return <p role="status">Loading the demo…</p>;
  if (status.error) return <p className="error-box" role="alert">{(status.error as Error).message}</p>;
  const data = status.data!;
  if (!data.ready) {
    return (
      <div className="panel empty">
        <h2>The demo is not set up</h2>
        <p>Two jobs over one orders source, one writing with a bare append and one transactionally.</p>
        <button type="button" className="primary" disabled={!roleAllows(me.role, 'admin') || setup.isPending} onClick={() => setup.mutate({})}>
          Set up the demo
        </button>
        {setup.error && <p className="error-box" role="alert">{(setup.error as Error).message}</p>}
      </div>
    );
  }
  const canDrill = roleAllows(me.role, 'operator');
  return (
    <>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(520px, 1fr))', gap: 16 }}>
        {data.jobs.map((j) => (
          <JobCard key={j.id} job={j} canDrill={canDrill} canReset={roleAllows(me.role, 'admin')} />
        ))}
      </div>
      {roleAllows(me.role, 'admin') && (
        <button type="button" onClick={() => setup.mutate({ addFiles: 20 })} disabled={setup.isPending}>
          Add 20 files of orders
        </button>
      )}
    </>
  );
}
