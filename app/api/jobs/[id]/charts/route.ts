/**
 * GET /api/jobs/:id/charts?from=&to=&points= — the job page's chart series, downsampled in
 * PostgreSQL to at most `points` (default 300, at most 2000) buckets over the batches whose
 * trigger time is within [from, to] (epoch ms, both optional). Viewer role.
 * Response: BatchCharts (lib/server/presenters/batch-chart-presenter.ts).
 */
import { z } from 'zod';
import { apiRoute, parseQuery } from '@/lib/server/http/api-handler';
import { batchCharts } from '@/lib/server/presenters/batch-chart-presenter';
import { findJobOrThrow } from '@/lib/server/job-view';

export const dynamic = 'force-dynamic';

const chartsQuerySchema = z.object({
  from: z.coerce.number().int().nonnegative().optional(),
  to: z.coerce.number().int().nonnegative().optional(),
  points: z.coerce.number().int().min(1).max(2000).optional(),
});

export const GET = apiRoute('viewer', 'read batch charts', async ({ req, db, params }) => {
  const q = parseQuery(req, chartsQuerySchema);
  await findJobOrThrow(db, params.id);
  return batchCharts(db, params.id, { fromMs: q.from, toMs: q.to, maxPoints: q.points });
});
