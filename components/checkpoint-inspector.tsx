'use client';
/**
 * The checkpoint inspector: offsets, commits, metadata, source logs and state files as a tree
 * with sizes, a file's contents on selection, and the pending batch highlighted: an `offsets/N`
 * with no `commits/N` is the batch a restart re-runs over exactly its recorded range (the
 * write-ahead protocol's whole point), so the inspector says so next to it. The state stores get
 * a table: per operator and partition the loadable versions, the latest snapshot, files and
 * bytes, and whether the version a restart loads (latest commit + 1) is there; an lmdb store's
 * local copies on the workers' machines get theirs (version, bytes, reused or rebuilt). A damaged
 * checkpoint (a missing metadata or state schema, a log file that does not parse) is named first,
 * with the ways out, because a start refuses it with CORRUPT_CHECKPOINT.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import type { CheckpointFile, CheckpointTree } from '@/lib/server/presenters/checkpoint-presenter';
import { apiFetch, errorMessage } from './api-client';
import { buildTree, type TreeNode } from './checkpoint-tree';
import { formatBytes, formatClock } from './format';
import { queryKeys } from './query-keys';
import { TableScroll } from './table-scroll';

const CHECK_BADGE = { ok: 'ok', ahead: 'warn', missing: 'bad', 'no-commits': 'muted' } as const;

function StateStores({ state }: { state: CheckpointTree['state'] }) {
  if (state.length === 0) return null;
  return (
    <section className="panel" aria-label="State stores">
      <h2 className="as-h3">State stores</h2>
      <TableScroll label="State store versions">
        <table className="data compact" aria-label="State store versions">
          <thead>
            <tr>
              <th>Operator</th>
              <th className="num">Partition</th>
              <th>Loadable versions</th>
              <th className="num">Latest snapshot</th>
              <th className="num">Files</th>
              <th className="num">On disk</th>
              <th>Restart loads</th>
            </tr>
          </thead>
          <tbody>
            {state.flatMap((op) =>
              op.partitions.map((p) => (
                <tr key={`${op.operatorId}/${p.partitionId}`}>
                  <td>
                    {op.operatorName ?? 'unknown operator'}{' '}
                    <span className="muted-text small">
                      (state/{op.operatorId}
                      {op.stateStoreProvider ? `, ${op.stateStoreProvider} store` : ''})
                    </span>
                  </td>
                  <td className="num">{p.partitionId}</td>
                  <td>{p.latestVersion === null ? '–' : `${p.oldestLoadableVersion} … ${p.latestVersion}`}</td>
                  <td className="num">{p.latestSnapshot ?? '–'}</td>
                  <td className="num">{p.files}</td>
                  <td className="num">{formatBytes(p.bytesOnDisk)}</td>
                  <td className="wrap-cell">
                    <span className={`badge ${CHECK_BADGE[p.check.status]}`}>{p.check.expectedVersion === null ? p.check.status : `v${p.check.expectedVersion}: ${p.check.status}`}</span>{' '}
                    <span className="small">{p.check.message}</span>
                  </td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

/**
 * The lmdb store's local copies on the workers' machines: a cache (deleting it costs a rebuild
 * from the checkpoint), so what matters is whether the next start there reuses it.
 */
