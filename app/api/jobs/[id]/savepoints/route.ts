/**
 * GET /api/jobs/:id/savepoints — the job's savepoints, newest first (viewer).
 * POST /api/jobs/:id/savepoints {name?} — a consistent copy of a stopped job's checkpoint at its
 * last commit, with every file's checksum (operator; audited). See savepoint-service.ts.
 */
import { env } from '@/lib/env';
import { apiRoute, parseBody } from '@/lib/server/http/api-handler';
import { createSavepointSchema } from '@/lib/server/http/api-schemas';
import { createSavepoint, listSavepoints } from '@/lib/server/services/savepoint-service';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'list savepoints', async ({ db, params }) => ({ items: await listSavepoints(db, params.id) }));

export const POST = apiRoute('operator', 'take savepoints', async ({ req, db, principal, params }) => {
  const input = await parseBody(req, createSavepointSchema);
  return Response.json(await createSavepoint({ db, principal, checkpointRoot: env().checkpointRoot }, params.id, input), { status: 201 });
});
