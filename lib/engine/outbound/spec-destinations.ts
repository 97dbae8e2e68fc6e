/**
 * The network destinations a job spec names, with the field each comes from: the source's and
 * the sink's declared `destinations` options, postgres static tables' connection strings, and an
 * s3:// checkpoint's `endpoint`. Works on a raw (unparsed) spec too, because masked-secret edits
 * compare what the client sent before it is validated.
 */
import { getSinkDefinition } from '../sinks/sink-registry';
import { getSourceDefinition } from '../sources/source-registry';
import type { SpecIssue } from '../spec/job-spec';
import { rawSourcesOf } from '../spec/spec-sources';
import { checkDestinationValue } from './destinations';
import type { DestinationKind, OutboundPolicy } from './outbound-policy';

export interface SpecDestination {
  /** The field, as validation errors name it: `sink.options.url`. */
  path: string;
  /** The spec part it belongs to: `source`, `sink`, `staticTables.0`, `checkpointLocation`. */
  part: string;
  kind: DestinationKind;
  value: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function specDestinations(spec: unknown): SpecDestination[] {
  if (!isObj(spec)) return [];
  const out: SpecDestination[] = [];
  const parts = [...rawSourcesOf(spec).map((s) => ({ part: s.path, p: s.source, isSource: true })), { part: 'sink', p: spec.sink, isSource: false }];
  for (const { part, p, isSource } of parts) {
    if (!isObj(p) || typeof p.type !== 'string' || !isObj(p.options)) continue;
    const def = isSource ? getSourceDefinition(p.type) : getSinkDefinition(p.type);
    for (const d of def?.destinations ?? []) {
      const value = p.options[d.option];
      if (typeof value === 'string') out.push({ path: `${part}.options.${d.option}`, part, kind: d.kind, value });
    }
  }
  if (Array.isArray(spec.staticTables)) {
    spec.staticTables.forEach((t, i) => {
      if (isObj(t) && t.type === 'postgres' && typeof t.connectionString === 'string') {
        out.push({ path: `staticTables.${i}.connectionString`, part: `staticTables.${i}`, kind: 'postgres', value: t.connectionString });
      }
    });
  }
  if (typeof spec.checkpointLocation === 'string' && /^s3:\/\//i.test(spec.checkpointLocation)) {
    try {
      const endpoint = new URL(spec.checkpointLocation).searchParams.get('endpoint');
      if (endpoint) out.push({ path: 'checkpointLocation', part: 'checkpointLocation', kind: 's3', value: endpoint });
    } catch {
      // the checkpoint location's own validation reports a malformed URL
    }
  }
  return out;
}

/** One issue per destination the policy refuses, naming the field, the destination and the rule. */
export function checkSpecOutbound(spec: unknown, policy: OutboundPolicy): SpecIssue[] {
  const issues: SpecIssue[] = [];
  for (const d of specDestinations(spec)) {
    // A secret sent back masked is restored (or refused) before validation; never check the mask.
    if (d.value === '********') continue;
    const r = checkDestinationValue(d.kind, d.value, policy);
    if (r) issues.push({ path: d.path, message: `${r.message} (outbound rule: ${r.rule})` });
  }
  return issues;
}
