/**
 * PostgresTable: the target table of a postgres sink (append, upsert or replace).
 *
 * On the first batch it creates the table from the query's output schema if it is absent (and
 * `createTable` is on), then reads the table's real column types from the catalog, so inserts
 * bind each column as an array of exactly the table's type. A column in the output that the
 * table lacks is an error that says which column, rather than a silently dropped field.
 */
import type pg from 'pg';
import { type Row, type Schema, SinkError } from '../../engine';
import { ensureTable, outputColumns, qualifiedName, quoteIdent, tableColumnTypes, unnestInsert, type OutputColumn } from './pg-util';

export interface PostgresTableOptions {
  schema: string;
  table: string;
  createTable: boolean;
  /** Columns that form the primary key when Weir creates the table (upsert keys). */
  primaryKey?: readonly string[];
}

export class PostgresTable {
  readonly target: string;
  private cols: OutputColumn[] | null = null;
  private types: Map<string, string> | null = null;

  constructor(private readonly opts: PostgresTableOptions) {
    this.target = qualifiedName(opts.schema, opts.table);
  }

  get label(): string {
    return `${this.opts.schema}.${this.opts.table}`;
  }

  /** Resolve columns and types once (the output schema is fixed for a query's life). */
  async prepare(client: pg.PoolClient | pg.Pool, schema: Schema, rows: readonly Row[]): Promise<OutputColumn[]> {
    if (this.cols && this.types) return this.cols;
    const cols = outputColumns(schema, rows);
    if (cols.length === 0) return cols;
    let types = await tableColumnTypes(client, this.opts.schema, this.opts.table);
    if (types.size === 0) {
      if (!this.opts.createTable) {
        throw new SinkError(`Table ${this.label} does not exist. Create it, or set sink.options.createTable to true to let Weir create it.`);
      }
      const defs = cols.map((c) => `${quoteIdent(c.name)} ${c.createType}`);
      if (this.opts.primaryKey?.length) defs.push(`PRIMARY KEY (${this.opts.primaryKey.map(quoteIdent).join(', ')})`);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.opts.schema)}`).catch(() => undefined);
      await ensureTable(client, `CREATE TABLE IF NOT EXISTS ${this.target} (${defs.join(', ')})`);
      types = await tableColumnTypes(client, this.opts.schema, this.opts.table);
    }
    const missing = cols.filter((c) => !types.has(c.name)).map((c) => c.name);
    if (missing.length > 0) {
      throw new SinkError(`Table ${this.label} has no column ${missing.map((m) => JSON.stringify(m)).join(', ')} of the query's output. Add the column(s) or alias the query's output to the table's columns.`, { missing });
    }
    this.cols = cols;
    this.types = types;
    return cols;
  }

  /** Insert rows in chunks with one unnest statement each; `suffix` e.g. ON CONFLICT …. */
  async insert(client: pg.PoolClient | pg.Pool, rows: readonly Row[], suffix = '', chunk = 20_000): Promise<number> {
    if (!this.cols || !this.types || this.cols.length === 0) return 0;
    let n = 0;
    for (let i = 0; i < rows.length; i += chunk) {
      const part = rows.slice(i, i + chunk);
      const q = unnestInsert(this.target, this.cols, this.types, part, suffix);
      const res = await client.query(q.text, q.values);
      n += res.rowCount ?? 0;
    }
    return n;
  }
}
