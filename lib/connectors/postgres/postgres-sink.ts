/**
 * PostgresSink: append a query's output to a PostgreSQL table.
 *
 * Mode `transactional` (the default), the protocol that makes a replay harmless:
 *   BEGIN
 *   INSERT INTO <schema>._weir_sink_commits (query_id, sink_table, batch_id) VALUES (q, t, N)
 *     ON CONFLICT (query_id, sink_table) DO UPDATE SET batch_id = N WHERE batch_id < N
 *     RETURNING batch_id                   -- no row returned: N (or later) is already committed
 *   INSERT INTO <table> … the batch's rows
 *   COMMIT                                 -- rows and batch id become visible together
 * A batch re-run after a crash between this COMMIT and the engine's `commits/N` finds its id
 * recorded and commits nothing (Delta's txnAppId/txnVersion idea, keyed by the query id so a
 * new checkpoint, which is a new query, is never silently skipped). Two runners racing on the
 * same batch serialize on the marker row's lock; the loser sees it and writes nothing.
 *
 * Mode `bare-append`: plain INSERTs, no marker, no transaction around the chunks. This is the
 * warehouse append from the lesson's incident, kept on purpose and labelled at-least-once, so a
 * team can watch a replayed batch land twice.
 */
import { z } from 'zod';
import type pg from 'pg';
import { type OutputMode, registerSink, type Row, type Sink, type SinkBatchContext, type SinkDefinition, SinkError, type SinkSignature } from '../../engine';
import { checkOutputIdentifiers, createPool, ensureTable, pgIdentifier, errorText, qualifiedName, secretsOf, readTableRows } from './pg-util';
import { PostgresTable } from './postgres-table';

const postgresSinkOptions = z.strictObject({
  connectionString: z.string().min(1).meta({ examples: ['postgres://writer@db.internal:5432/analytics'] }),
  table: pgIdentifier.meta({ examples: ['results'] }),
  schema: pgIdentifier.default('public'),
  mode: z.enum(['transactional', 'bare-append']).default('transactional').describe('transactional: rows and the batch id commit together (exactly-once); bare-append: plain inserts (a replayed batch is written twice).'),
  createTable: z.boolean().default(true),
  batchIdColumn: pgIdentifier
    .optional()
    .describe("Also write each row's batch id into this column, so a reader can count rows per batch and see which batches a replay doubled (the drills' duplicate audit)."),
});
export type PostgresSinkOptions = z.infer<typeof postgresSinkOptions>;

const COMMITS_TABLE = '_weir_sink_commits';

function postgresSinkSignature(o: Pick<PostgresSinkOptions, 'mode' | 'schema' | 'table'> & Partial<Pick<PostgresSinkOptions, 'batchIdColumn'>>): { signature: SinkSignature; reason: string } {
  // A batch id column only labels rows (for the duplicate audit): no insert checks it.
  const labelled = o.batchIdColumn ? ` (each row carries its batch id in ${o.batchIdColumn}, for auditing, but no insert checks it)` : '';
  return o.mode === 'transactional'
    ? { signature: 'transactional', reason: `Each batch's rows and its batch id commit in one PostgreSQL transaction (${o.schema}.${COMMITS_TABLE}); a replayed batch id commits nothing.` }
    : { signature: 'at-least-once', reason: `Bare append: plain INSERTs into ${o.schema}.${o.table} that nothing checks for a batch already written${labelled}, so a batch re-run after a crash before its commit is inserted twice.` };
}

/** Runs `fn` in one transaction on a pooled client; rolls back on any error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

export class PostgresSink implements Sink {
  readonly description: string;
  readonly signature: SinkSignature;
  readonly signatureReason: string;
  readonly supportedOutputModes: readonly OutputMode[] = ['append'];
  private readonly pool: pg.Pool;
  private readonly table: PostgresTable;
  private readonly secrets: string[];
  private markerReady = false;
  /** Batches whose replay was recognized and skipped (for tests and metrics). */
  skippedBatches = 0;

  constructor(private readonly opts: PostgresSinkOptions) {
    ({ signature: this.signature, reason: this.signatureReason } = postgresSinkSignature(opts));
    this.description = `PostgresSink[${opts.schema}.${opts.table}, ${opts.mode}]`;
    this.pool = createPool(opts.connectionString);
    this.table = new PostgresTable({ schema: opts.schema, table: opts.table, createTable: opts.createTable });
    this.secrets = secretsOf(opts.connectionString);
  }

  private get commitsTable(): string {
    return qualifiedName(this.opts.schema, COMMITS_TABLE);
  }

  async addBatch(batchId: number, input: Row[], ctx: SinkBatchContext): Promise<void> {
    const col = this.opts.batchIdColumn;
    const rows = col ? input.map((r) => ({ ...r, [col]: batchId })) : input;
    const schema = col ? [...ctx.schema, { name: col, type: 'long' as const }] : ctx.schema;
    try {
      await this.table.prepare(this.pool, schema, rows);
      if (this.opts.mode === 'bare-append') {
        await this.table.insert(this.pool, rows);
        return;
      }
      if (!this.markerReady) {
        await ensureTable(this.pool, `CREATE TABLE IF NOT EXISTS ${this.commitsTable} (query_id text NOT NULL, sink_table text NOT NULL, batch_id bigint NOT NULL, committed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (query_id, sink_table))`);
        this.markerReady = true;
      }
      const fresh = await inTransaction(this.pool, async (c) => {
        const mark = await c.query(
          `INSERT INTO ${this.commitsTable} AS m (query_id, sink_table, batch_id) VALUES ($1, $2, $3)
             ON CONFLICT (query_id, sink_table) DO UPDATE SET batch_id = EXCLUDED.batch_id, committed_at = now()
             WHERE m.batch_id < EXCLUDED.batch_id RETURNING m.batch_id`,
          [ctx.queryId, this.table.label, batchId],
        );
        if (mark.rowCount === 0) return false;
        await this.table.insert(c, rows);
        return true;
      });
      if (!fresh) this.skippedBatches++;
    } catch (e) {
      if (e instanceof SinkError) throw e;
      throw new SinkError(`Postgres sink could not write batch ${batchId} to ${this.table.label}: ${errorText(e, this.secrets)}. The batch is not committed and will be re-run; check the database is reachable and the table is writable.`, { batchId });
    }
  }

  /** The last batch id committed to this table by query `queryId`, or null. */
  async lastCommittedBatch(queryId: string): Promise<number | null> {
    const res = await this.pool.query<{ batch_id: string }>(`SELECT batch_id FROM ${this.commitsTable} WHERE query_id = $1 AND sink_table = $2`, [queryId, this.table.label]).catch(() => ({ rows: [] as { batch_id: string }[] }));
    return res.rows.length ? Number(res.rows[0].batch_id) : null;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

const postgresSinkDefinition: SinkDefinition<PostgresSinkOptions> = {
  type: 'postgres',
  options: postgresSinkOptions,
  signature: postgresSinkSignature,
  supportedOutputModes: () => ['append'],
  create: (o) => new PostgresSink(o),
  checkOutput: (_o, schema) => checkOutputIdentifiers(schema),
  readRows: (o, outputSchema) => readTableRows(o.connectionString, o.schema, o.table, outputSchema),
  secretOptions: ['connectionString'],
  destinations: [{ option: 'connectionString', kind: 'postgres' }],
};

registerSink(postgresSinkDefinition);
