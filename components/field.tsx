/**
 * A labelled form control. The hint and the errors sit beside the label, not inside it, so the
 * control's accessible name stays its label ("Name", not "Name must not be empty"); a screen
 * reader announces the errors through role="alert".
 */
import type { ReactNode } from 'react';

export interface FieldIssue {
  message: string;
}

/** `control`: the form control's name, so that an error elsewhere can link to (focus) it. */
export function Field({ label, issues, children, hint, control }: { label: string; issues: FieldIssue[]; children: ReactNode; hint?: ReactNode; control?: string }) {
  return (
    <div className="field" data-control={control}>
      <label>
        {label}
        {children}
      </label>
      {hint && <span className="small muted-text">{hint}</span>}
      {issues.map((i, k) => (
        <span key={k} className="field-error" role="alert">
          {i.message}
        </span>
      ))}
    </div>
  );
}
