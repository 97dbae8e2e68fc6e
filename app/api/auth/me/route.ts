import { apiRoute } from '@/lib/server/api-handler';

export const dynamic = 'force-dynamic';

export const GET = apiRoute('viewer', 'see who is signed in', async ({ principal }) => ({ actor: principal.actor, role: principal.role, via: principal.via }));
