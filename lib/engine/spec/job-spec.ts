/**
 * The job spec: the JSON a user writes (and the API stores) to define a streaming query.
 *
 * `source.options` and `sink.options` are validated by the zod schema of the source/sink type
 * registered in sources/source-registry.ts and sinks/sink-registry.ts, so every error names its
 * full field path (`source.options.path`). `parseJobSpec` returns the spec with the options as
 * the registry parsed them (defaults applied).
 */
import { z } from 'zod';
import { ValidationError } from '../errors';
import { getSourceDefinition, sourceTypes } from '../sources/index';
import type { CanonicalOptions, SourceDefinition } from '../sources/source-registry';
import { getSinkDefinition, sinkTypes } from '../sinks/index';
import { getStaticTableReader } from '../operators/stream-static-join';
import type { OutputMode } from '../types';
import { SchemaSpec } from './source-schema';
import { isOneSourceSpecWrittenBack, rawSourcesOf } from './spec-sources';

export { rawSourcesOf };
import { DURATION_HINT, durationTooLong, MAX_TRIGGER_INTERVAL_MS, parseDuration } from './duration';
import { watermarkDelayMs } from './watermark-delay';

/** A duration string of at most `maxMs` (duration.ts says why durations are bounded). */
const durationAtMost = (maxMs: number) =>
  z
    .string()
    .max(100, { message: `expected ${DURATION_HINT}` })
    .superRefine((s, ctx) => {
      const ms = parseDuration(s);
      if (ms === null) ctx.addIssue({ code: 'custom', message: `expected ${DURATION_HINT}` });
      else if (ms > maxMs) ctx.addIssue({ code: 'custom', message: durationTooLong(maxMs) });
    });

/** A watermark delay: Spark's interval string, its own rules and bound (watermark-delay.ts). */
const WatermarkDelaySpec = z
  .string()
  .max(100, { message: 'must be at most 100 characters, such as "10 seconds" or "2 years 5 months"' })
  .superRefine((s, ctx) => {
    try {
      watermarkDelayMs(s);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      ctx.addIssue({ code: 'custom', message: e.message });
    }
  });

/**
 * Length limits on what a person names (docs/api.md lists them): long enough for any real name,
 * short enough that a list page, an audit line or an alert stays readable.
 */
const MAX_NAME_LENGTH = 200;

export const STATE_STORE_PROVIDERS = ['hdfs', 'lmdb'] as const;
export type StateStoreProviderName = (typeof STATE_STORE_PROVIDERS)[number];
export const DEFAULT_STATE_STORE_PROVIDER: StateStoreProviderName = 'hdfs';

/** Spark's default spark.sql.streaming.stateStore.maintenanceInterval. */
const DEFAULT_MAINTENANCE_INTERVAL_MS = 60_000;
/** A day: longer leaves a long-running job's restart to replay a day of deltas. */
const MAX_MAINTENANCE_INTERVAL_MS = 24 * 3_600_000;

/** How often the job's state maintenance runs (stateStore.maintenanceInterval), in ms. */
export function maintenanceIntervalMsOf(spec: Pick<JobSpec, 'stateStore'>): number {
  const text = spec.stateStore?.maintenanceInterval;
  return text === undefined ? DEFAULT_MAINTENANCE_INTERVAL_MS : parseDuration(text)!;
}

/** The job's state store provider (the default when the spec names none). */
export function stateStoreProviderOf(spec: Pick<JobSpec, 'stateStore'>): StateStoreProviderName {
  return spec.stateStore?.provider ?? DEFAULT_STATE_STORE_PROVIDER;
}

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be an identifier (letters, digits, _; not starting with a digit)' });

const TriggerSpecSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('processing-time'), interval: durationAtMost(MAX_TRIGGER_INTERVAL_MS) }).strict(),
  z.object({ type: z.literal('available-now') }).strict(),
  z.object({ type: z.literal('once') }).strict(),
]);

/** Why a reader that is no JSON reader cannot read the VARIANT column `name`. */
function variantSourceRefusal(name: string, reader: string): string {
  return `column "${name}" is VARIANT, which ${reader} does not read: a VARIANT column is read from JSON lines (format json) only; read the text as a STRING and write parse_json(<column>)`;
}

