/**
 * Preview: a job's query over a sample of records, with no checkpoint and no sink, as Arroyo's
 * and ksqlDB's previews show output before a deploy. The sample is either records the user
 * pastes (`previewQuery`) or the job's own source's most recent records (`previewRecentRecords`,
 * through `Source.sampleRecent`: the source built from the job's options, never opened, so it
 * reads what the job would read and writes, commits and moves nothing). The job's source is then
 * replaced by a memory stream holding the records (converted by the source schema, as the source
 * would) and its sink by a memory table; the checkpoint lives in memory and is dropped. The query
 * runs to the end of the sample (available-now), so a stateful query shows its result table after
 * the sample; an append-mode window is emitted only once the watermark passes its end, and the
 * preview says so.
 *
 * Bounded: at most MAX_PREVIEW_SAMPLE_ROWS records in (and PREVIEW_MAX_BYTES read from a
 * source), the first `maxRows` rows out, and one time limit for reading and running after which
 * the preview is refused with PREVIEW_TIMEOUT.
 */
import { randomUUID } from 'node:crypto';
import { InMemoryCheckpointFileManager } from '../checkpoint/in-memory-checkpoint-file-manager';
import { SystemClock } from '../clock';
import { BadRecordError, ValidationError, WeirError } from '../errors';
import { OutboundRefusedError } from '../outbound/outbound-policy';
import { parseJobSpec, type JobSpec } from '../spec/job-spec';
import { MemorySinkTable } from '../sinks/memory-sink';
import { MemoryStream } from '../sources/memory-source';
import { getSourceDefinition } from '../sources/index';
import type { BadRecord, RecentRecords } from '../sources/source';
import { convertObject } from '../sources/value-conversion';
import { compileStreamingQuery } from '../query/streaming-query';
import { prettyString } from '../sinks/show-string';
import type { Field, Row, Schema } from '../types';
import { sparkColumns, type SparkColumn } from '../query/data-types';
import { MicroBatchExecution } from './micro-batch-execution';
import { relationsOf } from './query-runtime';

export const MAX_PREVIEW_SAMPLE_ROWS = 1000;
/** How many bytes of records a preview reads from a source at most. */
const PREVIEW_MAX_BYTES = 4 * 1024 * 1024;
const DEFAULT_PREVIEW_ROWS = 100;
/** Reading and running together (the API enforces it again by killing the preview process). */
export const PREVIEW_TIMEOUT_MS = 5_000;
/** Bad records shown with their reason (the count says how many there were). */
const SHOWN_BAD_RECORDS = 5;

interface PreviewOptions {
  maxRows?: number;
  timeoutMs?: number;
  /** Records read from a source at most (default MAX_PREVIEW_SAMPLE_ROWS). */
  maxRecords?: number;
  maxBytes?: number;
}

export interface QueryPreview {
  outputSchema: Schema;
  /** The output columns with their Spark types, as the preview's header shows them. */
  columns: SparkColumn[];
  /** The first rows of the output (at most maxRows). */
  rows: Row[];
  /** More rows than shown came out. */
  truncated: boolean;
  totalRows: number;
  /** Records the query ran over (the sample's, or those read from the source that fit its schema). */
  inputRows: number;
  /** Where the records came from: pasted, or the source's most recent. */
  input: 'sample' | 'recent';
  /** With input 'recent': what was read from the source. */
  read?: {
    source: string;
    records: number;
    bytes: number;
    /** Records that did not fit the source schema (left out, not failing the preview). */
    badRecords: number;
    /** The record, byte or time bound stopped the read: the source holds more. */
    bounded: boolean;
  };
  stateful: boolean;
  /** What to keep in mind reading the rows (windows and the watermark). */
  notes: string[];
}

export async function previewQuery(spec: JobSpec, sample: unknown[], opts: PreviewOptions = {}): Promise<QueryPreview> {
  if (sample.length > MAX_PREVIEW_SAMPLE_ROWS) {
    throw new ValidationError(`The sample has ${sample.length} records; a preview takes at most ${MAX_PREVIEW_SAMPLE_ROWS}. Send fewer.`, { path: 'sample', max: MAX_PREVIEW_SAMPLE_ROWS });
  }
  const rows: Row[] = sample.map((r, i) => {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new ValidationError(`Sample record ${i + 1} is not a JSON object; send one object per record.`, { path: `sample.${i}` });
    const c = convertObject(r as Record<string, unknown>, spec.source.schema as Schema);
    if ('reason' in c) throw new ValidationError(`Sample record ${i + 1} does not fit the source schema: ${c.reason}.`, { path: `sample.${i}` });
    return c.row;
  });
  const timeoutMs = opts.timeoutMs ?? PREVIEW_TIMEOUT_MS;
  return runPreview(spec, rows, { input: 'sample' }, opts.maxRows ?? DEFAULT_PREVIEW_ROWS, performance.now() + timeoutMs, timeoutMs);
}

