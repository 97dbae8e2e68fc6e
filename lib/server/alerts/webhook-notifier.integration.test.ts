/**
 * Webhook delivery against a real local HTTP receiver: retries on 500 with backoff until a 2xx,
 * the same signed bytes on every attempt, a delivery log row per transition with one entry per
 * attempt; attempts exhausted → FAILED; a receiver that is down is retried by the sweep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateJobAlerts } from './alert-evaluator';
import { backoffMs, deliverDue, signBody, verifySignature } from './webhook-notifier';
import { addBatch, alertTestDb, createJob, startReceiver, type AlertTestDb } from './testing/alert-fixtures';

const SECRET = 'notifier-secret-0123456789';
let t: AlertTestDb;
beforeAll(async () => {
  t = await alertTestDb();
});
afterAll(async () => t?.close());

async function firingRule(name: string, url: string) {
  const job = await createJob(t.db, name);
  await t.db.alertRule.create({ data: { name, jobId: job.id, kind: 'state-rows', params: { threshold: 0 }, webhookUrl: url, webhookSecret: SECRET } });
  await addBatch(t.db, job.id, 0, { rows: 1 });
  return job;
}

describe('webhook notifier', () => {
  it('retries on 500 with backoff, then delivers once; every attempt carries the same signed body', async () => {
    const receiver = await startReceiver([500, 500]);
    try {
      const job = await firingRule('retry-job', receiver.url);
      await evaluateJobAlerts(t.db, job.id, { deliveries: 'await' as const, notifier: { backoffBaseMs: 30 } });
      expect(receiver.received.map((r) => r.status)).toEqual([500, 500, 200]);
      expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
      expect(new Set(receiver.received.map((r) => r.headers['x-weir-delivery'])).size).toBe(1);
      for (const r of receiver.received) expect(verifySignature(SECRET, r.body, r.headers['x-weir-signature'] as string)).toBe(true);
      const [d] = await t.db.notificationDelivery.findMany({ where: { alert: { jobId: job.id } } });
      expect(d).toMatchObject({ status: 'DELIVERED', attemptCount: 3, lastStatus: 200, lastError: null });
      const attempts = d.attempts as { status: number; error: string | null; at: string }[];
      expect(attempts.map((a) => [a.status, a.error])).toEqual([
        [500, 'HTTP 500'],
        [500, 'HTTP 500'],
        [200, null],
      ]);
      // The gaps follow the backoff (at least base × 2^(n-1)).
      const gaps = attempts.slice(1).map((a, i) => Date.parse(a.at) - Date.parse(attempts[i].at));
      gaps.forEach((g, i) => expect(g).toBeGreaterThanOrEqual(backoffMs(i + 1, { backoffBaseMs: 30 })));
    } finally {
      await receiver.close();
    }
  });

  it('gives up after maxAttempts and marks the delivery FAILED', async () => {
    const receiver = await startReceiver([503, 503, 503]);
    try {
      const job = await firingRule('fail-job', receiver.url);
      await evaluateJobAlerts(t.db, job.id, { deliveries: 'await' as const, notifier: { backoffBaseMs: 10, maxAttempts: 2 } });
      expect(receiver.received.length).toBe(2);
      const [d] = await t.db.notificationDelivery.findMany({ where: { alert: { jobId: job.id } } });
      expect(d).toMatchObject({ status: 'FAILED', attemptCount: 2, lastStatus: 503 });
    } finally {
      await receiver.close();
    }
  });

  it('a destination the outbound policy refuses fails the delivery at once, sending nothing', async () => {
    const receiver = await startReceiver();
    try {
      // The rule's host resolves (through an injected resolver: no DNS) to the metadata address.
      const url = receiver.url.replace('127.0.0.1', 'rebind.test');
      const job = await firingRule('refused-job', url);
      const resolve = async () => [{ address: '169.254.169.254', family: 4 }];
      await evaluateJobAlerts(t.db, job.id, { deliveries: 'await' as const, notifier: { backoffBaseMs: 1, outbound: { resolve } } });
      expect(receiver.received).toEqual([]);
      const [d] = await t.db.notificationDelivery.findMany({ where: { alert: { jobId: job.id } } });
      expect(d).toMatchObject({ status: 'FAILED', attemptCount: 1, lastStatus: null });
      expect(d.lastError).toMatch(/rebind\.test resolved to 169\.254\.169\.254, which is one of the link-local addresses/);
    } finally {
      await receiver.close();
    }
  });

  it('a receiver that is down is retried by the sweep once it is back', async () => {
    const receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close(); // down
    const job = await firingRule('down-job', url);
    await evaluateJobAlerts(t.db, job.id, { deliveries: 'sweep' });
    expect(await deliverDue(t.db, { backoffBaseMs: 1 })).toEqual(['RETRY']); // connection refused
    const [pending] = await t.db.notificationDelivery.findMany({ where: { alert: { jobId: job.id } } });
    expect(pending.event).toBe('alert.firing');
    const port = Number(new URL(url).port);
    const back = await startReceiverOn(port);
    try {
      for (let i = 0; i < 200; i++) {
        await deliverDue(t.db, { backoffBaseMs: 1 });
        const row = await t.db.notificationDelivery.findUniqueOrThrow({ where: { id: pending.id } });
        if (row.status === 'DELIVERED') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const row = await t.db.notificationDelivery.findUniqueOrThrow({ where: { id: pending.id } });
      expect(row.status).toBe('DELIVERED');
      expect((row.attempts as { error: string | null }[]).some((a) => a.error)).toBe(true);
      expect(back.accepted().length).toBe(1);
      expect(back.accepted()[0].headers['x-weir-signature']).toBe(signBody(SECRET, row.body));
    } finally {
      await back.close();
    }
  });
});

/** The same receiver again on a fixed port (the first one's), to model a receiver coming back. */
async function startReceiverOn(port: number) {
  const http = await import('node:http');
  const received: { body: string; headers: Record<string, unknown>; status: number }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ body, headers: req.headers, status: 200 });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { accepted: () => received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
