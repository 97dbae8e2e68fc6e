'use client';
/**
 * Keyset paging for the history tables (batches, runs): a stack of cursors, so "Newer" needs no
 * offsets and page 200 of a long history costs what page 1 does. The newest page's cursor is
 * null; Older pushes the page's `nextBefore`, Newer pops it.
 */
import { useState } from 'react';

export interface KeysetPages<C> {
  /** The current page's cursor (null: the newest page). */
  cursor: C | null;
  /** 1 for the newest page. */
  page: number;
  newer: () => void;
  older: (next: C) => void;
}

export function useKeysetPages<C>(): KeysetPages<C> {
  const [cursors, setCursors] = useState<(C | null)[]>([null]);
  return {
    cursor: cursors[cursors.length - 1],
    page: cursors.length,
    newer: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
    older: (next) => setCursors((c) => [...c, next]),
  };
}

/** Newer / Older buttons and the page number; `next` is the current page's `nextBefore`. */
export function PagerButtons<C>({ pages, next }: { pages: KeysetPages<C>; next: C | null | undefined }) {
  return (
    <div className="actions" style={{ marginTop: 8 }}>
      <button type="button" disabled={pages.page === 1} onClick={pages.newer}>
        Newer
      </button>
      <button type="button" disabled={next === null || next === undefined} onClick={() => next !== null && next !== undefined && pages.older(next)}>
        Older
      </button>
      <span className="small muted-text">Page {pages.page}</span>
    </div>
  );
}
