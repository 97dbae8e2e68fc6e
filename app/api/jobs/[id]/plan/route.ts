/**
 * GET /api/jobs/:id/plan — the job's plan as the engine explains it: its operators, each marked
 * stateless, stateful (with why) or source, as the editor's explain lists them. Viewer role.
 * Response: JobPlan (lib/server/presenters/job-plan-presenter.ts).
 */
import { env } from '@/lib/env';
import { apiRoute } from '@/lib/server/http/api-handler';
import { jobPlan } from '@/lib/server/presenters/job-plan-presenter';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read jobs', async ({ db, params }) => jobPlan(db, params.id, env()));
