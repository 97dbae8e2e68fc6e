/**
 * GET /api/jobs/:id/tasks?batches= — where the job's reduce tasks ran over its newest `batches`
 * (default 20, at most 200) committed batches: per worker, tasks, batches, rows, time, retries;
 * and the job's parallelism. Viewer role.
 * Response: TaskPlacement (lib/server/presenters/task-placement-presenter.ts).
 */
import { apiRoute, parseQuery } from '@/lib/server/http/api-handler';
import { taskPlacementQuerySchema } from '@/lib/server/http/api-schemas';
import { taskPlacement } from '@/lib/server/presenters/task-placement-presenter';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read batches', async ({ req, db, params }) => {
  const q = parseQuery(req, taskPlacementQuerySchema);
  return taskPlacement(db, params.id, { batches: q.batches });
});