function LocalCaches({ caches, lmdb }: { caches: CheckpointTree['localCaches']; lmdb: boolean }) {
  if (caches.length === 0) {
    if (!lmdb) return null;
    return (
      <section className="panel" aria-label="Local state caches">
        <h2 className="as-h3">Local state caches</h2>
        <p className="small muted-text">No live worker reports a local copy of this job&apos;s state: the next start rebuilds it from the checkpoint (the newest snapshot and the changelogs after it).</p>
      </section>
    );
  }
  return (
    <section className="panel" aria-label="Local state caches">
      <h2 className="as-h3">Local state caches</h2>
      <p className="small muted-text">The lmdb state store keeps the state in an LMDB environment in the worker&apos;s data directory; the checkpoint holds what any worker needs to rebuild it.</p>
      <TableScroll label="Local state caches">
        <table className="data compact" aria-label="Local state caches">
          <thead>
            <tr>
              <th>Machine and directory</th>
              <th>Store</th>
              <th className="num">Version</th>
              <th className="num">On disk</th>
              <th>Next start there</th>
            </tr>
          </thead>
          <tbody>
            {caches.flatMap((c) =>
              c.stores.map((s) => (
                <tr key={`${c.hostname}/${c.path}/${s.dir}`}>
                  <td>
                    {c.hostname} <code className="small">{c.path}</code>{' '}
                    <span className="muted-text small">
                      (worker {c.workerIds.join(', ')}; {formatBytes(c.bytes)} in all)
                    </span>
                  </td>
                  <td>{s.dir}</td>
                  <td className="num">{s.version ?? '–'}</td>
                  <td className="num">{formatBytes(s.bytes)}</td>
                  <td>
                    <span className={`badge ${s.reuse ? 'ok' : 'warn'}`}>{s.reuse ? `reuses v${c.nextVersion}` : `rebuilds v${c.nextVersion}`}</span> <span className="small">{s.reason}</span>
                  </td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

function Problems({ problems }: { problems: CheckpointTree['problems'] }) {
  if (problems.length === 0) return null;
  return (
    <div className="error-box" role="alert" aria-label="Checkpoint problems">
      <strong>This checkpoint is damaged: a start refuses it with CORRUPT_CHECKPOINT, and writes nothing.</strong>
      <ul>
        {problems.map((p) => (
          <li key={p.path}>
            <code>{p.path}</code> is {p.missing ? 'missing' : 'corrupt'}: {p.reason}.
          </li>
        ))}
      </ul>
      <p className="small">
        Ways out: restore the named files from a backup of the checkpoint; or reset the checkpoint (a new, empty checkpoint), which reprocesses from the
        source&apos;s start position.
      </p>
    </div>
  );
}

function FileView({ jobId, path }: { jobId: string; path: string }) {
  const q = useQuery({
    queryKey: queryKeys.checkpointFile(jobId, path),
    queryFn: ({ signal }) => apiFetch<CheckpointFile>(`/api/jobs/${jobId}/checkpoint/file?path=${encodeURIComponent(path)}`, { signal }),
  });
  return (
    <section className="panel" aria-label={`File ${path}`}>
      <h2 className="as-h3">
        <code>{path}</code> {q.data && <span className="small muted-text">{formatBytes(q.data.size)}</span>}
      </h2>
      {q.isLoading ? (
        <p role="status">Loading…</p>
      ) : q.isError ? (
        <div className="error-box" role="alert">
          {errorMessage(q.error)}
        </div>
      ) : q.data ? (
        <>
          {q.data.encoding === 'base64' && <p className="small muted-text">Binary file (state store data), shown as base64.</p>}
          {q.data.truncated && <p className="small muted-text">Only the first MiB is shown.</p>}
          <pre aria-label="File contents" tabIndex={0} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {q.data.content}
          </pre>
        </>
      ) : null}
    </section>
  );
}

const LOG_DIRS = ['offsets', 'commits', 'sources', 'state'];

/**
 * One directory of the tree. Log directories (one file per batch) start closed: a long job has
 * thousands. The one holding a pending batch opens, so the file that needs attention shows. After
 * that the reader's own open or close stands: the tree refreshes while the job runs, and a batch
 * going from pending to committed must not fold a directory someone opened.
 */
function Dir({ node, dirChildren, selected, onSelect, pendingPath }: { node: TreeNode; dirChildren: TreeNode[]; selected: string | null; onSelect: (p: string) => void; pendingPath: string | null }) {
  const holdsPending = !!pendingPath?.startsWith(`${node.path}/`);
  const [open, setOpen] = useState(() => (!LOG_DIRS.includes(node.path) && dirChildren.length <= 5) || holdsPending);
  useEffect(() => {
    if (holdsPending) setOpen(true);
  }, [holdsPending]);
  return (
    <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        {node.name}/ <span className="small muted-text">({dirChildren.length})</span>
      </summary>
      <Tree nodes={dirChildren} selected={selected} onSelect={onSelect} pendingPath={pendingPath} />
    </details>
  );
}

function Tree({ nodes, selected, onSelect, pendingPath }: { nodes: TreeNode[]; selected: string | null; onSelect: (p: string) => void; pendingPath: string | null }) {
  return (
    <ul className="tree">
      {nodes.map((n) =>
        n.children ? (
          <li key={n.path}>
            <Dir node={n} dirChildren={n.children} selected={selected} onSelect={onSelect} pendingPath={pendingPath} />
          </li>
        ) : (
          <li key={n.path} className={n.path === pendingPath ? 'pending' : undefined}>
            <button type="button" aria-pressed={selected === n.path} onClick={() => onSelect(n.path)} aria-label={`${n.path}${n.path === pendingPath ? ' (pending batch)' : ''}`}>
              {n.name}
            </button>{' '}
            <span className="small muted-text">{formatBytes(n.size)}</span>
            {n.path === pendingPath && <span className="badge warn"> pending: no commit</span>}
          </li>
        ),
      )}
    </ul>
  );
}

export function CheckpointInspector({ jobId, lastBatchId }: { jobId: string; lastBatchId?: number | null }) {
  const [selected, setSelected] = useState<string | null>(null);
  const q = useQuery({ queryKey: queryKeys.checkpoint(jobId), queryFn: ({ signal }) => apiFetch<CheckpointTree>(`/api/jobs/${jobId}/checkpoint`, { signal }) });
  // Read again when the job commits another batch, so this tab and the page header agree.
  const { refetch } = q;
  useEffect(() => {
    if (lastBatchId !== undefined) void refetch();
  }, [lastBatchId, refetch]);
  const tree = useMemo(() => (q.data ? buildTree(q.data.files) : []), [q.data]);
  if (q.isLoading) return <p role="status">Reading the checkpoint…</p>;
  if (q.isError)
    return (
      <div className="error-box" role="alert">
        Could not read the checkpoint: {errorMessage(q.error)}
      </div>
    );
  const c = q.data!;
  const pendingPath = c.pendingBatch !== null ? `offsets/${c.pendingBatch}` : null;
  return (
    <section aria-label="Checkpoint inspector">
      <div className="grid3 panel">
        <div className="stat">
          <span className="label">Location</span>
          <code className="ellipsis" title={c.location}>
            {c.location}
          </code>
        </div>
        <div className="stat">
          <span className="label">Last batch in offsets / in commits</span>
          <span className="value">
            {c.latestOffsetsBatch ?? '–'} / {c.latestCommittedBatch ?? '–'}
          </span>
          <span className="small muted-text">batch ids, read {q.dataUpdatedAt ? formatClock(q.dataUpdatedAt) : '–'}</span>
        </div>
        <div className="stat">
          <span className="label">Files</span>
          <span className="value">
            {c.files.length}
            {c.truncated ? '+' : ''}
          </span>
          <span className="small muted-text">{formatBytes(c.totalBytes)}</span>
        </div>
        <div className="stat">
          <span className="label">Pending batch</span>
          {c.pendingBatch === null ? (
            <span className="value">none</span>
          ) : (
            <span role="status">
              <span className="badge warn">batch {c.pendingBatch}</span>{' '}
              <span className="small">offsets/{c.pendingBatch} has no commits/{c.pendingBatch}: a restart re-runs this batch over exactly its recorded range.</span>
            </span>
          )}
        </div>
      </div>
      <div className="actions" style={{ marginBottom: 8 }}>
        <button type="button" onClick={() => void q.refetch()}>
          Refresh
        </button>
      </div>
      <Problems problems={c.problems ?? []} />
      <StateStores state={c.state} />
      <LocalCaches caches={c.localCaches ?? []} lmdb={c.state.some((op) => op.stateStoreProvider === 'lmdb')} />
      {c.files.length === 0 ? (
        <div className="panel empty">
          <h2>Empty checkpoint</h2>
          <p>The first run writes metadata, then offsets/0 before batch 0 and commits/0 after it.</p>
        </div>
      ) : (
        <div className="inspector">
          <nav className="panel" aria-label="Checkpoint files">
            <Tree nodes={tree} selected={selected} onSelect={setSelected} pendingPath={pendingPath} />
          </nav>
          {selected ? (
            <FileView jobId={jobId} path={selected} />
          ) : (
            <div className="panel empty">
              <p>Select a file to see its contents.</p>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
