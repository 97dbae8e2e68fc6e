/**
 * What to change when an output mode is not allowed, in the form's words: the engine's reasons
 * are Spark's messages ("[_LEGACY_ERROR_TEMP_3102] Append output mode not supported when there
 * are streaming aggregations … without watermark"), which name neither a field nor a fix. Each
 * known reason maps to the fix and the controls to change; Spark's class and message stay as the
 * detail. An unknown reason is its own message.
 */
import type { FormControl } from './job-form';
import { withFieldLabels } from './job-form';

export interface ModeAdvice {
  /** The fix, in plain words, first. */
  fix: string;
  /** The form controls the fix changes, to link to. */
  controls: FormControl[];
  /** Spark's message and error class, shown small. */
  detail: string;
  errorClass?: string;
}

const MODE = (m: string) => m[0].toUpperCase() + m.slice(1).toLowerCase();

/** A reason as the draft check gives it: `[CLASS] message` or just the message. */
export function adviceFor(reason: string): ModeAdvice {
  const m = /^\[([\w.]+)\]\s*([\s\S]*)$/.exec(reason);
  const errorClass = m?.[1];
  const message = m ? m[2] : reason;
  const detail = withFieldLabels(message);
  const advice = (fix: string, controls: FormControl[]): ModeAdvice => ({ fix, controls, detail, errorClass });
  if (/^Append output mode not supported when there are streaming aggregations/i.test(message)) {
    return advice(
      'Set an event-time column and a watermark delay, and group by that column or a window over it: Append then writes each group once, when the watermark closes it. Or choose Update (or, for a GROUP BY, Complete), if the sink takes it.',
      ['sources.0.eventTime', 'sources.0.watermarkDelay'],
    );
  }
  if (/^Complete output mode not supported when there are no streaming aggregations/i.test(message)) {
    return advice('Complete rewrites an aggregated result every batch, and this query does not aggregate: choose Append, or group the query (GROUP BY).', ['sql']);
  }
  const sink = /not supported in Data Source ([\w-]+)\.\s*The [\w-]+ sink takes ([^:]+) output mode/i.exec(message);
  if (sink) {
    const mode = /Invalid streaming output mode: (\w+)/i.exec(message)?.[1] ?? '';
    return advice(`The ${sink[1]} sink cannot write ${MODE(mode)} output: choose ${sink[2]}, or another sink type that takes ${MODE(mode)}.`, ['sinkType']);
  }
  if (/^Sorting is not supported on streaming/i.test(message)) {
    return advice('Remove ORDER BY from the query, or aggregate and choose Complete (a sorted result needs the whole result every batch).', ['sql']);
  }
  if (/^Limits are not supported .* in Update output mode/i.test(message)) {
    return advice('Remove LIMIT from the query, or choose Append or Complete.', ['sql']);
  }
  if (/^Multiple streaming aggregations are not supported/i.test(message)) {
    return advice('Aggregate once: one GROUP BY per streaming query.', ['sql']);
  }
  if (/^Detected pattern of possible 'correctness' issue due to global watermark/i.test(message)) {
    return advice('Choose Append for this query: in other modes an aggregation emits rows the operator after it would drop as late.', []);
  }
  return { fix: detail, controls: [], detail: '', errorClass };
}

/** Focuses (and scrolls to) a form control of the job editor: fields carry `data-control`. */
export function focusControl(control: FormControl): void {
  const box = document.querySelector<HTMLElement>(`[data-control="${control}"]`);
  const target = control === 'sql' ? box?.querySelector<HTMLElement>('.cm-content') : box?.querySelector<HTMLElement>('input, select, textarea');
  box?.scrollIntoView({ block: 'center' });
  target?.focus({ preventScroll: true });
}
