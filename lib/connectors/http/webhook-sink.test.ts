// The webhook sink against a real HTTP receiver on loopback (a node:http server in this test,
// standing in for the team's endpoint): the sink contract suite at-least-once and with a
// receiver that honours Idempotency-Key, retries with backoff, fail-fast on 4xx, and secrets.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../engine/clock';
import { SinkError } from '../../engine/errors';
import type { Row } from '../../engine/types';
import { contractSchema, sinkContractSuite } from '../../engine/sinks/testing/sink.contract';
import { WebhookSink, webhookSinkOptions } from './webhook-sink';
import { RENDERED_JSON, RENDERING_ROW, RENDERING_SCHEMA } from '../../engine/sinks/testing/rendering-fixture';

interface Received { key: string; body: { batchId: number; rows: Row[] } }

/** A receiver that records every POST; `honourKey` drops repeats of a key; `script` sets statuses. */
class Receiver {
  received: Received[] = [];
  /** Every body as it arrived on the wire. */
  raw: string[] = [];
  script: number[] = [];
  server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      this.raw.push(data);
      const status = this.script.shift() ?? 200;
      if (status === 200) {
        const key = String(req.headers['idempotency-key']);
        if (!(this.honourKey && this.received.some((r) => r.key === key))) this.received.push({ key, body: JSON.parse(data) });
      } else if (status === 503) res.setHeader('retry-after', '0');
      res.statusCode = status;
      res.end();
    });
  });
  constructor(readonly honourKey = false) {}
  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/tok3n-in-path`;
  }
  rows(): Row[] { return this.received.flatMap((r) => r.body.rows); }
  async stop() { await new Promise((r) => this.server.close(r)); }
}

const receivers: Receiver[] = [];
afterAll(async () => { for (const r of receivers) await r.stop(); });
const clock = new SystemClock();
const opts = (url: string, extra = {}) => webhookSinkOptions.parse({ url, initialBackoffMs: 5, maxRetries: 2, ...extra });

for (const honour of [false, true]) {
  sinkContractSuite(`webhook (receiver ${honour ? 'honours' : 'ignores'} Idempotency-Key)`, {
    outputMode: 'append',
    async make() {
      const rec = new Receiver(honour);
      receivers.push(rec);
      const sink = new WebhookSink(opts(await rec.start(), { receiverHonoursIdempotencyKey: honour }), clock, 'orders-job');
      return { sink, readAll: async () => rec.rows(), cleanup: async () => sink.close() };
    },
    makeDown: async () => new WebhookSink(opts('http://127.0.0.1:1/hooks/tok3n-in-path', { receiverHonoursIdempotencyKey: honour }), clock, 'orders-job'),
    secrets: ['tok3n-in-path'],
  });
}

describe('webhook sink specifics', () => {
  let rec: Receiver;
  let url: string;
  beforeAll(async () => { rec = new Receiver(); receivers.push(rec); url = await rec.start(); });
  const ctx = { outputMode: 'append' as const, schema: contractSchema, queryId: 'q-7' };

  it('retries 503s with backoff, then delivers once with the idempotency key of job, query and batch', async () => {
    rec.received = [];
    rec.script = [503, 503];
    const sink = new WebhookSink(opts(url, { headers: { authorization: 'Bearer hdr-secret' } }), clock, 'orders-job');
    await sink.addBatch(4, [{ id: 1, name: 'a', amount: 1 }], ctx);
    expect(sink.attempts).toBe(3);
    expect(rec.received).toEqual([{ key: 'orders-job/q-7/4', body: expect.objectContaining({ batchId: 4, queryId: 'q-7', rows: [{ id: 1, name: 'a', amount: 1 }] }) }]);
  });

  it('writes a decimal column as a JSON number with its exact digits', async () => {
    rec.received = [];
    rec.script = [];
    const sink = new WebhookSink(opts(url), clock, 'orders-job');
    const schema = [{ name: 'amount', type: 'decimal' as const, precision: 38, scale: 2 }];
    await sink.addBatch(5, [{ amount: 1234567890123456789012345678901234567n }, { amount: 250n }], { ...ctx, schema });
    // Parsed back by JSON.parse the 38 digits become a double; the text on the wire has them all.
    expect(rec.raw.at(-1)).toContain('"rows":[{"amount":12345678901234567890123456789012345.67},{"amount":2.50}]');
  });

  it('renders every column type as the files sink and Spark’s JSON writer do', async () => {
    rec.received = [];
    rec.script = [];
    const sink = new WebhookSink(opts(url), clock, 'orders-job');
    await sink.addBatch(6, [RENDERING_ROW], { ...ctx, schema: RENDERING_SCHEMA });
    expect(rec.raw.at(-1)).toContain(`"rows":[${RENDERED_JSON}]`);
  });

  it('fails a 400 at once without retrying, and gives up after maxRetries on 503', async () => {
    rec.received = [];
    rec.script = [400];
    const sink = new WebhookSink(opts(url), clock, 'j');
    await expect(sink.addBatch(0, [], ctx)).rejects.toThrow(/HTTP 400; retrying would not help/);
    expect(sink.attempts).toBe(1);
    rec.script = [503, 503, 503];
    const err = await sink.addBatch(1, [], ctx).catch((e) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(sink.attempts).toBe(4);
    expect(rec.received).toEqual([]);
  });

  it('backs off exponentially on the injected clock, or as the receiver\'s Retry-After says', async () => {
    rec.received = [];
    const slept: number[] = [];
    const recording = { now: () => 0, sleep: async (ms: number) => { slept.push(ms); } };
    const sink = new WebhookSink(opts(url, { maxRetries: 3, initialBackoffMs: 100, maxBackoffMs: 250 }), recording, 'j');
    rec.script = [502, 502, 502];
    await sink.addBatch(0, [], ctx);
    expect(slept).toEqual([100, 200, 250]);
    slept.length = 0;
    rec.script = [503]; // answers Retry-After: 0
    await sink.addBatch(1, [], ctx);
    expect(slept).toEqual([0]);
  });

  it('describes itself by origin only, never the token-bearing path or headers', () => {
    const sink = new WebhookSink(opts(url, { headers: { authorization: 'Bearer hdr-secret' } }), clock, 'j');
    expect(sink.description).toMatch(/^WebhookSink\[http:\/\/127\.0\.0\.1:\d+\]$/);
  });
});