/** At most this many sources in one query (each holds a reader and a line in every offsets/N). */
const MAX_SOURCES = 16;
/** The most state partitions (spark.sql.shuffle.partitions) a job may ask for. */
export const MAX_PARALLELISM = 64;

/** Spark's MultipleWatermarkPolicy names; "min" is Spark's default (and what a checkpoint without the key means). */
export const MULTIPLE_WATERMARK_POLICIES = ['min', 'max'] as const;
export type MultipleWatermarkPolicy = (typeof MULTIPLE_WATERMARK_POLICIES)[number];
export const DEFAULT_MULTIPLE_WATERMARK_POLICY: MultipleWatermarkPolicy = 'min';

const SourceSpecSchema = z
  .object({
    name: identifier,
    type: z.string().min(1),
    options: z.record(z.string(), z.unknown()).default({}),
    // Optional only for a source with fixed columns (defaultSchema): parseJobSpec requires it of the others.
    schema: SchemaSpec.optional(),
    eventTime: z.string().optional(),
    watermarkDelay: WatermarkDelaySpec.optional(),
    onBadRecord: z.enum(['fail', 'dead-letter']).default('fail'),
    badRecordsPath: z.string().min(1).optional(),
  })
  .strict();

export const JobSpecSchema = z
  .object({
    name: z.string().min(1, { message: 'must not be empty' }).max(MAX_NAME_LENGTH, { message: `must be at most ${MAX_NAME_LENGTH} characters` }),
    source: SourceSpecSchema.optional(),
    /** Several sources (Spark: a query over several streams): FROM names each by its `name`; offsets/N has one line per source, in this order. */
    sources: z.array(SourceSpecSchema).min(1).max(MAX_SOURCES).optional(),
    /** Spark's spark.sql.streaming.multipleWatermarkPolicy: how the global watermark is chosen from each source's (recorded in the checkpoint). */
    // Spark reads the conf's value in lower case: "MAX" is "max".
    multipleWatermarkPolicy: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(MULTIPLE_WATERMARK_POLICIES)).optional(),
    sql: z.string().min(1, { message: 'must not be empty' }),
    sink: z.object({ type: z.string().min(1), options: z.record(z.string(), z.unknown()).default({}) }).strict(),
    outputMode: z.enum(['append', 'update', 'complete']).default('append'),
    trigger: TriggerSpecSchema.default({ type: 'processing-time', interval: '0 seconds' }),
    checkpointLocation: z.string().min(1),
    /**
     * dropDuplicates on the source rows before the SQL: `keys` are source columns;
     * `withinWatermark` is Spark's dropDuplicatesWithinWatermark (needs source.eventTime).
     */
    dedup: z.object({ keys: z.array(z.string().min(1)).min(1), withinWatermark: z.boolean().default(false) }).strict().optional(),
    /**
     * Static tables the SQL may join with the stream: a JSON-lines or CSV file
     * (`type: "file"`, the default, with `path`), or a PostgreSQL table (`type: "postgres"`,
     * with `connectionString` and `table`, optionally `dbSchema`). Each is read again at every
     * batch that has data, as Spark re-runs a static DataFrame's plan (a file only when its stat
     * changed); `cache: true` is Spark's `.cache()`, read once per run.
     */
    staticTables: z
      .array(
        z
          .object({
            name: identifier,
            type: z.enum(['file', 'postgres']).default('file'),
            path: z.string().min(1).optional(),
            format: z.enum(['json', 'csv']).default('json'),
            header: z.boolean().optional(),
            connectionString: z.string().min(1).optional(),
            table: z.string().min(1).optional(),
            dbSchema: z.string().min(1).optional(),
            cache: z.boolean().optional(),
            schema: SchemaSpec,
          })
          .strict()
          .superRefine((t, ctx) => {
            if (t.type === 'file' && !t.path) ctx.addIssue({ code: 'custom', path: ['path'], message: 'is required for a file static table' });
            const variant = t.schema.findIndex((f) => f.type === 'variant');
            if (variant >= 0 && (t.type !== 'file' || t.format !== 'json')) {
              ctx.addIssue({ code: 'custom', path: ['schema', variant, 'type'], message: variantSourceRefusal(t.schema[variant].name, `a ${t.type === 'file' ? 'CSV file' : t.type} static table`) });
            }
            if (t.type === 'postgres' && !t.connectionString) ctx.addIssue({ code: 'custom', path: ['connectionString'], message: 'is required for a postgres static table' });
            if (t.type === 'postgres' && !t.table) ctx.addIssue({ code: 'custom', path: ['table'], message: 'is required for a postgres static table' });
            if (t.type === 'file') return;
            // Read at parse time, not module load: the reader registers from lib/connectors.
            const reader = getStaticTableReader(t.type);
            if (!reader) {
              ctx.addIssue({ code: 'custom', path: ['type'], message: `no reader for "${t.type}" static tables is registered in this process (import lib/connectors)` });
              return;
            }
            for (const p of reader.check?.(t) ?? []) ctx.addIssue({ code: 'custom', path: [p.path], message: p.message });
          }),
      )
      .optional(),
    /**
     * Where stateful operators keep their state (Spark's stateStore.providerClass): `hdfs`, the
     * default, Spark's HDFSBackedStateStoreProvider (every key in the run's heap, files through
     * the checkpoint storage); `lmdb`, Spark's RocksDB provider with changelog checkpointing, on
     * LMDB (keys in a local LMDB cache outside the heap). Fixed for a checkpoint's life.
     */
    stateStore: z.object({
      provider: z.enum(STATE_STORE_PROVIDERS).default(DEFAULT_STATE_STORE_PROVIDER),
      /**
       * Spark's spark.sql.streaming.stateStore.maintenanceInterval (default 60 seconds): how often
       * the background maintenance writes snapshots of the stores and deletes the files no
       * retained version needs. Shorter: faster restarts, more snapshot work.
       */
      maintenanceInterval: durationAtMost(MAX_MAINTENANCE_INTERVAL_MS).optional(),
    }).strict().optional(),
    /** Spark's minBatchesToRetain: offsets/ and commits/ entries, and state versions, kept (at least 2, for recovery). */
    minBatchesToRetain: z.number().int().min(2).default(100),
    /**
     * Spark's spark.sql.shuffle.partitions: how many partitions each stateful operator keeps its
     * state in (by the hash of its key), one reduce task each per batch. Recorded in the
     * checkpoint's offsets/N conf and fixed for the checkpoint's life (the recorded value wins).
     */
    parallelism: z.number().int().min(1).max(MAX_PARALLELISM).default(1),
  })
  .strict();

