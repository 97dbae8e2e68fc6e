import { apiRoute, parseBody } from '@/lib/server/http/api-handler';
import { changePasswordSchema } from '@/lib/server/http/api-schemas';
import { changePassword } from '@/lib/server/auth';
import { recordAudit } from '@/lib/server/services/audit-service';

export const dynamic = 'force-dynamic';

/** The signed-in user sets their own password (the first start's one-time password is replaced here). */
export const POST = apiRoute(
  'viewer',
  'change their password',
  async ({ req, db, principal }) => {
    await changePassword(db, principal, await parseBody(req, changePasswordSchema));
    await recordAudit(db, principal, { action: 'user.password.change', targetType: 'user', targetId: principal.userId, after: { replacedOneTimePassword: principal.mustChangePassword === true } });
    return { ok: true };
  },
  { duringPasswordChange: true },
);
