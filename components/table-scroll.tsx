import type { ReactNode } from 'react';

/**
 * A table's box that scrolls sideways when the table is wider than the page. Focusable and
 * named (a region "<label> table"), so that a keyboard user can scroll it (axe's
 * scrollable-region-focusable); the name differs per table, so no two landmarks share one.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={`${label} table`}>
      {children}
    </div>
  );
}
