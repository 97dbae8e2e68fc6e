/**
 * PostgresUpsertSink: update mode into a PostgreSQL table keyed by declared columns.
 *
 * Each batch runs in one transaction:
 *   INSERT INTO <table> (…) SELECT * FROM unnest(…) ON CONFLICT (<keys>) DO UPDATE SET <others> = EXCLUDED.<others>
 * so a row for a key that is already there overwrites it. A batch re-run after a crash writes the
 * same values for the same keys again (getBatch is deterministic over its range and state is
 * restored to the batch's version), so the replay overwrites instead of doubling: idempotent.
 * Within one batch a key may appear once only (PostgreSQL refuses to touch a row twice in one
 * statement), so the last row per key wins, which is what update mode means.
 */
import { z } from 'zod';
import type pg from 'pg';
import { type OutputMode, registerSink, type Row, type Sink, type SinkBatchContext, type SinkDefinition, SinkError, type SinkSignature, stringifyRow } from '../../engine';
import { checkOutputIdentifiers, createPool, errorText, outputColumnNames, pgIdentifier, quoteIdent, secretsOf, readTableRows } from './pg-util';
import { PostgresTable } from './postgres-table';
import { inTransaction } from './postgres-sink';

const postgresUpsertSinkOptions = z.strictObject({
  connectionString: z.string().min(1).meta({ examples: ['postgres://writer@db.internal:5432/analytics'] }),
  table: pgIdentifier.meta({ examples: ['results'] }),
  schema: pgIdentifier.default('public'),
  keyColumns: z.array(pgIdentifier).min(1).meta({ examples: [['region', 'window']] }).describe('The columns that identify a row: a replayed batch overwrites the same rows.'),
  createTable: z.boolean().default(true),
});
export type PostgresUpsertSinkOptions = z.infer<typeof postgresUpsertSinkOptions>;

const signatureOf = (o: PostgresUpsertSinkOptions) => ({
  signature: 'idempotent' as SinkSignature,
  reason: `INSERT … ON CONFLICT (${o.keyColumns.join(', ')}) DO UPDATE: a replayed batch overwrites the same keys with the same values instead of adding rows.`,
});

export class PostgresUpsertSink implements Sink {
  readonly description: string;
  readonly signature: SinkSignature;
  readonly signatureReason: string;
  readonly supportedOutputModes: readonly OutputMode[] = ['update', 'append'];
  private readonly pool: pg.Pool;
  private readonly table: PostgresTable;
  private readonly secrets: string[];

  constructor(private readonly opts: PostgresUpsertSinkOptions) {
    ({ signature: this.signature, reason: this.signatureReason } = signatureOf(opts));
    this.description = `PostgresUpsertSink[${opts.schema}.${opts.table}, keys=${opts.keyColumns.join(',')}]`;
    this.pool = createPool(opts.connectionString);
    this.table = new PostgresTable({ schema: opts.schema, table: opts.table, createTable: opts.createTable, primaryKey: opts.keyColumns });
    this.secrets = secretsOf(opts.connectionString);
  }

  async addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void> {
    try {
      const cols = await this.table.prepare(this.pool, ctx.schema, rows);
      const names = cols.map((c) => c.name);
      const missing = this.opts.keyColumns.filter((k) => !names.includes(k));
      if (missing.length) throw new SinkError(`Upsert key column(s) ${missing.join(', ')} are not in the query's output (${names.join(', ')}). Fix sink.options.keyColumns or the SELECT list.`);
      const keyCols = cols.filter((c) => this.opts.keyColumns.includes(c.name));
      // Last row per key wins: PostgreSQL cannot update one row twice in one statement.
      const byKey = new Map<string, Row>();
      for (const r of rows) byKey.set(stringifyRow(keyCols.map((c) => c.get(r))), r);
      const others = names.filter((n) => !this.opts.keyColumns.includes(n));
      const suffix = ` ON CONFLICT (${this.opts.keyColumns.map(quoteIdent).join(', ')}) DO ` +
        (others.length ? `UPDATE SET ${others.map((n) => `${quoteIdent(n)} = EXCLUDED.${quoteIdent(n)}`).join(', ')}` : 'NOTHING');
      await inTransaction(this.pool, (c) => this.table.insert(c, [...byKey.values()], suffix));
    } catch (e) {
      if (e instanceof SinkError) throw e;
      const hint = (e as { code?: string }).code === '42P10'
        ? `table ${this.table.label} needs a unique index or primary key on (${this.opts.keyColumns.join(', ')})`
        : 'check the database is reachable and the table is writable';
      throw new SinkError(`Postgres upsert sink could not write batch ${batchId} to ${this.table.label}: ${errorText(e, this.secrets)}. The batch is not committed and will be re-run; ${hint}.`, { batchId });
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

const postgresUpsertSinkDefinition: SinkDefinition<PostgresUpsertSinkOptions> = {
  type: 'postgres-upsert',
  options: postgresUpsertSinkOptions,
  signature: signatureOf,
  supportedOutputModes: () => ['update', 'append'],
  create: (o) => new PostgresUpsertSink(o),
  checkOutput: (o, schema) => {
    const tooLong = checkOutputIdentifiers(schema);
    if (tooLong) return tooLong;
    const names = outputColumnNames(schema);
    const missing = o.keyColumns.filter((k) => !names.includes(k));
    return missing.length
      ? { path: 'sink.options.keyColumns', message: `key column(s) ${missing.map((m) => JSON.stringify(m)).join(', ')} are not in the query's output (${names.join(', ')}); list output columns, or add them to the SELECT` }
      : undefined;
  },
  readRows: (o, outputSchema) => readTableRows(o.connectionString, o.schema, o.table, outputSchema),
  secretOptions: ['connectionString'],
  destinations: [{ option: 'connectionString', kind: 'postgres' }],
};

registerSink(postgresUpsertSinkDefinition);
