/**
 * The create-rule form's model: which labelled parameter fields each rule kind shows, and the
 * form values turned into the body of POST /api/alert-rules. Kept out of the component so it is
 * tested without a browser; the server validates again (rule-kinds.ts) and its 400 names fields.
 */
import { formatBytes, formatInterval } from './format';

export type RuleKind = 'state-rows' | 'state-bytes' | 'state-growth' | 'commit-lag' | 'lag-rising' | 'falling-behind' | 'no-progress' | 'source-idle' | 'run-failed' | 'data-loss' | 'deploy-warning';

export interface ParamField {
  name: string;
  label: string;
  hint: string;
  defaultValue: string;
  /** How a rule's list names the value: "window 30 min". */
  short: string;
  /** What the value is: a duration in ms (typed in minutes), bytes, or a plain number. */
  unit?: 'ms' | 'bytes' | 'percent-per-hour';
}

/** A duration field is typed in minutes; the API takes milliseconds. */
const MS_PER_MINUTE = 60_000;

export const KIND_OPTIONS: { kind: RuleKind; label: string; fields: ParamField[] }[] = [
  { kind: 'state-growth', label: 'State growing (not bounded)', fields: [
    { name: 'percentPerHour', label: 'Growth above (% per hour)', hint: 'relative to the state at the window start', defaultValue: '50', short: 'growth above', unit: 'percent-per-hour' },
    { name: 'windowMs', label: 'For a window of (minutes)', hint: 'history the growth must span', defaultValue: '30', short: 'window', unit: 'ms' },
  ] },
  { kind: 'state-rows', label: 'State rows above a threshold', fields: [{ name: 'threshold', label: 'State rows threshold', hint: 'rows summed over operators', defaultValue: '1000000', short: 'threshold' }] },
  { kind: 'state-bytes', label: 'State bytes above a threshold', fields: [{ name: 'threshold', label: 'State bytes threshold', hint: 'memory + disk', defaultValue: '1073741824', short: 'threshold', unit: 'bytes' }] },
  { kind: 'commit-lag', label: 'Commit lag above a threshold', fields: [
    { name: 'threshold', label: 'Commit lag threshold (records)', hint: 'behind the source’s latest offset', defaultValue: '10000', short: 'threshold' },
    { name: 'batches', label: 'For batches in a row', hint: '', defaultValue: '1', short: 'batches in a row' },
  ] },
  { kind: 'lag-rising', label: 'Commit lag rising', fields: [{ name: 'batches', label: 'Rising for batches', hint: 'rose at each of the last N batches', defaultValue: '3', short: 'batches in a row' }] },
  { kind: 'falling-behind', label: 'Batches slower than the trigger interval', fields: [{ name: 'batches', label: 'Slower for batches', hint: 'batch duration above the interval', defaultValue: '3', short: 'batches in a row' }] },
  { kind: 'no-progress', label: 'Stuck: data waiting, no committed batch while RUNNING', fields: [{ name: 'afterMs', label: 'No commit for (minutes)', hint: 'checked on the schedule; a quiet source does not count', defaultValue: '5', short: 'no commit for', unit: 'ms' }] },
  { kind: 'source-idle', label: 'Source quiet: no new data for a while', fields: [{ name: 'afterMs', label: 'No new data for (minutes)', hint: 'the job is healthy; opt-in', defaultValue: '60', short: 'no new data for', unit: 'ms' }] },
  { kind: 'run-failed', label: 'Run failed or recovering', fields: [] },
  { kind: 'data-loss', label: 'Data loss: a batch skipped records its source no longer had', fields: [{ name: 'batches', label: 'Within the last batches', hint: 'failOnDataLoss false: retention deleted them, or the topic was recreated', defaultValue: '1', short: 'within batches' }] },
  { kind: 'deploy-warning', label: 'Deploy-time warnings (standing)', fields: [] },
];

export interface RuleFormValues {
  name: string;
  kind: RuleKind;
  /** '' = global. */
  jobId: string;
  params: Record<string, string>;
  webhookUrl: string;
  webhookSecret: string;
}

export function fieldsOf(kind: RuleKind): ParamField[] {
  return KIND_OPTIONS.find((k) => k.kind === kind)?.fields ?? [];
}

export function defaultParams(kind: RuleKind): Record<string, string> {
  return Object.fromEntries(fieldsOf(kind).map((f) => [f.name, f.defaultValue]));
}

/**
 * The API body; a number field that does not parse is sent as text so the server names it. A
 * duration typed in minutes goes as whole milliseconds.
 */
export function ruleRequestBody(v: RuleFormValues) {
  const params: Record<string, unknown> = {};
  for (const f of fieldsOf(v.kind)) {
    const raw = (v.params[f.name] ?? '').trim();
    if (raw === '') continue;
    const n = Number(raw);
    params[f.name] = !Number.isFinite(n) ? raw : f.unit === 'ms' ? Math.round(n * MS_PER_MINUTE) : n;
  }
  return {
    name: v.name.trim(),
    kind: v.kind,
    jobId: v.jobId || null,
    params,
    ...(v.webhookUrl.trim() ? { webhookUrl: v.webhookUrl.trim(), webhookSecret: v.webhookSecret } : {}),
  };
}

/** One parameter as a person reads it: "window 30 min", "above 1.0 GiB", not 1800000. */
function paramText(f: ParamField | undefined, name: string, value: unknown): string {
  if (typeof value !== 'number') return `${f?.short ?? name} ${String(value)}`;
  switch (f?.unit) {
    case 'ms':
      return `${f.short} ${formatInterval(value)}`;
    case 'bytes':
      return `${f.short} ${formatBytes(value)}`;
    case 'percent-per-hour':
      return `${f.short} ${value}% per hour`;
    case undefined:
      return `${f?.short ?? name} ${value.toLocaleString('en-US')}`;
  }
}

/** A rule's parameters for the rules list, in the form's terms; a kind without any is "—". */
export function ruleParamsText(kind: string, params: unknown): string {
  const entries = params && typeof params === 'object' ? Object.entries(params as Record<string, unknown>) : [];
  if (entries.length === 0) return '—';
  const fields = fieldsOf(kind as RuleKind);
  return entries.map(([name, value]) => paramText(fields.find((f) => f.name === name), name, value)).join(' · ');
}
