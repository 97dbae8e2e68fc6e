import { apiRoute, jobServiceContext, parseBody } from '@/lib/server/http/api-handler';
import { resetCheckpointSchema } from '@/lib/server/http/api-schemas';
import { resetCheckpoint } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('admin', 'reset checkpoints', async (ctx) => {
  const { confirm, acknowledgeReprocessing } = await parseBody(ctx.req, resetCheckpointSchema);
  return resetCheckpoint(jobServiceContext(ctx), ctx.params.id, confirm, { acknowledgeReprocessing });
});
