/**
 * POST /api/jobs/:id/savepoints/:savepointId/new-job {name, acknowledgeReprocessing?} — a new
 * stopped job with this job's spec and a checkpoint restored from the savepoint, with a new query
 * id (admin; audited). See savepoint-service.ts.
 */
import { apiRoute, jobServiceContext, parseBody } from '@/lib/server/http/api-handler';
import { newJobFromSavepointSchema } from '@/lib/server/http/api-schemas';
import { newJobFromSavepoint } from '@/lib/server/services/savepoint-service';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('admin', 'create jobs from savepoints', async (ctx) => {
  const input = await parseBody(ctx.req, newJobFromSavepointSchema);
  return Response.json(await newJobFromSavepoint(jobServiceContext(ctx), ctx.params.id, ctx.params.savepointId, input), { status: 201 });
});
