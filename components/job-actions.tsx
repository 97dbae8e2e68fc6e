'use client';
/**
 * Start, stop, restart, reset-checkpoint and delete for one job, offered as the signed-in role
 * allows (operator: start/stop/restart; admin: also edit, reset and delete). A button the role
 * may not use is shown disabled with the reason, rather than hidden, so a viewer knows the action
 * exists and whom to ask. Reset and delete need the job's name typed back; when the sink
 * already holds rows it would not recognize as written (the API's 409
 * REPROCESSING_NOT_ACKNOWLEDGED), a second confirmation shows the API's text (how many rows would
 * be written again, from where) and repeats the request with `acknowledgeReprocessing`.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useId, useState, type ReactNode } from 'react';
import { ApiError, apiFetch, errorMessage } from './api-client';
import { queryKeys } from './query-keys';
import { roleAllows, useMe } from './use-me';

export interface ActionJob {
  id: string;
  name: string;
  status: string;
  desiredState?: string;
  /** What the server's lifecycle allows from the job's status: the only buttons enabled. */
  allowedActions: readonly string[];
}

type Action = 'start' | 'stop' | 'restart';

export function JobActions({ job, detail = false, checkpointLocation }: { job: ActionJob; detail?: boolean; checkpointLocation?: string }) {
  const me = useMe();
  const qc = useQueryClient();
  const router = useRouter();
  const noteId = useId();
  const [confirming, setConfirming] = useState<'reset' | 'delete' | null>(null);
  const [typed, setTyped] = useState('');
  const [withCheckpoint, setWithCheckpoint] = useState(true);
  const [reprocessing, setReprocessing] = useState<{ action: 'reset' | 'delete'; message: string } | null>(null);
  const askAgain = (action: 'reset' | 'delete') => (e: unknown) => {
    if (e instanceof ApiError && e.code === 'REPROCESSING_NOT_ACKNOWLEDGED') setReprocessing({ action, message: e.message });
  };
  const act = useMutation({
    mutationFn: (a: Action) => apiFetch(`/api/jobs/${job.id}/${a}`, { method: 'POST' }),
    onSettled: async () => {
      await qc.invalidateQueries({ queryKey: queryKeys.job(job.id) });
      await qc.invalidateQueries({ queryKey: queryKeys.jobs() });
      router.refresh();
    },
  });
  const reset = useMutation({
    mutationFn: (acknowledgeReprocessing: boolean) =>
      apiFetch<{ deletedFiles: number; deletedBatches: number; message?: string }>(`/api/jobs/${job.id}/reset-checkpoint`, {
        method: 'POST',
        body: { confirm: typed, ...(acknowledgeReprocessing ? { acknowledgeReprocessing } : {}) },
      }),
    onSuccess: () => {
      setConfirming(null);
      setReprocessing(null);
      setTyped('');
    },
    onError: askAgain('reset'),
    onSettled: async () => {
      await qc.invalidateQueries({ queryKey: queryKeys.job(job.id) });
      router.refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (acknowledgeReprocessing: boolean) =>
      apiFetch(`/api/jobs/${job.id}${withCheckpoint ? `?deleteCheckpoint=true&confirm=${encodeURIComponent(typed)}${acknowledgeReprocessing ? '&acknowledgeReprocessing=true' : ''}` : ''}`, { method: 'DELETE' }),
    onError: askAgain('delete'),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: queryKeys.jobs() });
      router.push('/');
      router.refresh();
    },
  });
  const open = (which: 'reset' | 'delete') => {
    setTyped('');
    setReprocessing(null);
    reset.reset();
    remove.reset();
    setConfirming(which);
  };

  const role = me.data?.role;
  const canOperate = roleAllows(role, 'operator');
  const canAdmin = roleAllows(role, 'admin');
  const allows = (a: string) => job.allowedActions.includes(a);
  const wait = job.status === 'STOPPING' ? 'Wait for the job to stop' : 'Stop the job';
  const busy = act.isPending || reset.isPending || remove.isPending;
  const why = me.isLoading
    ? 'Checking who is signed in…'
    : me.data === null
      ? 'Sign in to start or stop jobs.'
      : !canOperate
        ? `Signed in as ${me.data?.name} (${role}): read only. Starting and stopping needs the operator role.`
        : null;

  return (
    <div className="actions" role="group" aria-label={`Actions for ${job.name}`} title={!detail && why ? why : undefined}>
      <button type="button" className="primary" disabled={!canOperate || !allows('start') || busy} aria-describedby={why ? noteId : undefined} onClick={() => act.mutate('start')}>
        Start
      </button>
      <button type="button" disabled={!canOperate || !allows('stop') || busy} aria-describedby={why ? noteId : undefined} onClick={() => act.mutate('stop')}>
        Stop
      </button>
      {detail && (
        <>
          <button type="button" disabled={!canOperate || !allows('restart') || busy} aria-describedby={why ? noteId : undefined} onClick={() => act.mutate('restart')}>
            Restart
          </button>
          {canAdmin && (
            <a className="button" href={`/jobs/${job.id}/edit`}>
              Edit
            </a>
          )}
          <button type="button" className="danger" disabled={!canAdmin || !allows('reset-checkpoint') || busy} title={allows('reset-checkpoint') ? undefined : `${wait} before resetting its checkpoint.`} onClick={() => open('reset')}>
            Reset checkpoint…
          </button>
          <button type="button" className="danger" disabled={!canAdmin || !allows('delete') || busy} title={allows('delete') ? undefined : `${wait} before deleting it.`} onClick={() => open('delete')}>
            Delete job…
          </button>
        </>
      )}
      {why &&
        (detail ? (
          <span id={noteId} className="muted-text small">
            {why} {me.data === null && <a href="/signin">Sign in</a>}
          </span>
        ) : (
          // In a table row the reason would widen the Actions column past the page (a viewer's
          // sentence, or "Checking who is signed in…" while the page loads): read out, and shown
          // on hover, instead.
          <span id={noteId} className="visually-hidden">
            {why}
          </span>
        ))}
      {act.isError && (
        <div className="error-box" role="alert">
          {errorMessage(act.error)}
        </div>
      )}
      {confirming === 'reset' && (
        <ConfirmByName
          title="Reset checkpoint"
          name={job.name}
          typed={typed}
          onType={setTyped}
          what="reset"
          action="Delete checkpoint"
          pending={reset.isPending}
          error={isReprocessingAsk(reset.error) ? null : reset.error}
          onConfirm={() => reset.mutate(false)}
          onCancel={() => setConfirming(null)}
          second={reprocessing?.action === 'reset' ? { message: reprocessing.message, action: 'Reset and reprocess anyway', onConfirm: () => reset.mutate(true), onCancel: () => setReprocessing(null) } : undefined}
        >
          Resetting deletes the checkpoint (offsets, commits, state) and this job&apos;s batch history. The next start reads the source from the beginning, so a
          non-idempotent sink receives everything again.
        </ConfirmByName>
      )}
      {confirming === 'delete' && (
        <ConfirmByName
          title="Delete job"
          name={job.name}
          typed={typed}
          onType={setTyped}
          what="deletion"
          action="Delete job"
          pending={remove.isPending}
          error={isReprocessingAsk(remove.error) ? null : remove.error}
          onConfirm={() => remove.mutate(false)}
          onCancel={() => setConfirming(null)}
          second={reprocessing?.action === 'delete' ? { message: reprocessing.message, action: 'Delete anyway', onConfirm: () => remove.mutate(true), onCancel: () => setReprocessing(null) } : undefined}
          extra={
            <label className="checkbox">
              <input type="checkbox" checked={withCheckpoint} onChange={(e) => setWithCheckpoint(e.target.checked)} /> Also delete its checkpoint (offsets, commits,
              state){' '}
              {checkpointLocation && <code>{checkpointLocation}</code>}; unticked, the files stay where they are.
            </label>
          }
        >
          Deleting removes the job, its runs, batch history and drills.
        </ConfirmByName>
      )}
      {reset.isSuccess && (
        <span role="status" className="small">
          Checkpoint reset: {reset.data.deletedFiles} files and {reset.data.deletedBatches} batches deleted.
          {reset.data.message ? ` ${reset.data.message}` : ''}
        </span>
      )}
    </div>
  );
}

