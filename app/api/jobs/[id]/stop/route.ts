import { apiRoute, jobServiceContext } from '@/lib/server/http/api-handler';
import { stopJob } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('operator', 'stop jobs', async (ctx) => stopJob(jobServiceContext(ctx), ctx.params.id));
