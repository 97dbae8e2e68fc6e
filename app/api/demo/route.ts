import { z } from 'zod';
import { env, databaseUrl } from '@/lib/env';
import { apiRoute, jobServiceContext, parseBody } from '@/lib/server/http/api-handler';
import { addDemoOrders, demoStatus, setupDemo } from '@/lib/server/demo/demo-service';

export const dynamic = 'force-dynamic';

const demoConfig = () => ({ filesRoot: env().filesRoots[0], databaseUrl: databaseUrl() });

export const GET = apiRoute('viewer', 'read the demo', async (ctx) => demoStatus(ctx.db, demoConfig()));

/** Sets up and starts the demo jobs (admins: it creates jobs); `{ addFiles: n }` adds more orders. */
export const POST = apiRoute('admin', 'set up the demo', async (ctx) => {
  const body = await parseBody(ctx.req, z.object({ addFiles: z.number().int().min(1).max(100).optional() }));
  if (body.addFiles) return { orders: addDemoOrders(demoConfig(), body.addFiles) };
  return setupDemo(jobServiceContext(ctx), demoConfig());
});
