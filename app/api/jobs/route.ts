import { apiRoute, jobServiceContext, parseBody, parseQuery } from '@/lib/server/http/api-handler';
import { jobInputSchema, jobsQuerySchema } from '@/lib/server/http/api-schemas';
import { listJobPage } from '@/lib/server/presenters/job-page-presenter';
import { createJob } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'list jobs', async ({ req, db }) => listJobPage(db, parseQuery(req, jobsQuerySchema)));

export const POST = apiRoute('admin', 'create jobs', async (ctx) => {
  const result = await createJob(jobServiceContext(ctx), await parseBody(ctx.req, jobInputSchema));
  return Response.json(result, { status: 201 });
});
