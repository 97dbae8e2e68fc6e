import { apiRoute, jobServiceContext } from '@/lib/server/http/api-handler';
import { restartJob } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

export const POST = apiRoute('operator', 'restart jobs', async (ctx) => restartJob(jobServiceContext(ctx), ctx.params.id));
