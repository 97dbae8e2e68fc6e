import { apiRoute, parseQuery } from '@/lib/server/http/api-handler';
import { listAlerts } from '@/lib/server/alerts/alert-presenter';
import { alertsQuerySchema } from '@/lib/server/alerts/rule-kinds';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read alerts', async ({ req, db }) => ({ items: await listAlerts(db, parseQuery(req, alertsQuerySchema)) }));
