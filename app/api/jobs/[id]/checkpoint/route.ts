import { env } from '@/lib/env';
import { apiRoute } from '@/lib/server/http/api-handler';
import { checkpointTree } from '@/lib/server/presenters/checkpoint-presenter';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'inspect checkpoints', async ({ db, params }) => checkpointTree(db, params.id, env().checkpointRoot, { workerTimeoutMs: env().WEIR_WORKER_TIMEOUT_MS }));
