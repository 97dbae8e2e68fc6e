/**
 * Shared PostgreSQL helpers for the postgres source and sinks.
 *
 * Two rules hold everywhere these helpers are used:
 * - Identifiers (schema, table, column names) are quoted with `quoteIdent`, never spliced raw;
 *   values are always bound as parameters (`$1`, arrays for `unnest`), never formatted into SQL.
 * - A connection string is a secret: it may carry a password. Nothing built here puts it in a
 *   description, and every driver error is passed through `redact` before it becomes a WeirError
 *   message, because `pg` and `net` errors can echo host, user or password back.
 */
import pg from 'pg';
import { z } from 'zod';
import { assertConnectionOptions, convertValue, type Field, parseJson, guardedSocket, AnalysisException, isoTimestamp, outboundPolicy, type OutboundPolicy, postgresDatabase, renderDate, renderDecimal, renderValue, type Row, type Schema, stringifyJson, ValidationError, WeirError } from '../../engine';

/**
 * PostgreSQL cuts identifiers to 63 bytes (NAMEDATALEN - 1) with only a NOTICE: a longer table
 * or column name would silently become another name, so two long names could land in one table.
 * Weir refuses them at validation instead.
 */
const PG_MAX_IDENTIFIER_BYTES = 63;

export function identifierProblem(name: string): string | undefined {
  if (name.includes('\u0000')) return 'must not contain a NUL byte';
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > PG_MAX_IDENTIFIER_BYTES) return `is ${bytes} bytes long; PostgreSQL identifiers are at most ${PG_MAX_IDENTIFIER_BYTES} bytes (it would silently cut the rest): choose a shorter name`;
  return undefined;
}

/** A schema, table or column name given in a postgres connector's options. */
export const pgIdentifier = z
  .string()
  .min(1)
  .superRefine((name, ctx) => {
    const problem = identifierProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The first query output column a PostgreSQL table could not hold under its own name. */
export function checkOutputIdentifiers(schema: Schema): { path: string; message: string } | undefined {
  for (const name of outputColumnNames(schema)) {
    const problem = identifierProblem(name);
    if (problem) return { path: 'sql', message: `The output column ${JSON.stringify(name.slice(0, 80))} ${problem} (rename it with AS)` };
  }
  return undefined;
}

/** Quote a PostgreSQL identifier: wrap in double quotes, double any embedded quote. */
export function quoteIdent(name: string): string {
  if (name.length === 0 || name.includes('\u0000')) {
    throw new ValidationError(`Invalid SQL identifier ${JSON.stringify(name)}: it must be non-empty and contain no NUL byte.`);
  }
  return `"${name.replace(/"/g, '""')}"`;
}

export function qualifiedName(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}

/** Every substring of a connection string that must never be shown: the whole string and its password. */
export function secretsOf(connectionString: string): string[] {
  const out = [connectionString];
  try {
    const u = new URL(connectionString);
    if (u.password) out.push(u.password, decodeURIComponent(u.password));
    const pw = u.searchParams.get('password');
    if (pw) out.push(pw);
  } catch (_e) {
    // Key/value style ("host=... password=..."): pull the password out by hand.
    const m = /password\s*=\s*('([^']*)'|\S+)/i.exec(connectionString);
    if (m) out.push(m[2] ?? m[1]);
  }
  return out.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

/** Replace every secret in `message` with `***`. */
export function redact(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const s of secrets) out = out.split(s).join('***');
  return out;
}

export function errorText(e: unknown, secrets: readonly string[]): string {
  const err = e as { message?: string; code?: string };
  const base = err?.message ?? String(e);
  return redact(err?.code && !base.includes(err.code) ? `${base} (${err.code})` : base, secrets);
}

/**
 * A small pool. `pg` emits 'error' on idle clients whose server went away; without a listener
 * that would crash the process, and the next query reports the failure anyway.
 * Every connection goes through the outbound policy: pg's `stream` option hands it a socket
 * whose `connect(port, host)` checks the host and the address it resolves to. Connection
 * parameters are checked against the accepted list before pg parses the string.
 */
export function createPool(connectionString: string, max = 2, policy: OutboundPolicy = outboundPolicy()): pg.Pool {
  // pg-connection-string reads sslrootcert/sslcert/sslkey files as it parses: refuse them first.
  assertConnectionOptions('postgres', connectionString);
  const database = postgresDatabase(connectionString);
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 10_000, stream: () => guardedSocket(policy, 'postgres', database) });
  pool.on('error', () => {});
  return pool;
}

