/**
 * Writes to alert rules (admins): create, edit, delete; and to alerts (operators): acknowledge.
 * Each is audited in the same transaction.
 * The webhook secret is write-only: reads show `********`, and sending `********` back (or
 * omitting it) on an edit keeps the stored one (as job secrets do), but only while the webhook's
 * destination (scheme, host, port) is unchanged: a new host must be given the secret anew.
 * The webhook URL obeys the outbound policy (lib/server/outbound.ts), checked here and again on
 * the address each delivery connects to. Deleting a rule resolves its firing alerts first, so
 * nothing stays FIRING without a rule that could ever resolve it.
 */
import { checkDestinationValue, parseDestinations, sameDestination, ValidationError, describeDestination, type OutboundPolicy } from '@/lib/engine';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { requireRole, type Principal } from '../auth';
import { BadRequestError, ConflictError, NotFoundError } from '../errors';
import { recordAudit } from '../services/audit-service';
import { serverOutboundPolicy } from '../outbound';
import { ALERT_INCLUDE, presentAlert, presentRule, type AlertRuleView, type AlertView } from './alert-view';
import { paramsSchemaOf, type AlertRuleInput, type AlertRuleUpdate } from './rule-kinds';
import { formatDateTime } from '@/components/format';

const MASKED_SECRET = '********';

async function ensureJob(db: PrismaClient, jobId: string | null | undefined): Promise<void> {
  if (jobId && !(await db.job.findUnique({ where: { id: jobId }, select: { id: true } }))) {
    throw new BadRequestError(`jobId ${jobId} is not a job; omit it (or send null) for a global rule, or pick an id from GET /api/jobs.`, { issues: [{ path: 'jobId', message: 'no such job' }] });
  }
}

/** 422 naming webhookUrl, the destination and the rule, if the policy refuses the URL. */
function checkWebhookUrl(url: string | null | undefined, policy: OutboundPolicy): void {
  if (!url) return;
  const r = checkDestinationValue('http', url, policy);
  if (r) {
    throw new ValidationError(`webhookUrl: ${r.message} (outbound rule: ${r.rule})`, { issues: [{ path: 'webhookUrl', message: r.message }], destination: r.destination, rule: r.rule });
  }
}

function destinationOf(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    return parseDestinations('http', url).map(describeDestination).join(', ');
  } catch {
    return url;
  }
}

function sameWebhookDestination(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  try {
    return sameDestination(parseDestinations('http', a)[0], parseDestinations('http', b)[0]);
  } catch {
    return false;
  }
}

export async function createAlertRule(db: PrismaClient, who: Principal, input: AlertRuleInput, outbound: OutboundPolicy = serverOutboundPolicy()): Promise<AlertRuleView> {
  requireRole(who, 'admin', 'create alert rules');
  checkWebhookUrl(input.webhookUrl, outbound);
  await ensureJob(db, input.jobId);
  const row = await db.$transaction(async (tx) => {
    const r = await tx.alertRule.create({
      data: { name: input.name, jobId: input.jobId ?? null, kind: input.kind, params: JSON.parse(JSON.stringify(input.params)), enabled: input.enabled, webhookUrl: input.webhookUrl ?? null, webhookSecret: input.webhookSecret ?? null },
    });
    await recordAudit(tx, who, { action: 'alert-rule.create', targetType: 'alert-rule', targetId: r.id, after: presentRule(r) });
    return r;
  });
  return presentRule(row);
}

