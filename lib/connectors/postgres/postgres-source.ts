/**
 * PostgresSource: a table read by a monotonic column (an identity/serial id, or an insert
 * timestamp that only grows).
 *
 * Offset: `{"<offsetColumn>": "<last value as text>"}`. The value is kept as PostgreSQL's own
 * text rendering so that bigint beyond 2^53, numeric and microsecond timestamps round-trip
 * through `offsets/N` exactly; it is bound back as a parameter whose type PostgreSQL infers from
 * the column.
 * - latestOffset: SELECT max(col)::text.
 * - getBatch(start, end): WHERE col > start AND col <= end ORDER BY col, then every other
 *   selected column, so rows that tie on the offset column still come back in one fixed order:
 *   deterministic over (start, end], as a replay needs.
 *
 * - waitForData (an idle query with trigger interval 0): LISTEN on notifyChannel, which a
 *   statement-level insert trigger NOTIFYs (createNotifyTrigger makes it); else a short poll.
 *
 * Replayable while rows are not deleted or rewritten: the table itself is the log. What this
 * cannot see (stated, not hidden): a writer that commits a smaller value after a larger one was
 * read (e.g. a sequence value taken by a long transaction) is skipped, as with every
 * "monotonic column" reader; use a column assigned at commit order, or read with a lag.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type pg from 'pg';
import { type BadRecord, convertValue, DataLossError, type Offset, type ReadLimit, type RecentRecords, type RecentRecordsLimit, registerSource, type Row, type Schema, type Source, type SourceBatch, type SourceDefinition, WeirError } from '../../engine';
import { createPool, identifierProblem, errorText, pgIdentifier, pgValue, qualifiedName, quoteIdent, secretsOf, tableColumnTypes, PG_READ_TYPES } from './pg-util';

export const postgresSourceOptions = z.strictObject({
  connectionString: z.string().min(1).meta({ examples: ['postgres://reader@db.internal:5432/shop'] }),
  table: pgIdentifier.meta({ examples: ['orders'] }),
  schema: pgIdentifier.default('public'),
  offsetColumn: pgIdentifier.describe('A column that only grows (a serial id or an insert timestamp): each batch reads the rows past the last offset.'),
  maxRowsPerTrigger: z.number().int().min(1).optional().describe('At most about this many rows per batch (ties on the offset column join the batch).'),
  failOnDataLoss: z.boolean().default(true).describe('Fail, or continue, when the offset column went back (the table was truncated and refilled).'),
  startingOffset: z.string().min(1).optional().meta({ examples: ['1000'] }).describe('A new query reads the rows whose offset column is past this value (as PostgreSQL writes it: 1000, 2026-01-01 00:00:00+00). Only on a new checkpoint: on restart the checkpoint wins.'),
  notifyChannel: pgIdentifier.optional().describe('LISTEN on this channel: an idle query starts its next batch as soon as the channel is notified (a trigger on the table must NOTIFY it on insert, yours or the one createNotifyTrigger makes). Without it an idle query polls the table every pollIntervalMs.'),
  createNotifyTrigger: z.boolean().default(false).describe('Create (or replace) a statement-level AFTER INSERT trigger on the table that notifies notifyChannel (default weir_<hash of the table>). Needs the TRIGGER privilege and PostgreSQL 14+; off by default because it changes the source database.'),
  pollIntervalMs: z.number().int().min(1).max(60_000).default(20).describe('Without a notify channel: how often an idle query with trigger interval 0 looks for new rows.'),
});
export type PostgresSourceOptions = z.infer<typeof postgresSourceOptions>;

/** The channel createNotifyTrigger uses when none is given: stable per table, always a short identifier. */
export function defaultNotifyChannel(schema: string, table: string): string {
  let h = 0x811c9dc5;
  const name = `${schema}.${table}`;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return `weir_${(h >>> 0).toString(16).padStart(8, '0')}`;
}

const REASON = 'The table is the log: rows with offset column values in (start, end] are read again by the same ordered query, as long as they are not deleted or updated.';

