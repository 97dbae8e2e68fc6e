/**
 * The contract audit table (/audit/contracts). Rendered on the server with no client state: the
 * filters are a GET form and the column headers are links, so every view is a URL (linkable from
 * a postmortem) and the CSV link exports exactly the rows shown.
 */
import type { ContractQuery, ContractRow, ContractSortKey } from '@/lib/server/contracts/contract-audit-presenter';
import { GuaranteeBadge, StatusBadge } from './status-badge';
import { formatDateTime } from './format';
import { TableScroll } from './table-scroll';

const GUARANTEES = ['at-least-once', 'at-most-once', 'exactly-once', 'unknown'];

const COLUMNS: { key: ContractSortKey | null; label: string; num?: boolean }[] = [
  { key: 'name', label: 'Job' },
  { key: 'guarantee', label: 'Guarantee' },
  { key: null, label: 'Missing signatures' },
  { key: 'sinkMode', label: 'Sink mode' },
  { key: 'medianRows', label: 'Median rows a batch', num: true },
  { key: 'maxRows', label: 'Max rows a batch', num: true },
  { key: 'lastRestartAt', label: 'Last restart' },
  { key: null, label: 'Fix' },
];

function href(query: ContractQuery, change: Partial<ContractQuery & { format: string }>): string {
  const merged: Record<string, string | undefined> = { ...query, ...change };
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(merged)) if (v !== undefined && v !== '') p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '?';
}

/** What started the newest run after the first: someone's Start or Restart, a recovery, or a retry. */
const RESTART_KINDS = { restart: 'restart', recovery: 'recovery after a crash', retry: 'retry by the restart policy' } as const;

/** Backticked names in a fix (`postgres`, `mode: transactional`) as code. */
function FixText({ text }: { text: string }) {
  return (
    <>
      {text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : <span key={i}>{part}</span>))}
    </>
  );
}

