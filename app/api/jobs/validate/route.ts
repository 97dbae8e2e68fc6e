import { env } from '@/lib/env';
import { apiRoute, parseBody } from '@/lib/server/http/api-handler';
import { validateInputSchema } from '@/lib/server/http/api-schemas';
import { validateSpec } from '@/lib/server/services/job-service';

export const dynamic = 'force-dynamic';

/** The engine's analysis and the exactly-once contract, without saving; 200 either way (`ok` says). */
export const POST = apiRoute('viewer', 'validate job specs', async ({ req }) => {
  const { spec } = await parseBody(req, validateInputSchema);
  const { ok, errors, warnings, explain, outputSchema, outputColumns, contract } = validateSpec(spec, env());
  return { ok, errors, warnings, explain, outputSchema, outputColumns, contract, guarantee: contract?.guarantee ?? null };
});
