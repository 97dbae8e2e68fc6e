import { z } from 'zod';
import { apiRoute, parseBody, parseQuery } from '@/lib/server/http/api-handler';
import { listAlertRules } from '@/lib/server/alerts/alert-presenter';
import { createAlertRule } from '@/lib/server/alerts/alert-rule-service';
import { alertRuleInputSchema, type AlertRuleInput } from '@/lib/server/alerts/rule-kinds';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read alert rules', async ({ req, db }) => ({ items: await listAlertRules(db, parseQuery(req, z.object({ jobId: z.string().min(1).optional() }))) }));

export const POST = apiRoute('admin', 'create alert rules', async ({ req, db, principal }) =>
  Response.json(await createAlertRule(db, principal, (await parseBody(req, alertRuleInputSchema)) as AlertRuleInput), { status: 201 }),
);
