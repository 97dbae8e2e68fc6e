/**
 * HttpSource: records POSTed to Weir. NOT replayable, and labelled so.
 *
 * Records arrive through `push(records)` (in-process) or, with the `port` option, a tiny HTTP
 * listener: `POST <path>` with a JSON array, a single JSON object, or JSON lines; it answers
 * 202 `{"accepted":n,"offset":N}`, or 503 while the buffer is full (back-pressure: the sender
 * retries; nothing is dropped silently), 413 for a body over `maxBodyBytes`, 405 for other methods,
 * 401 without `Authorization: Bearer <token>` when the `token` option is set.
 *
 * Offset: `{"epoch":"<this source instance>","count":N}`, the number of records this instance has
 * received. The epoch matters after a restart: the checkpoint's last offset belongs to the
 * previous process, whose records are gone; a new instance counts from 0 under a new epoch, so
 * its records are read instead of being mistaken for ones already committed. Records stay in
 * an in-memory buffer until `commit(end)` releases them, so within one process a batch can be
 * re-read exactly. But the buffer is all there is: after a crash or restart the records of an
 * uncommitted batch are gone, and the sender already got its 202. That is why `replayable` is
 * false and the contract audit reports at-most-once for any job using it. To get more, have
 * senders write to a replayable system (Redis stream, JetStream, a table) and read from that.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { type BadRecord, convertObject, type Offset, parseJson, registerSource, type Row, type Schema, type Source, type SourceBatch, type SourceDefinition, stringifyRow, WeirError } from '../../engine';

export const httpSourceOptions = z.strictObject({
  port: z.number().int().min(0).max(65535).optional().describe('Listen for POSTs on this port (0: any free port); empty: in-process push only.'),
  host: z.string().min(1).default('127.0.0.1'),
  path: z.string().startsWith('/').default('/'),
  maxBufferedRecords: z.number().int().min(1).default(100_000),
  maxBodyBytes: z.number().int().min(1).default(10 * 1024 * 1024),
  token: z.string().min(8).optional().describe('When set, a POST must carry Authorization: Bearer <token> (401 otherwise).'),
});
export type HttpSourceOptions = z.infer<typeof httpSourceOptions>;

const REASON = 'Records POSTed to Weir live only in this process\'s memory until their batch commits; after a crash the uncommitted ones are gone and the sender is not asked again.';

type Entry = { row: Row } | { bad: BadRecord };

/** Constant-time comparison, so response timing does not reveal how much of a token matched. */
function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
type HttpOffset = { epoch: string; count: number };

export class HttpSource implements Source {
  readonly replayable = false;
  readonly replayableReason = REASON;
  /** Records received so far (the offset of the newest). */
  private received = 0;
  /** Offset of the first record still buffered (everything before it was committed). */
  private base = 0;
  private buffer: Entry[] = [];
  private server: http.Server | null = null;
  /** Identifies this instance's offsets (an identity, not a random choice the engine depends on). */
  private readonly epoch = randomUUID();

  constructor(private readonly opts: HttpSourceOptions, readonly schema: Schema) {}

  get description(): string {
    return this.server ? `HttpSource[http://${this.opts.host}:${this.listeningPort}${this.opts.path}]` : 'HttpSource[push]';
  }

  /** The port the listener is bound to (useful with port 0), or null. */
  get listeningPort(): number | null {
    return this.server ? (this.server.address() as AddressInfo).port : null;
  }

