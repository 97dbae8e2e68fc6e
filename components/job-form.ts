/**
 * The job editor's form state and its two-way mapping to a job spec (lib/engine/spec/job-spec.ts).
 * A source's and a sink's options are kept as JSON text, whatever the type: the editor's option
 * fields (option-values.ts) and its JSON box both edit that text. The schema is one column per
 * line, `name type`. `specFromForm` never drops what it cannot parse: bad options JSON stays as
 * text and is reported as an error on that field, so bad input is never silently turned into an
 * empty object.
 */
import { rawSourcesOf } from '@/lib/engine/spec/spec-sources';
import { problemText } from './sql-problem-range';

/** One source of the form: the spec's `source`, or one of its `sources`. */
export interface SourceForm {
  /** The name FROM reads it by. */
  name: string;
  type: string;
  optionsJson: string;
  schemaText: string;
  eventTime: string;
  watermarkDelay: string;
  onBadRecord: 'fail' | 'dead-letter';
  /** Fields of the stored source this form has no control for (badRecordsPath…), carried through an edit. */
  keep?: Obj;
}

/**
 * One static table the SQL joins the stream with (the spec's `staticTables`): a JSON-lines or CSV
 * file, or a PostgreSQL table. The fields of both kinds are kept while the kind changes, so that
 * switching back restores them; the spec gets only the chosen kind's.
 */
export interface StaticTableForm {
  /** The name JOIN reads it by. */
  name: string;
  type: 'file' | 'postgres';
  path: string;
  format: 'json' | 'csv';
  /** A CSV file's first line names its columns (the spec's default); undefined: not written. */
  header?: boolean;
  connectionString: string;
  table: string;
  /** The PostgreSQL schema the table is in (`public` when empty). */
  dbSchema: string;
  /**
   * Spark's `.cache()`: read once per run; unchecked (the spec's default), read again at each
   * batch with data. Undefined: not written.
   */
  cache?: boolean;
  /** The same text as a source's schema box: one column per line, or one line of DDL. */
  schemaText: string;
  /** Fields of the stored table this form has no control for, carried through an edit. */
  keep?: Obj;
}

export interface JobForm {
  name: string;
  description: string;
  /**
   * The sources, in the spec's order (offsets/N has a line per source in this order). One is
   * written as `source`, several as `sources`: a job written by hand reads the same.
   */
  sources: SourceForm[];
  /**
   * Spark's spark.sql.streaming.multipleWatermarkPolicy, for two or more sources: the global
   * watermark is the slowest source's (`min`, the default) or the fastest's (`max`).
   */
  multipleWatermarkPolicy: 'min' | 'max';
  /** The static tables, in the spec's order; none is written as no `staticTables` at all. */
  staticTables: StaticTableForm[];
  sql: string;
  sinkType: string;
  sinkOptionsJson: string;
  outputMode: 'append' | 'update' | 'complete';
  triggerType: 'processing-time' | 'available-now' | 'once';
  triggerInterval: string;
  checkpointLocation: string;
  /**
   * Where stateful operators keep their state: `hdfs` (Spark's HDFSBackedStateStoreProvider, in
   * the run's memory, the default) or `lmdb` (on the worker's disk, for state larger than memory).
   */
  stateStoreProvider: 'hdfs' | 'lmdb';
  /** Spark's stateStore.maintenanceInterval (snapshots and retention): '' for the default, 60 seconds. */
  maintenanceInterval: string;
  /** Restart policy (not part of the spec): retries after a failed run, '' or 0 for none. */
  restartMax: string;
  /** The first retry's delay in ms; each further retry doubles it. */
  restartBackoffMs: string;
  /**
   * Fields of a stored spec this form has no control for (dedup, minBatchesToRetain,
   * parallelism…): carried through an edit unchanged, so saving the form never drops them.
   */
  keep?: Obj;
}