type ParsedJobSpec = z.infer<typeof JobSpecSchema>;
type ParsedSourceSpec = z.infer<typeof SourceSpecSchema>;
type SourceSchema = NonNullable<ParsedSourceSpec['schema']>;
/** One source of a valid spec: `schema` is always there (the source's default columns when it lists none). */
export type SourceSpec = Omit<ParsedSourceSpec, 'schema'> & { schema: SourceSchema };
/**
 * A valid spec. `sources` lists every source in order (a spec written with `source` has one);
 * `source` is the first, what single-source features (preview, dedup, static joins) read.
 */
export type JobSpec = Omit<ParsedJobSpec, 'source' | 'sources'> & { source: SourceSpec; sources: SourceSpec[] };
export { SourceSpecSchema };
export type TriggerSpec = z.infer<typeof TriggerSpecSchema>;

export interface SpecIssue {
  /** Dotted field path, e.g. `source.options.path`, `trigger.interval`, `sql`. */
  path: string;
  message: string;
  line?: number;
  column?: number;
  /** Spark's error class for the same rejection, when Spark has one (errors.ts). */
  errorClass?: string;
}

export type ParseJobSpecResult = { ok: true; spec: JobSpec } | { ok: false; errors: SpecIssue[] };

const KIND_WORDS: Record<string, string> = { string: 'text', number: 'a number', int: 'a whole number', boolean: 'true or false', object: 'an object', array: 'a list' };

