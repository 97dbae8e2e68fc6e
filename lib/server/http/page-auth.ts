/**
 * Pages (jobs, job pages, alerts, the demo) show the same data the API gives a viewer, so they
 * need the same sign-in. A server component has no Request, so the incoming
 * headers (session cookie or bearer token) are handed to the API's own `authenticate`; without
 * a principal the page sends the browser to /signin and back here afterwards. A user signed in
 * with a one-time password is sent to set their own first, and back here afterwards.
 */
// Never in a browser bundle: a client component importing this fails the build.
import 'server-only';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { authenticate, CHANGE_PASSWORD_PAGE, type Principal } from '@/lib/server/auth';
import { prisma } from '@/lib/server/db';
import { UnauthenticatedError } from '@/lib/server/errors';
import { installOutboundPolicy } from '@/lib/server/outbound';

export async function requirePagePrincipal(returnTo: string): Promise<Principal> {
  // A page may read a job's S3 checkpoint: its connections obey the outbound policy, as the API's do.
  installOutboundPolicy();
  const h = await headers();
  let p: Principal | undefined;
  try {
    p = await authenticate(prisma(), new Request(`http://${h.get('host') ?? 'localhost'}${returnTo}`, { headers: h }));
  } catch (e) {
    // A revoked or unknown bearer token: same as no credentials, sign in again.
    if (!(e instanceof UnauthenticatedError)) throw e;
  }
  if (!p) redirect(`/signin?next=${encodeURIComponent(returnTo)}`);
  if (p.mustChangePassword && returnTo !== CHANGE_PASSWORD_PAGE) redirect(`${CHANGE_PASSWORD_PAGE}?next=${encodeURIComponent(returnTo)}`);
  return p;
}

/**
 * Who the navigation is for, without redirecting: undefined when nobody is signed in (no
 * cookie, or an expired or ended session). The navigation then asks the API nothing, since each
 * question could only be answered 401 and logged as an error in the browser's console. Any
 * failure (the database restarting) counts as signed out: the page itself says what is wrong.
 */
export async function navPrincipal(): Promise<Principal | undefined> {
  const h = await headers();
  if (!h.get('cookie') && !h.get('authorization')) return undefined;
  try {
    return await authenticate(prisma(), new Request(`http://${h.get('host') ?? 'localhost'}/`, { headers: h }));
  } catch {
    return undefined;
  }
}