/**
 * The query over the most recent records of the job's own source (at most `maxRecords`, and
 * `maxBytes` of them), within one time limit for reading and running. A source that cannot look
 * back (a push source) is refused saying to paste a sample; one that cannot be reached is refused
 * naming it.
 */
export async function previewRecentRecords(spec: JobSpec, opts: PreviewOptions = {}): Promise<QueryPreview> {
  const timeoutMs = opts.timeoutMs ?? PREVIEW_TIMEOUT_MS;
  const deadline = performance.now() + timeoutMs;
  const records = Math.min(opts.maxRecords ?? MAX_PREVIEW_SAMPLE_ROWS, MAX_PREVIEW_SAMPLE_ROWS);
  const bytes = opts.maxBytes ?? PREVIEW_MAX_BYTES;
  const def = getSourceDefinition(spec.source.type);
  if (!def) throw new ValidationError(`unknown source type "${spec.source.type}"`, { path: 'source.type' });
  const id = `preview-${randomUUID()}`;
  const source = def.create(spec.source.options as never, {
    name: spec.source.name,
    schema: spec.source.schema,
    eventTime: spec.source.eventTime,
    checkpoint: new InMemoryCheckpointFileManager(),
    metadataPath: 'sources/0',
    clock: new SystemClock(),
    queryId: id,
  });
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let got: RecentRecords;
  try {
    if (!source.sampleRecent) {
      throw new WeirError('PREVIEW_NOT_SUPPORTED', `The ${spec.source.type} source (${source.description}) cannot look back at records it already received. Paste a sample of its records to preview instead.`, { sourceType: spec.source.type });
    }
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new WeirError('PREVIEW_TIMEOUT', `Reading recent records from ${source.description} did not finish within ${timeoutMs} ms. Check the source answers quickly, or paste a sample instead.`, { timeoutMs, source: source.description }));
      }, timeoutMs);
    });
    try {
      got = await Promise.race([source.sampleRecent({ records, bytes, timeoutMs, signal: abort.signal }), timedOut]);
    } catch (e) {
      if (e instanceof OutboundRefusedError || (e instanceof WeirError && e.code === 'PREVIEW_TIMEOUT')) throw e;
      // A connector's run-time advice (a retry from the checkpoint) does not apply to a preview.
      const why = (e instanceof Error ? e.message : String(e)).replace(/;? *the batch will be retried from the checkpoint\./, '.');
      throw new WeirError('PREVIEW_SOURCE_UNAVAILABLE', `Could not read recent records from ${source.description}: ${why} Fix the source (or its options), or paste a sample to preview instead.`, { source: source.description });
    }
  } finally {
    clearTimeout(timer);
    await source.stop().catch(() => undefined);
  }
  const count = got.rows.length + got.badRecords.length;
  const read = { source: source.description, records: count, bytes: got.bytesRead, badRecords: got.badRecords.length, bounded: got.stoppedAtBytes || count >= records };
  const preview = await runPreview(spec, got.rows, { input: 'recent', read }, opts.maxRows ?? DEFAULT_PREVIEW_ROWS, deadline, timeoutMs);
  return got.badRecords.length ? { ...preview, notes: [badRecordsNote(got.badRecords), ...preview.notes] } : preview;
}

function badRecordsNote(bad: BadRecord[]): string {
  const shown = bad.slice(0, SHOWN_BAD_RECORDS).map((b) => `${b.location.source}${b.location.line ? `:${b.location.line}` : ''}: ${b.reason}`);
  return `${bad.length} record(s) did not fit the source schema and were left out (a run would apply source.onBadRecord): ${shown.join('; ')}${bad.length > shown.length ? '; …' : ''}.`;
}

/**
 * A record the query could not compute (a value over its size limit) or that did not fit: a run
 * would apply source.onBadRecord, a preview names the record and says what to change.
 */
function previewBadRecord(e: BadRecordError, input: QueryPreview['input']): WeirError {
  const d = (e.details ?? {}) as { reason?: unknown; record?: unknown; count?: unknown };
  const reason = typeof d.reason === 'string' ? d.reason : e.message;
  const record = typeof d.record === 'string' ? ` The record: ${d.record.length > 200 ? `${d.record.slice(0, 200)}…` : d.record}.` : '';
  return new WeirError(
    'PREVIEW_BAD_RECORD',
    `A ${input === 'sample' ? 'sample record' : 'record read'} could not be computed: ${reason.replace(/\.?$/, '.')}${record} ` +
      `A run would apply source.onBadRecord (fail, or divert it to the dead letters). ${input === 'sample' ? 'Fix or remove the record' : 'Paste a sample without it'}, or bound the value in the query.`,
    { reason, ...(typeof d.record === 'string' ? { record: d.record } : {}), ...(typeof d.count === 'number' ? { count: d.count } : {}) },
  );
}

