import { apiRoute } from '@/lib/server/api-handler';
import { batchParamsSchema } from '@/lib/server/api-schemas';
import { getBatch } from '@/lib/server/presenters/batches-presenter';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read batches', async ({ db, params }) => {
  const { id, batchId } = batchParamsSchema.parse(params);
  return getBatch(db, id, batchId);
});
