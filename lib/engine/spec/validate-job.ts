/**
 * validateJob: everything the API and the UI need to know about a job spec before it runs, in
 * one call that never touches the source, the sink or the checkpoint:
 * `{ ok, errors: [{path, message, line?, column?}], warnings, explain, outputSchema, contract }`.
 * Checks: the spec's shape (zod, per-type options), the SQL (parse, supported subset, column
 * names and types), output-mode legality (Spark's rules and messages), the sink's supported
 * modes, and the exactly-once contract.
 */
import { z } from 'zod';
import { checkpointFileManagerFor } from '../checkpoint/checkpoint-location';
import { auditContract, sourcesContract, type ContractAudit } from '../contract';
import { AnalysisException, UNSUPPORTED_OPERATION_CLASS, ValidationError, WeirError } from '../errors';
import { relationsOf, sourcePath } from '../execution/query-runtime';
import { SqlValidationError } from '../query/sql-error';
import { tooDeep } from '../query/sql-limits';
import { compileStreamingQuery, readsSource } from '../query/streaming-query';
import { getSinkDefinition, outputColumnsChecked } from '../sinks/index';
import { getSourceDefinition } from '../sources/index';
import type { Schema } from '../types';
import { sparkColumns, type SparkColumn } from '../query/data-types';
import type { OutboundPolicy } from '../outbound/outbound-policy';
import { checkSpecOutbound } from '../outbound/spec-destinations';
import type { OptimizerRuleApplication } from '../query/optimizer';
import { JobSpecSchema, outputModeLabel, parseJobSpec, rawSourcesOf, sourceSchemaOf, SourceSpecSchema, type JobSpec, type SourceSpec, type SpecIssue } from './job-spec';

export interface ValidateJobResult {
  ok: boolean;
  errors: SpecIssue[];
  warnings: SpecIssue[];
  explain?: string;
  /** The optimizer's rewrites of the plan that `explain` shows (which rule moved what). */
  optimizations?: OptimizerRuleApplication[];
  outputSchema?: Schema;
  /** The output columns with their Spark types (`n: bigint`), as the analysis typed them. */
  outputColumns?: SparkColumn[];
  contract?: ContractAudit;
  /** The parsed spec with defaults applied, when ok. */
  spec?: JobSpec;
}

/** Parses JSON text, reporting a syntax error with its line and column. */
function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; error: SpecIssue } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    // Node 20's JSON.parse message has no position: find the first offending character ourselves
    // (a recursive walk: text nested deeper than the stack gets no position, not a crash).
    let offset = -1;
    try {
      offset = jsonErrorOffset(text);
    } catch (walkError) {
      if (!(walkError instanceof RangeError)) throw walkError;
    }
    let line: number | undefined;
    let column: number | undefined;
    if (offset >= 0) {
      const before = text.slice(0, offset);
      line = before.split('\n').length;
      column = offset - before.lastIndexOf('\n');
    }
    return { ok: false, error: { path: '(root)', message: `not valid JSON: ${(e as Error).message}`, line, column } };
  }
}

