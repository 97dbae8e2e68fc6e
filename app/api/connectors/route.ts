import { apiRoute } from '@/lib/server/http/api-handler';
import { env } from '@/lib/env';
import { connectorCatalog } from '@/lib/server/connector-catalog';

export const dynamic = 'force-dynamic';

/** The source and sink types a job can use, each with its options as fields (the editor's forms). */
export const GET = apiRoute('viewer', 'list connectors', async () => connectorCatalog(env().filesRoots));
