import { apiRoute, parseBody } from '@/lib/server/http/api-handler';
import { getAlertRule } from '@/lib/server/alerts/alert-presenter';
import { deleteAlertRule, updateAlertRule } from '@/lib/server/alerts/alert-rule-service';
import { alertRuleUpdateSchema } from '@/lib/server/alerts/rule-kinds';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read alert rules', async ({ db, params }) => getAlertRule(db, params.id));

export const PUT = apiRoute('admin', 'edit alert rules', async ({ req, db, principal, params }) => updateAlertRule(db, principal, params.id, await parseBody(req, alertRuleUpdateSchema)));

export const DELETE = apiRoute('admin', 'delete alert rules', async ({ db, principal, params }) => {
  await deleteAlertRule(db, principal, params.id);
  return new Response(null, { status: 204 });
});