/** The PostgreSQL column type Weir creates for an engine column type. */
function pgTypeFor(field: Field, sample?: unknown): string {
  switch (field.type) {
    // Spark's JDBC types: INT integer, SMALLINT and TINYINT smallint (PostgreSQL has no 1-byte integer).
    case 'long': return field.integral === 32 ? 'integer' : field.integral ? 'smallint' : 'bigint';
    // Spark's JDBC type for FLOAT: REAL.
    case 'double': return field.float32 ? 'real' : 'double precision';
    case 'string': return 'text';
    case 'boolean': return 'boolean';
    // Spark's JDBC type for TIMESTAMP_NTZ: TIMESTAMP (without time zone).
    case 'timestamp': return field.ntz ? 'timestamp' : 'timestamptz';
    case 'date': return 'date';
    case 'binary': return 'bytea';
    case 'window': return 'timestamptz';
    case 'struct': return 'jsonb';
    // jsonb for every array and map, not text[] for ARRAY<STRING>: one mapping for every element
    // type (nested arrays, maps, structs, NULL elements), the JSON sinks' text, and jsonb operators.
    case 'array': case 'map': return 'jsonb';
    // A VARIANT is a JSON value: jsonb, written as to_json writes it.
    case 'variant': return 'jsonb';
    case 'decimal': return `numeric(${field.precision ?? 38},${field.scale ?? 0})`;
    case 'day_time_interval': case 'year_month_interval': return 'interval';
    // Spark's JDBC writer has no type for it (cannotGetJdbcTypeError).
    case 'calendar_interval':
      throw new AnalysisException(`Can't get JDBC type for interval (column ${field.name}). Write CAST(${field.name} AS STRING), or an ANSI interval (make_ym_interval, make_dt_interval)`, { column: field.name }, 'UNSUPPORTED_DATATYPE');
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'unknown':
    default:
      if (typeof sample === 'boolean') return 'boolean';
      if (typeof sample === 'bigint') return 'bigint';
      if (sample instanceof Uint8Array) return 'bytea';
      if (typeof sample === 'number') return Number.isInteger(sample) ? 'bigint' : 'double precision';
      if (sample !== null && typeof sample === 'object') return 'jsonb';
      return 'text';
  }
}

export interface OutputColumn {
  name: string;
  /** Type used when Weir creates the table. */
  createType: string;
  /** Reads this column's value from an engine row, rendered for PostgreSQL. */
  get(row: Row): unknown;
}

function iso(v: unknown): unknown {
  if (typeof v === 'number') return isoTimestamp(v);
  return v ?? null;
}

function plain(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (v instanceof Date || v instanceof Uint8Array || typeof v !== 'object') return v;
  return JSON.stringify(v);
}

/**
 * The sink's output columns. Timestamps (epoch ms in the engine) become ISO strings; a window
 * column `w` becomes two columns `w_start` and `w_end`, because a SQL table has no struct type
 * that every reader understands. With no schema, columns come from the first row's keys.
 */
