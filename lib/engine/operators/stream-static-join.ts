/**
 * StreamStaticJoinExec: a streaming source joined with a static table declared in the job spec
 * (Spark's stream-static join). Stateless with respect to the stream: each streaming row looks
 * up the static side and moves on; nothing is carried between batches, so it needs no state
 * store and no watermark, and a re-run batch joins exactly as the first run did.
 *
 * - INNER: one output row per matching static row; no match, no row.
 * - LEFT (stream on the left): a stream row without a match is kept once, static columns NULL.
 * Keys are the equi-join pairs of the ON clause; a NULL key never matches (SQL semantics), but
 * where the pair is `<=>` (null-safe), which matches a NULL with a NULL.
 *
 * The static side (a JSON-lines or CSV file, a PostgreSQL table, or the batch plan of a subquery
 * over such tables) is read at the first batch and hashed on its join keys, then read again at
 * each batch that has data, as Spark re-runs a static DataFrame's plan each micro-batch: a
 * dimension table updated in its database, or a file rewritten, joins from the next batch on
 * (StaticTableReads: a file whose stat is unchanged is not read again; a table with `cache: true`,
 * Spark's `.cache()`, is read once per run). So, as in Spark, a batch re-run after a crash joins
 * the table as it is then, not as the first run saw it. A line or row that does not fit its
 * schema fails the run, at any read (BadRecordError naming the file and line, or the row and
 * column): joining against a silently shortened table would drop or NULL rows without a word.
 */
import { readFile } from 'node:fs/promises';
import { BadRecordError } from '../errors';
import { encodeKey } from '../state/state-value-codec';
import type { Row, Schema } from '../types';
import type { EvalContext } from '../query/function-types';
import { VALUES_RELATION } from '../query/parser/unresolved-plan';
import type { OperatorContext, PhysicalOperator } from './physical-operator';
import { CsvLineParser, JsonLineParser, splitCsvLine } from './record-parser';
import { StaticTableReads } from './static-table-reads';

export interface StaticTableSpec {
  name: string;
  /**
   * `file` (default): JSON lines or CSV at `path`; `postgres`: `table` read over `connectionString`;
   * `values`: the one row without columns an inline table's rows are selected from (VALUES_TABLE,
   * never a job's).
   */
  type?: 'file' | 'postgres' | 'values';
  path?: string;
  format?: 'json' | 'csv';
  header?: boolean;
  connectionString?: string;
  table?: string;
  /** PostgreSQL schema of `table` (default public). */
  dbSchema?: string;
  /**
   * Spark's `.cache()`: read once per run and kept. Unset: read again at each batch that has
   * data (a file only when its size, modification time or inode changed).
   */
  cache?: boolean;
  schema: Schema;
}

/**
 * What an inline table (`VALUES (1, 'a'), (2, 'b')`) selects its rows from: one row of no
 * columns, each of the table's rows a SELECT of its values over it, the rows a UNION ALL of those
 * (parser/ast-builder.ts). So an inline table is a subquery over a static table, which a join's
 * static side, an IN subquery or a scalar subquery runs as its batch plan, in the run: its values
 * are evaluated there, per read, never while a query is validated. Its name is none a query can
 * write; messages and explain call it VALUES.
 */
export const VALUES_TABLE: StaticTableSpec = Object.freeze({ name: VALUES_RELATION, type: 'values', schema: [], cache: true });

/** How a query's text names a static table: its name, or VALUES for an inline table's rows. */
export function staticTableName(t: StaticTableSpec): string {
  return t === VALUES_TABLE ? 'VALUES' : t.name;
}

/** Where a static table comes from, without secrets: for explain and error messages. */
export function describeStaticTable(t: StaticTableSpec): string {
  if (t.type === 'values') return 'inline table';
  return t.type === 'postgres' ? `postgres:${t.dbSchema ?? 'public'}.${t.table}` : String(t.path);
}

/**
 * Reads static tables of a type other than `file`. The engine reads files itself; a connector
 * registers the reader for its system (lib/connectors/postgres registers `postgres`), so the
 * engine never loads a database client.
 */
export interface StaticTableReader {
  type: string;
  /** Problems with the table's fields for this type, found when the job spec is parsed. */
  check?(t: StaticTableSpec): { path: string; message: string }[];
  load(t: StaticTableSpec): Promise<Row[]>;
}

const readers = new Map<string, StaticTableReader>();

export function registerStaticTableReader(reader: StaticTableReader): void {
  readers.set(reader.type, reader);
}

export function getStaticTableReader(type: string): StaticTableReader | undefined {
  return readers.get(type);
}

