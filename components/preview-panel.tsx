'use client';
/**
 * The editor's Preview: the query, with no checkpoint and no sink (POST /api/jobs/preview), over
 * the source's most recent records by default, or over a sample the user pastes (one JSON object
 * per line, or a JSON array). Shows how many records were read, the output schema and the first
 * rows; for a stateful query the result after the records, with the engine's note about windows
 * and the watermark. Reading the source's records needs the admin role (the API's 403 otherwise):
 * below it the panel previews pasted records only and says why.
 */
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { QueryPreview } from '@/lib/engine';
import { apiFetch, errorMessage, JsonText } from './api-client';
import { formatBytes } from './format';
import { MAX_BODY_BYTES, MAX_PREVIEW_SAMPLE_RECORDS } from '@/lib/server/http/body-limits';
import { TableScroll } from './table-scroll';

/** A JSON array, or one JSON value per non-empty line; throws naming the bad line. */
export function parseSample(text: string): unknown[] {
  const t = text.trim();
  if (!t) return [];
  if (t.startsWith('[')) return JSON.parse(t) as unknown[];
  return t.split('\n').flatMap((line, i) => {
    if (!line.trim()) return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch {
      throw new Error(`Sample line ${i + 1} is not JSON: ${line.slice(0, 80)}`);
    }
  });
}

/** The pasted records as one JSON array's text, each record's text unchanged (parseSample checked it is JSON). */
export function sampleArrayText(text: string): string {
  const t = text.trim();
  if (t.startsWith('[')) return t;
  return `[${t.split('\n').filter((l) => l.trim() !== '').join(',')}]`;
}

/**
 * What is wrong with a sample before it is sent, in the sample's terms: too many records, or a
 * request (sample and spec) over the API's body limit. Null when it may be sent.
 */
function sampleProblem(records: number, requestBytes: number): string | null {
  if (records > MAX_PREVIEW_SAMPLE_RECORDS) return `The sample has ${records} records; a preview takes at most ${MAX_PREVIEW_SAMPLE_RECORDS}. Paste fewer records.`;
  if (requestBytes > MAX_BODY_BYTES) {
    return `The sample is too large: with the spec it is ${formatBytes(requestBytes)}, and a preview request may be at most ${formatBytes(MAX_BODY_BYTES)}. Paste fewer or smaller records.`;
  }
  return null;
}

export function PreviewPanel({ spec, disabledReason, canReadSource }: { spec: unknown; disabledReason: string | null; canReadSource: boolean }) {
  const [pastedChoice, setPasted] = useState(false);
  const pasted = pastedChoice || !canReadSource;
  const [text, setText] = useState('');
  const run = useMutation({
    mutationFn: async () => {
      if (!pasted) return apiFetch<QueryPreview>('/api/jobs/preview', { method: 'POST', body: { spec } });
      const records = parseSample(text);
      // The records go as the text pasted, so that a 64-bit id keeps its digits (the server reads them exactly).
      const body = `{"spec":${JSON.stringify(spec)},"sample":${sampleArrayText(text)}}`;
      const problem = sampleProblem(records.length, new TextEncoder().encode(body).length);
      if (problem) throw new Error(problem);
      return apiFetch<QueryPreview>('/api/jobs/preview', { method: 'POST', body: new JsonText(body) });
    },
  });
  const why = disabledReason ?? (pasted && !text.trim() ? 'Paste sample records first.' : null);
  const p = run.data;
  return (
    <section className="panel" aria-label="Preview">
      <h2>Preview</h2>
      <p className="small muted-text">
        Runs the query over the source&apos;s most recent records (at most 1,000), or over records you paste; no checkpoint, no sink, nothing committed. Shows the first 100 output rows.
      </p>
      <label className="checkbox">
        <input type="checkbox" checked={pasted} disabled={!canReadSource} onChange={(e) => setPasted(e.target.checked)} />
        <span>Paste a sample instead of reading the source</span>
      </label>
      {!canReadSource && <p className="small muted-text">Reading the source&apos;s records needs the admin role; paste sample records to preview.</p>}
      {pasted && (
        <label>
          Sample records (one JSON object per line)
          <textarea rows={5} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} placeholder='{"user": "a", "n": 1}' />
        </label>
      )}
      <div className="actions">
        <button type="button" disabled={!!why || run.isPending} onClick={() => run.mutate()} aria-describedby={why ? 'preview-why' : undefined}>
          {run.isPending ? 'Previewing…' : 'Preview'}
        </button>
        {why && (
          <span id="preview-why" className="small muted-text">
            {why}
          </span>
        )}
      </div>
      {run.isError && (
        <div className="error-box" role="alert">
          {errorMessage(run.error)}
        </div>
      )}
      {p && (
        <div role="region" aria-label="Preview result">
          <p className="small" role="status">
            {p.read ? `Read ${p.read.records} recent records from ${p.read.source}${p.read.bounded ? ' (the preview’s limit; the source holds more)' : ''}. ` : ''}
            {p.totalRows} output rows from {p.inputRows} records{p.truncated ? `, first ${p.rows.length} shown` : ''}.
          </p>
          {p.notes.map((n) => (
            <p key={n} className="small muted-text">
              {n}
            </p>
          ))}
          <TableScroll label="Preview rows">
            <table className="data" aria-label="Preview rows">
              <thead>
                <tr>
                  {p.columns.map((c) => (
                    // The name, then its Spark type on a line of its own: the header is upper-cased
                    // by the table's style, which ran "w" and "WINDOW" together.
                    <th key={c.name} className="preview-head">
                      <span className="col-name">{c.name}</span>{' '}
                      <span className="col-type">{c.type}</span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {p.rows.map((r, i) => (
                  <tr key={i}>
                    {p.outputSchema.map((f) => (
                      <td key={f.name}>{typeof r[f.name] === 'object' && r[f.name] !== null ? JSON.stringify(r[f.name]) : String(r[f.name] ?? '')}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </div>
      )}
    </section>
  );
}