export const EMPTY_SOURCE: SourceForm = {
  name: 'events',
  type: 'files',
  optionsJson: '{\n  "path": "",\n  "format": "json"\n}',
  schemaText: 'user string\nts timestamp',
  eventTime: '',
  watermarkDelay: '',
  onBadRecord: 'fail',
};

export const EMPTY_STATIC_TABLE: StaticTableForm = {
  name: 'regions',
  type: 'file',
  path: '',
  format: 'json',
  connectionString: '',
  table: '',
  dbSchema: '',
  schemaText: 'code string\nlabel string',
};

export const EMPTY_FORM: JobForm = {
  name: '',
  description: '',
  sources: [EMPTY_SOURCE],
  multipleWatermarkPolicy: 'min',
  staticTables: [],
  sql: 'SELECT user, ts FROM events WHERE user IS NOT NULL',
  sinkType: 'files',
  sinkOptionsJson: '{\n  "path": "",\n  "format": "json"\n}',
  outputMode: 'append',
  triggerType: 'processing-time',
  triggerInterval: '1 second',
  checkpointLocation: '',
  stateStoreProvider: 'hdfs',
  maintenanceInterval: '',
  restartMax: '',
  restartBackoffMs: '5000',
};

type Obj = Record<string, unknown>;

const FORM_SPEC_KEYS = ['name', 'source', 'sources', 'multipleWatermarkPolicy', 'staticTables', 'sql', 'sink', 'outputMode', 'trigger', 'checkpointLocation', 'stateStore'];
const FORM_SOURCE_KEYS = ['name', 'type', 'options', 'schema', 'eventTime', 'watermarkDelay', 'onBadRecord'];
const FORM_STATIC_TABLE_KEYS = ['name', 'type', 'path', 'format', 'header', 'connectionString', 'table', 'dbSchema', 'cache', 'schema'];
const without = (o: Obj, keys: string[]): Obj => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

export interface FormIssue {
  path: string;
  message: string;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The options object a JSON text holds, or why it holds none. */
function readOptions(text: string): { value: Obj } | { problem: string } {
  try {
    const v = JSON.parse(text.trim() || '{}');
    return isObj(v) ? { value: v } : { problem: 'must be a JSON object, e.g. {"table": "events"}' };
  } catch (e) {
    return { problem: `not valid JSON: ${(e as Error).message}` };
  }
}

/** The options object of a JSON text, or null when the text is not a JSON object. */
export function optionsObject(text: string): Obj | null {
  const r = readOptions(text);
  return 'value' in r ? r.value : null;
}

function parseOptions(text: string, path: string, issues: FormIssue[]): Obj {
  const r = readOptions(text);
  if ('value' in r) return r.value;
  issues.push({ path, message: r.problem });
  return {};
}

/**
 * The schema text after the source type changes: a source with fixed columns (Kafka) starts
 * with none (the form's untouched example would hide its own columns), and another type that
 * finds none gets the example back. Text the user wrote is kept.
 */
export function schemaTextForType(text: string, hasDefaultColumns: boolean): string {
  if (hasDefaultColumns && text.trim() === EMPTY_SOURCE.schemaText) return '';
  if (!hasDefaultColumns && text.trim() === '') return EMPTY_SOURCE.schemaText;
  return text;
}

/** Whether a comma separates columns (one outside `<…>` and `(…)`, as in `decimal(10,2)`). */
function hasTopLevelComma(line: string): boolean {
  let depth = 0;
  for (const ch of line) {
    if (ch === '<' || ch === '(') depth++;
    else if (ch === '>' || ch === ')') depth--;
    else if (ch === ',' && depth === 0 && line.trim().slice(-1) !== ',') return true;
  }
  return false;
}

/**
 * The schema box (a source's, a static table's): one column per line (`price decimal(10,2)`; the type is any Spark type, checked
 * by the server), or one line of Spark DDL with commas (`id BIGINT, tags ARRAY<STRING>`), which
 * goes to the server as the DDL string it is.
 */
function parseSchemaText(text: string, path: string, issues: FormIssue[]): { name: string; type: string }[] | string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length === 1 && hasTopLevelComma(lines[0])) return lines[0];
  const cols: { name: string; type: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const m = /^([^\s:,]+)[\s:]+(\S.*?),?$/.exec(line);
    if (!m) issues.push({ path, message: `line ${i + 1} ("${line}"): write one column per line as "name type", e.g. "user string" or "price decimal(10,2)"` });
    else cols.push({ name: m[1], type: /^[A-Za-z]+$/.test(m[2]) ? m[2].toLowerCase() : m[2] });
  });
  return cols;
}

