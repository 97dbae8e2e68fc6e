/**
 * NatsJetStreamSource: a JetStream stream read by stream sequence number.
 *
 * Offset: `{"seq":<last stream sequence of the batch>,"first":<stream first_seq when taken>}`.
 * - latestOffset: stream info `state.last_seq` (null while the stream has never had a message).
 * - getBatch(start, end): an ordered consumer from sequence start+1 (optionally filtered by
 *   `subject`), read until sequence `end`; sequences only grow, so the same range returns the
 *   same messages in the same order while they are retained.
 * - Data loss (replayable only within retention): every publish takes the next sequence, so
 *   (start, end] held end - start messages. Without a subject filter a replay that reads fewer
 *   lost some (limits/age retention, purge, or a delete); with a filter we can only see that the
 *   stream's first_seq moved past start+1. Either way the batch fails with DataLossError unless
 *   `failOnDataLoss: false`. A first batch (start = null) counts from the `first` recorded in its
 *   end offset, so messages retention removed before the query started are not "lost".
 *
 * - waitForData (an idle query with trigger interval 0): a fetch with expires from the sequence
 *   after the last one seen.
 *
 * `servers` may carry credentials (nats://user:pass@host): it is a secret option, and errors
 * are redacted.
 */
import { z } from 'zod';
// Types only: the NATS client is imported when a nats-jetstream source first connects, so
// commands and jobs that do not use NATS do not pay its load time.
import type { NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { type BadRecord, checkBeforeConnect, DataLossError, type Offset, outboundPolicy, type OutboundPolicy, parseJsonRecord, type ReadLimit, type RecentRecords, type RecentRecordsLimit, registerSource, type Row, type Schema, type Source, type SourceBatch, type SourceDefinition, WeirError } from '../../engine';
import { redact } from '../postgres/pg-util';

export const natsJetStreamSourceOptions = z.strictObject({
  servers: z.string().min(1).default('nats://127.0.0.1:4222'),
  stream: z.string().min(1).meta({ examples: ['EVENTS'] }),
  subject: z.string().min(1).optional().meta({ examples: ['events.>'] }),
  token: z.string().min(1).optional(),
  failOnDataLoss: z.boolean().default(true).describe('Fail, or continue, when messages a batch needs were removed from the stream.'),
  fetchSize: z.number().int().min(1).max(10_000).default(1_000),
  maxMessagesPerTrigger: z.number().int().min(1).optional().describe('At most this many stream sequences per batch (fewer messages with a subject filter).'),
  startSequence: z.number().int().min(1).optional().describe('First stream sequence a new query reads (default: the stream\'s first). Only on a new checkpoint: on restart the checkpoint wins.'),
  startTime: z.iso.datetime({ offset: true }).optional().meta({ examples: ['2026-01-01T00:00:00Z'] }).describe('ISO-8601 time: a new query starts at the first message stored at or after it. Only on a new checkpoint; wins over startSequence.'),
});
export type NatsJetStreamSourceOptions = z.infer<typeof natsJetStreamSourceOptions>;

const REASON = 'Stream sequence numbers only grow and an ordered consumer from start+1 re-reads (start, end] while retained; a replay whose messages were removed fails with DATA_LOSS.';

/**
 * `from`, only in a first batch's end offset, is the first sequence that batch reads when the job
 * gave a start position: resolved once at planning and kept in offsets/0, so a replay of batch 0
 * starts at the same place even if the option was edited since.
 */
interface SeqOffset { seq: number; first: number; from?: number }

export class NatsJetStreamSource implements Source {
  readonly description: string;
  readonly replayable = true;
  readonly replayableReason = REASON;
  private nc: NatsConnection | null = null;
  private jsm: JetStreamManager | null = null;
  private js: JetStreamClient | null = null;
  private readonly secrets: string[];
  /** The last stream sequence planning saw: waitForData wakes for any message after it. */
  private seenSeq = 0;

  constructor(private readonly opts: NatsJetStreamSourceOptions, readonly schema: Schema, private readonly outbound: OutboundPolicy = outboundPolicy()) {
    this.description = `NatsJetStreamSource[${opts.stream}${opts.subject ? `:${opts.subject}` : ''}]`;
    this.secrets = [opts.servers, opts.token ?? ''].filter(Boolean);
  }

  private fail(what: string, e: unknown): never {
    if (e instanceof WeirError) throw e;
    throw new WeirError('SOURCE_ERROR', `NATS JetStream source ${this.opts.stream} could not ${what}: ${redact((e as Error)?.message ?? String(e), this.secrets)}. Check NATS is reachable and the stream exists; the batch will be retried from the checkpoint.`);
  }

  private async manager(): Promise<JetStreamManager> {
    if (!this.jsm) {
      const [{ connect }, { jetstream, jetstreamManager }] = await Promise.all([import('@nats-io/transport-node'), import('@nats-io/jetstream')]);
      await checkBeforeConnect('nats', this.opts.servers, this.outbound);
      // Cluster updates would have the server name further hosts to connect to, unchecked.
      this.nc = await connect({ servers: this.opts.servers, token: this.opts.token, timeout: 5_000, ignoreClusterUpdates: true });
      this.jsm = await jetstreamManager(this.nc);
      this.js = jetstream(this.nc);
    }
    return this.jsm;
  }

  /** The true latest offset, ignoring maxMessagesPerTrigger. */
  async reportLatestOffset(): Promise<Offset | null> {
    try {
      const info = await (await this.manager()).streams.info(this.opts.stream);
      return info.state.last_seq === 0 ? null : ({ seq: info.state.last_seq, first: info.state.first_seq } satisfies SeqOffset);
    } catch (e) {
      this.fail('read its latest offset', e);
    }
  }

  /** The end of the next batch: the latest sequence, or at most `maxMessagesPerTrigger` past start. */
  async latestOffset(start?: Offset | null, limit: ReadLimit = 'default'): Promise<Offset | null> {
    let latest = (await this.reportLatestOffset()) as SeqOffset | null;
    if (latest && !start && (this.opts.startSequence !== undefined || this.opts.startTime !== undefined)) latest = { ...latest, from: await this.startPosition(latest) };
    if (latest) this.seenSeq = latest.seq;
    const max = this.opts.maxMessagesPerTrigger;
    if (!latest || !max || limit === 'all') return latest;
    const s = this.parseOffset(start ?? null)?.seq ?? (latest.from ?? latest.first) - 1;
    return { seq: Math.min(latest.seq, Math.max(s, latest.first - 1) + max), first: latest.first, ...(start ? {} : latest.from === undefined ? {} : { from: latest.from }) } satisfies SeqOffset;
  }

  /** The first sequence a new query reads: startTime's first message (or past the end), else startSequence. */
  private async startPosition(latest: SeqOffset): Promise<number> {
    if (this.opts.startTime === undefined) return Math.max(this.opts.startSequence ?? latest.first, latest.first);
    try {
      await this.manager();
      const consumer = await this.js!.consumers.get(this.opts.stream, { opt_start_time: new Date(this.opts.startTime).toISOString(), filter_subjects: this.opts.subject });
      let seq = latest.seq + 1;
      for await (const m of await consumer.fetch({ max_messages: 1, expires: 2_000 })) {
        seq = m.seq;
        break;
      }
      await consumer.delete().catch(() => undefined);
      return seq;
    } catch (e) {
      this.fail('find the first message at startTime', e);
    }
  }

  private parseOffset(o: Offset | null): SeqOffset | null {
    if (o === null || o === undefined) return null;
    const { seq, first, from } = o as Partial<SeqOffset>;
    if (typeof seq !== 'number' || typeof first !== 'number') {
      throw new WeirError('BAD_OFFSET', `Offset ${JSON.stringify(o)} was not written by a nats-jetstream source. The checkpoint belongs to another query: use a new checkpointLocation.`);
    }
    return typeof from === 'number' ? { seq, first, from } : { seq, first };
  }

  async getBatch(start: Offset | null, end: Offset): Promise<SourceBatch> {
    const e = this.parseOffset(end)!;
    let s = this.parseOffset(start)?.seq ?? (e.from ?? e.first) - 1;
    if (e.seq < s) {
      // Sequences went back: the stream was deleted and recreated. Reading on from the old
      // position would skip the new stream's messages up to it without a word.
      if (this.opts.failOnDataLoss) {
        throw new DataLossError(
          `NATS stream ${this.opts.stream}: the sequence went back from ${s} to ${e.seq} (was the stream deleted and recreated?); messages up to ${s} would be skipped. ` +
            'Start the query on a new checkpointLocation, or set source.options.failOnDataLoss to false to read the new stream from its start.',
          { stream: this.opts.stream, start: s, end: e.seq },
        );
      }
      s = e.first - 1;
    }
    if (e.seq <= s) return { rows: [], badRecords: [] };
    const rows: Row[] = [];
    const badRecords: BadRecord[] = [];
    let read = 0;
    try {
      const jsm = await this.manager();
      const js = this.js!;
      // filter_subjects as a single string: NATS servers before 2.10 (this machine has 2.9) reject the array form.
      const consumer = await js.consumers.get(this.opts.stream, { opt_start_seq: s + 1, filter_subjects: this.opts.subject });
      let last = s;
      while (last < e.seq) {
        const batch = await consumer.fetch({ max_messages: Math.min(this.opts.fetchSize, e.seq - last), expires: 2_000 });
        let got = 0;
        for await (const m of batch) {
          got++;
          last = m.seq;
          if (m.seq > e.seq) break;
          read++;
          const parsed = parseJsonRecord(m.string(), this.schema);
          if ('row' in parsed) rows.push(parsed.row);
          else badRecords.push({ raw: m.string(), reason: parsed.reason, location: { source: `${this.opts.stream}#${m.seq}`, offset: { seq: m.seq } } });
          if (m.seq >= e.seq) break;
        }
        if (got === 0) break; // nothing more retained up to end
      }
      await consumer.delete().catch(() => undefined);
      const info = await jsm.streams.info(this.opts.stream);
      const expected = e.seq - s;
      const short = this.opts.subject ? info.state.first_seq > s + 1 : read < expected;
      if (short && this.opts.failOnDataLoss) {
        throw new DataLossError(
          `NATS stream ${this.opts.stream}: the range (${s}, ${e.seq}] can no longer be read in full (${this.opts.subject ? `the stream now starts at ${info.state.first_seq}` : `${read} of ${expected} messages are left`}): ` +
            'retention, a purge or a delete removed them, and some data may have been lost. Raise the stream\'s limits (max_msgs, max_age) so they outlast a restart, or set source.options.failOnDataLoss to false to continue with what is left.',
          { stream: this.opts.stream, start: s, end: e.seq, read },
        );
      }
    } catch (err) {
      this.fail('read a batch', err);
    }
    return { rows, badRecords };
  }

  /**
   * The preview's look at the newest messages: an ordered (ephemeral, never durable) consumer
   * from sequence last_seq - n + 1 (n by the record bound, and by the byte bound over the
   * stream's average message size) (with `subject`, the matching messages among those sequences),
   * fetched in chunks within the byte bound and deleted afterwards. Returned oldest first.
   */
  async sampleRecent(limit: RecentRecordsLimit): Promise<RecentRecords> {
    const rows: Row[] = [];
    const badRecords: BadRecord[] = [];
    let bytesRead = 0;
    let stoppedAtBytes = false;
    try {
      const info = await (await this.manager()).streams.info(this.opts.stream);
      const last = info.state.last_seq;
      if (last === 0 || info.state.messages === 0) return { rows, badRecords, bytesRead, stoppedAtBytes };
      // The stream's average message (with its subject and headers: a little over its data)
      // says how many of the last sequences fit in the byte bound, so the newest are read.
      const average = Math.max(1, info.state.bytes / info.state.messages);
      const window = Math.max(1, Math.min(limit.records, Math.floor(limit.bytes / average)));
      const first = Math.max(info.state.first_seq, last - window + 1);
      if (window < limit.records && first > info.state.first_seq) stoppedAtBytes = true;
      const consumer = await this.js!.consumers.get(this.opts.stream, { opt_start_seq: first, filter_subjects: this.opts.subject });
      // Fetched by message count (a fetch by max_bytes is far slower on this server), in chunks
      // that stay near the byte bound.
      let done = false;
      try {
        while (!done && !limit.signal.aborted) {
          const left = limit.records - rows.length - badRecords.length;
          const chunk = Math.max(1, Math.min(left, Math.floor((limit.bytes - bytesRead) / average)));
          const msgs = await consumer.fetch({ max_messages: chunk, expires: Math.max(1000, Math.min(limit.timeoutMs, 5_000)) });
          const onAbort = () => msgs.stop();
          limit.signal.addEventListener('abort', onAbort, { once: true });
          let got = 0;
          try {
            for await (const m of msgs) {
              got++;
              if (bytesRead + m.data.length > limit.bytes) {
                stoppedAtBytes = done = true;
                break;
              }
              bytesRead += m.data.length;
              const text = m.string();
              const parsed = parseJsonRecord(text, this.schema);
              if ('row' in parsed) rows.push(parsed.row);
              else badRecords.push({ raw: text, reason: parsed.reason, location: { source: `${this.opts.stream}#${m.seq}`, offset: { seq: m.seq } } });
              if (m.seq >= last || rows.length + badRecords.length >= limit.records) {
                done = true;
                break;
              }
            }
          } finally {
            limit.signal.removeEventListener('abort', onAbort);
          }
          if (got === 0) break; // nothing more retained up to last
        }
      } finally {
        await consumer.delete().catch(() => undefined);
      }
    } catch (e) {
      this.fail('read its recent messages', e);
    }
    return { rows, badRecords, bytesRead, stoppedAtBytes };
  }

  offsetLag(from: Offset | null, to: Offset | null): number | null {
    const t = this.parseOffset(to);
    if (!t) return 0;
    return Math.max(0, t.seq - (this.parseOffset(from)?.seq ?? (t.from ?? t.first) - 1));
  }

  /**
   * A JetStream fetch with expires on an ordered consumer from the sequence after the last one
   * planning saw (filtered by `subject`): returns when a message is there (at once if one is
   * already), when the fetch expires (at least 1 s, the client's minimum), or on abort.
   */
  async waitForData(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    if (signal.aborted) return;
    try {
      await this.manager();
      const consumer = await this.js!.consumers.get(this.opts.stream, { opt_start_seq: this.seenSeq + 1, filter_subjects: this.opts.subject });
      const msgs = await consumer.fetch({ max_messages: 1, expires: Math.max(1000, maxWaitMs) });
      const onAbort = () => msgs.stop();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        for await (const _m of msgs) break;
      } finally {
        signal.removeEventListener('abort', onAbort);
        await consumer.delete().catch(() => undefined);
      }
    } catch (_e) {
      // NATS down or no such stream: the next planning reports it; do not spin meanwhile.
      if (!signal.aborted) await new Promise((r) => setTimeout(r, Math.min(maxWaitMs, 200)));
    }
  }

  async stop(): Promise<void> {
    await this.nc?.close().catch(() => undefined);
    this.nc = null;
    this.jsm = null;
    this.js = null;
  }
}

const natsJetStreamSourceDefinition: SourceDefinition<NatsJetStreamSourceOptions> = {
  type: 'nats-jetstream',
  options: natsJetStreamSourceOptions,
  replayable: () => ({ replayable: true, reason: REASON }),
  create: (o, ctx) => new NatsJetStreamSource(o, ctx.schema),
  secretOptions: ['servers', 'token'],
  destinations: [{ option: 'servers', kind: 'nats' }],
};

registerSource(natsJetStreamSourceDefinition);
