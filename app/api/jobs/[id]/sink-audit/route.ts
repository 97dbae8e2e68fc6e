import { apiRoute } from '@/lib/server/http/api-handler';
import { jobSinkAudit } from '@/lib/server/drills/drill-service';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read the sink audit', async (ctx) => jobSinkAudit(ctx.db, ctx.params.id));