/** Where the spec writes the form's source `i`: `source` when it is the only one, else `sources.i`. */
export const sourcePath = (f: Pick<JobForm, 'sources'>, i: number): string => (f.sources.length === 1 ? 'source' : `sources.${i}`);

/** A source of the form as the spec writes it; its problems under `path`. */
function sourceSpecOf(s: SourceForm, path: string, issues: FormIssue[]): Obj {
  const source: Obj = { ...s.keep, name: s.name, type: s.type, options: parseOptions(s.optionsJson, `${path}.options`, issues), onBadRecord: s.onBadRecord };
  // An empty schema is left out: a source with fixed columns (Kafka) then has its own, and any other says it needs one.
  const schema = parseSchemaText(s.schemaText, `${path}.schema`, issues);
  if (schema.length) source.schema = schema;
  if (s.eventTime.trim()) source.eventTime = s.eventTime.trim();
  if (s.watermarkDelay.trim()) source.watermarkDelay = s.watermarkDelay.trim();
  return source;
}

/**
 * A static table of the form as the spec writes it: the chosen kind's fields only, a file table
 * without `type` (the default, as a spec written by hand leaves it out).
 */
function staticTableSpecOf(t: StaticTableForm, path: string, issues: FormIssue[]): Obj {
  const table: Obj = { ...t.keep, name: t.name };
  if (t.type === 'file') {
    table.path = t.path.trim();
    table.format = t.format;
    if (t.header !== undefined) table.header = t.header;
  } else {
    table.type = t.type;
    table.connectionString = t.connectionString.trim();
    table.table = t.table.trim();
    if (t.dbSchema.trim()) table.dbSchema = t.dbSchema.trim();
  }
  if (t.cache !== undefined) table.cache = t.cache;
  table.schema = parseSchemaText(t.schemaText, `${path}.schema`, issues);
  return table;
}

/** The spec the form describes, and the problems only the form can see (bad JSON, bad schema lines). */
export function specFromForm(f: JobForm): { spec: Obj; issues: FormIssue[] } {
  const issues: FormIssue[] = [];
  const sources = f.sources.map((s, i) => sourceSpecOf(s, sourcePath(f, i), issues));
  const sinkOptions = parseOptions(f.sinkOptionsJson, 'sink.options', issues);
  const spec: Obj = {
    ...f.keep,
    name: f.name,
    // One source is written as a hand-written spec writes it; several as the list.
    ...(sources.length === 1 ? { source: sources[0] } : { sources }),
    sql: f.sql,
    sink: { type: f.sinkType, options: sinkOptions },
    outputMode: f.outputMode,
    trigger: f.triggerType === 'processing-time' ? { type: f.triggerType, interval: f.triggerInterval } : { type: f.triggerType },
  };
  // Spark's default policy (min) is left out, and a one-source job has no policy to choose.
  if (sources.length > 1 && f.multipleWatermarkPolicy === 'max') spec.multipleWatermarkPolicy = 'max';
  if (f.staticTables.length) spec.staticTables = f.staticTables.map((t, i) => staticTableSpecOf(t, `staticTables.${i}`, issues));
  if (f.checkpointLocation.trim()) spec.checkpointLocation = f.checkpointLocation.trim();
  // The default provider is left out, as a spec written by hand leaves it out.
  const interval = f.maintenanceInterval.trim();
  if (f.stateStoreProvider === 'lmdb' || interval) spec.stateStore = { ...(f.stateStoreProvider === 'lmdb' ? { provider: 'lmdb' } : {}), ...(interval ? { maintenanceInterval: interval } : {}) };
  return { spec, issues };
}