/**
 * A zod issue in plain words ("must not be empty", "is required", "must be one of: json, csv"):
 * zod's own wording ("Too small: expected string to have >=1 characters") is for developers.
 * A message the schema wrote itself is kept.
 */
function plainIssueMessage(i: z.core.$ZodIssue): string {
  const own = !/^(Too small|Too big|Invalid input|Invalid option|Unrecognized key|Invalid string|Invalid)\b/.test(i.message);
  if (own) return i.message;
  const bound = (kind: 'at least' | 'at most', issue: { origin?: string; inclusive?: boolean }, n: number | bigint) => {
    const strict = issue.inclusive === false;
    const op = kind === 'at least' ? (strict ? 'more than' : 'at least') : strict ? 'less than' : 'at most';
    if (issue.origin === 'string') return n === 1 && kind === 'at least' && !strict ? 'must not be empty' : `must be ${op} ${n} characters`;
    if (issue.origin === 'array' || issue.origin === 'set') return `must list ${op} ${n} item${n === 1 ? '' : 's'}`;
    return `must be ${op} ${n}`;
  };
  switch (i.code) {
    case 'too_small':
      return bound('at least', i, i.minimum);
    case 'too_big':
      return bound('at most', i, i.maximum);
    case 'invalid_type':
      return /received undefined$/.test(i.message) ? 'is required' : `must be ${KIND_WORDS[i.expected] ?? i.expected}`;
    case 'invalid_value':
      return `must be one of: ${i.values.map(String).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}: remove ${i.keys.length > 1 ? 'them' : 'it'} or check the spelling`;
    case 'invalid_format':
      return `is not a valid ${i.format}`;
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'custom': case 'invalid_element': case 'invalid_key': case 'invalid_union': case 'not_multiple_of':
    default:
      return i.message;
  }
}

function issuesOf(err: z.ZodError, prefix: (string | number)[] = []): SpecIssue[] {
  return err.issues.map((i) => ({
    path: [...prefix, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))].join('.') || '(root)',
    message: plainIssueMessage(i),
  }));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A connector's options in its own names (its canonicalOptions), and what that refused. */
function canonicalOptionsOf(def: Pick<SourceDefinition, 'canonicalOptions'> | undefined, options: unknown): { options: unknown; issues: CanonicalOptions['issues'] } {
  if (!def?.canonicalOptions || !isPlainObject(options)) return { options, issues: [] };
  return def.canonicalOptions(options);
}

/**
 * The spec with each connector's options in the connector's own names (Spark's spellings
 * rewritten, see SourceDefinition.canonicalOptions), nothing else changed: what the control
 * plane stores, so a job page shows each option once. Options a rewrite refuses are kept as they
 * were, for validation to report.
 */
export function canonicalJobSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const canonical = (p: unknown, get: typeof getSourceDefinition | typeof getSinkDefinition): unknown => {
    if (!isPlainObject(p) || typeof p.type !== 'string') return p;
    const c = canonicalOptionsOf(get(p.type), p.options);
    return c.issues.length === 0 && c.options !== p.options ? { ...p, options: c.options } : p;
  };
  const out = { ...spec };
  if (spec.source !== undefined) out.source = canonical(spec.source, getSourceDefinition);
  if (Array.isArray(spec.sources)) out.sources = spec.sources.map((s) => canonical(s, getSourceDefinition));
  if (spec.sink !== undefined) out.sink = canonical(spec.sink, getSinkDefinition);
  return out;
}

/**
 * A draft's source columns: `source.schema` as written, or, when it lists none, the columns a
 * source with fixed columns has (Spark's Kafka source: key, value, topic, …). Undefined when the
 * draft has neither; the schema is not validated here (parseJobSpec does).
 */
export function sourceSchemaOf(source: unknown): unknown[] | undefined {
  if (!isPlainObject(source)) return undefined;
  if (source.schema !== undefined) {
    // A DDL string is read as its columns; a list that does not parse is given as it is.
    const parsed = SchemaSpec.safeParse(source.schema);
    return parsed.success ? parsed.data : Array.isArray(source.schema) ? source.schema : undefined;
  }
  const def = typeof source.type === 'string' ? getSourceDefinition(source.type) : undefined;
  if (!def?.defaultSchema) return undefined;
  const options = canonicalOptionsOf(def, source.options ?? {}).options;
  return def.defaultSchema(isPlainObject(options) ? options : {});
}

