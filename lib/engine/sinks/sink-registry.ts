/**
 * Sink types by name, mirroring source-registry.ts. Built-in modules register themselves from
 * `sinks/index.ts`.
 */
import type { CanonicalOptions } from '../sources/source-registry';
import type { z } from 'zod';
import type { Clock } from '../clock';
import type { OutputMode, Row, Schema } from '../types';
import type { Sink, SinkSignature } from './sink';
import type { DestinationKind, OutboundPolicy } from '../outbound/outbound-policy';
import { writtenColumnName } from '../query/column-names';

export interface SinkContext {
  clock: Clock;
  /** The job's id/name, for idempotency keys and metadata tables. */
  jobName: string;
  queryId?: string;
  /** The outbound policy its connections obey (default: the one installed with setOutboundPolicy). */
  outbound?: OutboundPolicy;
}

export interface SinkDefinition<O = unknown> {
  type: string;
  options: z.ZodType<O>;
  /** Exactly-once signature 3, decidable without connecting. */
  signature(options: O): { signature: SinkSignature; reason: string };
  supportedOutputModes(options: O): readonly OutputMode[];
  create(options: O, ctx: SinkContext): Sink;
  /**
   * Optional check of the options against the query's output schema at validation (e.g. upsert
   * key columns that the SELECT must produce); returns the problem with its field path.
   */
  checkOutput?(options: O, outputSchema: Schema): { path: string; message: string } | undefined;
  /**
   * Optional: the rows readers of the destination see now (for `weir sink read`). Given the
   * query's output schema, a destination that stores those columns gives their values as the
   * engine holds them (a DATE its day number, a DECIMAL its unscaled bigint), so that they print
   * as the JSON sinks write them. A stored row of those columns whose values do not read as
   * them (another writer's, or one edited by hand) is given as stored, and `warn` is told which
   * and why, with that row: the read loses nothing and says what it could not type, as for a
   * files sink.
   */
  readRows?(options: O, outputSchema?: Schema, warn?: (message: string, row: Row) => void): Promise<Row[]>;
  secretOptions?: readonly string[];
  /**
   * Optional: Spark's spellings of the options in this definition's own names (see
   * SourceDefinition.canonicalOptions).
   */
  canonicalOptions?(raw: Record<string, unknown>): CanonicalOptions;
  /**
   * Options that name a network destination (a URL, a connection string), checked against the
   * outbound policy at validation; a masked secret of this sink is kept on an edit only while
   * these are unchanged.
   */
  destinations?: readonly { option: string; kind: DestinationKind }[];
  /**
   * Whether the sink shows two output columns of one name (`SELECT *` over `a JOIN b ON a.k =
   * b.k` outputs both `k`), as the console's table does; a sink that writes a column by its name
   * (a JSON object's key, a table's column) cannot, and the query is refused (outputColumnsChecked).
   */
  repeatedColumnNames?: boolean;
}

const registry = new Map<string, SinkDefinition<never>>();

export function registerSink<O>(def: SinkDefinition<O>): void {
  registry.set(def.type, def as unknown as SinkDefinition<never>);
}

export function getSinkDefinition(type: string): SinkDefinition<unknown> | undefined {
  return registry.get(type) as SinkDefinition<unknown> | undefined;
}

export function sinkTypes(): string[] {
  return [...registry.keys()].sort();
}

/**
 * Spark's COLUMN_ALREADY_EXISTS (SchemaUtils.checkColumnNameDuplication, as Spark checks the data
 * it saves to a table or files): the first output name the query repeats, where the sink writes
 * columns by name; checked at validation and again at run start, before the first batch.
 */
export function outputColumnsChecked(def: Pick<SinkDefinition, 'type' | 'repeatedColumnNames'>, outputSchema: Schema): { path: string; message: string; errorClass: string } | undefined {
  if (def.repeatedColumnNames) return undefined;
  const seen = new Set<string>();
  for (const f of outputSchema) {
    const name = writtenColumnName(f.name);
    if (!seen.has(name.toLowerCase())) {
      seen.add(name.toLowerCase());
      continue;
    }
    return {
      path: 'sql',
      message: `[COLUMN_ALREADY_EXISTS] The column \`${name}\` already exists. Choose another name or rename the existing column. The ${def.type} sink writes each column by its name: give one of the two an alias with AS, or select the columns one by one instead of *.`,
      errorClass: 'COLUMN_ALREADY_EXISTS',
    };
  }
  return undefined;
}
