import { apiRoute } from '@/lib/server/http/api-handler';
import { revokeToken } from '@/lib/server/services/token-service';

export const dynamic = 'force-dynamic';

export const DELETE = apiRoute('admin', 'revoke API tokens', async ({ db, principal, params }) => revokeToken(db, principal, params.id));
