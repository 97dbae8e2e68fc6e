/**
 * POST /api/jobs/draft-check {spec} — the job editor's live check: validation, the explain as
 * operators (stateful ones with their reason) and each output mode's legality with the engine's
 * message. Saves nothing. Viewer role (same as POST /api/jobs/validate).
 */
import { env } from '@/lib/env';
import { apiRoute, parseBody } from '@/lib/server/http/api-handler';
import { validateInputSchema } from '@/lib/server/http/api-schemas';
import { checkDraft } from '@/lib/server/presenters/job-draft-presenter';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('viewer', 'validate job specs', async ({ req }) => {
  const { spec } = await parseBody(req, validateInputSchema);
  return checkDraft(spec, env());
});
