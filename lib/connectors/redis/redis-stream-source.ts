/**
 * RedisStreamSource: a Redis stream read by entry id.
 *
 * Offset: `{"id":"<ms>-<seq>","added":<n>,"length":<n>}`: the last entry id of the batch, and
 * the stream's counters when it was taken (see data loss).
 * - latestOffset: XREVRANGE key + - COUNT 1 (the newest entry that exists).
 * - getBatch(start, end): XRANGE key (start end, paged with COUNT; entry ids only grow, so the
 *   same range returns the same entries in the same order while they are retained.
 * - Data loss (replayable only within retention): every offset also records the stream's
 *   `entries-added` counter and length, read atomically with the newest id by XINFO STREAM. XADD
 *   only appends, so (start, end] held exactly end.added - start.added entries (end.length for a
 *   first batch). A replay that reads fewer lost some to a trim (MAXLEN/MINID/XTRIM) or an XDEL:
 *   it fails with DataLossError unless the job set `failOnDataLoss: false` (Spark's Kafka
 *   option name), in which case it continues with what is left. (Redis 7.0's
 *   `max-deleted-entry-id` is not moved by trims, so it cannot be used for this.)
 *
 * - waitForData (an idle query with trigger interval 0): XREAD BLOCK after the newest id seen.
 *
 * Records: by default each entry's field `data` holds one JSON object (format `json`); with
 * format `fields` the entry's own field/value pairs are the record.
 */
import { z } from 'zod';
import type { Redis } from 'ioredis';
import { type BadRecord, convertObject, DataLossError, type Offset, parseJsonRecord, type ReadLimit, type RecentRecords, type RecentRecordsLimit, registerSource, type Row, type Schema, type Source, type SourceBatch, type SourceDefinition, WeirError } from '../../engine';
import { redact, secretsOf } from '../postgres/pg-util';
import { createRedis } from './redis-util';

export const redisStreamSourceOptions = z.strictObject({
  url: z.string().min(1).default('redis://127.0.0.1:6379'),
  stream: z.string().min(1).meta({ examples: ['events'] }),
  format: z.enum(['json', 'fields']).default('json').describe('json: one field holds a JSON row; fields: the entry\'s fields are the columns.'),
  jsonField: z.string().min(1).default('data').describe('With format json: the field holding the row.'),
  failOnDataLoss: z.boolean().default(true).describe('Fail, or continue, when entries a batch needs were trimmed from the stream.'),
  pageSize: z.number().int().min(1).max(100_000).default(5_000),
  maxEntriesPerTrigger: z.number().int().min(1).optional().describe('At most this many entries per batch.'),
  startingId: z.string().regex(/^\d+-\d+$/, { message: 'an entry id: <ms>-<seq>, e.g. 1700000000000-0' }).optional().meta({ examples: ['1700000000000-0'] }).describe('A new query reads the entries after this id (default: from the first). Only on a new checkpoint: on restart the checkpoint wins.'),
});
export type RedisStreamSourceOptions = z.infer<typeof redisStreamSourceOptions>;

const REASON = 'Entry ids only grow and XRANGE over (start, end] returns the same entries while they are retained; a replay whose entries were trimmed fails with DATA_LOSS.';

type Entry = [id: string, fields: string[]];
/** Entries per XREVRANGE page of a preview (a page is in memory whole before the byte bound applies). */
const RECENT_PAGE = 100;

export class RedisStreamSource implements Source {
  readonly description: string;
  readonly replayable = true;
  readonly replayableReason = REASON;
  private readonly redis: Redis;
  private readonly secrets: string[];
  /** A second connection for XREAD BLOCK (a blocked connection can run nothing else). */
  private blocker?: Redis;
  /** The newest entry id the last planning saw: waitForData wakes for anything after it. */
  private seenId = '0-0';

  constructor(private readonly opts: RedisStreamSourceOptions, readonly schema: Schema) {
    this.description = `RedisStreamSource[${opts.stream}]`;
    this.redis = createRedis(opts.url);
    this.secrets = secretsOf(opts.url);
  }

  private fail(what: string, e: unknown): never {
    throw new WeirError('SOURCE_ERROR', `Redis stream source ${this.opts.stream} could not ${what}: ${redact((e as Error)?.message ?? String(e), this.secrets)}. Check Redis is reachable; the batch will be retried from the checkpoint.`);
  }

