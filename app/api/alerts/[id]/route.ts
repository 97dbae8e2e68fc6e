import { apiRoute } from '@/lib/server/http/api-handler';
import { getAlert } from '@/lib/server/alerts/alert-presenter';

export const dynamic = 'force-dynamic';

/** One alert with its webhook delivery log. */
export const GET = apiRoute('viewer', 'read alerts', async ({ db, params }) => getAlert(db, params.id));
