/**
 * Source types by name. Each source module registers a SourceDefinition; the job spec validates
 * `source.options` with the definition's zod schema, and the execution creates the Source from it.
 * Built-in modules register themselves from `sources/index.ts` (import that, not this file, to
 * get every type).
 */
import type { z } from 'zod';
import type { Clock } from '../clock';
import type { CheckpointFileManager } from '../checkpoint/checkpoint-file-manager';
import type { ColumnType, Field, Row, Schema } from '../types';
import type { Source } from './source';
import type { DestinationKind } from '../outbound/outbound-policy';

/** A fixed source column: a simple type, with its width when it is one of Spark's narrower integral types (INT). */
export type SourceColumn = { name: string; type: ColumnType | 'array' } & Pick<Field, 'integral' | 'elementType'>;

export interface SourceContext {
  /** The source's name in the SQL (FROM <name>). */
  name: string;
  schema: Schema;
  /**
   * The columns of `schema` the query reads (the optimizer's ColumnPruning); a source may
   * materialize only these in its rows. Unset: every column.
   */
  requiredColumns?: string[];
  /**
   * The query's pushed filter (PushedFilters): false for a row that the plan's first Filter
   * drops. A source may leave such rows out of a batch (then it reports `SourceBatch.scanned`)
   * or ignore this: the Filter still runs.
   */
  pushedFilter?: (row: Row) => boolean;
  /**
   * With a pushed filter, its conjuncts that do not read the event time, which Spark applies below
   * the watermark: a source that reports `scanned.eventTimes` folds only the rows passing it.
   */
  watermarkFilter?: (row: Row) => boolean;
  /**
   * The query reads its rows' file metadata (input_file_name(), `_metadata`): a source that reads
   * files sets each row's FILE_METADATA_COLUMN (others need not: input_file_name() is '' and
   * `_metadata` NULL without it).
   */
  fileMetadata?: boolean;
  /** Optional event-time column (for watermarks). */
  eventTime?: string;
  /** The checkpoint storage, and the per-source metadata directory in it (`sources/<i>`). */
  checkpoint: CheckpointFileManager;
  metadataPath: string;
  clock: Clock;
  /** The query id, when known (runtime only). */
  queryId?: string;
}

/** A connector's options rewritten into its own names (canonicalOptions), and the options that rewrite refused. */
export interface CanonicalOptions {
  options: Record<string, unknown>;
  /** path: the option's key as the user wrote it. */
  issues: { path: string; message: string }[];
}

export interface SourceDefinition<O = unknown> {
  type: string;
  /** Validates `source.options`; errors name the field. */
  options: z.ZodType<O>;
  /** Exactly-once signature 1, decidable without connecting. */
  replayable(options: O): { replayable: boolean; reason: string };
  create(options: O, ctx: SourceContext): Source;
  /** Optional check of `source.schema` for sources with fixed columns (e.g. rate); returns a problem or undefined. */
  checkSchema?(schema: Schema): string | undefined;
  /**
   * Optional, for a source whose columns are fixed (Spark's Kafka source): its columns when
   * `source.schema` lists none, as Spark gives them without being asked. `options` are the
   * options in this definition's names, before validation (they may be invalid).
   */
  defaultSchema?(options: Record<string, unknown>): SourceColumn[];
  /**
   * The source reads files and sets each row's FILE_METADATA_COLUMN: its queries may read Spark's
   * hidden `_metadata` column (on another source that name is no column, as in Spark).
   */
  metadataColumn?: boolean;
  /**
   * Optional: the source reads a VARIANT column of its schema (one at the top level) from its
   * records' JSON, as Spark's JSON reader builds it (the files source's JSON lines); without it a
   * VARIANT column is refused.
   */
  readsVariant?(options: O): boolean;
  /** Option keys whose values are secrets (masked on every read, never logged). */
  secretOptions?: readonly string[];
  /**
   * Optional: the options as a user of the engine this source mirrors writes them (Spark's names,
   * values as strings) rewritten into this definition's own names, before `options` validates
   * them; `issues` are options refused with their reason (path: the key as written). The control
   * plane stores the rewritten form, so one option has one name wherever it is shown.
   */
  canonicalOptions?(raw: Record<string, unknown>): CanonicalOptions;
  /** Options that name a network destination (see SinkDefinition.destinations). */
  destinations?: readonly { option: string; kind: DestinationKind }[];
}

const registry = new Map<string, SourceDefinition<never>>();

export function registerSource<O>(def: SourceDefinition<O>): void {
  registry.set(def.type, def as unknown as SourceDefinition<never>);
}

export function getSourceDefinition(type: string): SourceDefinition<unknown> | undefined {
  return registry.get(type) as SourceDefinition<unknown> | undefined;
}

export function sourceTypes(): string[] {
  return [...registry.keys()].sort();
}