  /** The true latest offset, ignoring maxEntriesPerTrigger. */
  async reportLatestOffset(): Promise<Offset | null> {
    // One XINFO STREAM answers atomically: the newest entry, the length and entries-added.
    const info = await this.streamInfo().catch((e) => this.fail('read its latest offset', e));
    if (!info || !info.lastId) return null;
    return { id: info.lastId, added: info.added, length: info.length };
  }

  /**
   * The end of the next batch: the latest entry, or with `maxEntriesPerTrigger` the n-th entry
   * after start. The counters of a limited end are what the range held at planning: `length` (for
   * a first batch) is the entries found, `added` advances by them. Trigger.Once ignores the limit.
   */
  async latestOffset(start?: Offset | null, limit: ReadLimit = 'default'): Promise<Offset | null> {
    const found = (await this.reportLatestOffset()) as { id: string; added: number; length: number } | null;
    // A first batch with startingId records it in its end offset (`after`), so a replay of batch 0
    // starts at the same id even if the option was edited since.
    const after = !start && this.opts.startingId !== undefined ? { after: this.opts.startingId } : {};
    const latest = found && { ...found, ...after };
    if (found) this.seenId = found.id;
    const max = this.opts.maxEntriesPerTrigger;
    if (!latest || !max || limit === 'all') return latest;
    const s = this.idOf(start ?? null) ?? this.opts.startingId ?? null;
    const page = (await this.redis.xrange(this.opts.stream, s === null ? '-' : `(${s}`, '+', 'COUNT', max).catch((e) => this.fail('plan its next batch', e))) as Entry[];
    if (page.length < max || page[page.length - 1][0] === latest.id) return latest;
    const startAdded = (start as { added?: unknown } | null)?.added;
    // After a startingId nothing counted the entries before it: the counters stay unknown (no
    // data-loss count for those batches) until a batch ends at the latest entry again.
    if (typeof startAdded !== 'number' && (start || 'after' in after)) return { id: page[page.length - 1][0], ...after };
    const added = typeof startAdded === 'number' ? startAdded + page.length : latest.added - (latest.length - page.length);
    return { id: page[page.length - 1][0], added, length: page.length, ...after };
  }

  private async streamInfo(): Promise<{ lastId: string | null; added: number; length: number } | null> {
    const raw = (await this.redis.xinfo('STREAM', this.opts.stream).catch((e: Error) => {
      if (/no such key/i.test(e.message)) return null;
      throw e;
    })) as unknown[] | null;
    if (raw === null) return null;
    const m = new Map<string, unknown>();
    for (let i = 0; i + 1 < raw.length; i += 2) m.set(String(raw[i]), raw[i + 1]);
    const last = m.get('last-entry') as [string, string[]] | null;
    return { lastId: last ? last[0] : null, added: Number(m.get('entries-added')), length: Number(m.get('length')) };
  }

  private idOf(o: Offset | null): string | null {
    if (o === null || o === undefined) return null;
    const id = (o as { id?: unknown }).id;
    if (typeof id !== 'string' || !/^\d+-\d+$/.test(id)) {
      throw new WeirError('BAD_OFFSET', `Offset ${JSON.stringify(o)} was not written by a redis-stream source. The checkpoint belongs to another query: use a new checkpointLocation.`);
    }
    return id;
  }

  async getBatch(start: Offset | null, end: Offset): Promise<SourceBatch> {
    const after = start === null ? (end as { after?: unknown }).after : undefined;
    const s = typeof after === 'string' ? after : this.idOf(start);
    const e = this.idOf(end) as string;
    const entries: Entry[] = [];
    let from = s === null ? '-' : `(${s}`;
    for (;;) {
      const page = (await this.redis.xrange(this.opts.stream, from, e, 'COUNT', this.opts.pageSize).catch((err) => this.fail('read a batch', err))) as Entry[];
      for (const en of page) entries.push(en);
      if (page.length < this.opts.pageSize) break;
      from = `(${page[page.length - 1][0]}`;
    }
    // A first batch after startingId read part of the stream: its counters say nothing about that part.
    const expected = typeof after === 'string' ? null : this.expectedCount(start, end);
    if (expected !== null && entries.length < expected) this.lost(s, e, expected, entries.length);
    return this.toBatch(entries);
  }

  private expectedCount(start: Offset | null, end: Offset): number | null {
    const e = end as { added?: unknown; length?: unknown };
    if (start === null) return typeof e.length === 'number' ? e.length : null;
    const s = start as { added?: unknown };
    return typeof e.added === 'number' && typeof s.added === 'number' ? e.added - s.added : null;
  }

