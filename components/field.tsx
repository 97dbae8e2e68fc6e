/**
 * A labelled form control. The hint and the errors sit beside the label, not inside it, so the
 * control's accessible name stays its label ("Name", not "Name must not be empty"); a screen
 * reader announces the errors through role="alert".
 */
import type { ReactNode } from 'react';

export interface FieldIssue {
  message: string;
}

export function Field({ label, issues, children, hint }: { label: string; issues: FieldIssue[]; children: ReactNode; hint?: string }) {
  return (
    <div className="field">
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
