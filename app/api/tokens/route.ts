import { apiRoute, parseBody } from '@/lib/server/http/api-handler';
import { createTokenSchema } from '@/lib/server/http/api-schemas';
import { createToken, listTokens } from '@/lib/server/services/token-service';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('admin', 'list API tokens', async ({ db, principal }) => ({ items: await listTokens(db, principal) }));

/** The plain token is in this response only; store it now. */
export const POST = apiRoute('admin', 'create API tokens', async ({ req, db, principal }) =>
  Response.json(await createToken(db, principal, await parseBody(req, createTokenSchema)), { status: 201 }),
);
