/**
 * POST /api/jobs/preview {spec, sample?} — the editor's Preview: the query over the sample, or
 * without one over the source's most recent records, with no checkpoint and no sink; the output
 * schema and the first 100 rows. Saves nothing. Over a pasted sample: viewer (as validation), it
 * reads only the sample. Over the source's records: admin (job-service.ts PREVIEW_RECENT_ROLE),
 * since that reads the source's data. Runs in a bounded preview process, never in this one.
 */
import { apiRoute, jobServiceContext, parseBody, previewLimits } from '@/lib/server/http/api-handler';
import { previewInputSchema } from '@/lib/server/http/api-schemas';
import { previewJob } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('viewer', 'preview job specs', async (ctx) => {
  const { spec, sample } = await parseBody(ctx.req, previewInputSchema, { exactIntegersIn: 'sample' });
  return previewJob({ ...jobServiceContext(ctx), previewLimits: previewLimits() }, spec, sample);
});
