import { apiRoute, parseQuery } from '@/lib/server/http/api-handler';
import { auditQuerySchema } from '@/lib/server/http/api-schemas';
import { listAuditEvents } from '@/lib/server/presenters/audit-presenter';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read the audit log', async ({ req, db }) => listAuditEvents(db, parseQuery(req, auditQuerySchema)));
