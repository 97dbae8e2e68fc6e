'use client';
/**
 * Savepoints on the Checkpoint tab: the job's savepoints (name, batch, size, time, who) and, for
 * an operator, "Take savepoint" of a stopped job (POST /api/jobs/:id/savepoints; the API refuses
 * a running job and says to stop it first).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SavepointView } from '@/lib/server/services/savepoint-service';
import { apiFetch, errorMessage } from './api-client';
import { formatBytes } from './format';
import { queryKeys } from './query-keys';
import { roleAllows, useMe } from './use-me';

export function SavepointsPanel({ jobId }: { jobId: string }) {
  const me = useMe();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const list = useQuery({ queryKey: queryKeys.savepoints(jobId), queryFn: ({ signal }) => apiFetch<{ items: SavepointView[] }>(`/api/jobs/${jobId}/savepoints`, { signal }) });
  const take = useMutation({
    mutationFn: () => apiFetch<SavepointView>(`/api/jobs/${jobId}/savepoints`, { method: 'POST', body: name.trim() ? { name: name.trim() } : {} }),
    onSuccess: () => {
      setName('');
      void qc.invalidateQueries({ queryKey: queryKeys.savepoints(jobId) });
    },
  });
  const canTake = roleAllows(me.data?.role, 'operator');
  return (
    <section className="panel" aria-label="Savepoints">
      <h2>Savepoints</h2>
      <p className="small muted-text">A checksummed copy of the stopped job&apos;s checkpoint at its last commit: keep one before an upgrade.</p>
      <div className="actions">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="before-upgrade" />
        </label>
        <button type="button" disabled={!canTake || take.isPending} title={canTake ? undefined : 'Needs the operator role'} onClick={() => take.mutate()}>
          Take savepoint
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
                <td>{s.createdAt.slice(0, 19).replace('T', ' ')}Z</td>
                <td>{s.createdBy}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="small muted-text">{list.isLoading ? 'Reading savepoints…' : 'No savepoint yet.'}</p>
      )}
    </section>
  );
}