/**
 * A name for a relation added to the form that no relation (source or static table) has yet:
 * `base` itself when free, else base_2, base_3…
 */
function freeName(base: string, taken: readonly Pick<SourceForm, 'name'>[], first: number): string {
  const names = new Set(taken.map((s) => s.name.toLowerCase()));
  if (first === 1 && !names.has(base)) return base;
  let n = Math.max(first, 2);
  while (names.has(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}

/** A name for a source added to the form, that none of its sources has yet: events_2, events_3… */
export function addedSourceName(sources: readonly Pick<SourceForm, 'name'>[]): string {
  return freeName('events', sources, sources.length + 1);
}

/** A static table added to the form: the example, named so that no source or static table has its name. */
export function addedStaticTable(f: Pick<JobForm, 'sources' | 'staticTables'>): StaticTableForm {
  return { ...EMPTY_STATIC_TABLE, name: freeName(EMPTY_STATIC_TABLE.name, [...f.sources, ...f.staticTables], 1) };
}

/**
 * The touched controls after item `removed` of a list (`sources`, `staticTables`) is removed: its
 * own are gone, and those of the items after it move up one, as the items do.
 */
export function controlsAfterRemoval(controls: Iterable<FormControl>, list: 'sources' | 'staticTables', removed: number): Set<FormControl> {
  return new Set([...controls].flatMap((c): FormControl[] => {
    const m = /^(\w+)\.(\d+)\.(\w+)$/.exec(c);
    if (!m || m[1] !== list || Number(m[2]) < removed) return [c];
    return Number(m[2]) === removed ? [] : [`${list}.${Number(m[2]) - 1}.${m[3]}` as FormControl];
  }));
}

export interface RestartPolicy {
  maxRestarts: number;
  backoffMs: number;
}

/** The job's restart policy the form describes (null: none), and what is wrong with its fields. */
export function restartPolicyFromForm(f: JobForm): { policy: RestartPolicy | null; issues: FormIssue[] } {
  const issues: FormIssue[] = [];
  const max = f.restartMax.trim() === '' ? 0 : Number(f.restartMax);
  if (!Number.isInteger(max) || max < 0 || max > 100) issues.push({ path: 'restartPolicy.maxRestarts', message: 'a whole number from 0 (never restart) to 100' });
  const backoff = f.restartBackoffMs.trim() === '' ? 5000 : Number(f.restartBackoffMs);
  if (!Number.isInteger(backoff) || backoff < 0 || backoff > 3_600_000) issues.push({ path: 'restartPolicy.backoffMs', message: 'a whole number of milliseconds, at most 3600000 (an hour)' });
  if (issues.length) return { policy: null, issues };
  return { policy: max === 0 ? null : { maxRestarts: max, backoffMs: backoff }, issues };
}

const str = (v: unknown, d = '') => (typeof v === 'string' ? v : v === undefined || v === null ? d : String(v));

/** A stored schema (a list of columns, or a DDL string) as the schema box shows it. */
function schemaTextOf(schema: unknown): string {
  if (typeof schema === 'string') return schema;
  return Array.isArray(schema) ? schema.map((c) => (isObj(c) ? `${str(c.name)} ${str(c.type)}` : '')).join('\n') : '';
}

/** The form of a stored source (one of `rawSourcesOf`). */
function sourceFormOf(raw: unknown): SourceForm {
  const src = isObj(raw) ? raw : {};
  const so = isObj(src.options) ? src.options : {};
  return {
    name: str(src.name, 'events'),
    type: str(src.type, 'files'),
    optionsJson: JSON.stringify(so, null, 2),
    schemaText: schemaTextOf(src.schema),
    eventTime: str(src.eventTime),
    watermarkDelay: str(src.watermarkDelay),
    onBadRecord: src.onBadRecord === 'dead-letter' ? 'dead-letter' : 'fail',
    keep: without(src, FORM_SOURCE_KEYS),
  };
}

/** The form of a stored static table (one of the spec's `staticTables`). */
function staticTableFormOf(raw: unknown): StaticTableForm {
  const t = isObj(raw) ? raw : {};
  return {
    name: str(t.name),
    type: t.type === 'postgres' ? 'postgres' : 'file',
    path: str(t.path),
    format: t.format === 'csv' ? 'csv' : 'json',
    ...(typeof t.header === 'boolean' ? { header: t.header } : {}),
    connectionString: str(t.connectionString),
    table: str(t.table),
    dbSchema: str(t.dbSchema),
    ...(typeof t.cache === 'boolean' ? { cache: t.cache } : {}),
    schemaText: schemaTextOf(t.schema),
    keep: without(t, FORM_STATIC_TABLE_KEYS),
  };
}

/** The form for a stored spec (as the API returns it: secrets masked, which PUT keeps). */
export function formFromSpec(spec: unknown, description?: string | null, restartPolicy?: unknown): JobForm {
  const rp = isObj(restartPolicy) ? restartPolicy : {};
  const s = isObj(spec) ? spec : {};
  const sink = isObj(s.sink) ? s.sink : {};
  const ko = isObj(sink.options) ? sink.options : {};
  const trig = isObj(s.trigger) ? s.trigger : {};
  const sources = rawSourcesOf(s).map((r) => sourceFormOf(r.source));
  return {
    name: str(s.name),
    description: description ?? '',
    sources: sources.length ? sources : [sourceFormOf({})],
    multipleWatermarkPolicy: s.multipleWatermarkPolicy === 'max' ? 'max' : 'min',
    staticTables: Array.isArray(s.staticTables) ? s.staticTables.map(staticTableFormOf) : [],
    sql: str(s.sql),
    sinkType: str(sink.type, 'files'),
    sinkOptionsJson: JSON.stringify(ko, null, 2),
    outputMode: s.outputMode === 'update' || s.outputMode === 'complete' ? s.outputMode : 'append',
    triggerType: trig.type === 'available-now' || trig.type === 'once' ? trig.type : 'processing-time',
    triggerInterval: str(trig.interval, '1 second'),
    checkpointLocation: str(s.checkpointLocation),
    stateStoreProvider: isObj(s.stateStore) && s.stateStore.provider === 'lmdb' ? 'lmdb' : 'hdfs',
    maintenanceInterval: isObj(s.stateStore) ? str(s.stateStore.maintenanceInterval) : '',
    restartMax: typeof rp.maxRestarts === 'number' && rp.maxRestarts > 0 ? String(rp.maxRestarts) : '',
    restartBackoffMs: typeof rp.backoffMs === 'number' ? String(rp.backoffMs) : '5000',
    keep: without(s, FORM_SPEC_KEYS),
  };
}

export type SourceField = Exclude<keyof SourceForm, 'keep'>;
export type StaticTableField = Exclude<keyof StaticTableForm, 'keep'>;
/**
 * A control of the form: a job-wide one by its field name, a source's by `sources.<i>.<field>`
 * (whether the spec writes it as `source` or as `sources`), a static table's by
 * `staticTables.<i>.<field>`. Fields carry it as `data-control`.
 */
export type FormControl = Exclude<keyof JobForm, 'sources' | 'staticTables' | 'keep'> | `sources.${number}.${SourceField}` | `staticTables.${number}.${StaticTableField}`;

/** Which job-wide form control an issue path belongs to (the longest matching prefix), if any. */
const PATH_CONTROLS: [string, FormControl][] = [
  ['name', 'name'],
  ['sql', 'sql'],
  ['stateStore.maintenanceInterval', 'maintenanceInterval'],
  ['stateStore', 'stateStoreProvider'],
  ['multipleWatermarkPolicy', 'multipleWatermarkPolicy'],
  ['sink.type', 'sinkType'],
  ['sink.options', 'sinkOptionsJson'],
  ['outputMode', 'outputMode'],
  ['trigger.interval', 'triggerInterval'],
  ['trigger', 'triggerType'],
  ['checkpointLocation', 'checkpointLocation'],
  ['restartPolicy.maxRestarts', 'restartMax'],
  ['restartPolicy.backoffMs', 'restartBackoffMs'],
];

/** A source's spec fields and the form control of each. */
const SOURCE_PATH_FIELDS: Record<string, SourceField> = {
  type: 'type',
  name: 'name',
  options: 'optionsJson',
  schema: 'schemaText',
  eventTime: 'eventTime',
  watermarkDelay: 'watermarkDelay',
  onBadRecord: 'onBadRecord',
  badRecordsPath: 'onBadRecord',
};

/** A static table's spec fields and the form control of each. */
const STATIC_TABLE_PATH_FIELDS: Record<string, StaticTableField> = {
  name: 'name',
  type: 'type',
  path: 'path',
  format: 'format',
  header: 'header',
  connectionString: 'connectionString',
  table: 'table',
  dbSchema: 'dbSchema',
  cache: 'cache',
  schema: 'schemaText',
};

/** `source.x` or `sources.<i>.x`: the source's index and field. */
const SOURCE_PATH_RE = /^(?:source|sources\.(\d+))\.(\w+)(?:\.|$)/;
/** `staticTables.<i>.x`: the static table's index and field. */
const STATIC_TABLE_PATH_RE = /^staticTables\.(\d+)\.(\w+)(?:\.|$)/;

export function formControlOf(path: string): FormControl | undefined {
  const src = SOURCE_PATH_RE.exec(path);
  if (src) {
    const field = Object.hasOwn(SOURCE_PATH_FIELDS, src[2]) ? SOURCE_PATH_FIELDS[src[2]] : undefined;
    return field && `sources.${Number(src[1] ?? 0)}.${field}`;
  }
  const table = STATIC_TABLE_PATH_RE.exec(path);
  if (table) {
    const field = Object.hasOwn(STATIC_TABLE_PATH_FIELDS, table[2]) ? STATIC_TABLE_PATH_FIELDS[table[2]] : undefined;
    return field && `staticTables.${Number(table[1])}.${field}`;
  }
  const hits = PATH_CONTROLS.filter(([p]) => path === p || path.startsWith(p + '.'));
  return hits.sort((a, b) => b[0].length - a[0].length)[0]?.[1];
}

const CONTROL_LABELS: Record<Exclude<keyof JobForm, 'sources' | 'staticTables' | 'keep'>, string> = {
  name: 'Name',
  description: 'Description',
  multipleWatermarkPolicy: 'Watermark of several sources',
  sql: 'Query',
  sinkType: 'Sink type',
  sinkOptionsJson: 'Sink options',
  outputMode: 'Output mode',
  triggerType: 'Trigger',
  triggerInterval: 'Trigger interval',
  checkpointLocation: 'Checkpoint location',
  stateStoreProvider: 'State store',
  maintenanceInterval: 'State maintenance interval',
  restartMax: 'Restarts after a failure',
  restartBackoffMs: 'First restart delay',
};

const SOURCE_LABELS: Record<SourceField, string> = {
  name: 'Table name in SQL',
  type: 'Source type',
  optionsJson: 'Source options',
  schemaText: 'Schema',
  eventTime: 'Event-time column',
  watermarkDelay: 'Watermark delay',
  onBadRecord: 'Bad records',
};

export const STATIC_TABLE_LABELS: Record<StaticTableField, string> = {
  name: 'Table name in SQL',
  type: 'Kind',
  path: 'File path',
  format: 'File format',
  header: 'First line is a header',
  connectionString: 'Connection string',
  table: 'Table',
  dbSchema: 'Database schema',
  cache: 'Cache (read once per run)',
  schemaText: 'Schema',
};

/** A control's label, as the form shows it (a source's or static table's field without saying which). */
export function controlLabel(c: FormControl): string {
  const m = /^(sources|staticTables)\.\d+\.(\w+)$/.exec(c);
  if (m) return m[1] === 'sources' ? SOURCE_LABELS[m[2] as SourceField] : STATIC_TABLE_LABELS[m[2] as StaticTableField];
  return CONTROL_LABELS[c as keyof typeof CONTROL_LABELS];
}

/** "Source 2: " for a path under `sources.1` (a job of several sources), "Static table 1: " under `staticTables.0`, else nothing. */
function sourcePrefixOf(path: string): string {
  const m = /^(sources|staticTables)\.(\d+)(?:\.|$)/.exec(path);
  return m ? `${m[1] === 'sources' ? 'Source' : 'Static table'} ${Number(m[2]) + 1}: ` : '';
}

/** A path's control label, naming the source when the spec has several. */
function pathLabel(path: string): string | undefined {
  const control = formControlOf(path);
  return control && sourcePrefixOf(path) + controlLabel(control);
}

export interface PositionedIssue extends FormIssue {
  line?: number;
  column?: number;
  /** Spark's error class, shown first as Spark prints it: `[CLASS] message`. */
  errorClass?: string;
}

/** An option's field label: a sink's, or source `index`'s (by its type's connector). */
export type OptionLabel = (side: 'source' | 'sink', option: string, index: number) => string | undefined;

/**
 * Where an issue is, in the words of the form: "Query, line 1, column 8", "Sink: Output
 * directory" (an option by its field label, when `optionLabel` knows it), "Source 2: Watermark
 * delay" (a job of several sources), else the spec path.
 */
export function issueWhere(issue: PositionedIssue, optionLabel?: OptionLabel): string {
  const opt = /^(?:(source)|sources\.(\d+)|(sink))\.options\.([^.]+)/.exec(issue.path);
  let where = pathLabel(issue.path) ?? (issue.path === '(root)' ? 'Spec' : issue.path);
  if (opt) {
    const side = opt[3] ? 'sink' : 'source';
    const name = optionLabel?.(side, opt[4], Number(opt[2] ?? 0)) ?? opt[4];
    where = `${opt[3] ? 'Sink' : opt[2] ? `Source ${Number(opt[2]) + 1}` : 'Source'}: ${name}`;
  }
  return issue.line ? `${where}, line ${issue.line}, column ${issue.column}` : where;
}

/** The spec's dotted paths a message may name (source.eventTime, sources.1.watermarkDelay, staticTables.0.path, sink.type), longest first. */
const NAMED_PATHS = [
  `(?:source|sources\\.\\d+)\\.(?:${Object.keys(SOURCE_PATH_FIELDS).join('|')})`,
  `staticTables\\.\\d+\\.(?:${Object.keys(STATIC_TABLE_PATH_FIELDS).join('|')})`,
  ...PATH_CONTROLS.filter(([p]) => p.includes('.')).sort((a, b) => b[0].length - a[0].length).map(([p]) => p.replace(/\./g, '\\.')),
];
const NAMED_PATH_RE = new RegExp(`(?<![\\w.])(${NAMED_PATHS.join('|')})(?!\\w|\\.\\w)`, 'g');

/**
 * A message in the form's words: the engine names spec paths ("Set source.eventTime and
 * source.watermarkDelay"), a person filling in the form sees fields ("Event-time column").
 */
export function withFieldLabels(message: string): string {
  return message.replace(NAMED_PATH_RE, (p) => `“${pathLabel(p)}”`);
}

/** An issue's message without the "(line L, column C)" its position already says, in the form's words. */
export function issueText(issue: PositionedIssue): string {
  const text = withFieldLabels(issue.line ? issue.message.replace(/\s*\(line \d+, column \d+\)$/, '') : issue.message);
  return problemText({ message: text, errorClass: issue.errorClass });
}
