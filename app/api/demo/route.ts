import { env, databaseUrl } from '@/lib/env';
import { apiRoute, jobServiceContext, parseBody } from '@/lib/server/http/api-handler';
import { demoInputSchema } from '@/lib/server/http/api-schemas';
import { addDemoOrders, demoStatus, loseDemoCheckpoint, setupDemo } from '@/lib/server/demo/demo-service';

export const dynamic = 'force-dynamic';

const demoConfig = () => ({ filesRoot: env().filesRoots[0], databaseUrl: databaseUrl(), checkpointRoot: env().checkpointRoot });

export const GET = apiRoute('viewer', 'read the demo', async (ctx) => demoStatus(ctx.db, demoConfig()));

/**
 * Sets up and starts the demo jobs (admins: it creates jobs); `{ addFiles: n }` adds more orders;
 * `{ loseCheckpoint: true }` resets the bare-append job's checkpoint and starts it again.
 */
export const POST = apiRoute('admin', 'set up the demo', async (ctx) => {
  const body = await parseBody(ctx.req, demoInputSchema);
  if (body.addFiles) return { orders: addDemoOrders(demoConfig(), body.addFiles) };
  if (body.loseCheckpoint) return loseDemoCheckpoint(jobServiceContext(ctx));
  return setupDemo(jobServiceContext(ctx), demoConfig());
});