/** Reads a static table (a file, or a table a connector's reader knows) against its schema. */
export async function loadStaticTable(t: StaticTableSpec): Promise<Row[]> {
  const type = t.type ?? 'file';
  if (type === 'file') return loadStaticFile(t);
  if (type === 'values') return [{}];
  const reader = readers.get(type);
  if (!reader) throw new BadRecordError(`Static table ${t.name}: no reader for type "${type}" is registered in this process; import lib/connectors in the program's entry point.`, { table: t.name });
  return reader.load(t);
}

/** Reads a static table file (JSON lines, or CSV with or without a header) against its schema. */
async function loadStaticFile(t: StaticTableSpec): Promise<Row[]> {
  if (!t.path) throw new BadRecordError(`Static table ${t.name} has no path`, { table: t.name });
  const text = await readFile(t.path, 'utf8');
  const lines = text.split('\n');
  const rows: Row[] = [];
  let parser: JsonLineParser | CsvLineParser;
  let first = 0;
  const format = t.format ?? 'json';
  if (format === 'csv' && (t.header ?? true)) {
    const header = splitCsvLine(lines[0]?.replace(/\r$/, '') ?? '') ?? [];
    const missing = CsvLineParser.missingColumns(t.schema, header);
    if (missing.length) throw new BadRecordError(`Static table ${t.name} (${t.path}): the CSV header lacks column(s) ${missing.join(', ')}; fix the file or the table's schema.`, { file: t.path, line: 1 });
    parser = new CsvLineParser(t.schema, header);
    first = 1;
  } else {
    parser = format === 'csv' ? new CsvLineParser(t.schema) : new JsonLineParser(t.schema);
  }
  for (let i = first; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const r = parser.parse(lines[i]);
    if (!r.ok) {
      throw new BadRecordError(`Static table ${t.name} (${t.path}) line ${i + 1}: ${r.reason}. Fix the file; the join does not run on part of a table.`, { file: t.path, line: i + 1, reason: r.reason });
    }
    rows.push(r.row);
  }
  return rows;
}

export interface StreamStaticJoinOptions {
  /** left: unmatched stream rows with NULL static columns; semi: matched stream rows once; anti: unmatched ones. */
  joinType: 'inner' | 'left' | 'semi' | 'anti';
  table: StaticTableSpec;
  /** Equi-join pairs: stream column = static column; `nullSafe` (`<=>`): a NULL matches a NULL. */
  keys: { stream: string; static: string; nullSafe?: true }[];
  /**
   * Each side's key values as the join compares them, when the pair's columns are of two types
   * (the analysis's common type: INT 5 beside BIGINT 5, 1.50 beside 1.5000); unset: the columns'
   * values as they are. A NULL stays NULL, and a value the cast makes NULL matches nothing.
   */
  keyValues?: { stream: ((row: Row, ctx: EvalContext) => unknown)[]; static: ((row: Row, ctx: EvalContext) => unknown)[] };
  /**
   * What the join reads when its static side is a subquery: the rows of that batch plan, which
   * reads its tables through `load`; run once, when the join loads its table. Unset: the table's rows.
   */
  view?: (load: (t: StaticTableSpec) => Promise<Row[]>, ctx: EvalContext) => Promise<Row[]>;
  /**
   * The ON's conjuncts other than the keys, over the stream row and the static row together: a
   * pair is a match only where it is true (a NULL is no match, as a failed ON).
   */
  condition?: (row: Row, ctx: EvalContext) => unknown;
  /**
   * An anti join of `x NOT IN (SELECT c …)` (Spark's null-aware anti join): NOT IN is NULL, and
   * keeps no row, where any c is NULL, or where x is NULL and there is any c; with no c at all
   * every row is kept, a NULL x too.
   */
  nullAware?: boolean;
  /** Static columns added to each output row (same-named join keys are not repeated). */
  staticColumns: string[];
  /**
   * Stream columns carried into each output row (the optimizer's ColumnPruning: only what the
   * operators above read); unset: the whole stream row.
   */
  streamColumns?: string[];
  /** Reads the table; injectable for tests of the loader boundary. */
  load?: (t: StaticTableSpec) => Promise<Row[]>;
}

/**
 * A row's key in the static side's index: one key column's raw value, but a struct, array, map or
 * BINARY (an object, equal to another only by identity) keys by its encoding, as several columns do.
 */
const indexKey = (vals: readonly unknown[]): unknown => (vals.length === 1 && (typeof vals[0] !== 'object' || vals[0] === null) ? vals[0] : encodeKey(vals));

