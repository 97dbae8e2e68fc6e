/**
 * What a sink holds, in parts that add up: rows written once by the committed batches, duplicate
 * rows, and rows under batch ids no committed batch has (a lost query's batches not re-run yet, a
 * crashed batch before its recovery). One wording for the drill's audit and the diagnosis.
 */
import type { SinkAudit } from '@/lib/server/drills/sink-audit';

type Counts = Pick<SinkAudit, 'totalExpected' | 'totalActual' | 'duplicateRows'> & Partial<Pick<SinkAudit, 'missingRows' | 'unattributedRows'>>;

/** The parts of `totalActual`; an audit recorded before the parts were kept gets them derived. */
function sinkParts(a: Counts) {
  const missing = a.missingRows ?? 0;
  const once = a.totalExpected - missing;
  return { once, duplicates: a.duplicateRows, unattributed: a.unattributedRows ?? a.totalActual - once - a.duplicateRows, missing };
}

export function SinkCounts({ audit }: { audit: Counts }) {
  const p = sinkParts(audit);
  return (
    <>
      <span data-testid="sink-counts">
        The sink holds {audit.totalActual} rows: {p.once} written once by the committed batches, <strong>{p.duplicates} duplicate rows</strong>
        {p.unattributed !== 0 && <>, {p.unattributed} under batch ids no committed batch has (a lost query&apos;s batches not re-run yet, or a crashed batch before its recovery)</>}
      </span>
      {p.missing > 0 && <> ({p.missing} rows the committed batches wrote are missing)</>}.
    </>
  );
}
