import { apiRoute, jobServiceContext } from '@/lib/server/http/api-handler';
import { startJob } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('operator', 'start jobs', async (ctx) => startJob(jobServiceContext(ctx), ctx.params.id));
