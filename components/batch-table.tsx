'use client';
/**
 * The batch history table: newest first, keyset pages from GET /api/jobs/:id/batches
 * (keyset-pager.tsx), and a drill-down to one batch's StreamingQueryProgress (batch-progress.tsx).
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { BatchDetail, BatchSummary } from '@/lib/server/presenters/batches-presenter';
import { apiFetch, errorMessage } from './api-client';
import { BatchProgressView } from './batch-progress';
import { PagerButtons, useKeysetPages } from './keyset-pager';
import { formatBytes, formatDateTime, formatDuration, formatFixed, formatNumber } from './format';
import { BATCH_PAGE_SIZE, queryKeys } from './query-keys';
import { TableScroll } from './table-scroll';

export interface BatchPage {
  items: BatchSummary[];
  nextBefore: number | null;
}

function BatchDrillDown({ jobId, batchId, onClose, sourceNames }: { jobId: string; batchId: number; onClose: () => void; sourceNames?: readonly string[] }) {
  const q = useQuery({ queryKey: queryKeys.batch(jobId, batchId), queryFn: ({ signal }) => apiFetch<BatchDetail>(`/api/jobs/${jobId}/batches/${batchId}`, { signal }) });
  return (
    <section className="panel" aria-label={`Batch ${batchId} progress`}>
      <div className="page-head">
        <h2 className="as-h3">Batch {batchId}</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {q.isLoading ? (
        <p role="status">Loading batch {batchId}…</p>
      ) : q.isError ? (
        <div className="error-box" role="alert">
          {errorMessage(q.error)}
        </div>
      ) : (
        <BatchProgressView progress={q.data?.progress} sourceNames={sourceNames} />
      )}
    </section>
  );
}

/** `sourceNames`: the job's sources in spec order, which the drill-down heads each source's figures with. */
export function BatchTable({ jobId, live, initial, sourceNames }: { jobId: string; live: boolean; initial?: BatchPage; sourceNames?: readonly string[] }) {
  const pages = useKeysetPages<number>();
  const [open, setOpen] = useState<number | null>(null);
  const before = pages.cursor;
  const q = useQuery({
    queryKey: queryKeys.batches(jobId, before, BATCH_PAGE_SIZE),
    queryFn: ({ signal }) => apiFetch<BatchPage>(`/api/jobs/${jobId}/batches?limit=${BATCH_PAGE_SIZE}${before === null ? '' : `&before=${before}`}`, { signal }),
    initialData: before === null ? initial : undefined,
    // Only the newest page changes while the job runs.
    refetchInterval: live && before === null ? 2000 : false,
    placeholderData: (prev) => prev,
  });
  const items = q.data?.items ?? [];
  return (
    <section aria-label="Batch history">
      {q.isError && (
        <div className="error-box" role="alert">
          Could not load batches: {errorMessage(q.error)}
        </div>
      )}
      {q.isLoading ? (
        <p role="status">Loading batches…</p>
      ) : items.length === 0 ? (
        <div className="panel empty">
          <h2>No batches yet</h2>
          <p>Each committed micro-batch appears here with its progress figures.</p>
        </div>
      ) : (
        <TableScroll label="Batches">
          {/* Headers wrap and the trigger time wraps after its date (wrap-head, wrap-time): twelve
              columns fit a 1280 px window with the Details button in view; the rates share a
              column, input then processed. */}
          <table className="data wrap-head" aria-label="Batches">
            <thead>
              <tr>
                <th className="num">Batch</th>
                <th>Trigger time</th>
                <th className="num">Input rows</th>
                <th className="num">Output rows</th>
                <th className="num" title="Late input rows dropped by the watermark (Spark's numRowsDroppedByWatermark): their event time was behind the watermark">
                  Dropped by watermark
                </th>
                <th className="num">Rows/s input / processed</th>
                <th className="num">Duration</th>
                <th className="num">State rows</th>
                <th className="num">State memory</th>
                <th className="num">Commit lag</th>
                <th className="num">Bad records</th>
                <th>Progress</th>
              </tr>
            </thead>
            <tbody>
              {items.map((b) => (
                <tr key={b.batchId} aria-selected={open === b.batchId}>
                  <td className="num">{b.batchId}</td>
                  <td className="wrap-time">{formatDateTime(b.timestamp, { ms: true })}</td>
                  <td className="num">{formatNumber(b.numInputRows, 0)}</td>
                  <td className="num">{formatNumber(b.numOutputRows, 0)}</td>
                  <td className="num">{formatNumber(b.stateRowsDroppedByWatermark, 0)}</td>
                  <td className="num">
                    {formatFixed(b.inputRowsPerSecond)} / {formatFixed(b.processedRowsPerSecond)}
                  </td>
                  <td className="num">{formatDuration(b.batchDurationMs)}</td>
                  <td className="num">{formatNumber(b.stateRowsTotal, 0)}</td>
                  <td className="num">{formatBytes(b.stateMemoryBytes)}</td>
                  <td className="num">{formatNumber(b.commitLag, 0)}</td>
                  <td className="num">{b.numBadRecords}</td>
                  <td>
                    <button type="button" onClick={() => setOpen(open === b.batchId ? null : b.batchId)} aria-expanded={open === b.batchId}>
                      {open === b.batchId ? 'Hide' : 'Details'}
                      <span className="visually-hidden"> of batch {b.batchId}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <PagerButtons pages={pages} next={q.data?.nextBefore} />
      {open !== null && <BatchDrillDown jobId={jobId} batchId={open} onClose={() => setOpen(null)} sourceNames={sourceNames} />}
    </section>
  );
}
