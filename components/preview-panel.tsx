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
import { apiFetch, errorMessage } from './api-client';

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

export function PreviewPanel({ spec, disabled, canReadSource }: { spec: unknown; disabled: boolean; canReadSource: boolean }) {
  const [pastedChoice, setPasted] = useState(false);
  const pasted = pastedChoice || !canReadSource;
  const [text, setText] = useState('');
  const run = useMutation({
    mutationFn: async () => apiFetch<QueryPreview>('/api/jobs/preview', { method: 'POST', body: pasted ? { spec, sample: parseSample(text) } : { spec } }),
  });
  const p = run.data;
  return (
    <section className="panel" aria-label="Preview">
      <h2>Preview</h2>
      <p className="small muted-text">
        Runs the query over the source&apos;s most recent records (at most 1,000), or over records you paste; no checkpoint, no sink, nothing committed. Shows the first 100 output rows.
      </p>
      <label className="checkbox">
        <input type="checkbox" checked={pasted} disabled={!canReadSource} onChange={(e) => setPasted(e.target.checked)} /> Paste a sample instead of reading the source
      </label>
      {!canReadSource && <p className="small muted-text">Reading the source&apos;s records needs the admin role; paste sample records to preview.</p>}
      {pasted && (
        <label>
          Sample records (one JSON object per line)
          <textarea rows={5} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} placeholder='{"user": "a", "n": 1}' />
        </label>
      )}
      <div className="actions">
        <button type="button" disabled={disabled || run.isPending || (pasted && !text.trim())} onClick={() => run.mutate()}>
          {run.isPending ? 'Previewing…' : 'Preview'}
        </button>
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
          <div className="table-scroll">
            <table className="data" aria-label="Preview rows">
              <thead>
                <tr>
                  {p.outputSchema.map((f) => (
                    <th key={f.name}>
                      {f.name} <span className="muted-text small">{f.type}</span>
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
          </div>
        </div>
      )}
    </section>
  );
}