export const isReprocessingAsk = (e: unknown) => e instanceof ApiError && e.code === 'REPROCESSING_NOT_ACKNOWLEDGED';

/** A destructive action's dialog: what it does, then the job's name typed back to enable it. */
export function ConfirmByName(p: {
  title: string;
  name: string;
  typed: string;
  onType: (v: string) => void;
  /** Ends the input's label: "Type the job name to confirm the <what>". */
  what: string;
  action: string;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onCancel: () => void;
  extra?: ReactNode;
  /** The second confirmation: the API's explanation of the reprocessing, and the acknowledged retry. */
  second?: { message: string; action: string; onConfirm: () => void; onCancel: () => void };
  children: ReactNode;
}) {
  return (
    <div className="confirm panel" role="dialog" aria-modal="false" aria-label={p.title}>
      <p>
        {p.children} Type the job&apos;s name, <strong>{p.name}</strong>, to confirm.
      </p>
      {p.extra}
      <label>
        Job name
        <input value={p.typed} onChange={(e) => p.onType(e.target.value)} autoFocus aria-label={`Type the job name to confirm the ${p.what}`} />
      </label>
      <div className="actions">
        <button type="button" className="danger" disabled={p.typed !== p.name || p.pending} onClick={p.onConfirm}>
          {p.action}
        </button>
        <button type="button" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
      {p.error ? (
        <div className="error-box" role="alert">
          {errorMessage(p.error)}
        </div>
      ) : null}
      {p.second && (
        <div className="confirm panel" role="alertdialog" aria-modal="false" aria-label="Reprocessing into a sink that holds rows" aria-describedby="reprocessing-text">
          <p>
            <strong>Second confirmation: the sink already holds this job&apos;s rows.</strong>
          </p>
          <p id="reprocessing-text">{p.second.message}</p>
          <div className="actions">
            <button type="button" className="danger" disabled={p.pending} onClick={p.second.onConfirm}>
              {p.second.action}
            </button>
            <button type="button" onClick={p.second.onCancel}>
              Keep the checkpoint
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
