/**
 * POST /api/jobs/draft-check {spec} — the job editor's live check: validation, the explain as
 * operators (stateful ones with their reason) and each output mode's legality with the engine's
 * message; with `jobId` (an edit), `restartCheck`: whether the spec would restart on the job's
 * checkpoint (a save would be refused with 409 INCOMPATIBLE_QUERY_CHANGE otherwise). Saves
 * nothing. Viewer role (same as POST /api/jobs/validate).
 */
import { env } from '@/lib/env';
import { apiRoute, jobServiceContext, parseBody } from '@/lib/server/http/api-handler';
import { draftCheckInputSchema } from '@/lib/server/http/api-schemas';
import { checkDraft } from '@/lib/server/presenters/job-draft-presenter';
import { restartCheckOfEdit } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('viewer', 'validate job specs', async (ctx) => {
  const { spec, jobId } = await parseBody(ctx.req, draftCheckInputSchema);
  const draft = checkDraft(spec, env());
  return jobId ? { ...draft, restartCheck: await restartCheckOfEdit(jobServiceContext(ctx), jobId, spec) } : draft;
});
