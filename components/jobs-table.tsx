'use client';
/**
 * The jobs list: filter by name and status, sort by any column, the figures of each job's latest
 * batch with a state-rows sparkline, firing alerts, and the actions the role allows. Server data
 * arrives as `initial` (prefetched by the page); while any job is active the page refreshes its
 * server data every few seconds so rates and lag stay current.
 */
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import type { JobOverview } from '@/lib/server/presenters/job-overview-presenter';
import type { JobSortKey } from './job-sorting';
import { filterAndSortJobs } from './job-sorting';
import { formatAgo, formatNumber } from './format';
import { useNow } from './use-now';
import { JobActions } from './job-actions';
import { Sparkline } from './sparkline';
import { GuaranteeBadge, StatusBadge } from './status-badge';

const STATUSES = ['RUNNING', 'STARTING', 'PENDING', 'RECOVERING', 'STOPPING', 'STOPPED', 'FAILED'];
const COLUMNS: { key: JobSortKey | null; label: string; num?: boolean }[] = [
  { key: 'name', label: 'Name' },
  { key: 'status', label: 'Status' },
  { key: null, label: 'Guarantee' },
  { key: 'lastCommittedAt', label: 'Last batch' },
  { key: 'inputRowsPerSecond', label: 'Input rows/s (1 min)', num: true },
  { key: 'commitLag', label: 'Commit lag', num: true },
  { key: 'stateRowsTotal', label: 'State rows', num: true },
  { key: 'alerts', label: 'Alerts' },
  { key: null, label: 'Actions' },
];

export function JobsTable({ initial, now }: { initial: JobOverview[]; now: number }) {
  const router = useRouter();
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState<JobSortKey>('name');
  const [dir, setDir] = useState<'asc' | 'desc'>('asc');
  const clock = useNow(now);
  const anyActive = initial.some((j) => ['RUNNING', 'STARTING', 'PENDING', 'RECOVERING', 'STOPPING'].includes(j.status));

  useEffect(() => {
    if (!anyActive) return;
    const t = setInterval(() => {
      router.refresh();
    }, 3000);
    return () => clearInterval(t);
  }, [anyActive, router]);

  const rows = useMemo(() => filterAndSortJobs(initial, { q, status, sort, dir }), [initial, q, status, sort, dir]);
  const toggle = (k: JobSortKey) => {
    if (k === sort) setDir(dir === 'asc' ? 'desc' : 'asc');
    else {
      setSort(k);
      setDir('asc');
    }
  };

  return (
    <>
      <div className="toolbar" role="search">
        <label>
          Filter by name
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="job name" />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <span className="muted-text small" role="status">
          {rows.length} of {initial.length} jobs
        </span>
      </div>
      {rows.length === 0 ? (
        <div className="panel empty">
          <p>No job matches this filter.</p>
        </div>
      ) : (
        <div className="table-scroll">
          <table className="data" aria-label="Jobs">
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th key={c.label} className={c.num ? 'num' : undefined} aria-sort={c.key && c.key === sort ? (dir === 'asc' ? 'ascending' : 'descending') : undefined}>
                    {c.key ? (
                      <button type="button" className="sort" onClick={() => toggle(c.key!)}>
                        {c.label}
                        {c.key === sort ? (dir === 'asc' ? ' ▲' : ' ▼') : ''}
                      </button>
                    ) : (
                      c.label
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((j) => (
                <tr key={j.id}>
                  <td>
                    <a href={`/jobs/${j.id}`}>{j.name}</a>
                    <div className="muted-text small">
                      {j.sourceType} → {j.sinkType}, {j.outputMode}
                    </div>
                  </td>
                  <td>
                    <StatusBadge status={j.status} />
                  </td>
                  <td>
                    <GuaranteeBadge guarantee={j.guarantee} />
                  </td>
                  <td>
                    {j.lastBatchId ?? '–'}
                    <div className="muted-text small">{formatAgo(j.lastCommittedAt, clock)}</div>
                  </td>
                  <td className="num">{formatNumber(j.inputRowsPerSecond)}</td>
                  <td className="num">{formatNumber(j.commitLag, 0)}</td>
                  <td className="num">
                    <Sparkline values={j.stateRowsSparkline} label={`State rows of ${j.name} over its last ${j.stateRowsSparkline.length} batches`} />{' '}
                    {formatNumber(j.stateRowsTotal, 0)}
                  </td>
                  <td>
                    {j.firingAlerts.length === 0 ? (
                      <span className="muted-text">none</span>
                    ) : (
                      <span className="badge bad" title={j.firingAlerts.map((a) => a.message).join('\n')}>
                        {j.firingAlerts.length} firing
                      </span>
                    )}
                  </td>
                  <td>
                    <JobActions job={j} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
