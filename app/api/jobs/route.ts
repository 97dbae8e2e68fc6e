import { pgPool } from '@/lib/server/db';
import { apiRoute, jobServiceContext, jsonTextResponse, parseBody, parseQuery } from '@/lib/server/http/api-handler';
import { jobInputSchema, jobsQuerySchema } from '@/lib/server/http/api-schemas';
import { jobPageJson } from '@/lib/server/presenters/job-page-presenter';
import { createJob } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

// The page's JSON as PostgreSQL wrote it (job-page-presenter.ts): not parsed and written again.
export const GET = apiRoute('viewer', 'list jobs', async ({ req }) => jsonTextResponse(await jobPageJson(pgPool(), parseQuery(req, jobsQuerySchema))));

export const POST = apiRoute('admin', 'create jobs', async (ctx) => {
  const result = await createJob(jobServiceContext(ctx), await parseBody(ctx.req, jobInputSchema));
  return Response.json(result, { status: 201 });
});
