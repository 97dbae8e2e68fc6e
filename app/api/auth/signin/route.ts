import { parseBody, publicRoute } from '@/lib/server/http/api-handler';
import { signInSchema } from '@/lib/server/http/api-schemas';
import { sessionCookie, signIn } from '@/lib/server/auth';
import { recordAudit } from '@/lib/server/services/audit-service';

export const dynamic = 'force-dynamic';

/** With an API token or a username and password; sets the HttpOnly session cookie. */
export const POST = publicRoute(async ({ req, db }) => {
  const { sessionToken, principal, expiresAt } = await signIn(db, await parseBody(req, signInSchema));
  await recordAudit(db, principal, { action: 'session.signin', targetType: 'session', targetId: principal.sessionId });
  return Response.json(
    { actor: principal.actor, role: principal.role, expiresAt: expiresAt.toISOString(), mustChangePassword: principal.mustChangePassword === true },
    { headers: { 'set-cookie': sessionCookie(req, sessionToken, expiresAt) } },
  );
});