export class StreamStaticJoinExec implements PhysicalOperator {
  readonly stateful = false;
  readonly name: string;
  /**
   * Static rows by join key: with one key column, by its raw value (a Map's SameValueZero equates
   * what encodeKey equates: 1 and '1' apart, -0 with 0), so a lookup builds no key string;
   * with several, by encodeKey of the tuple.
   */
  private index?: Map<unknown, Row[]>;
  /** What a null-aware anti join decides for every row: the table is empty, or a key of it is NULL. */
  private tableEmpty = false;
  private nullKeyed = false;

  /** What the static side read last, and whether it must be read again. */
  private readonly reads: StaticTableReads;

  constructor(private readonly o: StreamStaticJoinOptions, readonly outputSchema: Schema) {
    this.name = `StreamStaticJoin ${o.joinType.toUpperCase()} ${o.table.name}`;
    this.reads = new StaticTableReads(o.load ?? loadStaticTable);
  }

  private async build(ctx: OperatorContext): Promise<Map<unknown, Row[]>> {
    const load = ctx.loadStaticTable ?? this.reads.reader();
    const rows = this.o.view ? await this.o.view(load, ctx) : await load(this.o.table);
    this.nullKeyed = false;
    const index = new Map<unknown, Row[]>();
    const read = this.o.keyValues?.static;
    const { keys } = this.o;
    this.tableEmpty = rows.length === 0;
    for (const r of rows) {
      const vals = read ? read.map((f) => f(r, ctx) ?? null) : keys.map((k) => r[k.static] ?? null);
      if (vals.some((v, i) => v === null && !keys[i].nullSafe)) {
        this.nullKeyed = true;
        continue;
      }
      const key = indexKey(vals);
      const list = index.get(key);
      if (list) list.push(r);
      else index.set(key, [r]);
    }
    return index;
  }

  async execute(rows: Row[], ctx: OperatorContext): Promise<Row[]> {
    // Read at the first batch, then again at a batch with data whose tables may have changed.
    if (await this.reads.mustRead(ctx.batchId, rows.length > 0, this.index !== undefined)) this.index = await this.build(ctx);
    const { keys, staticColumns, joinType, streamColumns } = this.o;
    const read = this.o.keyValues?.stream;
    const index = this.index!;
    const out: Row[] = [];
    const nStatic = staticColumns.length;
    // One key column (the common case): its value is the key, no tuple array per row.
    const single = keys.length === 1 && !read ? keys[0].stream : undefined;
    const vals: unknown[] = new Array<unknown>(keys.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      let matches: Row[] | undefined;
      let hasNull = false;
      if (single !== undefined) {
        const v = row[single] ?? null;
        hasNull = v === null && !keys[0].nullSafe;
        matches = hasNull ? undefined : index.get(typeof v === 'object' ? indexKey([v]) : v);
      } else {
        for (let i = 0; i < keys.length; i++) if ((vals[i] = (read ? read[i](row, ctx) : row[keys[i].stream]) ?? null) === null && !keys[i].nullSafe) hasNull = true;
        matches = hasNull ? undefined : index.get(indexKey(vals));
      }
      if (matches !== undefined && this.o.condition) {
        const cond = this.o.condition;
        const passing = matches.filter((m) => cond({ ...m, ...row }, ctx) === true);
        matches = passing.length ? passing : undefined;
      }
      if (this.o.nullAware && !this.tableEmpty) {
        // A NULL key of the stream row, or one in the table: NOT IN is NULL.
        if (!this.nullKeyed && !hasNull && matches === undefined) out.push(carry(row, streamColumns));
      } else if (joinType === 'semi' || joinType === 'anti') {
        if ((matches !== undefined) === (joinType === 'semi')) out.push(carry(row, streamColumns));
      } else if (matches) {
        for (let i = 0; i < matches.length; i++) {
          const m = matches[i];
          const o = carry(row, streamColumns);
          for (let c = 0; c < nStatic; c++) o[staticColumns[c]] = m[staticColumns[c]] ?? null;
          out.push(o);
        }
      } else if (joinType === 'left') {
        const o = carry(row, streamColumns);
        for (let c = 0; c < nStatic; c++) o[staticColumns[c]] = null;
        out.push(o);
      }
    }
    return out;
  }
}

/** A new output row with the stream columns the plan carries (all of them when unset). */
function carry(row: Row, columns: string[] | undefined): Row {
  if (columns === undefined) return { ...row };
  const o: Row = {};
  for (let i = 0; i < columns.length; i++) o[columns[i]] = row[columns[i]];
  return o;
}
