import { publicRoute } from '@/lib/server/http/api-handler';
import { authenticate, clearedSessionCookie, signOut } from '@/lib/server/auth';
import { recordAudit } from '@/lib/server/services/audit-service';

export const dynamic = 'force-dynamic';

/** Ends the session (if any) and clears the cookie; always 200, so it is safe to repeat. */
export const POST = publicRoute(async ({ req, db }) => {
  const who = await authenticate(db, req, { sameOrigin: false }).catch(() => undefined);
  await signOut(db, req);
  if (who?.via === 'session') await recordAudit(db, who, { action: 'session.signout', targetType: 'session', targetId: who.sessionId });
  return Response.json({ ok: true }, { headers: { 'set-cookie': clearedSessionCookie() } });
});