export function ContractsTable({ data, query, invalidQuery }: { data: { items: ContractRow[]; counts: Record<string, number>; recentBatches: number }; query: ContractQuery; invalidQuery?: boolean }) {
  const sinkTypes = [...new Set(data.items.map((r) => r.sinkType).concat(query.sinkType ? [query.sinkType] : []))].sort();
  const csvQuery = new URLSearchParams(href(query, { format: 'csv' }).slice(1)).toString();
  return (
    <>
      <div className="toolbar" role="group" aria-label="Fleet guarantees">
        <div className="stat">
          <span className="value" data-testid="count-at-least-once">{data.counts['at-least-once'] ?? 0}</span>
          <span className="label">at-least-once</span>
        </div>
        <div className="stat">
          <span className="value">{data.counts['at-most-once'] ?? 0}</span>
          <span className="label">at-most-once</span>
        </div>
        <div className="stat">
          <span className="value">{data.counts['exactly-once'] ?? 0}</span>
          <span className="label">exactly-once</span>
        </div>
        <div className="stat">
          <span className="value">{data.counts.total ?? 0}</span>
          <span className="label">jobs</span>
        </div>
      </div>
      {/* aria-label on each control: a wrapping label's name would include every option's text. */}
      <form className="toolbar" role="search" method="get" action="/audit/contracts">
        <label>
          Job name
          <input type="search" name="q" defaultValue={query.q ?? ''} placeholder="part of the name" />
        </label>
        <label>
          Guarantee
          <select name="guarantee" aria-label="Guarantee" defaultValue={query.guarantee ?? ''}>
            <option value="">any</option>
            {GUARANTEES.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sink
          <select name="sinkType" aria-label="Sink" defaultValue={query.sinkType ?? ''}>
            <option value="">any</option>
            {sinkTypes.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {query.sort && <input type="hidden" name="sort" value={query.sort} />}
        {query.sort && <input type="hidden" name="dir" value={query.dir ?? 'asc'} />}
        <button type="submit">Apply filters</button>
        <a className="button" href="/audit/contracts">
          Clear
        </a>
        <a className="button" href={`/api/contracts?${csvQuery}`} download="weir-contracts.csv">
          Export CSV
        </a>
        <span className="muted-text small" role="status">
          {data.items.length} of {data.counts.total ?? 0} jobs
        </span>
      </form>
      {invalidQuery && (
        <p className="error-box" role="alert">
          The address has a filter or sort value this page does not know; showing the whole fleet instead.
        </p>
      )}
      <p className="muted-text small">
        Rows a replay would double: a replay re-runs one batch (the pending one), so the median and the largest output of each job&apos;s last {data.recentBatches} batches bound what an
        at-least-once sink writes twice on its next crash between the sink write and the commit.
      </p>
      {data.items.length === 0 ? (
        <div className="panel empty">
          <p>No job matches these filters.</p>
        </div>
      ) : (
        <TableScroll label="Contract audit">
          {/* Headers wrap and long names and fixes wrap in their cells, so that Last restart and Fix
              stay in view at 1280 px. */}
          <table className="data wrap-head" aria-label="Contract audit">
            <thead>
              <tr>
                {COLUMNS.map((c) => {
                  const sorted = c.key !== null && query.sort === c.key;
                  const nextDir = sorted && (query.dir ?? 'asc') === 'asc' ? 'desc' : 'asc';
                  return (
                    <th key={c.label} className={c.num ? 'num' : undefined} aria-sort={sorted ? ((query.dir ?? 'asc') === 'asc' ? 'ascending' : 'descending') : undefined}>
                      {c.key ? (
                        <a href={href(query, { sort: c.key, dir: nextDir })}>
                          {c.label}
                          {sorted ? ((query.dir ?? 'asc') === 'asc' ? ' ▲' : ' ▼') : ''}
                        </a>
                      ) : (
                        c.label
                      )}
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {data.items.map((r) => (
                <tr key={r.jobId} data-testid={`contract-${r.name}`}>
                  <td className="wrap-cell name-cell">
                    <a href={`/jobs/${r.jobId}`}>{r.name}</a>
                    <div className="muted-text small">
                      {r.sourceType} → {r.sinkType} <StatusBadge status={r.status} />
                    </div>
                  </td>
                  <td style={{ whiteSpace: 'normal' }}>
                    <GuaranteeBadge guarantee={r.guarantee === 'unknown' ? null : r.guarantee} />
                    {r.replayWouldDouble > 0 && <div className="small" style={{ color: 'var(--bad)' }}>next replay doubles up to {r.replayWouldDouble} rows</div>}
                  </td>
                  <td style={{ whiteSpace: 'normal', overflowWrap: 'anywhere', minWidth: 160 }}>
                    {r.missing.length === 0 ? (
                      <span className="muted-text">none</span>
                    ) : (
                      <ul className="plain-list">
                        {r.missing.map((m) => (
                          <li key={m.signature} className="small">
                            <strong>{m.signature}</strong>: <span className={`badge ${m.signature === 'checkpoint' ? 'warn' : 'bad'}`}>{m.label}</span> {m.reason}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>
                    <code>{r.sinkMode}</code>
                  </td>
                  <td className="num">{r.medianRows ?? '–'}</td>
                  <td className="num">{r.maxRows ?? '–'}</td>
                  <td className="wrap-time">
                    {r.lastRestartAt ? (
                      <>
                        <time dateTime={r.lastRestartAt}>{formatDateTime(r.lastRestartAt)}</time>
                        <div className="muted-text small">{r.lastRestartKind ? RESTART_KINDS[r.lastRestartKind] : null}</div>
                      </>
                    ) : (
                      <span className="muted-text">never</span>
                    )}
                  </td>
                  <td style={{ whiteSpace: 'normal', overflowWrap: 'anywhere', minWidth: 170 }} className="small">
                    <FixText text={r.fix} />
                    {r.missing.length > 1 && (
                      <ul className="plain-list muted-text">
                        {r.missing
                          .filter((m) => m.fix !== r.fix)
                          .map((m) => (
                            <li key={m.signature}>
                              Also ({m.signature}): <FixText text={m.fix} />
                            </li>
                          ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </>
  );
}
