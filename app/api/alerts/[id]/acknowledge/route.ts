import { apiRoute } from '@/lib/server/http/api-handler';
import { acknowledgeAlert } from '@/lib/server/alerts/alert-rule-service';

export const dynamic = 'force-dynamic';

/** Someone is on it: the alert keeps firing until its condition clears, acknowledged by the caller. */
export const POST = apiRoute('operator', 'acknowledge alerts', async ({ db, principal, params }) => acknowledgeAlert(db, principal, params.id));
