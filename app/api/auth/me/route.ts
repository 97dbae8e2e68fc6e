import { apiRoute } from '@/lib/server/http/api-handler';
import { actorName } from '@/lib/server/actor';

export const dynamic = 'force-dynamic';

export const GET = apiRoute(
  'viewer',
  'see who is signed in',
  async ({ principal }) => ({
    actor: principal.actor,
    role: principal.role,
    via: principal.via,
    // What a person reads: the username, or the API token's name (actor carries a prefix for the audit log).
    name: actorName(principal.actor),
    mustChangePassword: principal.mustChangePassword === true,
  }),
  { duringPasswordChange: true },
);
