/**
 * WebhookSink: POST each batch as JSON to a URL.
 *
 * Request: `POST <url>` with body `{"jobName","queryId","batchId","rows":[…]}` and headers
 * `Content-Type: application/json` and `Idempotency-Key: <jobName>/<queryId>/<batchId>`. The key
 * carries the query id (the checkpoint's identity) as well as the job's name so that a job
 * restarted on a new checkpoint, whose batch ids start again at 0, is never mistaken for a
 * replay and silently dropped by the receiver (the Delta txnAppId pitfall).
 *
 * Retries: a network error, a timeout, 408, 429 or 5xx is retried with exponential backoff
 * (`initialBackoffMs` doubling up to `maxBackoffMs`, or the receiver's Retry-After), up to
 * `maxRetries` times, sleeping on the injected Clock. Any other 4xx fails at once: the same
 * request will not get better. When retries run out the batch fails with SinkError and is not
 * committed; the engine re-runs it.
 *
 * Signature: at-least-once, because a retry or a replayed batch POSTs the same batch again,
 * unless the job declares `receiverHonoursIdempotencyKey: true` (the receiver stores the key and
 * ignores a repeat), which makes it idempotent. Weir cannot check that claim; the audit reason
 * says it is declared by the job. The URL and headers may hold tokens: they are secrets.
 *
 * Outbound policy: only http(s); the URL and the address connected to are checked against the
 * policy (outbound/), and a refusal fails the batch at once (retrying cannot change it).
 * Redirects are not followed: a receiver's 3xx is a refusal like any other 4xx.
 */
import { z } from 'zod';
import { type Clock, jsonWriter, outboundFetch, outboundPolicy, type OutboundPolicy, OutboundRefusedError, type OutputMode, registerSink, type Row, type Sink, type SinkBatchContext, type SinkDefinition, SinkError, type SinkSignature } from '../../engine';
import { redact } from '../postgres/pg-util';

export const webhookSinkOptions = z.strictObject({
  url: z.url().meta({ examples: ['https://hooks.example.com/weir'] }),
  headers: z.record(z.string(), z.string()).default({}).describe('Extra request headers, as a JSON object.'),
  receiverHonoursIdempotencyKey: z.boolean().default(false).describe('Set only if the receiver drops a repeated Idempotency-Key: the sink then counts as idempotent.'),
  maxRetries: z.number().int().min(0).max(20).default(5),
  // Bounded: past 2^31 ms Node's timers fire at once, and a longer wait only hides a dead receiver.
  initialBackoffMs: z.number().int().min(0).max(3_600_000).default(200),
  maxBackoffMs: z.number().int().min(0).max(3_600_000).default(10_000),
  timeoutMs: z.number().int().min(1).max(600_000).default(10_000),
});
export type WebhookSinkOptions = z.infer<typeof webhookSinkOptions>;

const signatureOf = (o: WebhookSinkOptions): { signature: SinkSignature; reason: string } =>
  o.receiverHonoursIdempotencyKey
    ? { signature: 'idempotent', reason: 'Each batch carries Idempotency-Key <job>/<query id>/<batch id>, and the job declares that the receiver ignores a key it has seen (Weir cannot verify this).' }
    : { signature: 'at-least-once', reason: 'A retried or replayed batch is POSTed again; its Idempotency-Key lets a receiver drop the repeat, but the job does not declare that this receiver does.' };

export class WebhookSink implements Sink {
  readonly description: string;
  readonly signature: SinkSignature;
  readonly signatureReason: string;
  readonly supportedOutputModes: readonly OutputMode[] = ['append', 'update', 'complete'];
  private readonly secrets: string[];
  /** Requests sent, including retries (for tests and metrics). */
  attempts = 0;

  constructor(private readonly opts: WebhookSinkOptions, private readonly clock: Clock, private readonly jobName: string, private readonly outbound: OutboundPolicy = outboundPolicy()) {
    ({ signature: this.signature, reason: this.signatureReason } = signatureOf(opts));
    const u = new URL(opts.url);
    // Origin only: paths and query strings of webhook URLs often embed tokens.
    this.description = `WebhookSink[${u.origin}]`;
    this.secrets = [opts.url, u.pathname.length > 1 ? u.pathname : '', u.search, u.password, ...Object.values(opts.headers)].filter((s) => s.length > 3);
  }

  idempotencyKey(queryId: string, batchId: number): string {
    return `${this.jobName}/${queryId}/${batchId}`;
  }

  async addBatch(batchId: number, rows: Row[], ctx: SinkBatchContext): Promise<void> {
    const json = jsonWriter(ctx.schema);
    const body = json.stringify({ jobName: this.jobName, queryId: ctx.queryId, batchId, rows: rows.map(json.row) });
    const headers = { ...this.opts.headers, 'content-type': 'application/json', 'idempotency-key': this.idempotencyKey(ctx.queryId, batchId) };
    let backoff = this.opts.initialBackoffMs;
    let last = '';
    for (let attempt = 0; attempt <= this.opts.maxRetries; attempt++) {
      this.attempts++;
      let retryAfterMs: number | null = null;
      try {
        const res = await outboundFetch(this.opts.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs) }, this.outbound);
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) return;
        last = `HTTP ${res.status}`;
        if (!(res.status === 408 || res.status === 429 || res.status >= 500)) {
          throw new SinkError(`Webhook sink: the receiver refused batch ${batchId} with ${last}; retrying would not help. Fix the receiver or the sink options; the batch is not committed and will be re-run.`, { batchId, status: res.status });
        }
        const header = res.headers.get('retry-after');
        const ra = header === null ? NaN : Number(header);
        if (Number.isFinite(ra) && ra >= 0) retryAfterMs = ra * 1000;
      } catch (e) {
        if (e instanceof SinkError) throw e;
        if (e instanceof OutboundRefusedError) {
          throw new SinkError(`Webhook sink: ${e.message} The batch is not committed; fix sink.options.url or the outbound policy.`, { batchId, code: e.code, ...e.details });
        }
        const err = e as Error & { cause?: { code?: string } };
        last = redact(`${err.name === 'TimeoutError' ? 'timed out' : err.message}${err.cause?.code ? ` (${err.cause.code})` : ''}`, this.secrets);
      }
      if (attempt < this.opts.maxRetries) {
        await this.clock.sleep(Math.min(retryAfterMs ?? backoff, this.opts.maxBackoffMs));
        backoff = Math.min(backoff * 2, this.opts.maxBackoffMs);
      }
    }
    throw new SinkError(`Webhook sink could not deliver batch ${batchId} to ${this.description} after ${this.opts.maxRetries + 1} attempts (last: ${last}). The batch is not committed and will be re-run; check the receiver is up.`, { batchId });
  }

  async close(): Promise<void> {}
}

const webhookSinkDefinition: SinkDefinition<WebhookSinkOptions> = {
  type: 'webhook',
  options: webhookSinkOptions,
  signature: signatureOf,
  supportedOutputModes: () => ['append', 'update', 'complete'],
  create: (o, ctx) => new WebhookSink(o, ctx.clock, ctx.jobName, ctx.outbound ?? outboundPolicy()),
  secretOptions: ['url', 'headers'],
  destinations: [{ option: 'url', kind: 'http' }],
};

registerSink(webhookSinkDefinition);
