import { apiRoute } from '@/lib/server/http/api-handler';
import { alertSummary } from '@/lib/server/alerts/alert-presenter';

export const dynamic = 'force-dynamic';

/** What the navigation and job badges poll: firing alerts overall and per job. */
export const GET = apiRoute('viewer', 'read alerts', async ({ db }) => alertSummary(db));
