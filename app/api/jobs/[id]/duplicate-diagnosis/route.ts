import { env } from '@/lib/env';
import { apiRoute } from '@/lib/server/http/api-handler';
import { diagnoseDuplicates } from '@/lib/server/contracts/duplicate-diagnosis';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read the duplicate diagnosis', async ({ db, params }) => diagnoseDuplicates(db, params.id, env().checkpointRoot));
