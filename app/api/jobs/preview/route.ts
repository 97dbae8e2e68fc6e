/**
 * POST /api/jobs/preview {spec, sample?} — the editor's Preview: the query over the sample, or
 * without one over the source's most recent records, with no checkpoint and no sink; the output
 * schema and the first 100 rows. Saves nothing. Viewer role (as validation): it reads only the
 * sample and what the job itself may read.
 */
import { apiRoute, jobServiceContext, parseBody } from '@/lib/server/http/api-handler';
import { previewInputSchema } from '@/lib/server/http/api-schemas';
import { previewJob } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('viewer', 'validate job specs', async (ctx) => {
  const { spec, sample } = await parseBody(ctx.req, previewInputSchema);
  return previewJob(jobServiceContext(ctx), spec, sample);
});