export async function updateAlertRule(db: PrismaClient, who: Principal, id: string, input: AlertRuleUpdate, outbound: OutboundPolicy = serverOutboundPolicy()): Promise<AlertRuleView> {
  requireRole(who, 'admin', 'edit alert rules');
  const before = await db.alertRule.findUnique({ where: { id } });
  if (!before) throw new NotFoundError('alert-rule', id);
  let params = before.params;
  if (input.params !== undefined) {
    const parsed = paramsSchemaOf(before.kind)?.safeParse(input.params);
    if (!parsed?.success) {
      throw new BadRequestError(`The params do not fit a ${before.kind} rule: ${parsed?.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ')}.`, {
        issues: parsed?.error.issues.map((i) => ({ path: ['params', ...i.path].join('.'), message: i.message })) ?? [],
      });
    }
    params = JSON.parse(JSON.stringify(parsed.data));
  }
  const keepsSecret = input.webhookSecret === MASKED_SECRET || input.webhookSecret === undefined;
  const webhookSecret = keepsSecret ? before.webhookSecret : input.webhookSecret;
  const webhookUrl = input.webhookUrl === undefined ? before.webhookUrl : input.webhookUrl;
  checkWebhookUrl(webhookUrl, outbound);
  if (keepsSecret && before.webhookSecret && webhookUrl && !sameWebhookDestination(webhookUrl, before.webhookUrl)) {
    const message = `the stored webhookSecret is kept only while the webhook's destination is unchanged, and webhookUrl now points at ${destinationOf(webhookUrl)} (it was ${destinationOf(before.webhookUrl) ?? 'unset'}). Send webhookSecret again in full with the new webhookUrl.`;
    throw new ValidationError(`webhookSecret: ${message}`, { issues: [{ path: 'webhookSecret', message }] });
  }
  if (webhookUrl && !webhookSecret) throw new BadRequestError('A webhook needs a webhookSecret (at least 8 characters) to sign its deliveries.', { issues: [{ path: 'webhookSecret', message: 'required with webhookUrl' }] });
  const row = await db.$transaction(async (tx) => {
    const r = await tx.alertRule.update({ where: { id }, data: { name: input.name ?? before.name, enabled: input.enabled ?? before.enabled, params: params ?? {}, webhookUrl, webhookSecret } });
    await recordAudit(tx, who, { action: 'alert-rule.update', targetType: 'alert-rule', targetId: id, before: presentRule(before), after: presentRule(r) });
    return r;
  });
  return presentRule(row);
}

export async function deleteAlertRule(db: PrismaClient, who: Principal, id: string): Promise<void> {
  requireRole(who, 'admin', 'delete alert rules');
  const before = await db.alertRule.findUnique({ where: { id } });
  if (!before) throw new NotFoundError('alert-rule', id);
  await db.$transaction(async (tx) => {
    await tx.alert.updateMany({ where: { ruleId: id, state: 'FIRING' }, data: { state: 'RESOLVED', resolvedAt: new Date() } });
    await tx.alertRule.delete({ where: { id } });
    await recordAudit(tx, who, { action: 'alert-rule.delete', targetType: 'alert-rule', targetId: id, before: presentRule(before) });
  });
}

/**
 * Acknowledges a firing alert: someone is on it. The alert keeps firing until its condition
 * clears (then it resolves as usual); the navigation badge stops counting it. Acknowledging
 * twice changes nothing; a resolved alert has nothing left to acknowledge (409).
 */
export async function acknowledgeAlert(db: PrismaClient, who: Principal, id: string): Promise<AlertView> {
  requireRole(who, 'operator', 'acknowledge alerts');
  return db.$transaction(async (tx) => {
    const before = await tx.alert.findUnique({ where: { id }, include: ALERT_INCLUDE });
    if (!before) throw new NotFoundError('alert', id);
    if (before.state !== 'FIRING') {
      throw new ConflictError(`Alert ${id} resolved at ${before.resolvedAt ? formatDateTime(before.resolvedAt) : 'an earlier time'}: only a firing alert can be acknowledged. It fires again, as a new alert, if its condition returns.`, { state: before.state });
    }
    if (before.acknowledgedBy !== null) return presentAlert(before);
    // Only a firing, unacknowledged row: a resolve or another acknowledgement in between wins.
    const changed = await tx.alert.updateMany({ where: { id, state: 'FIRING', acknowledgedBy: null }, data: { acknowledgedBy: who.actor, acknowledgedAt: new Date() } });
    const after = await tx.alert.findUniqueOrThrow({ where: { id }, include: ALERT_INCLUDE });
    if (changed.count === 1) await recordAudit(tx, who, { action: 'alert.acknowledge', targetType: 'alert', targetId: id, before: presentAlert(before), after: presentAlert(after) });
    return presentAlert(after);
  });
}
