/**
 * The source and sink types a job can use, with each type's options as form fields, read from
 * the same zod schemas that validate `source.options` / `sink.options` (as Arroyo's connector
 * forms come from each connector's JSON schema). The job editor renders its option fields from
 * this, so a new option, default or enum in the engine appears in the UI without UI code, and a
 * form can never offer an option the engine would refuse.
 */
import path from 'node:path';
import { z } from 'zod';
import '@/lib/connectors'; // registers the connectors' source, sink and checkpoint types
import { getSinkDefinition, getSourceDefinition, sinkTypes, sourceTypes, sparkColumns } from '@/lib/engine';

type OptionKind = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'list' | 'json';

export interface OptionField {
  name: string;
  label: string;
  kind: OptionKind;
  required: boolean;
  /** Masked on every read (the type's `secretOptions`). */
  secret: boolean;
  default?: unknown;
  /** An example value (the schema's first `examples` entry), shown as a placeholder. */
  example?: unknown;
  /** The allowed values of an enum. */
  values?: string[];
  description?: string;
  /**
   * The option only means something when these other options have one of these values (the
   * schema's `appliesWhen` metadata), e.g. a CSV header only for `format: csv`.
   */
  appliesWhen?: Record<string, string[]>;
}

export interface ConnectorInfo {
  type: string;
  fields: OptionField[];
  /**
   * A source with fixed columns (Spark's Kafka source): its columns with default options, which
   * it has when source.schema lists none (the editor then needs no schema), with Spark's type
   * names (`partition int`, `offset bigint`).
   */
  defaultColumns?: { name: string; type: string }[];
}

export interface ConnectorCatalog {
  sources: ConnectorInfo[];
  sinks: ConnectorInfo[];
}

/** In-process types for tests (rows live in one process's memory): a worker cannot use them. */
const TEST_ONLY_TYPES = new Set(['memory']);

interface JsonSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  examples?: unknown[];
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  appliesWhen?: Record<string, string[]>;
}

const WORDS: Record<string, string> = { url: 'URL', json: 'JSON', id: 'ID', ms: '(ms)', num: 'number of' };

/** `maxFilesPerTrigger` → "Max files per trigger", `initialBackoffMs` → "Initial backoff (ms)". */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(' ')
    .map((w) => WORDS[w] ?? w)
    .join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function kindOf(s: JsonSchema): OptionKind {
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string')) return 'enum';
  if (s.type === 'string' || s.type === 'integer' || s.type === 'number' || s.type === 'boolean') return s.type;
  if (s.type === 'array' && s.items?.type === 'string' && !s.items.enum) return 'list';
  return 'json';
}

/** The form fields of an options schema, in the schema's order. */
function optionFields(options: z.ZodType, secretOptions: readonly string[] = []): OptionField[] {
  // io 'input': what a spec may contain, so options with a default are not required.
  const schema = z.toJSONSchema(options, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const field: OptionField = { name, label: p.title ?? humanize(name), kind: kindOf(p), required: required.has(name), secret: secretOptions.includes(name) };
    if (p.default !== undefined) field.default = p.default;
    if (p.examples?.length) field.example = p.examples[0];
    if (field.kind === 'enum') field.values = p.enum as string[];
    if (p.description) field.description = p.description;
    if (p.appliesWhen) field.appliesWhen = p.appliesWhen;
    return field;
  });
}

let cached: ConnectorCatalog | undefined;

/**
 * The files source's and sink's directory fields as this server takes them: an example under the
 * first of WEIR_FILES_ROOTS (the engine's own example, /data/in, is refused outside them) and
 * the roots in the description, so the form's placeholder is a path that works.
 */
function withFilesRoots(c: ConnectorInfo, side: 'source' | 'sink', filesRoots: string[]): ConnectorInfo {
  if (c.type !== 'files' || filesRoots.length === 0) return c;
  const where = `Must be under WEIR_FILES_ROOTS: ${filesRoots.join(', ')} (a relative path is taken under ${filesRoots[0]}).`;
  return {
    ...c,
    fields: c.fields.map((f) =>
      f.name === 'path' ? { ...f, example: path.join(filesRoots[0], side === 'source' ? 'in' : 'out'), description: [f.description, where].filter(Boolean).join(' ') } : f,
    ),
  };
}

/**
 * Every registered source and sink type but the test-only ones, by type name; given the server's
 * WEIR_FILES_ROOTS, the files connectors' directories are described under them.
 */
export function connectorCatalog(filesRoots: string[] = []): ConnectorCatalog {
  const base = baseCatalog();
  return { sources: base.sources.map((c) => withFilesRoots(c, 'source', filesRoots)), sinks: base.sinks.map((c) => withFilesRoots(c, 'sink', filesRoots)) };
}

function baseCatalog(): ConnectorCatalog {
  cached ??= {
    sources: sourceTypes()
      .filter((t) => !TEST_ONLY_TYPES.has(t))
      .map((type) => {
        const def = getSourceDefinition(type)!;
        const fixed = def.defaultSchema?.({});
        const defaultColumns = fixed && sparkColumns(fixed);
        return { type, fields: optionFields(def.options, def.secretOptions), ...(defaultColumns ? { defaultColumns } : {}) };
      }),
    sinks: sinkTypes()
      .filter((t) => !TEST_ONLY_TYPES.has(t))
      .map((type) => {
        const def = getSinkDefinition(type)!;
        return { type, fields: optionFields(def.options, def.secretOptions) };
      }),
  };
  return cached;
}
