/**
 * What the job editor shows while a spec is being written, in one answer: the engine's
 * validation (errors with line and column, warnings, the exactly-once contract), the explain
 * as a list of operators each marked stateless / stateful with the reason, and for each of the
 * three output modes whether it is legal for this query and sink, with the engine's own message
 * when it is not (Spark's texts). Mode legality is found by asking the engine, never by
 * re-implementing its rules here: the spec is validated once per mode.
 */
import { sourceSchemaOf, sqlFunctionCatalog, withErrorClass, type SqlFunctionInfo, type ValidateJobResult } from '@/lib/engine';
import { rawSourcesOf } from '@/lib/engine/spec/spec-sources';
import { validateSpec } from '../services/job-service';
import type { ServerPathRoots } from '../services/job-paths';

const OUTPUT_MODES = ['append', 'update', 'complete'] as const;
export type OutputModeName = (typeof OUTPUT_MODES)[number];

export interface ExplainOperator {
  /** Depth in the plan tree, 0 for the root. */
  depth: number;
  /** The operator and its arguments, e.g. `Aggregate [user], [count(*)]`. */
  operator: string;
  kind: 'stateless' | 'stateful' | 'source' | 'other';
  /** Why it keeps state and how that state is bounded (stateful operators only). */
  reason: string | null;
}

export interface ModeVerdict {
  mode: OutputModeName;
  legal: boolean;
  /**
   * False while the spec has errors elsewhere (an unknown column, an empty sink path): the mode
   * is then neither legal nor illegal yet, and the editor says nothing against it.
   */
  decided: boolean;
  /** The engine's outputMode errors for this mode (empty when legal). */
  reasons: string[];
  /** Its outputMode warnings (e.g. Complete keeps every group). */
  warnings: string[];
}

/** What the SQL editor completes: each source's and static table's name and columns, and the functions with their signatures. */
export interface SqlCompletion {
  /**
   * The sources in the spec's order, then the static tables, each by the name FROM and JOIN read
   * it by (one without a name yet is left out).
   */
  relations: { name: string; kind: 'source' | 'static'; columns: { name: string; type: string }[] }[];
  functions: readonly SqlFunctionInfo[];
}

export interface DraftCheck extends Omit<ValidateJobResult, 'spec'> {
  operators: ExplainOperator[];
  modes: ModeVerdict[];
  completion: SqlCompletion;
}

/** A source's columns as the draft writes them, or those of a source with fixed columns (Kafka's) when none are. */
function columnsOf(source: unknown): { name: string; type: string }[] {
  return (sourceSchemaOf(source) ?? []).flatMap((c) => {
    const col = c as { name?: unknown; type?: unknown } | null;
    return typeof col?.name === 'string' && col.name ? [{ name: col.name, type: typeof col.type === 'string' ? col.type : '' }] : [];
  });
}

/** Each source's and static table's name and columns as the draft has them, even while other parts are invalid. */
function completionOf(obj: Record<string, unknown> | undefined): SqlCompletion {
  const relation = (kind: SqlCompletion['relations'][number]['kind']) => (r: unknown) => {
    const name = (r as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name ? [{ name, kind, columns: columnsOf(r) }] : [];
  };
  const staticTables = Array.isArray(obj?.staticTables) ? obj.staticTables : [];
  const relations = [...rawSourcesOf(obj).flatMap(({ source }) => relation('source')(source)), ...staticTables.flatMap(relation('static'))];
  return { relations, functions: sqlFunctionCatalog() };
}

/** Parses the engine's explain tree (`+- Op args [stateful: why]`) into one entry per operator. */
export function parseExplain(explain: string | undefined): ExplainOperator[] {
  if (!explain) return [];
  return explain
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((line) => {
      const m = /^(\s*)(?:\+- )?(.*)$/.exec(line)!;
      const depth = Math.round(m[1].length / 3) + (line.trimStart().startsWith('+- ') ? 1 : 0);
      const body = m[2];
      const tag = /\s\[(stateless|source|stateful(?::\s*(.*))?)\]$/.exec(body);
      if (!tag) return { depth, operator: body, kind: 'other' as const, reason: null };
      const kind = tag[1].startsWith('stateful') ? 'stateful' : (tag[1] as 'stateless' | 'source');
      return { depth, operator: body.slice(0, tag.index), kind, reason: kind === 'stateful' ? (tag[2] ?? null) : null };
    });
}

function asObject(spec: unknown): Record<string, unknown> | undefined {
  if (typeof spec === 'string') {
    try {
      spec = JSON.parse(spec);
    } catch {
      return undefined;
    }
  }
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as Record<string, unknown>) : undefined;
}

export function checkDraft(spec: unknown, roots: ServerPathRoots): DraftCheck {
  const v = validateSpec(spec, roots);
  const obj = asObject(spec);
  let explain = v.explain;
  let optimizations = v.optimizations;
  const modes: ModeVerdict[] = OUTPUT_MODES.map((mode) => {
    const r = obj && obj.outputMode !== mode ? validateSpec({ ...obj, outputMode: mode }, roots) : v;
    // The analyzer stops at an illegal mode before explaining: show the plan of a legal one.
    if (explain === undefined) optimizations = r.optimizations;
    explain ??= r.explain;
    const reasons = r.errors.filter((e) => e.path === 'outputMode').map((e) => withErrorClass(e.message, e.errorClass));
    // A spec broken elsewhere (bad SQL, missing sink) says nothing about the mode: not legal, no reason.
    const undecided = !r.ok && reasons.length === 0;
    return {
      mode,
      legal: !undecided && reasons.length === 0,
      decided: !undecided,
      reasons: undecided ? ['Fix the other errors first: legality is decided once the query and the sink are valid.'] : reasons,
      warnings: r.warnings.filter((w) => w.path === 'outputMode').map((w) => w.message),
    };
  });
  const { spec: _parsed, ...rest } = v;
  void _parsed;
  return { ...rest, explain, optimizations, operators: parseExplain(explain), modes, completion: completionOf(obj) };
}
