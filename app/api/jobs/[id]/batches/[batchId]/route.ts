import { apiRoute } from '@/lib/server/http/api-handler';
import { batchParamsSchema } from '@/lib/server/http/api-schemas';
import { getBatch } from '@/lib/server/presenters/batches-presenter';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read batches', async ({ db, params }) => {
  const { id, batchId } = batchParamsSchema.parse(params);
  return getBatch(db, id, batchId);
});