export function outputColumns(schema: Schema, rows: readonly Row[]): OutputColumn[] {
  const fields: Schema = schema.length > 0 ? schema : Object.keys(rows[0] ?? {}).map((name) => ({ name, type: 'unknown' as const }));
  const cols: OutputColumn[] = [];
  for (const f of fields) {
    if (f.type === 'window') {
      const part = (k: 'start' | 'end') => (row: Row) => iso((row[f.name] as Record<string, unknown> | null | undefined)?.[k]);
      cols.push({ name: `${f.name}_start`, createType: 'timestamptz', get: part('start') });
      cols.push({ name: `${f.name}_end`, createType: 'timestamptz', get: part('end') });
    } else if (f.type === 'timestamp') {
      // PostgreSQL's timestamps hold microseconds, as Spark's: the ISO text keeps them (no offset for a TIMESTAMP_NTZ).
      cols.push({ name: f.name, createType: f.ntz ? 'timestamp' : 'timestamptz', get: (row) => { const v = row[f.name]; return typeof v === 'number' ? (f.ntz ? isoTimestamp(v).slice(0, -1) : isoTimestamp(v)) : (v ?? null); } });
    } else if (f.type === 'date') {
      cols.push({ name: f.name, createType: 'date', get: (row) => renderDate(row[f.name] ?? null) });
    } else if (f.type === 'array' || f.type === 'map' || f.type === 'struct' || f.type === 'variant') {
      cols.push({ name: f.name, createType: 'jsonb', get: (row) => { const v = renderValue(row[f.name], f); return v === null ? null : stringifyJson(v); } });
    } else if (f.type === 'day_time_interval' || f.type === 'year_month_interval') {
      // PostgreSQL reads `90061000000 microseconds` and `14 months` exactly.
      const unit = f.type === 'day_time_interval' ? 'microseconds' : 'months';
      cols.push({ name: f.name, createType: 'interval', get: (row) => { const v = row[f.name]; return v === null || v === undefined ? null : `${String(v)} ${unit}`; } });
    } else if (f.type === 'binary') {
      // The bytes themselves: pg writes a Uint8Array in a bytea[] parameter as `\x…` hex. (plain
      // would make JSON text of it, and the bytea column would hold that text's bytes.)
      cols.push({ name: f.name, createType: 'bytea', get: (row) => row[f.name] ?? null });
    } else if (f.type === 'decimal') {
      // The exact digits as text: numeric reads them without a detour through a double.
      cols.push({ name: f.name, createType: pgTypeFor(f), get: (row) => renderDecimal(row[f.name] ?? null, f) });
    } else {
      const sample = rows.find((r) => r[f.name] !== null && r[f.name] !== undefined)?.[f.name];
      cols.push({ name: f.name, createType: pgTypeFor(f, sample), get: (row) => plain(row[f.name]) });
    }
  }
  return cols;
}

/** The table column names a query's output becomes (a window `w` is `w_start`, `w_end`). */
export function outputColumnNames(schema: Schema): string[] {
  return schema.flatMap((f) => (f.type === 'window' ? [`${f.name}_start`, `${f.name}_end`] : [f.name]));
}

/** Column name → SQL type (as `format_type` prints it) of an existing table; empty if absent. */
export async function tableColumnTypes(client: pg.Pool | pg.ClientBase, schema: string, table: string): Promise<Map<string, string>> {
  const res = await client.query<{ name: string; type: string }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [schema, table],
  );
  return new Map(res.rows.map((r) => [r.name, r.type]));
}

/** CREATE TABLE IF NOT EXISTS, tolerating the race where two runners create it at once. */
export async function ensureTable(client: pg.Pool | pg.PoolClient, ddl: string): Promise<void> {
  try {
    await client.query(ddl);
  } catch (e) {
    const code = (e as { code?: string }).code;
    // 23505 (pg_type unique violation) / 42P07 (duplicate table): someone else created it first.
    if (code !== '23505' && code !== '42P07') throw e;
  }
}

/**
 * One INSERT … SELECT FROM unnest($1::t1[], $2::t2[], …): a single statement with one array
 * parameter per column, whatever the row count, which is what makes batched inserts fast.
 * Returns the statement and its parameters; `suffix` is appended (e.g. ON CONFLICT …).
 */
export function unnestInsert(target: string, cols: readonly OutputColumn[], types: ReadonlyMap<string, string>, rows: readonly Row[], suffix = ''): { text: string; values: unknown[][] } {
  const names = cols.map((c) => quoteIdent(c.name)).join(', ');
  const arrays = cols.map((c, i) => `$${i + 1}::${types.get(c.name)}[]`).join(', ');
  const values = cols.map((c) => rows.map((r) => c.get(r)));
  return { text: `INSERT INTO ${target} (${names}) SELECT * FROM unnest(${arrays})${suffix}`, values };
}

/**
 * Every row of a table as readers see it (for `weir sink read`), bigints as numbers when they
 * fit, ordered by all columns so the output is stable. Errors are redacted.
 */
