import { z } from 'zod';
import { apiRoute, parseBody } from '@/lib/server/http/api-handler';
import { DRILL_POINTS, listDrills, requestDrill } from '@/lib/server/drills/drill-service';

export const dynamic = 'force-dynamic';

const drillInputSchema = z.object({ point: z.enum(DRILL_POINTS) });

export const GET = apiRoute('viewer', 'read drills', async (ctx) => ({ items: await listDrills(ctx.db, ctx.params.id) }));

export const POST = apiRoute('operator', 'run incident drills', async (ctx) => {
  const { point } = await parseBody(ctx.req, drillInputSchema);
  return Response.json(await requestDrill(ctx.db, ctx.principal, ctx.params.id, point), { status: 201 });
});
