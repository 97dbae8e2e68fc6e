import { apiRoute, parseQuery } from '@/lib/server/http/api-handler';
import { batchesQuerySchema } from '@/lib/server/http/api-schemas';
import { listBatches } from '@/lib/server/presenters/batches-presenter';

export const dynamic = 'force-dynamic';

/** Newest first; pass the response's nextBefore as ?before= for the next page. */
export const GET = apiRoute('viewer', 'read batches', async ({ req, db, params }) => listBatches(db, params.id, parseQuery(req, batchesQuerySchema)));
