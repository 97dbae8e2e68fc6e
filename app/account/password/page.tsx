import { redirect } from 'next/navigation';
import { CHANGE_PASSWORD_PAGE } from '@/lib/server/auth';
import { requirePagePrincipal } from '@/lib/server/http/page-auth';
import { PasswordForm } from './password-form';
import { actorName } from '@/lib/server/actor';

export const dynamic = 'force-dynamic';

/** Set your own password: where every page leads a user who signed in with a one-time password. */
export default async function PasswordPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  const p = await requirePagePrincipal(CHANGE_PASSWORD_PAGE);
  // An API token's session has no password to change.
  if (!p.userId) redirect('/');
  const name = actorName(p.actor);
  return (
    <>
      <h1>{p.mustChangePassword ? 'Choose your password' : 'Change your password'}</h1>
      <p className="subtitle">
        {p.mustChangePassword
          ? `You signed in as ${name} with the one-time password npm start printed. Choose your own to continue: the one-time password stops working.`
          : `Signed in as ${name}. Your other sessions are signed out when the password changes.`}
      </p>
      <PasswordForm next={next} oneTime={p.mustChangePassword === true} />
    </>
  );
}
