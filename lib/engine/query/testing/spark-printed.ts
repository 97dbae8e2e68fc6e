/**
 * A query's answer as Spark's spark-sql shell prints it (HiveResult.toHiveString), and one
 * SELECT run over a one-row stream (or a query of static data joined with it): how tests compare
 * Weir's answers with those Spark printed.
 */
import { variantToJson, type Variant } from '../variant';
import type { Field, Row, Schema } from '../../types';
import { formatDate } from '../date';
import { formatDecimal } from '../decimal';
import { formatFloat } from '../float';
import { formatInterval, fullRange } from '../interval-utils';
import { toMultiUnitsString, type CalendarInterval } from '../calendar-interval';
import { formatTimestamp } from '../timestamp-micros';
import { formatDouble } from '../sql-values';
import { typeOfField } from '../data-types';
import { mapKeyValue } from '../map-keys';
import type { StaticTableSpec } from '../../operators/stream-static-join';
import { compileStreamingQuery, type CompiledStreamingQuery } from '../streaming-query';
import type { OperatorContext } from '../../operators/physical-operator';

/** An ANSI interval as the shell prints it: `INTERVAL '1-2' YEAR TO MONTH`. */
const ansiInterval = (v: unknown, f: Field): string => formatInterval(f.type as 'day_time_interval', v, f.interval ?? fullRange(f.type as 'day_time_interval'));

/** spark.sql.binaryOutputStyle: how HiveResult.toHiveString prints a BINARY (ToStringBase.getBinaryFormatter). */
export type BinaryOutputStyle = 'UTF-8' | 'BASIC' | 'BASE64' | 'HEX' | 'HEX_DISCRETE';

/** A BINARY printed in the style: unset, as its UTF-8 text; BASIC, its bytes as Java's signed bytes. */
function binaryPrinted(v: Uint8Array, style: BinaryOutputStyle): string {
  const bytes = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  switch (style) {
    case 'BASIC': return `[${[...new Int8Array(v)].join(', ')}]`;
    case 'BASE64': return bytes.toString('base64').replace(/=+$/, '');
    case 'HEX': return bytes.toString('hex').toUpperCase();
    case 'HEX_DISCRETE': return `[${[...v].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ')}]`;
    case 'UTF-8': return new TextDecoder().decode(v);
  }
}

/**
 * A value as Spark's HiveResult.toHiveString prints it (`nested`: inside an array, map or
 * struct); `interval` prints an ANSI interval, wherever it is, and a BINARY is printed in
 * `binary`'s style.
 */
export function printed(v: unknown, f: Field, nested = false, interval = ansiInterval, binary: BinaryOutputStyle = 'UTF-8'): string {
  if (v === null || v === undefined) return nested ? 'null' : 'NULL';
  const inner = (x: unknown, g: Field, n = true) => printed(x, g, n, interval, binary);
  switch (f.type) {
    // HiveResult quotes a nested string as it is: `{"b":""2""}`, nothing escaped.
    case 'string': return nested ? `"${String(v)}"` : String(v);
    case 'double': return f.float32 ? formatFloat(Number(v)) : formatDouble(Number(v));
    case 'decimal': return typeof v === 'bigint' ? formatDecimal(v, f.scale ?? 0) : String(v);
    case 'date': return typeof v === 'number' ? formatDate(v) : String(v);
    case 'timestamp': return typeof v === 'number' ? formatTimestamp(v) : String(v);
    case 'binary': return binaryPrinted(v as Uint8Array, binary);
    case 'array': return `[${(v as unknown[]).map((x) => inner(x, f.elementType!)).join(',')}]`;
    case 'map': {
      const kt = typeOfField(f.keyType!);
      // HiveResult sorts a map's printed entries.
      return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${inner(mapKeyValue(k, kt), f.keyType!)}:${inner(x, f.valueType!)}`).sort().join(',')}}`;
    }
    case 'struct': case 'window': return `{${(f.fields ?? []).map((c) => `"${c.name}":${inner((v as Row)[c.name], c)}`).join(',')}}`;
    case 'day_time_interval': case 'year_month_interval': return interval(v, f);
    // HiveResult.toHiveString: CalendarInterval.toString, the units' text.
    case 'calendar_interval': return toMultiUnitsString(v as CalendarInterval);
    // HiveResult.toHiveString: VariantVal.toString, its JSON.
    case 'variant': return variantToJson(v as Variant);
    case 'boolean': case 'long': case 'unknown': default: return String(v);
  }
}

const ONE_ROW: Schema = [{ name: 'id', type: 'long' }];
const oneRow = { kind: 'StreamingRelation' as const, sourceName: 'src', schema: ONE_ROW };

/** The query's operators run over one batch of the stream's one row: its output rows and fields. */
async function overOneRow(q: CompiledStreamingQuery, ctx: Partial<OperatorContext> = {}): Promise<{ rows: Row[]; schema: Schema }> {
  let out: Row[] = [{ id: 1 }];
  for (const op of q.operators) out = await op.execute(out, { batchId: 0, batchWatermarkMs: 0, batchTimestampMs: 0, ...ctx });
  return { rows: out, schema: q.outputSchema };
}

/** Runs `SELECT exprs FROM src` over one row: the values and their fields (`rows`: all its rows, a generator's). */
export async function select(exprs: string): Promise<{ row: Row; rows: Row[]; schema: Schema }> {
  const { rows, schema } = await overOneRow(compileStreamingQuery(`SELECT ${exprs} FROM src`, oneRow));
  return { row: rows[0], rows, schema };
}

/**
 * Runs a query of static data (inline tables, and `ctes`, each `name AS (SELECT …)`) as the
 * static side of a join with a one-row stream, `WITH … SELECT q.* FROM src CROSS JOIN (query) q`,
 * which the engine runs as a batch: its rows, in the order the query gives them, and its fields.
 * The query ends a line before `) q`, as a golden query may end in a `--` comment.
 */
export async function selectStatic(query: string, ctes: readonly string[]): Promise<{ rows: Row[]; schema: Schema }> {
  return overOneRow(compileStreamingQuery(`${ctes.length ? `WITH ${ctes.join(', ')} ` : ''}SELECT q.* FROM src CROSS JOIN (${query}\n) q`, oneRow));
}

/** A table of rows a test holds in memory: its name, fields and rows. */
export interface HeldTable {
  name: string;
  schema: Schema;
  rows: Row[];
}

/**
 * Runs a query of static tables as selectStatic does, each of `tables` declared as one of the
 * job's static tables whose rows the run loads from memory (the operators' loadStaticTable), so
 * that the engine joins two of them as it joins any two static tables.
 */
export async function selectStaticTables(query: string, tables: readonly HeldTable[]): Promise<{ rows: Row[]; schema: Schema }> {
  const specs: StaticTableSpec[] = tables.map((t) => ({ name: t.name, type: 'file', path: `memory:${t.name}`, schema: t.schema }));
  const q = compileStreamingQuery(`SELECT q.* FROM src CROSS JOIN (${query}\n) q`, oneRow, { staticTables: specs });
  const held = new Map(tables.map((t) => [t.name.toLowerCase(), t.rows]));
  return overOneRow(q, { loadStaticTable: async (t: StaticTableSpec) => held.get(t.name.toLowerCase()) ?? [] });
}
