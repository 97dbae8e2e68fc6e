/**
 * The create-rule form's model: which labelled parameter fields each rule kind shows, and the
 * form values turned into the body of POST /api/alert-rules. Kept out of the component so it is
 * tested without a browser; the server validates again (rule-kinds.ts) and its 400 names fields.
 */
export type RuleKind = 'state-rows' | 'state-bytes' | 'state-growth' | 'commit-lag' | 'lag-rising' | 'falling-behind' | 'no-progress' | 'source-idle' | 'run-failed' | 'deploy-warning';

export interface ParamField {
  name: string;
  label: string;
  hint: string;
  defaultValue: string;
}

export const KIND_OPTIONS: { kind: RuleKind; label: string; fields: ParamField[] }[] = [
  { kind: 'state-growth', label: 'State growing (not bounded)', fields: [
    { name: 'percentPerHour', label: 'Growth above (% per hour)', hint: 'relative to the state at the window start', defaultValue: '50' },
    { name: 'windowMs', label: 'For a window of (ms)', hint: 'history the growth must span', defaultValue: '1800000' },
  ] },
  { kind: 'state-rows', label: 'State rows above a threshold', fields: [{ name: 'threshold', label: 'State rows threshold', hint: 'rows summed over operators', defaultValue: '1000000' }] },
  { kind: 'state-bytes', label: 'State bytes above a threshold', fields: [{ name: 'threshold', label: 'State bytes threshold', hint: 'memory + disk', defaultValue: '1073741824' }] },
  { kind: 'commit-lag', label: 'Commit lag above a threshold', fields: [
    { name: 'threshold', label: 'Commit lag threshold (records)', hint: 'behind the source’s latest offset', defaultValue: '10000' },
    { name: 'batches', label: 'For batches in a row', hint: '', defaultValue: '1' },
  ] },
  { kind: 'lag-rising', label: 'Commit lag rising', fields: [{ name: 'batches', label: 'Rising for batches', hint: 'rose at each of the last N batches', defaultValue: '3' }] },
  { kind: 'falling-behind', label: 'Batches slower than the trigger interval', fields: [{ name: 'batches', label: 'Slower for batches', hint: 'batch duration above the interval', defaultValue: '3' }] },
  { kind: 'no-progress', label: 'Stuck: data waiting, no committed batch while RUNNING', fields: [{ name: 'afterMs', label: 'No commit for (ms)', hint: 'checked on the schedule; a quiet source does not count', defaultValue: '300000' }] },
  { kind: 'source-idle', label: 'Source quiet: no new data for a while', fields: [{ name: 'afterMs', label: 'No new data for (ms)', hint: 'the job is healthy; opt-in', defaultValue: '3600000' }] },
  { kind: 'run-failed', label: 'Run failed or recovering', fields: [] },
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

/** The API body; a number field that does not parse is sent as text so the server names it. */
export function ruleRequestBody(v: RuleFormValues) {
  const params: Record<string, unknown> = {};
  for (const f of fieldsOf(v.kind)) {
    const raw = (v.params[f.name] ?? '').trim();
    if (raw === '') continue;
    const n = Number(raw);
    params[f.name] = Number.isFinite(n) ? n : raw;
  }
  return {
    name: v.name.trim(),
    kind: v.kind,
    jobId: v.jobId || null,
    params,
    ...(v.webhookUrl.trim() ? { webhookUrl: v.webhookUrl.trim(), webhookSecret: v.webhookSecret } : {}),
  };
}
