'use client';
/**
 * Savepoints on the Checkpoint tab: the job's savepoints (name, batch, size, time, who);
 * "Take savepoint" for an operator, running or stopped (the copy is what the last commit
 * references); "Reset to this savepoint" and "New job from this savepoint" for an admin, each
 * behind a confirm dialog saying what is re-emitted: the restored checkpoint gets a new query id,
 * so the sink takes the batches after the savepoint as new and their output is written again.
 * When the API asks for that to be acknowledged (409 REPROCESSING_NOT_ACKNOWLEDGED), the second
 * confirmation shows its text (how many batches and rows) and repeats the request acknowledged.
 * A new job may take the other state store provider: its restored state is converted to it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RestoreResult, SavepointView } from '@/lib/server/services/savepoint-service';
import { ApiError, apiFetch, errorMessage } from './api-client';
import { formatBytes, formatDateTime } from './format';
import { ConfirmByName, isReprocessingAsk } from './job-actions';
import { queryKeys } from './query-keys';
import { roleAllows, useMe } from './use-me';
import { actorName } from '@/lib/server/actor';


type Restore = { kind: 'reset' | 'new-job'; savepoint: SavepointView };

type Provider = 'hdfs' | 'lmdb';

export function SavepointsPanel({ job }: { job: { id: string; name: string; status: string; stateStoreProvider: Provider; allowedActions: readonly string[] } }) {
  const jobId = job.id;
  const me = useMe();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [restoring, setRestoring] = useState<Restore | null>(null);
  const [typed, setTyped] = useState('');
  const [ask, setAsk] = useState<string | null>(null);
  const [provider, setProvider] = useState<Provider>(job.stateStoreProvider);
  const list = useQuery({ queryKey: queryKeys.savepoints(jobId), queryFn: ({ signal }) => apiFetch<{ items: SavepointView[] }>(`/api/jobs/${jobId}/savepoints`, { signal }) });
  const take = useMutation({
    mutationFn: () => apiFetch<SavepointView>(`/api/jobs/${jobId}/savepoints`, { method: 'POST', body: name.trim() ? { name: name.trim() } : {} }),
    onSuccess: () => {
      setName('');
      void qc.invalidateQueries({ queryKey: queryKeys.savepoints(jobId) });
    },
  });
  const restore = useMutation({
    mutationFn: ({ r, acknowledgeReprocessing }: { r: Restore; acknowledgeReprocessing: boolean }) =>
      apiFetch<RestoreResult>(`/api/jobs/${jobId}/savepoints/${r.savepoint.id}/${r.kind === 'reset' ? 'restore' : 'new-job'}`, {
        method: 'POST',
        body: { ...(r.kind === 'reset' ? { confirm: typed } : { name: typed, stateStoreProvider: provider }), ...(acknowledgeReprocessing ? { acknowledgeReprocessing } : {}) },
      }),
    onSuccess: async () => {
      setRestoring(null);
      setAsk(null);
      setTyped('');
      await qc.invalidateQueries({ queryKey: queryKeys.savepoints(jobId) });
      await qc.invalidateQueries({ queryKey: queryKeys.job(jobId) });
      await qc.invalidateQueries({ queryKey: queryKeys.jobs() });
    },
    onError: (e) => {
      if (e instanceof ApiError && e.code === 'REPROCESSING_NOT_ACKNOWLEDGED') setAsk(e.message);
    },
  });
  const open = (r: Restore) => {
    setRestoring(r);
    setTyped(r.kind === 'new-job' ? `${job.name}-from-${r.savepoint.name}`.slice(0, 200) : '');
    setProvider(job.stateStoreProvider);
    setAsk(null);
    restore.reset();
  };
  const canTake = roleAllows(me.data?.role, 'operator');
  const canRestore = roleAllows(me.data?.role, 'admin');
  // A restore in place is a checkpoint reset: offered only when the lifecycle allows one (job-lifecycle.ts).
  const active = !job.allowedActions.includes('reset-checkpoint');
  const reEmits = (s: SavepointView) =>
    `The restored checkpoint resumes after batch ${s.batchId} with a new query id, so the sink takes every batch after ${s.batchId} as new: what those batches wrote is written again (at-least-once for that span, as a Flink restore from a savepoint re-emits).`;
  return (
    <section className="panel" aria-label="Savepoints">
      <h2>Savepoints</h2>
      <p className="small muted-text">A checksummed copy of the job&apos;s checkpoint at its last commit, taken while it runs or stopped: keep one before an upgrade.</p>
      <div className="actions">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="before-upgrade" />
        </label>
        <button type="button" disabled={!canTake || take.isPending} title={canTake ? undefined : 'Needs the operator role'} onClick={() => take.mutate()}>
          {take.isPending ? 'Taking savepoint…' : 'Take savepoint'}
        </button>
      </div>
      {take.isError && (
        <div className="error-box" role="alert">
          {errorMessage(take.error)}
        </div>
      )}
      {list.data && list.data.items.length > 0 ? (
        <table className="data" aria-label="Savepoints">
          <thead>
            <tr>
              <th>Name</th>
              <th className="num">Batch</th>
              <th className="num">Size</th>
              <th>Taken</th>
              <th>By</th>
              <th>Restore</th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((s) => (
              <tr key={s.id}>
                <td title={s.location}>{s.name}</td>
                <td className="num">{s.batchId}</td>
                <td className="num">
                  {formatBytes(s.sizeBytes)} ({s.fileCount} files)
                </td>
                <td>{formatDateTime(s.createdAt)}</td>
                <td>{actorName(s.createdBy)}</td>
                <td>
                  <div className="actions">
                    <button
                      type="button"
                      className="danger"
                      disabled={!canRestore || active}
                      title={!canRestore ? 'Needs the admin role' : active ? 'Stop the job before resetting it to a savepoint.' : undefined}
                      onClick={() => open({ kind: 'reset', savepoint: s })}
                    >
                      Reset to this savepoint
                    </button>
                    <button type="button" disabled={!canRestore} title={canRestore ? undefined : 'Needs the admin role'} onClick={() => open({ kind: 'new-job', savepoint: s })}>
                      New job from this savepoint
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="small muted-text">{list.isLoading ? 'Reading savepoints…' : 'No savepoint yet.'}</p>
      )}
      {restoring?.kind === 'reset' && (
        <ConfirmByName
          title="Reset to savepoint"
          name={job.name}
          typed={typed}
          onType={setTyped}
          what="reset to the savepoint"
          action="Reset to this savepoint"
          pending={restore.isPending}
          error={isReprocessingAsk(restore.error) ? null : restore.error}
          onConfirm={() => restore.mutate({ r: restoring, acknowledgeReprocessing: false })}
          onCancel={() => setRestoring(null)}
          second={ask ? { message: ask, action: 'Reset and re-emit', onConfirm: () => restore.mutate({ r: restoring, acknowledgeReprocessing: true }), onCancel: () => setAsk(null) } : undefined}
        >
          Resetting replaces the checkpoint with savepoint <strong>{restoring.savepoint.name}</strong> (batch {restoring.savepoint.batchId}); the current checkpoint is kept
          as a savepoint first, and the batch history after batch {restoring.savepoint.batchId} is deleted. {reEmits(restoring.savepoint)}
        </ConfirmByName>
      )}
      {restoring?.kind === 'new-job' && (
        <div className="confirm panel" role="dialog" aria-modal="false" aria-label="New job from savepoint">
          <p>
            A new stopped job with this job&apos;s spec, on a checkpoint of its own restored from savepoint <strong>{restoring.savepoint.name}</strong> (batch{' '}
            {restoring.savepoint.batchId}). It writes to the same sink unless you edit it before starting. {reEmits(restoring.savepoint)}
          </p>
          <label>
            New job name
            <input value={typed} onChange={(e) => setTyped(e.target.value)} autoFocus />
          </label>
          <label>
            State store
            <select value={provider} onChange={(e) => setProvider(e.target.value as Provider)}>
              <option value="hdfs">in memory (HDFS-backed)</option>
              <option value="lmdb">on disk (LMDB)</option>
            </select>
          </label>
          {provider !== job.stateStoreProvider && (
            <p className="small">
              The restored state is converted from the {job.stateStoreProvider === 'lmdb' ? 'LMDB' : 'in-memory'} store to the {provider === 'lmdb' ? 'LMDB' : 'in-memory'} store (as{' '}
              <code>weir checkpoint convert-state --to {provider}</code> does), and the new job&apos;s spec names it. A job&apos;s checkpoint keeps the store it started with, so this is
              how a job changes store.
            </p>
          )}
          <div className="actions">
            <button type="button" className="primary" disabled={!typed.trim() || restore.isPending} onClick={() => restore.mutate({ r: restoring, acknowledgeReprocessing: ask !== null })}>
              {ask ? 'Create and re-emit' : 'Create job'}
            </button>
            <button type="button" onClick={() => setRestoring(null)}>
              Cancel
            </button>
          </div>
          {ask && (
            <p role="alert" className="small">
              <strong>Second confirmation:</strong> {ask}
            </p>
          )}
          {restore.isError && !isReprocessingAsk(restore.error) && (
            <div className="error-box" role="alert">
              {errorMessage(restore.error)}
            </div>
          )}
        </div>
      )}
      {restore.isSuccess && (
        <p role="status" className="small">
          {restore.data.job.id === jobId ? 'Reset' : `Created job ${restore.data.job.name}`} from savepoint {restore.data.savepoint.name}: {restore.data.message}
          {restore.data.job.id !== jobId && (
            <>
              {' '}
              <a href={`/jobs/${restore.data.job.id}`}>Open it</a>
            </>
          )}
        </p>
      )}
    </section>
  );
}