/** Key of a first batch's start value in its end offset (not an identifier, so never a column name). */
const STARTING_AFTER = '$startingAfter';
/** After the LISTEN connection failed, poll for this long before trying it again. */
const LISTEN_RETRY_MS = 5_000;
const delay = (ms: number, signal: AbortSignal) => sleep(ms, undefined, { signal }).catch(() => undefined);

export class PostgresSource implements Source {
  readonly description: string;
  readonly replayable = true;
  readonly replayableReason = REASON;
  private readonly pool: pg.Pool;
  private readonly secrets: string[];
  private readonly target: string;
  /** The table's column types (format_type), read once from the catalog. */
  private columnTypes?: Map<string, string>;
  private readonly channel: string | undefined;
  /** The LISTEN connection (held out of the pool), while it works. */
  private listener?: pg.PoolClient;
  /** No reconnect attempt before this time after the LISTEN connection failed (poll meanwhile). */
  private listenRetryAtMs = 0;
  /** A notification came since the last planning query began: new rows may be there. */
  private notified = false;
  private wake?: () => void;

  constructor(private readonly opts: PostgresSourceOptions, readonly schema: Schema) {
    this.description = `PostgresSource[${opts.schema}.${opts.table} by ${opts.offsetColumn}]`;
    this.channel = opts.notifyChannel ?? (opts.createNotifyTrigger ? defaultNotifyChannel(opts.schema, opts.table) : undefined);
    // One more connection than the queries need when one is held for LISTEN.
    this.pool = createPool(opts.connectionString, this.channel ? 3 : 2);
    this.secrets = secretsOf(opts.connectionString);
    this.target = qualifiedName(opts.schema, opts.table);
  }

