/**
 * PostgresReplaceSink: complete mode into a PostgreSQL table, replaced atomically each batch.
 *
 * Each batch runs in one transaction: DELETE FROM <table>; INSERT the whole result table; COMMIT.
 * DELETE rather than TRUNCATE because TRUNCATE takes an ACCESS EXCLUSIVE lock and is not
 * MVCC-safe: with DELETE, readers keep seeing the previous batch's contents until the commit and
 * never see an empty or half-written table. A replayed batch replaces the table with the same
 * result again: idempotent.
 */
import { z } from 'zod';
import type pg from 'pg';
import { type OutputMode, registerSink, type Row, type Sink, type SinkBatchContext, type SinkDefinition, SinkError, type SinkSignature } from '../../engine';
import { checkOutputIdentifiers, createPool, errorText, pgIdentifier, secretsOf, readTableRows } from './pg-util';
import { PostgresTable } from './postgres-table';
import { inTransaction } from './postgres-sink';

const postgresReplaceSinkOptions = z.strictObject({
  connectionString: z.string().min(1).meta({ examples: ['postgres://writer@db.internal:5432/analytics'] }),
  table: pgIdentifier.meta({ examples: ['results'] }),
  schema: pgIdentifier.default('public'),
  createTable: z.boolean().default(true),
});
export type PostgresReplaceSinkOptions = z.infer<typeof postgresReplaceSinkOptions>;

const signatureOf = (o: PostgresReplaceSinkOptions) => ({
  signature: 'idempotent' as SinkSignature,
  reason: `Each batch replaces the whole contents of ${o.schema}.${o.table} in one transaction, so a replayed batch leaves the same table.`,
});

export class PostgresReplaceSink implements Sink {
  readonly description: string;
  readonly signature: SinkSignature;
  readonly signatureReason: string;
  readonly supportedOutputModes: readonly OutputMode[] = ['complete'];
  private readonly pool: pg.Pool;
  private readonly table: PostgresTable;
  private readonly secrets: string[];

  constructor(private readonly opts: PostgresReplaceSinkOptions) {
    ({ signature: this.signature, reason: this.signatureReason } = signatureOf(opts));
    this.description = `PostgresReplaceSink[${opts.schema}.${opts.table}]`;
    this.pool = createPool(opts.connectionString);
    this.table = new PostgresTable({ schema: opts.schema, table: opts.table, createTable: opts.createTable });
    this.secrets = secretsOf(opts.connectionString);
  }

  async addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void> {
    try {
      await this.table.prepare(this.pool, ctx.schema, rows);
      await inTransaction(this.pool, async (c) => {
        await c.query(`DELETE FROM ${this.table.target}`);
        await this.table.insert(c, rows);
      });
    } catch (e) {
      if (e instanceof SinkError) throw e;
      throw new SinkError(`Postgres replace sink could not write batch ${batchId} to ${this.table.label}: ${errorText(e, this.secrets)}. The batch is not committed and will be re-run; the table keeps the previous batch's contents.`, { batchId });
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

const postgresReplaceSinkDefinition: SinkDefinition<PostgresReplaceSinkOptions> = {
  type: 'postgres-replace',
  options: postgresReplaceSinkOptions,
  signature: signatureOf,
  supportedOutputModes: () => ['complete'],
  create: (o) => new PostgresReplaceSink(o),
  checkOutput: (_o, schema) => checkOutputIdentifiers(schema),
  readRows: (o, outputSchema) => readTableRows(o.connectionString, o.schema, o.table, outputSchema),
  secretOptions: ['connectionString'],
  destinations: [{ option: 'connectionString', kind: 'postgres' }],
};

registerSink(postgresReplaceSinkDefinition);
