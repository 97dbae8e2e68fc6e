import { apiRoute, jobServiceContext, parseBody } from '@/lib/server/api-handler';
import { jobInputSchema } from '@/lib/server/api-schemas';
import { getJob } from '@/lib/server/presenters/jobs-presenter';
import { deleteJob, updateJob } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read jobs', async ({ db, params }) => getJob(db, params.id));

export const PUT = apiRoute('admin', 'edit jobs', async (ctx) => updateJob(jobServiceContext(ctx), ctx.params.id, await parseBody(ctx.req, jobInputSchema)));

export const DELETE = apiRoute('admin', 'delete jobs', async (ctx) => {
  await deleteJob(jobServiceContext(ctx), ctx.params.id);
  return new Response(null, { status: 204 });
});
