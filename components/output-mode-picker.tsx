'use client';
/**
 * The output-mode choice: the three modes as radio buttons, legal ones enabled, illegal ones
 * disabled with what to change to allow them (the fix first, a link to each field it names, Spark's
 * class and message as the detail), so the user learns why and what to do rather than guessing; while the spec has errors elsewhere no mode is judged. Legality comes from the server's draft check; nothing is decided here.
 */
import type { ModeVerdict, OutputModeName } from '@/lib/server/presenters/job-draft-presenter';
import { controlLabel, withFieldLabels } from './job-form';
import { adviceFor, focusControl } from './output-mode-advice';

const DESCRIPTIONS: Record<OutputModeName, string> = {
  append: 'Only new rows, each written once and never changed (aggregations need a watermark: a group is written when the watermark closes it).',
  update: 'Rows that changed in this batch (the sink must upsert by key).',
  complete: 'The whole result table every batch (aggregations only; state is never evicted).',
};

/** A reason a mode is not allowed: the fix first, links to the fields it changes, Spark's words small. */
export function ModeAdviceView({ reason }: { reason: string }) {
  const a = adviceFor(reason);
  return (
    <span className="mode-advice">
      <span>{a.fix}</span>
      {a.controls.length > 0 && (
        <span className="actions">
          Go to:
          {a.controls.map((c) => (
            <button key={c} type="button" className="link-button" onClick={() => focusControl(c)}>
              {controlLabel(c)}
            </button>
          ))}
        </span>
      )}
      {(a.detail || a.errorClass) && (
        <span className="small muted-text spark-detail">
          Spark: {a.errorClass && <code>{a.errorClass}</code>} {a.detail}
        </span>
      )}
    </span>
  );
}

export function OutputModePicker({ value, onChange, verdicts }: { value: string; onChange: (m: OutputModeName) => void; verdicts: ModeVerdict[] | undefined }) {
  const modes: OutputModeName[] = ['append', 'update', 'complete'];
  const decided = modes.map((m) => verdicts?.find((x) => x.mode === m)).filter((v) => v?.decided);
  const noneAllowed = decided.length === modes.length && decided.every((v) => !v!.legal);
  return (
    <fieldset className="plain">
      <legend>Output mode</legend>
      {noneAllowed && (
        <p className="warn-box small" role="note">
          No output mode is allowed for this query and sink yet. Each mode below says what to change to allow it.
        </p>
      )}
      {modes.map((m) => {
        const v = verdicts?.find((x) => x.mode === m);
        // Undecided (the spec has errors elsewhere): neither legal nor "not allowed" yet.
        const illegal = v ? v.decided && !v.legal : false;
        const reasonId = `mode-reason-${m}`;
        return (
          <div key={m} className={`mode-option${illegal ? ' illegal' : ''}`}>
            <input
              id={`mode-${m}`}
              type="radio"
              name="outputMode"
              value={m}
              checked={value === m}
              // The current choice stays selectable even when illegal, so its error stays visible.
              disabled={illegal && value !== m}
              onChange={() => onChange(m)}
              aria-describedby={reasonId}
            />
            <span>
              <label htmlFor={`mode-${m}`} className="mode-name">
                <strong>{m[0].toUpperCase() + m.slice(1)}</strong>
              </label>{' '}
              {v?.decided ? v.legal ? <span className="badge ok">legal</span> : <span className="badge bad">not allowed</span> : null}
              <br />
              <span id={reasonId} className="small">
                {illegal ? v!.reasons.map((r, i) => <ModeAdviceView key={i} reason={r} />) : DESCRIPTIONS[m]}
                {v?.warnings.length ? <span className="field-warning"> {withFieldLabels(v.warnings.join(' '))}</span> : null}
              </span>
            </span>
          </div>
        );
      })}
    </fieldset>
  );
}
