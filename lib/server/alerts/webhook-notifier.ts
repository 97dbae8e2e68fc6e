/**
 * Webhook notifications of alert transitions, from the NotificationDelivery rows that
 * `alert-transitions.ts` writes with each transition.
 *
 * Protocol, per delivery:
 * - POST `url` with the stored body (JSON) and headers `Content-Type: application/json`,
 *   `X-Weir-Event: alert.firing|alert.resolved`, `X-Weir-Delivery: <delivery id>` (receivers
 *   de-duplicate on it: a timeout after the receiver got the request is retried with the same id)
 *   and `X-Weir-Signature: sha256=<hex HMAC-SHA256 of the exact body bytes with the rule's secret>`.
 * - A 2xx answer delivers it. Anything else (status, network error, timeout) is logged in
 *   `attempts` and retried with exponential backoff (base × 2^(attempt-1), capped) until
 *   `maxAttempts`, then the row is FAILED.
 * - A sender claims a due row by moving `nextAttemptAt` forward by `claimMs` with a conditional
 *   update; a sender that dies mid-attempt leaves the row due again after the claim expires, and
 *   the scheduler's sweep (`deliverDue`) picks it up. Two senders never hold the same attempt.
 * - The URL and the address each attempt connects to obey the outbound policy
 *   (lib/server/outbound.ts); a refused destination FAILs the delivery at once, since retrying
 *   cannot change the answer. Redirects are not followed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { outboundFetch, OutboundRefusedError, type OutboundPolicy } from '@/lib/engine';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { serverOutboundPolicy } from '../outbound';

export interface NotifierOptions {
  /** First retry delay; doubles per attempt. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  maxAttempts?: number;
  timeoutMs?: number;
  claimMs?: number;
  /** Default: outboundFetch under `outbound`. */
  fetch?: typeof fetch;
  /** Default: this process's policy (serverOutboundPolicy). */
  outbound?: OutboundPolicy;
}

const DEFAULTS = { backoffBaseMs: 1000, backoffMaxMs: 60_000, maxAttempts: 6, timeoutMs: 10_000, claimMs: 30_000 };

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** For receivers (and tests): constant-time check of an `X-Weir-Signature` header. */
export function verifySignature(secret: string, body: string, header: string | null | undefined): boolean {
  if (!header) return false;
  const want = Buffer.from(signBody(secret, body));
  const got = Buffer.from(header);
  return want.length === got.length && timingSafeEqual(want, got);
}

export function backoffMs(attempt: number, o: NotifierOptions = {}): number {
  const base = o.backoffBaseMs ?? DEFAULTS.backoffBaseMs;
  return Math.min(base * 2 ** (attempt - 1), o.backoffMaxMs ?? DEFAULTS.backoffMaxMs);
}

export type AttemptOutcome = 'DELIVERED' | 'RETRY' | 'FAILED' | 'NOT_CLAIMED';

/** One attempt of one delivery, if it is due and this caller wins the claim. */
async function attemptDelivery(db: PrismaClient, id: string, o: NotifierOptions = {}): Promise<AttemptOutcome> {
  const row = await db.notificationDelivery.findUnique({ where: { id }, include: { rule: { select: { webhookSecret: true } } } });
  if (!row || row.status !== 'PENDING') return 'NOT_CLAIMED';
  const start = new Date();
  if (row.nextAttemptAt > start) return 'NOT_CLAIMED';
  const claim = await db.notificationDelivery.updateMany({
    where: { id, status: 'PENDING', nextAttemptAt: row.nextAttemptAt },
    data: { nextAttemptAt: new Date(start.getTime() + (o.claimMs ?? DEFAULTS.claimMs)) },
  });
  if (claim.count !== 1) return 'NOT_CLAIMED';

  const attempt = row.attemptCount + 1;
  let status: number | undefined;
  let error: string | undefined;
  let refused = false;
  const secret = row.rule?.webhookSecret;
  const send = o.fetch ?? ((url: string, init: RequestInit) => outboundFetch(url, init as Parameters<typeof outboundFetch>[1], o.outbound ?? serverOutboundPolicy()));
  if (!secret) {
    error = 'the rule (or its webhook secret) was deleted; nothing to sign with';
  } else {
    try {
      const res = await send(row.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-weir-event': row.event, 'x-weir-delivery': row.id, 'x-weir-signature': signBody(secret, row.body) },
        body: row.body,
        signal: AbortSignal.timeout(o.timeoutMs ?? DEFAULTS.timeoutMs),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (e) {
      error = (e as Error).message;
      refused = e instanceof OutboundRefusedError;
    }
  }
  const end = new Date();
  const log = [...((row.attempts as unknown[]) ?? []), { at: start.toISOString(), attempt, status: status ?? null, error: error ?? null, durationMs: end.getTime() - start.getTime() }];
  const delivered = !error;
  const exhausted = !delivered && (attempt >= (o.maxAttempts ?? DEFAULTS.maxAttempts) || !secret || refused);
  const outcome: AttemptOutcome = delivered ? 'DELIVERED' : exhausted ? 'FAILED' : 'RETRY';
  await db.notificationDelivery.update({
    where: { id },
    data: {
      attemptCount: attempt,
      attempts: log as object[],
      lastStatus: status ?? null,
      lastError: error ?? null,
      status: outcome === 'RETRY' ? 'PENDING' : outcome,
      ...(delivered ? { deliveredAt: end } : {}),
      ...(outcome === 'RETRY' ? { nextAttemptAt: new Date(end.getTime() + backoffMs(attempt, o)) } : {}),
    },
  });
  return outcome;
}

/** Delivers one row now, retrying in this process with backoff until it is delivered or fails. */
export async function deliverWithRetries(db: PrismaClient, id: string, o: NotifierOptions = {}): Promise<AttemptOutcome> {
  for (;;) {
    const out = await attemptDelivery(db, id, o);
    if (out !== 'RETRY') return out;
    const row = await db.notificationDelivery.findUnique({ where: { id }, select: { nextAttemptAt: true } });
    if (!row) return 'NOT_CLAIMED';
    await new Promise((r) => setTimeout(r, Math.max(0, row.nextAttemptAt.getTime() - Date.now())));
  }
}

/** The sweep: one attempt of every due PENDING delivery (the scheduler calls it each tick). */
export async function deliverDue(db: PrismaClient, o: NotifierOptions = {}, limit = 50): Promise<AttemptOutcome[]> {
  const due = await db.notificationDelivery.findMany({ where: { status: 'PENDING', nextAttemptAt: { lte: new Date() } }, orderBy: { nextAttemptAt: 'asc' }, take: limit, select: { id: true } });
  const out: AttemptOutcome[] = [];
  for (const d of due) out.push(await attemptDelivery(db, d.id, o));
  return out;
}