  private lost(s: string | null, e: string, expected: number, read: number): void {
    if (!this.opts.failOnDataLoss) return;
    throw new DataLossError(
      `Redis stream ${this.opts.stream}: the range (${s ?? 'beginning'}, ${e}] held ${expected} entries when its offsets were recorded and only ${read} are left ` +
        '(trimmed by MAXLEN/MINID/XTRIM, or deleted by XDEL): some data may have been lost. ' +
        'Raise the stream\'s retention (MAXLEN) so it outlasts a restart, or set source.options.failOnDataLoss to false to continue with what is left.',
      { stream: this.opts.stream, start: s, end: e, expected, read },
    );
  }

  private toBatch(entries: Entry[]): SourceBatch {
    const rows: Row[] = [];
    const badRecords: BadRecord[] = [];
    for (const [id, fields] of entries) {
      const obj: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) obj[fields[i]] = fields[i + 1];
      const parsed = this.opts.format === 'json'
        ? obj[this.opts.jsonField] === undefined
          ? { reason: `entry has no field "${this.opts.jsonField}"` }
          : parseJsonRecord(obj[this.opts.jsonField], this.schema)
        : convertObject(obj, this.schema);
      if ('row' in parsed) rows.push(parsed.row);
      else badRecords.push({ raw: JSON.stringify(obj), reason: parsed.reason, location: { source: `${this.opts.stream}#${id}`, offset: { id } } });
    }
    return { rows, badRecords };
  }

  /**
   * The preview's look at the newest entries: XREVRANGE from the newest back, in pages, until
   * the record or byte bound; no consumer group is involved. Returned oldest first.
   */
  async sampleRecent(limit: RecentRecordsLimit): Promise<RecentRecords> {
    const newestFirst: Entry[] = [];
    let bytesRead = 0;
    let stoppedAtBytes = false;
    let from = '+';
    const onAbort = () => this.redis.disconnect();
    limit.signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (newestFirst.length < limit.records && !stoppedAtBytes) {
        const count = Math.min(RECENT_PAGE, limit.records - newestFirst.length);
        const page = (await this.redis.xrevrange(this.opts.stream, from, '-', 'COUNT', count).catch((e) => this.fail('read its recent entries', e))) as Entry[];
        for (const en of page) {
          const size = en[0].length + en[1].reduce((n, f) => n + f.length, 0);
          if (bytesRead + size > limit.bytes) {
            stoppedAtBytes = true;
            break;
          }
          bytesRead += size;
          newestFirst.push(en);
        }
        if (page.length < count) break;
        from = `(${page[page.length - 1][0]}`;
      }
    } finally {
      limit.signal.removeEventListener('abort', onAbort);
    }
    return { ...this.toBatch(newestFirst.reverse()), bytesRead, stoppedAtBytes };
  }

  /**
   * XREAD BLOCK for an entry after the newest one planning saw: returns at once if one is there
   * already, else when one is added, after maxWaitMs, or on abort (which drops the blocked
   * connection; the next wait opens another).
   */
  async waitForData(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    if (signal.aborted) return;
    if (!this.blocker) {
      this.blocker = this.redis.duplicate();
      this.blocker.on('error', () => {}); // as createRedis: errors surface on the command
    }
    const blocker = this.blocker;
    const onAbort = () => {
      if (this.blocker === blocker) this.blocker = undefined;
      blocker.disconnect();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await blocker.xread('COUNT', 1, 'BLOCK', Math.max(1, Math.round(maxWaitMs)), 'STREAMS', this.opts.stream, this.seenId);
    } catch (_e) {
      // Redis down or the wait aborted: the next planning reports the error; do not spin meanwhile.
      if (!signal.aborted) await new Promise((r) => setTimeout(r, Math.min(maxWaitMs, 200)));
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async stop(): Promise<void> {
    this.blocker?.disconnect();
    this.blocker = undefined;
    this.redis.disconnect();
  }
}

const redisStreamSourceDefinition: SourceDefinition<RedisStreamSourceOptions> = {
  type: 'redis-stream',
  options: redisStreamSourceOptions,
  replayable: () => ({ replayable: true, reason: REASON }),
  create: (o, ctx) => new RedisStreamSource(o, ctx.schema),
  secretOptions: ['url'],
  destinations: [{ option: 'url', kind: 'redis' }],
};

registerSource(redisStreamSourceDefinition);
