import { apiRoute, parseQuery } from '@/lib/server/http/api-handler';
import { runsQuerySchema } from '@/lib/server/http/api-schemas';
import { listRuns } from '@/lib/server/presenters/runs-presenter';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read runs', async ({ req, db, params }) => listRuns(db, params.id, parseQuery(req, runsQuerySchema)));
