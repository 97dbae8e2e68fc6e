'use client';
/**
 * The output-mode choice: the three modes as radio buttons, legal ones enabled, illegal ones
 * disabled with the engine's reason (Spark's message) underneath, so the user learns why rather
 * than guessing; while the spec has errors elsewhere no mode is judged. Legality comes from the server's draft check; nothing is decided here.
 */
import type { ModeVerdict, OutputModeName } from '@/lib/server/presenters/job-draft-presenter';
import { withFieldLabels } from './job-form';

const DESCRIPTIONS: Record<OutputModeName, string> = {
  append: 'Only new rows, each written once and never changed (aggregations need a watermark: a group is written when the watermark closes it).',
  update: 'Rows that changed in this batch (the sink must upsert by key).',
  complete: 'The whole result table every batch (aggregations only; state is never evicted).',
};

export function OutputModePicker({ value, onChange, verdicts }: { value: string; onChange: (m: OutputModeName) => void; verdicts: ModeVerdict[] | undefined }) {
  const modes: OutputModeName[] = ['append', 'update', 'complete'];
  return (
    <fieldset className="plain">
      <legend>Output mode</legend>
      {modes.map((m) => {
        const v = verdicts?.find((x) => x.mode === m);
        // Undecided (the spec has errors elsewhere): neither legal nor "not allowed" yet.
        const illegal = v ? v.decided && !v.legal : false;
        const reasonId = `mode-reason-${m}`;
        return (
          <label key={m} className={`mode-option${illegal ? ' illegal' : ''}`}>
            <input
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
              <strong>{m[0].toUpperCase() + m.slice(1)}</strong> {v?.decided ? v.legal ? <span className="badge ok">legal</span> : <span className="badge bad">not allowed</span> : null}
              <br />
              <span id={reasonId} className="small">
                {illegal ? withFieldLabels(v!.reasons.join(' ')) : DESCRIPTIONS[m]}
                {v?.warnings.length ? <span className="field-warning"> {withFieldLabels(v.warnings.join(' '))}</span> : null}
              </span>
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}
