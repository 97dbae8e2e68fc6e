import { apiRoute, jobServiceContext, parseBody, parseQuery } from '@/lib/server/http/api-handler';
import { deleteJobQuerySchema, jobInputSchema } from '@/lib/server/http/api-schemas';
import { getJob } from '@/lib/server/presenters/jobs-presenter';
import { deleteJob, updateJob } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read jobs', async ({ db, params }) => getJob(db, params.id));

export const PUT = apiRoute('admin', 'edit jobs', async (ctx) => updateJob(jobServiceContext(ctx), ctx.params.id, await parseBody(ctx.req, jobInputSchema)));

/** 204; with ?deleteCheckpoint=true&confirm=<name>, 200 and how many checkpoint files went. */
export const DELETE = apiRoute('admin', 'delete jobs', async (ctx) => {
  const q = parseQuery(ctx.req, deleteJobQuerySchema);
  const r = await deleteJob(jobServiceContext(ctx), ctx.params.id, q);
  return r.deletedCheckpointFiles === null ? new Response(null, { status: 204 }) : Response.json(r);
});
