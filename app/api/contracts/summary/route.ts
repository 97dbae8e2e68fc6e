import { apiRoute } from '@/lib/server/http/api-handler';
import { countAtLeastOnce } from '@/lib/server/contracts/contract-audit-presenter';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'read the contract audit', async ({ db }) => ({ atLeastOnce: await countAtLeastOnce(db) }));