  /** With createNotifyTrigger: the function and statement trigger that NOTIFY the channel on insert. */
  async open(): Promise<void> {
    if (!this.opts.createNotifyTrigger || !this.channel) return;
    const fn = `${quoteIdent(this.opts.schema)}."weir_notify_insert"`;
    const trigger = quoteIdent(`weir_notify_${this.channel}`);
    const literal = `'${this.channel.replace(/'/g, "''")}'`;
    const c = await this.pool.connect().catch((e) => this.fail('connect to create its notify trigger', e));
    try {
      await c.query('BEGIN');
      // Two queries starting at once on one table would otherwise race on the catalog rows.
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('weir_notify_insert'))`);
      await c.query(`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify(TG_ARGV[0], ''); RETURN NULL; END $$`);
      await c.query(`CREATE OR REPLACE TRIGGER ${trigger} AFTER INSERT ON ${this.target} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${literal})`);
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw new WeirError('SOURCE_ERROR', `Postgres source ${this.opts.schema}.${this.opts.table} could not create its notify trigger: ${errorText(e, this.secrets)}. ` +
        'Grant the TRIGGER privilege on the table (and CREATE on its schema), create a trigger that NOTIFYs notifyChannel yourself, or set createNotifyTrigger to false to poll.');
    } finally {
      c.release();
    }
  }

  /**
   * Resolves on a NOTIFY of the channel (or at once if one came since planning began), after
   * maxWaitMs, or on abort; without a channel, or while the LISTEN connection is down, after one
   * pollIntervalMs.
   */
  async waitForData(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    if (signal.aborted) return;
    const listening = this.channel ? await this.listen(this.channel) : 'off';
    if (listening === 'started') return; // rows may have come before LISTEN took effect: look once more
    if (listening === 'off') return delay(Math.min(this.opts.pollIntervalMs, maxWaitMs), signal);
    if (this.notified) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  private async listen(channel: string): Promise<'on' | 'started' | 'off'> {
    if (this.listener) return 'on';
    if (performance.now() < this.listenRetryAtMs) return 'off';
    let c: pg.PoolClient | undefined;
    try {
      c = await this.pool.connect();
      const client = c;
      client.on('notification', () => {
        this.notified = true;
        this.wake?.();
      });
      client.on('error', () => this.dropListener(client));
      await client.query(`LISTEN ${quoteIdent(channel)}`);
      this.listener = client;
      return 'started';
    } catch (_e) {
      // The next batch's own queries report a database that is down; here we only fall back to polling.
      if (c) this.dropListener(c);
      else this.listenRetryAtMs = performance.now() + LISTEN_RETRY_MS;
      return 'off';
    }
  }

  /** Closes the LISTEN connection (never back to the pool: it is still LISTENing) and wakes a waiter. */
  private dropListener(c: pg.PoolClient): void {
    if (this.listener === c) this.listener = undefined;
    this.listenRetryAtMs = performance.now() + LISTEN_RETRY_MS;
    try {
      c.release(true);
    } catch (_e) {
      // released already (an error after a failed LISTEN)
    }
    this.wake?.();
  }

  private fail(what: string, e: unknown): never {
    throw new WeirError('SOURCE_ERROR', `Postgres source ${this.opts.schema}.${this.opts.table} could not ${what}: ${errorText(e, this.secrets)}. Check the database is reachable and the table and column exist; the batch will be retried from the checkpoint.`);
  }

  /** The true latest offset: max(offsetColumn), ignoring maxRowsPerTrigger. */
  async reportLatestOffset(): Promise<Offset | null> {
    const col = quoteIdent(this.opts.offsetColumn);
    const res = await this.pool.query<{ v: string | null }>(`SELECT max(${col})::text AS v FROM ${this.target}`).catch((e) => this.fail('read its latest offset', e));
    const v = res.rows[0]?.v ?? null;
    return v === null ? null : { [this.opts.offsetColumn]: v };
  }

  /**
   * The end of the next batch: the true latest, or with `maxRowsPerTrigger` the value of the
   * n-th row after `start` (rows tying on that value all join the batch, so a batch may be a
   * little larger than n). Trigger.Once (`limit` 'all') ignores the limit, as in Spark.
   */
  async latestOffset(start?: Offset | null, limit: ReadLimit = 'default'): Promise<Offset | null> {
    // What this planning query sees needs no wake-up; a NOTIFY from here on may be for rows it misses.
    this.notified = false;
    const after = !start && this.opts.startingOffset !== undefined ? this.opts.startingOffset : null;
    const end = await this.plannedEnd(this.valueOf(start ?? null) ?? after, limit);
    if (after === null || end === null) return end;
    // A first batch after startingOffset records it in its end offset (STARTING_AFTER), so a
    // replay of batch 0 starts at the same value even if the option was edited since; an end
    // below it (nothing that new yet) is the value itself, so batch 1 still starts past it.
    const v = this.valueOf(end) as string;
    return { [this.opts.offsetColumn]: (await this.isBehind(after, v)) ? after : v, [STARTING_AFTER]: after };
  }

  private async plannedEnd(s: string | null, limit: ReadLimit): Promise<Offset | null> {
    const max = this.opts.maxRowsPerTrigger;
    if (!max || limit === 'all') return this.reportLatestOffset();
    const col = quoteIdent(this.opts.offsetColumn);
    const res = await this.pool
      .query<{ v: string }>(`SELECT ${col}::text AS v FROM ${this.target} ${s === null ? '' : `WHERE ${col} > $2`} ORDER BY ${col} LIMIT 1 OFFSET $1`, s === null ? [max - 1] : [max - 1, s])
      .catch((e) => this.fail('plan its next batch', e));
    return res.rows.length ? { [this.opts.offsetColumn]: res.rows[0].v } : this.reportLatestOffset();
  }

  private valueOf(o: Offset | null): string | null {
    if (o === null || o === undefined) return null;
    const v = (o as Record<string, unknown>)[this.opts.offsetColumn];
    if (typeof v !== 'string') {
      throw new WeirError('BAD_OFFSET', `Offset ${JSON.stringify(o)} was not written by a postgres source reading by column "${this.opts.offsetColumn}". The checkpoint belongs to another query: use a new checkpointLocation.`);
    }
    return v;
  }

  async getBatch(start: Offset | null, end: Offset): Promise<SourceBatch> {
    const e = this.valueOf(end) as string;
    const after = start === null ? (end as Record<string, unknown>)[STARTING_AFTER] : undefined;
    const s = typeof after === 'string' ? after : await this.startOf(this.valueOf(start), e);
    const offsetCol = this.opts.offsetColumn;
    const names = this.schema.map((f) => f.name);
    const selected = names.includes(offsetCol) ? names : [...names, offsetCol];
    // A `json` column (unlike `jsonb`) has no ordering: it sorts by its text.
    const types = await this.tableTypes();
    const order = [offsetCol, ...selected.filter((n) => n !== offsetCol)].map((n) => (types.get(n) === 'json' ? `${quoteIdent(n)}::text` : quoteIdent(n))).join(', ');
    const where = s === null ? `${quoteIdent(offsetCol)} <= $1` : `${quoteIdent(offsetCol)} > $2 AND ${quoteIdent(offsetCol)} <= $1`;
    const res = await this.pool
      .query({ text: `SELECT ${selected.map(quoteIdent).join(', ')}, ${quoteIdent(offsetCol)}::text AS "__weir_offset" FROM ${this.target} WHERE ${where} ORDER BY ${order}`, values: s === null ? [e] : [e, s], types: PG_READ_TYPES })
      .catch((err) => this.fail('read a batch', err));
    return this.convertRows(res.rows as Record<string, unknown>[], res.fields);
  }

  /**
   * Rows by the schema; a value that does not fit makes its row a bad record. `fields`: the
   * result's columns when it was read with PG_READ_TYPES (read by pgValue).
   */
  private convertRows(raws: Record<string, unknown>[], fields?: readonly { name: string; dataTypeID: number }[]): SourceBatch {
    const offsetCol = this.opts.offsetColumn;
    const oids = new Map((fields ?? []).map((c) => [c.name, c.dataTypeID]));
    const rows: Row[] = [];
    const badRecords: BadRecord[] = [];
    for (const raw of raws) {
      const row: Row = {};
      let bad: string | null = null;
      for (const f of this.schema) {
        const c = convertValue(pgValue(raw[f.name], oids.get(f.name), f), f);
        if (c.ok) row[f.name] = c.value;
        else bad ??= `column "${f.name}": ${c.reason}`;
      }
      if (bad) {
        const { __weir_offset, __weir_bytes: _b, __weir_order: _o, ...rest } = raw;
        badRecords.push({ raw: JSON.stringify(rest), reason: bad, location: { source: `${this.opts.schema}.${this.opts.table}`, offset: { [offsetCol]: __weir_offset } } });
      } else rows.push(row);
    }
    return { rows, badRecords };
  }

  /**
   * The preview's look at the newest rows: ORDER BY the offset column DESC LIMIT n, in a
   * read-only transaction with the time bound as its statement_timeout; the byte bound is a
   * running sum of pg_column_size in the same query, so rows past it never leave the database.
   * Returned oldest first.
   */
  async sampleRecent(limit: RecentRecordsLimit): Promise<RecentRecords> {
    const offsetCol = this.opts.offsetColumn;
    const names = this.schema.map((f) => f.name);
    const selected = (names.includes(offsetCol) ? names : [...names, offsetCol]).map(quoteIdent).join(', ');
    const col = quoteIdent(offsetCol);
    const text =
      `SELECT * FROM (SELECT l.*, sum(pg_column_size(l.*)) OVER (ORDER BY l."__weir_order" DESC ROWS UNBOUNDED PRECEDING) AS "__weir_bytes" ` +
      `FROM (SELECT ${selected}, ${col}::text AS "__weir_offset", ${col} AS "__weir_order" FROM ${this.target} ORDER BY ${col} DESC LIMIT $1) l) w ` +
      `WHERE "__weir_bytes" <= $2 ORDER BY "__weir_order"`;
    const c = await this.pool.connect().catch((e) => this.fail('connect to read its recent rows', e));
    let raws: Record<string, unknown>[];
    let fields: readonly { name: string; dataTypeID: number }[];
    try {
      await c.query('BEGIN READ ONLY');
      await c.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.round(limit.timeoutMs))}`);
      // Timestamps as text, as a batch reads them: the preview shows what a batch would read.
      const res = await c.query({ text, values: [limit.records, limit.bytes], types: PG_READ_TYPES });
      raws = res.rows as Record<string, unknown>[];
      fields = res.fields;
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      this.fail('read its recent rows', e);
    } finally {
      c.release();
    }
    const bytesRead = raws.length ? Number(raws[0].__weir_bytes) : 0;
    // The byte bound stopped it if fewer rows came than asked while the table may hold more.
    const stoppedAtBytes = raws.length < limit.records && (await this.hasRowsBefore(raws[0]?.__weir_offset as string | undefined));
    return { ...this.convertRows(raws, fields), bytesRead, stoppedAtBytes };
  }

  /** Whether the table has rows before `offset` (any rows, without one). */
  private async hasRowsBefore(offset: string | undefined): Promise<boolean> {
    const col = quoteIdent(this.opts.offsetColumn);
    const res = await this.pool
      .query(`SELECT 1 FROM ${this.target} ${offset === undefined ? '' : `WHERE ${col} < $1`} LIMIT 1`, offset === undefined ? [] : [offset])
      .catch((e) => this.fail('read its recent rows', e));
    return res.rows.length > 0;
  }

  private async tableTypes(): Promise<Map<string, string>> {
    this.columnTypes ??= await tableColumnTypes(this.pool, this.opts.schema, this.opts.table).catch((err) => this.fail('read its column types', err));
    return this.columnTypes;
  }

  /**
   * An end below the start means the column went back: the table was truncated or recreated and
   * refilled, and rows up to the old start would be skipped silently. Spark's Kafka source calls
   * this data loss ("offset was changed from … to …"); so do we, unless failOnDataLoss is false,
   * in which case the batch reads from the beginning of the new values.
   */
  private async isBehind(s: string, e: string): Promise<boolean> {
    const type = (await this.tableTypes()).get(this.opts.offsetColumn);
    if (!type) return false;
    // The type comes from the catalog (format_type), never from user input.
    const res = await this.pool.query<{ behind: boolean }>(`SELECT $1::${type} < $2::${type} AS behind`, [e, s]).catch((err) => this.fail('compare offsets', err));
    return res.rows[0]?.behind === true;
  }

  /**
   * An end below the start means the column went back: the table was truncated or recreated and
   * refilled, and rows up to the old start would be skipped silently. Spark's Kafka source calls
   * this data loss ("offset was changed from … to …"); so do we, unless failOnDataLoss is false,
   * in which case the batch reads the new values from the beginning.
   */
  private async startOf(s: string | null, e: string): Promise<string | null> {
    if (s === null || !(await this.isBehind(s, e))) return s;
    if (this.opts.failOnDataLoss) {
      throw new DataLossError(
        `Postgres source ${this.opts.schema}.${this.opts.table}: "${this.opts.offsetColumn}" went back from ${s} to ${e} (was the table truncated or recreated?); rows up to ${s} would be skipped. ` +
          'Start the query on a new checkpointLocation to read the table from the beginning, or set source.options.failOnDataLoss to false to continue from the new values.',
        { table: `${this.opts.schema}.${this.opts.table}`, start: s, end: e },
      );
    }
    return null;
  }

  offsetLag(from: Offset | null, to: Offset | null): number | null {
    // An integer column's difference is an upper bound on the rows behind (ids may have gaps).
    if (to === null) return 0;
    const a = from === null ? '0' : this.valueOf(from);
    const b = this.valueOf(to);
    if (!a || !b || !/^-?\d+$/.test(a) || !/^-?\d+$/.test(b)) return null;
    return Number(BigInt(b) - BigInt(a));
  }

  async stop(): Promise<void> {
    if (this.listener) this.dropListener(this.listener);
    await this.pool.end().catch(() => undefined);
  }
}

const postgresSourceDefinition: SourceDefinition<PostgresSourceOptions> = {
  type: 'postgres',
  options: postgresSourceOptions,
  replayable: () => ({ replayable: true, reason: REASON }),
  create: (o, ctx) => new PostgresSource(o, ctx.schema),
  // The source's columns are read by name from the table: a longer name could never match.
  checkSchema: (schema) => {
    for (const f of schema) {
      const problem = identifierProblem(f.name);
      if (problem) return `the column ${JSON.stringify(f.name.slice(0, 80))} ${problem}`;
    }
    return undefined;
  },
  secretOptions: ['connectionString'],
  destinations: [{ option: 'connectionString', kind: 'postgres' }],
};

registerSource(postgresSourceDefinition);