async function runPreview(spec: JobSpec, rows: Row[], input: Pick<QueryPreview, 'input' | 'read'>, maxRows: number, deadline: number, timeoutMs: number): Promise<QueryPreview> {
  const id = `preview-${randomUUID()}`;
  if (spec.sources.length > 1) throw new ValidationError('The query cannot be previewed: a preview feeds one source, and this job reads several; run it on a test checkpoint instead.');
  const { sources: _sources, ...one } = spec;
  const parsed = parseJobSpec({
    ...one,
    source: { ...spec.source, type: 'memory', options: { stream: id } },
    sink: { type: 'memory', options: { table: id } },
    trigger: { type: 'available-now' },
    checkpointLocation: `memory://${id}`,
    // A preview's state lives and dies in memory: the heap store, whatever the job runs with
    // (the lmdb one would leave a local directory behind per preview).
    stateStore: { provider: 'hdfs' },
  });
  if (!parsed.ok) throw new ValidationError(`The query cannot be previewed: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  const query = compileStreamingQuery(spec.sql, relationsOf(spec), { outputMode: spec.outputMode, dedup: spec.dedup, staticTables: spec.staticTables });
  const stream = MemoryStream.named(id);
  const table = MemorySinkTable.named(id);
  const exec = new MicroBatchExecution({ spec: parsed.spec, checkpoint: new InMemoryCheckpointFileManager() });
  let timer: NodeJS.Timeout | undefined;
  try {
    if (rows.length) stream.addRows(rows);
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new WeirError('PREVIEW_TIMEOUT', `The preview did not finish within ${timeoutMs} ms; preview fewer records.`, { timeoutMs })),
        Math.max(0, deadline - performance.now()),
      );
    });
    await Promise.race([exec.run(), timedOut]).catch((e: unknown) => {
      throw e instanceof BadRecordError ? previewBadRecord(e, input.input) : e;
    });
    const out = table.rows;
    const notes: string[] = [];
    const what = input.input === 'sample' ? 'sample records' : 'records read';
    if (query.stateful) notes.push(`The result after all ${rows.length} ${what}, as the state holds it (${spec.outputMode} mode).`);
    if (query.stateful && spec.outputMode === 'append') {
      notes.push(`Append mode emits a window only once the watermark passes its end: windows still open at the end of the ${input.input === 'sample' ? 'sample' : 'records read'} are not shown.`);
    }
    return { outputSchema: query.outputSchema, columns: sparkColumns(query.outputSchema), rows: out.slice(0, maxRows).map((r) => previewRow(r, query.outputSchema)), truncated: out.length > maxRows, totalRows: out.length, inputRows: rows.length, ...input, stateful: query.stateful, notes };
  } finally {
    clearTimeout(timer);
    await exec.stop().catch(() => undefined);
    MemoryStream.drop(id);
    MemorySinkTable.drop(id);
  }
}

/**
 * A row as the preview answers it, in JSON, each value as the preview table shows it: numbers
 * that a JSON reader holds exactly (an INT, a BIGINT up to 2^53, a finite DOUBLE), booleans and
 * strings as themselves; a BIGINT past 2^53 as its digits and a DECIMAL as its exact text, strings
 * because a JSON number is read as a double by most readers (the browser's included), which would
 * round them; every other value as Spark's show() writes it (a FLOAT `1.1`, a DATE `2024-02-29`,
 * a TIMESTAMP `2024-02-29 12:34:56.123456`, a BINARY `[01 02 03]`, an interval, NaN); arrays,
 * maps and structs as JSON of their values so rendered, at any depth.
 */
function previewRow(row: Row, schema: Schema): Row {
  return Object.fromEntries(schema.map((f) => [f.name, previewValue(row[f.name], f)]));
}

function previewValue(v: unknown, f: Field): unknown {
  if (v === null || v === undefined) return null;
  switch (f.type) {
    case 'array':
      return (v as unknown[]).map((x) => previewValue(x, f.elementType ?? { name: 'element', type: 'unknown' }));
    case 'map':
      return Object.fromEntries(Object.entries(v as Row).map(([k, x]) => [k, previewValue(x, f.valueType ?? { name: 'value', type: 'unknown' })]));
    case 'struct':
      return Object.fromEntries((f.fields ?? []).map((c) => [c.name, previewValue((v as Row)[c.name], c)]));
    case 'window':
      return { start: previewValue((v as Row).start, { name: 'start', type: 'timestamp', ntz: f.ntz }), end: previewValue((v as Row).end, { name: 'end', type: 'timestamp', ntz: f.ntz }) };
    case 'double':
      return f.float32 || !Number.isFinite(v) ? prettyString(v, f) : v;
    case 'long': case 'unknown':
      return typeof v === 'bigint' ? v.toString() : v;
    case 'string': case 'boolean':
      return v;
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'decimal': case 'date': case 'timestamp': case 'binary': case 'day_time_interval': case 'year_month_interval': case 'calendar_interval': case 'variant':
      return prettyString(v, f);
  }
}
