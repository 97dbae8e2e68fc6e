/**
 * POST /api/jobs/:id/savepoints/:savepointId/restore {confirm, acknowledgeReprocessing?} — reset a
 * stopped job's checkpoint to the savepoint, with a new query id (admin; audited). See savepoint-service.ts.
 */
import { apiRoute, jobServiceContext, parseBody } from '@/lib/server/http/api-handler';
import { restoreSavepointSchema } from '@/lib/server/http/api-schemas';
import { restoreSavepoint } from '@/lib/server/services/savepoint-service';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('admin', 'reset jobs to savepoints', async (ctx) => {
  const input = await parseBody(ctx.req, restoreSavepointSchema);
  return restoreSavepoint(jobServiceContext(ctx), ctx.params.id, ctx.params.savepointId, input);
});