/** Offset of the first character where `t` stops being JSON (-1 if it is valid JSON). */
export function jsonErrorOffset(t: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < t.length && ' \t\n\r'.includes(t[i])) i++;
  };
  const str = () => {
    i++;
    while (i < t.length && t[i] !== '"') {
      if (t[i] < ' ') fail();
      i += t[i] === '\\' ? 2 : 1;
    }
    if (i >= t.length) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = t[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (t[i] === close) return void i++;
      for (;;) {
        if (c === '{') {
          ws();
          if (t[i] !== '"') fail();
          str();
          ws();
          if (t[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (t[i] === ',') i++;
        else if (t[i] === close) return void i++;
        else fail();
      }
    }
    if (c === '"') return str();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(t.slice(i, i + 400));
    if (!m) fail();
    i += m![0].length;
  };
  try {
    value();
    ws();
    if (i < t.length) fail();
    return -1;
  } catch (e) {
    if (typeof e === 'number') return e;
    throw e;
  }
}

/**
 * When the spec as a whole is invalid, the SQL is still checked against whatever parts it reads
 * (the source's name and columns, output mode, dedup, static tables) that are valid on their
 * own; an invalid part is left out rather than handed to the analyzer unchecked.
 */
function partsForSql(raw: Partial<JobSpec>): JobSpec | undefined {
  if (typeof raw.sql !== 'string') return undefined;
  const shape = JobSpecSchema.shape;
  const sources: SourceSpec[] = [];
  for (const { source: rawSource } of rawSourcesOf(raw)) {
    const source = SourceSpecSchema.safeParse(rawSource);
    const sourceParts = source.success
      ? source.data
      : z.object({ name: SourceSpecSchema.shape.name, schema: SourceSpecSchema.shape.schema }).safeParse(rawSource).data;
    // No schema written: a source with fixed columns (Kafka) still has its columns.
    const schema = sourceParts?.schema ?? SourceSpecSchema.shape.schema.safeParse(sourceSchemaOf(rawSource)).data;
    if (!sourceParts || !schema) return undefined;
    sources.push({ ...sourceParts, schema } as SourceSpec);
  }
  if (sources.length === 0) return undefined;
  const part = <K extends 'outputMode' | 'dedup' | 'staticTables'>(k: K) => shape[k].safeParse(raw[k]).data as JobSpec[K] | undefined;
  return { ...(raw as JobSpec), source: sources[0], sources, outputMode: part('outputMode') ?? 'append', dedup: part('dedup'), staticTables: part('staticTables') };
}

export interface ValidateJobOptions {
  /** When given, every destination the spec names is checked against it (see outbound/). */
  outbound?: OutboundPolicy;
}

export function validateJob(specJson: unknown, opts: ValidateJobOptions = {}): ValidateJobResult {
  let input = specJson;
  if (typeof specJson === 'string') {
    const r = parseJsonText(specJson);
    if (!r.ok) return { ok: false, errors: [r.error], warnings: [] };
    input = r.value;
  }
  const parsed = parseJobSpec(input);
  const errors: SpecIssue[] = parsed.ok ? [] : [...parsed.errors];
  const warnings: SpecIssue[] = [];
  const raw = (input ?? {}) as Partial<JobSpec>;

  // The SQL is checked even if other fields failed, whenever the source schema is usable.
  const spec = parsed.ok ? parsed.spec : undefined;
  let explain: string | undefined;
  let optimizations: OptimizerRuleApplication[] | undefined;
  let outputSchema: Schema | undefined;
  let stateful = false;
  let analysed = false;
  const relSpec = spec ?? partsForSql(raw);
  if (relSpec) {
    try {
      const q = compileStreamingQuery(relSpec.sql, relationsOf(relSpec), { outputMode: relSpec.outputMode ?? 'append', dedup: relSpec.dedup, staticTables: relSpec.staticTables });
      explain = q.explain;
      optimizations = q.optimizations;
      outputSchema = q.outputSchema;
      stateful = q.stateful;
      warnings.push(...q.warnings);
      // Spark's sources are what the plan reads; a job's source the SQL never names is still read
      // every batch, its rows dropped (and counted among the input rows).
      if (spec && spec.sources.length > 1) {
        spec.sources.forEach((s, i) => {
          if (!readsSource(q, s.name)) warnings.push({ path: sourcePath(spec, i), message: `source "${s.name}" is not read by the SQL: every batch still reads its data and drops it. Remove it from sources, or read it in the query (FROM ${s.name}).` });
        });
      }
      analysed = true;
    } catch (e) {
      const errorClass = e instanceof WeirError && e.errorClass ? { errorClass: e.errorClass } : {};
      if (e instanceof SqlValidationError) errors.push({ path: 'sql', message: e.message, line: e.line, column: e.column, ...errorClass });
      // The analyzer's output-mode rules belong to the outputMode field.
      else if (e instanceof AnalysisException) errors.push({ path: /output mode/i.test(e.message) ? 'outputMode' : 'sql', message: e.message, ...errorClass });
      else if (e instanceof ValidationError && (e.details as { path?: string } | undefined)?.path) errors.push({ path: String((e.details as { path: string }).path), message: e.message, ...errorClass });
      else if (e instanceof WeirError) errors.push({ path: 'sql', message: e.message, ...errorClass });
      // Last resort: sql-parser.ts's limits keep queries well inside the stack; never a 500.
      else if (e instanceof RangeError) errors.push({ path: 'sql', message: tooDeep().message, line: 1, column: 1 });
      else throw e;
    }
  }

  let contract: ContractAudit | undefined;
  if (spec) {
    const mode = spec.outputMode;
    // Whether the query aggregates is only known once it analyses: a query with an unknown column
    // says so and nothing about the mode.
    if (mode === 'complete' && analysed && !stateful && !errors.some((x) => x.path === 'outputMode')) {
      errors.push({ path: 'outputMode', message: 'Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets', errorClass: UNSUPPORTED_OPERATION_CLASS });
    }
    const sinkDef = getSinkDefinition(spec.sink.type)!;
    const modes = sinkDef.supportedOutputModes(spec.sink.options as never);
    if (!modes.includes(mode)) {
      // Spark's DataSource check (the sink's name stands for Spark's provider class name).
      errors.push({
        path: 'outputMode',
        message: `Invalid streaming output mode: ${mode}. This output mode is not supported in Data Source ${spec.sink.type}. ` +
          `The ${spec.sink.type} sink takes ${modes.map(outputModeLabel).join(', ')} output mode: choose ${modes.length > 1 ? 'one of those' : 'it'}, or a sink that takes ${outputModeLabel(mode)}.`,
        errorClass: 'STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE',
      });
    }
    const outputProblem = outputSchema && (outputColumnsChecked(sinkDef, outputSchema) ?? sinkDef.checkOutput?.(spec.sink.options as never, outputSchema));
    if (outputProblem) errors.push(outputProblem);
    try {
      const cfm = checkpointFileManagerFor(spec.checkpointLocation);
      const sinkSig = sinkDef.signature(spec.sink.options as never);
      const sources = spec.sources.map((s) => ({ name: s.name, ...getSourceDefinition(s.type)!.replayable(s.options as never) }));
      contract = auditContract({
        source: sourcesContract(sources),
        checkpoint: { outlivesMachine: cfm.outlivesMachine, description: cfm.description },
        sink: sinkSig,
      });
      // The warning names the field to change: the sink, or the (first) source that cannot replay.
      const notReplayable = sources.findIndex((s) => !s.replayable);
      if (contract.guarantee !== 'exactly-once') warnings.push({ path: contract.source.ok ? 'sink.type' : `${sourcePath(spec, notReplayable)}.type`, message: `${contract.summary}${spec.sources.length > 1 && !contract.source.ok ? ` ${contract.source.reason}` : ''}` });
      else if (!contract.survivesMachineLoss) warnings.push({ path: 'checkpointLocation', message: contract.summary });
    } catch (e) {
      errors.push({ path: 'checkpointLocation', message: (e as Error).message });
    }
    if (opts.outbound) errors.push(...checkSpecOutbound(spec, opts.outbound));
    if (spec.trigger.type === 'once') {
      warnings.push({ path: 'trigger.type', message: 'Trigger "once" is deprecated in Spark 3.4+; "available-now" processes the same data in bounded batches.' });
    }
  }
  // The query's own errors (unknown column, type errors) first: they hold in every output mode.
  errors.sort((a, b) => Number(b.path === 'sql') - Number(a.path === 'sql'));
  const outputColumns = outputSchema && sparkColumns(outputSchema);
  return errors.length > 0
    ? { ok: false, errors, warnings, explain, optimizations, outputSchema, outputColumns }
    : { ok: true, errors, warnings, explain, optimizations, outputSchema, outputColumns, contract, spec };
}
