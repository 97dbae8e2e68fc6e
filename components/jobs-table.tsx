'use client';
/**
 * The jobs list, one page at a time: filter by name or description, status (with the number of
 * jobs in each), guarantee and firing alerts; sort by name, status or last batch; page with a
 * keyset cursor. The filter, sort and page live in the URL (jobs-list-url.ts): the server reads
 * the page with the API's own presenter, so a thousand jobs cost the browser one page of rows.
 * While any job on the page is active the page refreshes its server data every few seconds so
 * rates and lag stay current.
 */
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import type { JobPage } from '@/lib/server/presenters/job-page-presenter';
import { LIVE_STATUSES } from '@/lib/server/job-lifecycle';
import { formatAgo, formatNumber } from './format';
import { jobsListHref, type JobsListParams } from './jobs-list-url';
import { useNow } from './use-now';
import { JobActions } from './job-actions';
import { Sparkline } from './sparkline';
import { GuaranteeBadge, StatusBadge } from './status-badge';
import { TableScroll } from './table-scroll';

const STATUSES = ['RUNNING', 'STARTING', 'PENDING', 'RECOVERING', 'STOPPING', 'STOPPED', 'FAILED'] as const;
const GUARANTEES = ['exactly-once', 'at-least-once', 'at-most-once'];
type SortKey = 'name' | 'status' | 'lastCommittedAt';
const COLUMNS: { key: SortKey | null; label: string; num?: boolean }[] = [
  { key: 'name', label: 'Name' },
  { key: 'status', label: 'Status' },
  { key: null, label: 'Guarantee' },
  { key: 'lastCommittedAt', label: 'Last batch' },
  { key: null, label: 'Input rows/s (1 min)', num: true },
  { key: null, label: 'Commit lag', num: true },
  { key: null, label: 'State rows', num: true },
  { key: null, label: 'Alerts' },
  { key: null, label: 'Actions' },
];
/** How long typing may pause before the name filter applies. */
const TYPING_PAUSE_MS = 300;

export function JobsTable({ page, params, now }: { page: JobPage; params: JobsListParams; now: number }) {
  const router = useRouter();
  const [q, setQ] = useState(params.q ?? '');
  const clock = useNow(now);
  const anyActive = page.items.some((j) => LIVE_STATUSES.includes(j.status));
  const sort = params.sort ?? 'name';
  const dir = params.dir ?? 'asc';
  // A new filter or sort starts again at its first page.
  const go = (change: Partial<JobsListParams>) => router.push(jobsListHref({ ...params, cursor: undefined, ...change }));

  useEffect(() => {
    if (!anyActive) return;
    const t = setInterval(() => router.refresh(), 3000);
    return () => clearInterval(t);
  }, [anyActive, router]);

  useEffect(() => {
    if (q.trim() === (params.q ?? '').trim()) return;
    const t = setTimeout(() => router.replace(jobsListHref({ ...params, cursor: undefined, q })), TYPING_PAUSE_MS);
    return () => clearTimeout(t);
  }, [q, params, router]);

  const toggle = (k: SortKey) => go(k === sort ? { sort: k, dir: dir === 'asc' ? 'desc' : 'asc' } : { sort: k, dir: 'asc' });

  return (
    <>
      <div className="toolbar" role="search">
        <label>
          Filter by name or description
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="job name" />
        </label>
        <label>
          Status
          <select value={params.status ?? ''} onChange={(e) => go({ status: e.target.value || undefined })}>
            <option value="">any ({page.totals.all})</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s} ({page.totals.byStatus[s]})
              </option>
            ))}
          </select>
        </label>
        <label>
          Guarantee
          <select value={params.guarantee ?? ''} onChange={(e) => go({ guarantee: e.target.value || undefined })}>
            <option value="">any</option>
            {GUARANTEES.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
        <label>
          Alerts
          <select value={params.firing ?? ''} onChange={(e) => go({ firing: (e.target.value || undefined) as JobsListParams['firing'] })}>
            <option value="">any</option>
            <option value="true">firing</option>
            <option value="false">none firing</option>
          </select>
        </label>
        <span className="muted-text small" role="status">
          {page.items.length} shown of {page.matching} matching jobs
        </span>
      </div>
      <p className="small muted-text" aria-label="Jobs per status">
        {STATUSES.filter((s) => page.totals.byStatus[s] > 0)
          .map((s) => `${page.totals.byStatus[s]} ${s}`)
          .join(' · ') || 'No job matches this filter.'}
      </p>
      {page.items.length === 0 ? (
        <div className="panel empty">
          <p>No job matches this filter.</p>
        </div>
      ) : (
        <TableScroll label="Jobs">
          {/* At 1280 px the nine columns fit with the actions in view: headers wrap (wrap-head) and
              a long name wraps in its cell rather than widening the table. */}
          <table className="data wrap-head" aria-label="Jobs">
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
              {page.items.map((j) => (
                <tr key={j.id}>
                  <td className="wrap-cell name-cell">
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
        </TableScroll>
      )}
      <nav className="actions" style={{ marginTop: 8 }} aria-label="Jobs pages">
        {params.cursor ? (
          <a className="button" href={jobsListHref({ ...params, cursor: undefined })}>
            First page
          </a>
        ) : null}
        {page.nextCursor ? (
          <a className="button" href={jobsListHref({ ...params, cursor: page.nextCursor })}>
            Next page
          </a>
        ) : null}
      </nav>
    </>
  );
}