/** A source's options by its registered type (defaults applied), or the problems with them. */
function parseSourceOptions(path: string, raw: { type?: unknown; options?: unknown; schema?: unknown }, errors: SpecIssue[]): unknown {
  if (typeof raw.type !== 'string') return undefined;
  const def = getSourceDefinition(raw.type);
  if (!def) {
    errors.push({ path: `${path}.type`, message: `unknown source type "${raw.type}"; known types: ${sourceTypes().join(', ')}` });
    return undefined;
  }
  if (!def.defaultSchema && raw.schema === undefined) {
    errors.push({ path: `${path}.schema`, message: `is required: list the columns of the ${def.type} source's records, e.g. [{"name": "user", "type": "string"}]` });
  }
  const c = canonicalOptionsOf(def, raw.options ?? {});
  errors.push(...c.issues.map((i) => ({ path: `${path}.options.${i.path}`, message: i.message })));
  const r = def.options.safeParse(c.options);
  if (r.success) return r.data;
  errors.push(...issuesOf(r.error, [...path.split('.'), 'options']));
  return undefined;
}

/** A parsed source's checks beyond its shape (event time, watermark, dead letters, columns), and its full form. */
function checkSource(path: string, s: ParsedSourceSpec, options: unknown, errors: SpecIssue[]): SourceSpec {
  const def = getSourceDefinition(s.type);
  // No schema and no default: said by parseSourceOptions. With invalid options the default is unknown, and they are said.
  const schema: SourceSchema = s.schema ?? (options !== undefined ? def?.defaultSchema?.(options as Record<string, unknown>) : undefined) ?? [];
  if (s.eventTime !== undefined) {
    const col = schema.find((f) => f.name === s.eventTime);
    // Not a source column: one the SQL derives (withWatermark on a projection's column, e.g. a
    // from_json field); compiling the SQL checks that a Project defines it as a timestamp.
    if (col && col.type !== 'timestamp') errors.push({ path: `${path}.eventTime`, message: `column "${s.eventTime}" must be a timestamp, it is ${col.type}` });
  }
  if (s.watermarkDelay !== undefined && s.eventTime === undefined) {
    errors.push({ path: `${path}.watermarkDelay`, message: `needs ${path}.eventTime (the column the watermark tracks)` });
  }
  if (s.onBadRecord === 'dead-letter' && !s.badRecordsPath) {
    errors.push({ path: `${path}.badRecordsPath`, message: `is required when ${path}.onBadRecord is "dead-letter" (where bad records go)` });
  }
  const names = new Set<string>();
  schema.forEach((f, i) => {
    if (names.has(f.name.toLowerCase())) errors.push({ path: `${path}.schema.${i}.name`, message: `duplicate column "${f.name}"` });
    names.add(f.name.toLowerCase());
  });
  const schemaProblem = def?.checkSchema?.(schema);
  if (schemaProblem) errors.push({ path: `${path}.schema`, message: schemaProblem });
  const variant = schema.findIndex((f) => f.type === 'variant');
  if (variant >= 0 && options !== undefined && !def?.readsVariant?.(options)) {
    errors.push({ path: `${path}.schema.${variant}.type`, message: variantSourceRefusal(schema[variant].name, `the ${s.type} source${s.type === 'files' ? ' in this format' : ''}`) });
  }
  return { ...s, options: options as Record<string, unknown>, schema };
}

/**
 * A JOIN names a static table by its name, as FROM names a source: a name two of them share (in
 * any case) would be ambiguous. Read from the raw spec, so that it is said beside the spec's
 * other errors.
 */
