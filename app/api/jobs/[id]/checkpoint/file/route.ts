import { env } from '@/lib/env';
import { apiRoute, parseQuery } from '@/lib/server/http/api-handler';
import { checkpointFileQuerySchema } from '@/lib/server/http/api-schemas';
import { readCheckpointFile } from '@/lib/server/presenters/checkpoint-presenter';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'inspect checkpoints', async ({ req, db, params }) => readCheckpointFile(db, params.id, parseQuery(req, checkpointFileQuerySchema).path, env().checkpointRoot));