  async open(): Promise<void> {
    if (this.opts.port === undefined || this.server) return;
    const server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => resolve());
    });
    this.server = server;
  }

  /** Accept records; returns the offset after them. Throws when the buffer is full. */
  push(records: readonly unknown[]): number {
    if (this.buffer.length + records.length > this.opts.maxBufferedRecords) {
      throw new WeirError('SOURCE_BUFFER_FULL', `HTTP source buffer is full (${this.buffer.length} of ${this.opts.maxBufferedRecords} records uncommitted); retry after the running batch commits.`);
    }
    for (const rec of records) {
      const n = ++this.received;
      const parsed = rec !== null && typeof rec === 'object' && !Array.isArray(rec) ? convertObject(rec as Record<string, unknown>, this.schema) : { reason: 'not a JSON object' };
      this.buffer.push('row' in parsed ? { row: parsed.row } : { bad: { raw: stringifyRow(rec), reason: parsed.reason, location: { source: 'http', offset: { epoch: this.epoch, count: n } } } });
    }
    return this.received;
  }

  /** latestOffset has no side effects and no read limits here, so it is also the true latest. */
  reportLatestOffset(): Promise<Offset | null> {
    return this.latestOffset();
  }

  async latestOffset(): Promise<Offset | null> {
    return this.received === 0 ? null : ({ epoch: this.epoch, count: this.received } satisfies HttpOffset);
  }

  /** This instance's count in `o`: 0 for null or another instance's offset (its records are gone). */
  private countOf(o: Offset | null): number {
    const x = o as Partial<HttpOffset> | null;
    return x && x.epoch === this.epoch && typeof x.count === 'number' ? x.count : 0;
  }

  async getBatch(start: Offset | null, end: Offset): Promise<SourceBatch> {
    const s = this.countOf(start);
    const e = this.countOf(end);
    // Whatever of (s, e] this instance no longer holds (committed already), or an end from a
    // previous process, cannot be read: the non-replayable gap the label warns about.
    const from = Math.max(s, this.base);
    const to = Math.min(e, this.received);
    const rows: Row[] = [];
    const badRecords: BadRecord[] = [];
    for (let i = from; i < to; i++) {
      const entry = this.buffer[i - this.base];
      if ('row' in entry) rows.push(entry.row);
      else badRecords.push(entry.bad);
    }
    return { rows, badRecords };
  }

  async commit(end: Offset): Promise<void> {
    const e = Math.min(this.countOf(end), this.received);
    if (e > this.base) {
      this.buffer.splice(0, e - this.base);
      this.base = e;
    }
  }

  offsetLag(from: Offset | null, to: Offset | null): number | null {
    return Math.max(0, this.countOf(to) - this.countOf(from));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if ((req.url ?? '/').split('?')[0] !== this.opts.path) return reply(404, { error: `POST records to ${this.opts.path}` });
    if (req.method !== 'POST') return reply(405, { error: 'POST a JSON array, a JSON object or JSON lines' });
    if (this.opts.token && !safeEqual(req.headers.authorization ?? '', `Bearer ${this.opts.token}`)) {
      return reply(401, { error: 'send Authorization: Bearer <token> (the source\'s token option)' });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= this.opts.maxBodyBytes) chunks.push(c);
    });
    req.on('end', () => {
      if (size > this.opts.maxBodyBytes) return reply(413, { error: `body over ${this.opts.maxBodyBytes} bytes; send smaller requests` });
      const text = Buffer.concat(chunks).toString('utf8').trim();
      let records: unknown[];
      try {
        records = text.startsWith('[') ? (parseJson(text) as unknown[]) : text.startsWith('{') && !text.includes('\n') ? [parseJson(text)] : text.split('\n').filter((l) => l.trim()).map((l) => parseJson(l));
      } catch (e) {
        return reply(400, { error: `body is not JSON, a JSON array or JSON lines: ${(e as Error).message}` });
      }
      try {
        const offset = this.push(records);
        reply(202, { accepted: records.length, offset });
      } catch (e) {
        reply(503, { error: (e as Error).message });
      }
    });
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise((r) => s.close(r));
  }
}

const httpSourceDefinition: SourceDefinition<HttpSourceOptions> = {
  type: 'http',
  options: httpSourceOptions,
  replayable: () => ({ replayable: false, reason: REASON }),
  create: (o, ctx) => new HttpSource(o, ctx.schema),
  secretOptions: ['token'],
};

registerSource(httpSourceDefinition);