function staticTableNameIssues(input: unknown, rawSources: { source: unknown }[]): SpecIssue[] {
  const tables = isPlainObject(input) && Array.isArray(input.staticTables) ? input.staticTables : [];
  const nameOf = (x: unknown) => (isPlainObject(x) && typeof x.name === 'string' ? x.name.toLowerCase() : undefined);
  const sourceNames = new Set(rawSources.map((s) => nameOf(s.source)));
  const seen = new Set<string>();
  return tables.flatMap((t, i) => {
    const name = nameOf(t);
    if (name === undefined) return [];
    const what = sourceNames.has(name) ? 'a source' : seen.has(name) ? 'another static table' : undefined;
    seen.add(name);
    return what ? [{ path: `staticTables.${i}.name`, message: `duplicate name "${(t as { name: string }).name}": ${what} has it, and FROM and JOIN name each source and static table by its name` }] : [];
  });
}

export function parseJobSpec(input: unknown): ParseJobSpecResult {
  const base = JobSpecSchema.safeParse(input);
  const errors: SpecIssue[] = base.success ? [] : issuesOf(base.error);
  const raw = (input ?? {}) as { source?: unknown; sources?: unknown; sink?: { type?: unknown; options?: unknown } };
  const writtenBack = isOneSourceSpecWrittenBack(input);
  if (!writtenBack && (raw.source === undefined) === (raw.sources === undefined)) {
    errors.push({
      path: 'source',
      message: raw.source === undefined ? 'is required: a `source`, or `sources` (a list) for a query over several streams' : 'write `source` or `sources`, not both: `sources` lists every source, the first included',
    });
  }
  // Options are checked even when other fields fail, so the user sees every error at once.
  const rawSources = rawSourcesOf(input);
  const sourceOptions = rawSources.map(({ path, source }) => (isPlainObject(source) ? parseSourceOptions(path, source, errors) : undefined));
  let sinkOptions: unknown;
  if (typeof raw.sink?.type === 'string') {
    const def = getSinkDefinition(raw.sink.type);
    if (!def) errors.push({ path: 'sink.type', message: `unknown sink type "${raw.sink.type}"; known types: ${sinkTypes().join(', ')}` });
    else {
      const c = canonicalOptionsOf(def, raw.sink.options ?? {});
      errors.push(...c.issues.map((i) => ({ path: `sink.options.${i.path}`, message: i.message })));
      const r = def.options.safeParse(c.options);
      if (r.success) sinkOptions = r.data;
      else errors.push(...issuesOf(r.error, ['sink', 'options']));
    }
  }
  let sources: SourceSpec[] = [];
  if (base.success) {
    const parsed = writtenBack || !base.data.sources ? (base.data.source ? [base.data.source] : []) : base.data.sources;
    sources = parsed.map((s, i) => checkSource(rawSources[i].path, s, sourceOptions[i], errors));
    // FROM names a source by its name: two sources of one name would make it ambiguous.
    const seen = new Set<string>();
    sources.forEach((s, i) => {
      if (seen.has(s.name.toLowerCase())) errors.push({ path: `sources.${i}.name`, message: `duplicate source name "${s.name}": FROM names each source by its name` });
      seen.add(s.name.toLowerCase());
    });
  }
  errors.push(...staticTableNameIssues(input, rawSources));
  if (errors.length || !base.success) return { ok: false, errors };
  const { source: _source, sources: _sources, ...rest } = base.data;
  const spec: JobSpec = { ...rest, source: sources[0], sources, sink: { ...base.data.sink, options: sinkOptions as Record<string, unknown> } };
  return { ok: true, spec };
}

/**
 * A parsed spec as the engine reads it: `sources`. An embedder that replaced `source` after parsing
 * (`{ ...spec, source: other }`) left `sources[0]` the old one, which would run silently; the raw
 * spec's rule applies, a one-source spec's `source` wins. A spec of several sources changes one
 * in `sources`; a `source` that is not `sources[0]` there is refused rather than guessed at.
 */
export function withSourcesReconciled(spec: JobSpec): JobSpec {
  if (spec.source === spec.sources[0]) return spec;
  if (spec.sources.length === 1) return { ...spec, sources: [spec.source] };
  throw new ValidationError(
    `The spec's source "${spec.source.name}" is not its first of sources (${spec.sources.map((s) => `"${s.name}"`).join(', ')}): a spec of several sources changes one in sources`,
    { path: 'source' },
  );
}

export function outputModeLabel(m: OutputMode): string {
  return m[0].toUpperCase() + m.slice(1);
}