export async function readTableRows(connectionString: string, schema: string, table: string, outputSchema?: Schema): Promise<Row[]> {
  assertConnectionOptions('postgres', connectionString);
  const client = new pg.Client({ connectionString, stream: () => guardedSocket(outboundPolicy(), 'postgres', postgresDatabase(connectionString)) });
  const secrets = secretsOf(connectionString);
  try {
    await client.connect();
    const types = await tableColumnTypes(client, schema, table);
    if (types.size === 0) return [];
    const order = [...types.keys()].map((_, i) => String(i + 1)).join(', ');
    const text = `SELECT * FROM ${qualifiedName(schema, table)} ORDER BY ${order}`;
    // The table holds the query's columns (the sink created it, or one like it): each value read
    // as the engine holds it, by the postgres source's reading, so it prints as the JSON sinks
    // write it: a date its day, a timestamp its microseconds, a numeric and a bigint every digit.
    const fields = outputSchema && outputSchema.length === types.size && outputSchema.every((f) => types.has(f.name)) ? outputSchema : undefined;
    if (fields) {
      const res = await client.query({ text, types: PG_READ_TYPES });
      const oids = new Map(res.fields.map((c) => [c.name, c.dataTypeID]));
      const rows: Row[] = [];
      read: for (const raw of res.rows as Row[]) {
        const row: Row = {};
        for (const f of fields) {
          const c = convertValue(pgValue(raw[f.name], oids.get(f.name), f), f);
          // A value the query's type does not hold (a column changed by hand): the table as it is.
          if (!c.ok) break read;
          row[f.name] = c.value;
        }
        rows.push(row);
      }
      if (rows.length === res.rows.length) return rows;
    }
    const res = await client.query({
      text,
      types: { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? (v: string) => (Number.isSafeInteger(Number(v)) ? Number(v) : v) : pg.types.getTypeParser(oid, format as 'text')) },
    } as pg.QueryConfig);
    return res.rows;
  } catch (e) {
    // No `cause`: it would carry the driver's unredacted message along with the error.
    throw new WeirError('SINK_READ_ERROR', `Could not read ${schema}.${table}: ${errorText(e, secrets)}. Check the database is reachable and the table exists.`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** PostgreSQL's type ids of `timestamp` and `timestamptz`. */
const TIMESTAMP_OIDS = new Set([1114, 1184]);

/** PostgreSQL's type id of `date`. */
const DATE_OID = 1082;
/** PostgreSQL's type ids of `json` and `jsonb`. */
const JSON_OIDS = new Set([114, 3802]);

/**
 * Query types for reading values into Weir's: `date`, `timestamp`, `timestamptz`, `json` and
 * `jsonb` left as PostgreSQL's text, which pgValue reads. The `pg` driver's Date would cut a
 * timestamp's microseconds and make a date the local midnight of the process's time zone (east
 * of UTC, the day before in UTC); its JSON.parse would round an integer past 2^53 in a jsonb.
 */
export const PG_READ_TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    TIMESTAMP_OIDS.has(oid) || oid === DATE_OID || JSON_OIDS.has(oid) ? (v: string) => v : pg.types.getTypeParser(oid, format as 'text'),
};

/**
 * A value read with PG_READ_TYPES (column type `oid`) as convertValue takes it for `field`: a
 * timestamp by pgTimestampValue, a json or jsonb parsed with every digit of its integers
 * (parseJson), a date as its `yyyy-MM-dd` text; anything else as the driver gave it.
 */
export function pgValue(v: unknown, oid: number | undefined, field: Field): unknown {
  if (typeof v !== 'string' || oid === undefined) return v;
  if (TIMESTAMP_OIDS.has(oid)) return pgTimestampValue(v, oid, field);
  return JSON_OIDS.has(oid) ? parseJson(v) : v;
}

/**
 * A `timestamp`/`timestamptz` value read as text (PG_READ_TYPES), as the `pg` driver would
 * give it to a field that is not a TIMESTAMP (a Date), and to a TIMESTAMP its microseconds kept:
 * `2024-01-02 03:04:05.123456+00` (ISO DateStyle, the offset's minutes optional) as the
 * engine's cast reads text. Other text (BC years, infinity) is the driver's Date.
 */
function pgTimestampValue(text: string, oid: number, field: Field): unknown {
  if (field.type === 'timestamp') {
    const iso = text.replace(/([+-]\d{2})$/, '$1:00');
    const v = convertValue(iso, field);
    if (v.ok && !/ BC$|infinity/i.test(text)) return v.value;
  }
  return pg.types.getTypeParser(oid, 'text')(text);
}
